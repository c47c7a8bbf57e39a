package fakeapiserver

import (
	"sync"
	"sync/atomic"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/utils/clock"
)

// watchHub is the per-server state the watch streams share: the encoded
// events, the watch window's clock readings and the counters. Watch streams
// never wait for each other on it: every lock is held for a map lookup.
type watchHub struct {
	cfg     WatchConfig
	encoded *encodeCache
	window  *watchWindow
	// batches are the streams' batch buffers (watch_batch.go).
	batches sync.Pool

	started, active, sent, expired, slow, staleDropped atomic.Int64

	// mu guards the fields below.
	mu sync.Mutex
	// relisted is closed by CompactWatchHistory to end every open watch,
	// then replaced.
	relisted chan struct{}
	// slowEnded holds the Audit-Ids of the watches the slow-consumer rule
	// ended (one entry per such watch, for the server's life: they are
	// few, a server that ends thousands is a test of that).
	slowEnded map[string]bool
}

// endedSlow counts a watch ended by the slow-consumer rule and notes its
// Audit-Id, before the response ends.
func (h *watchHub) endedSlow(auditID string) {
	h.slow.Add(1)
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.slowEnded == nil {
		h.slowEnded = map[string]bool{}
	}
	h.slowEnded[auditID] = true
}

// wasSlow reports whether endedSlow noted auditID.
func (h *watchHub) wasSlow(auditID string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.slowEnded[auditID]
}

// relistChan returns the channel the next watch-cache re-list closes.
func (h *watchHub) relistChan() <-chan struct{} {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.relisted
}

// endAll ends every open watch, silently, as a watch-cache re-list does.
func (h *watchHub) endAll() {
	h.mu.Lock()
	defer h.mu.Unlock()
	close(h.relisted)
	h.relisted = make(chan struct{})
}

// newWatchHub builds the hub of a server; zero fields of cfg get their
// defaults.
func newWatchHub(cfg WatchConfig, clk clock.PassiveClock) *watchHub {
	cfg = cfg.withDefaults()
	return &watchHub{
		cfg:      cfg,
		encoded:  newEncodeCache(cfg.EncodeCacheEntries),
		window:   newWatchWindow(cfg, clk),
		relisted: make(chan struct{}),
	}
}

// stats reads the counters.
func (h *watchHub) stats() WatchStats {
	return WatchStats{
		Started:        h.started.Load(),
		Active:         h.active.Load(),
		EventsSent:     h.sent.Load(),
		Encodings:      h.encoded.encodings.Load(),
		Expired:        h.expired.Load(),
		SlowTerminated: h.slow.Load(),
		StaleDropped:   h.staleDropped.Load(),
	}
}

// encodeKey names one encoded watch event. RVs are global and every write
// takes its own, so (rv, type) fixes the object: ADDED and MODIFIED carry
// the object written at rv; DELETED carries the deleted object (a delete at
// rv) or the previous state restamped with rv (an update that leaves a
// selection), never both for one rv. The rest is how it is rendered.
type encodeKey struct {
	res        *resourceInfo
	rv         int64
	typ        watch.EventType
	initialEnd bool // the annotated initial-events-end BOOKMARK
	mediaType  string
	target     outputTarget
	targetGV   schema.GroupVersion
	include    metav1.IncludeObjectPolicy
	// headers is set for a Table with column definitions (a Table
	// watch's first event); ageSecond is the server clock's second a
	// Table's ages were computed in (zero for the other forms).
	headers   bool
	ageSecond int64
}

// encodeEntry is one cached encoding; once makes concurrent watchers that
// miss together wait for a single encoding instead of each doing it.
type encodeEntry struct {
	once sync.Once
	data []byte
	err  error
}

// encodeCache is a bounded FIFO cache of encoded watch events. FIFO rather
// than LRU: watchers read events in RV order, so the oldest entry is the one
// least likely to be wanted again. Kube-apiserver gets the same effect from
// cachingObject, which memoises an object's encoding per serializer for all
// watchers (apiserver pkg/storage/cacher/caching_object.go).
type encodeCache struct {
	encodings atomic.Int64

	// mu guards the fields below.
	mu      sync.Mutex
	entries map[encodeKey]*encodeEntry
	ring    []encodeKey // insertion order; a zero key is an empty slot
	next    int
}

func newEncodeCache(size int) *encodeCache {
	return &encodeCache{entries: make(map[encodeKey]*encodeEntry, size), ring: make([]encodeKey, size)}
}

// get returns the encoding of key, calling encode at most once per key while
// it stays cached. The returned bytes are shared: callers must not modify
// them.
func (c *encodeCache) get(key *encodeKey, encode func() ([]byte, error)) ([]byte, error) {
	c.mu.Lock()
	e, ok := c.entries[*key]
	if !ok {
		e = &encodeEntry{}
		if old := c.ring[c.next]; old.res != nil {
			delete(c.entries, old)
		}
		c.ring[c.next] = *key
		c.next = (c.next + 1) % len(c.ring)
		c.entries[*key] = e
	}
	c.mu.Unlock()
	e.once.Do(func() {
		c.encodings.Add(1)
		e.data, e.err = encode()
	})
	return e.data, e.err
}
