package listwatch

import (
	"fmt"
	"strconv"
	"sync/atomic"

	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/tools/cache"
)

// Client keeps a local, indexed copy of one collection in step with the
// server: a paged LIST (or a watch-list), then a WATCH from the list's RV,
// resumed from its last RV after a break and re-listed only after 410. See
// the package documentation for its guarantees.
//
// Lifecycle: New → Run(ctx) in a goroutine → cancel ctx; Run returns once
// every request, stream and goroutine it started has ended. Indexer,
// HasSynced and LastSyncResourceVersion are safe to call from any goroutine
// at any time.
type Client struct {
	lw    ListerWatcher
	opts  Options
	store cache.Indexer

	// running is set by the first Run; a second Run panics.
	running atomic.Bool
	// synced is set once the first list is in the store and its handler
	// calls have returned.
	synced atomic.Bool
	// rv is the client's resourceVersion: the RV at which the store is known
	// to equal the server's state. 0 until the first list. Only Run's
	// goroutine writes it, and it never decreases.
	rv atomic.Uint64

	// Fields below are owned by Run's goroutine.

	// backoff is the current backoff state; a productive watch resets it.
	backoff wait.Backoff
	// watchListRefused is set when the server refused a watch-list.
	watchListRefused bool
}

// New returns a client that lists and watches through lw. It does no I/O
// until [Client.Run].
func New(lw ListerWatcher, opts Options) *Client {
	opts = opts.withDefaults()
	return &Client{
		lw:      lw,
		opts:    opts,
		store:   cache.NewIndexer(opts.KeyFunc, opts.Indexers),
		backoff: opts.Backoff,
	}
}

// Indexer is the client's local store: thread-safe, read-only for callers
// (writing to it corrupts the client's view). Objects in it are shared with
// handlers and must not be modified.
func (c *Client) Indexer() cache.Indexer { return c.store }

// HasSynced reports whether the first list has been stored and handed to the
// handler. It never goes back to false.
func (c *Client) HasSynced() bool { return c.synced.Load() }

// LastSyncResourceVersion is the RV up to which the store reflects the
// server: "" before the first list. While a handler runs, it is the RV of
// the change being delivered (for a relist, the list's RV). It never
// decreases.
func (c *Client) LastSyncResourceVersion() string { return formatRV(c.rv.Load()) }

// setRV advances the client's RV; it refuses to move it backwards, which
// would break guarantee 2 (callers check before, so this is an invariant).
func (c *Client) setRV(rv uint64) {
	if cur := c.rv.Load(); rv < cur {
		panic(fmt.Sprintf("listwatch: resourceVersion would go backwards: %d < %d", rv, cur))
	}
	c.rv.Store(rv)
}

// trace stamps e with the time and the client's RV and hands it to the sink.
func (c *Client) trace(e TraceEvent) {
	e.Time = c.opts.Clock.Now()
	e.RV = c.LastSyncResourceVersion()
	c.opts.Trace(e)
}

// parseRV parses a resourceVersion. RVs are opaque by contract, but
// client-go and the apiserver both parse them as uint64 (k8s.io/apiserver
// pkg/storage/api_object_versioner.go ParseResourceVersion), and the
// client needs an order to keep guarantee 2.
func parseRV(s string) (uint64, error) {
	if s == "" {
		return 0, nil
	}
	rv, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%w: %q", ErrInvalidResourceVersion, s)
	}
	return rv, nil
}

// formatRV is parseRV's inverse; 0 is "".
func formatRV(rv uint64) string {
	if rv == 0 {
		return ""
	}
	return strconv.FormatUint(rv, 10)
}
