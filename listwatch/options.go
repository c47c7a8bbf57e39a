package listwatch

import (
	"math/rand/v2"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/clock"
)

const (
	// defaultPageSize is client-go's pager default (tools/pager/pager.go
	// defaultPageSize): big enough to keep round trips few, small enough to
	// keep one response well under the apiserver's limits.
	defaultPageSize = 500
	// defaultMinWatchTimeout is the Reflector's minWatchTimeout: each watch
	// asks the server for timeoutSeconds in [min, 2·min), so a fleet of
	// clients does not reconnect in lockstep (reflector.go).
	defaultMinWatchTimeout = 5 * time.Minute
	// healthyWatchDuration is how long a watch must have lasted, if it
	// delivered nothing, for the next re-watch to skip the backoff. It is the
	// Reflector's "very short watch" threshold (reflector.go, handleAnyWatch).
	healthyWatchDuration = time.Second
	// watchDeadlineGrace is how long past its timeoutSeconds the client
	// still waits for the server to end a watch before it ends the watch
	// itself. A healthy server ends it at timeoutSeconds; one that does not
	// has hung (a stalled proxy, a half-open connection), and without this
	// the client would wait forever, as client-go's Reflector does.
	watchDeadlineGrace = 30 * time.Second
)

// DefaultBackoff is the Reflector's backoff (reflector.go,
// NewReflectorWithOptions): 0.8 s doubling up to 30 s, with jitter 1.0, so
// each delay is drawn from [d, 2d). Steps is large enough that the cap is
// always reached rather than the step count.
var DefaultBackoff = wait.Backoff{Duration: 800 * time.Millisecond, Factor: 2, Jitter: 1, Steps: 1 << 20, Cap: 30 * time.Second}

// Options configures a [Client]. The zero value is valid; every field
// documents its default.
type Options struct {
	// PageSize is the limit of each page of a LIST. If zero, 500 (client-go's
	// pager default). Negative means no paging (one full LIST).
	PageSize int64
	// WatchList starts (and restarts after 410) with a streaming list —
	// a watch with sendInitialEvents=true, resourceVersionMatch=NotOlderThan
	// and allowWatchBookmarks=true — instead of a paged LIST. If the server
	// refuses it (any 4xx other than 410 or 429, as an HTTP error or an
	// ERROR event before the initial-events-end bookmark), the client falls
	// back to LIST+WATCH for the rest of its run. Default false.
	WatchList bool
	// Handler receives OnAdd, OnUpdate and OnDelete from the goroutine that
	// runs [Client.Run], one call at a time, after the store was updated.
	// It must not block for long: the client reads no further events while
	// it runs. Optional.
	Handler cache.ResourceEventHandler
	// Indexers are the store's indexers. Optional.
	Indexers cache.Indexers
	// KeyFunc maps an object to its store key. If nil,
	// cache.MetaNamespaceKeyFunc ("namespace/name").
	KeyFunc cache.KeyFunc
	// Clock times backoffs and watch durations. If nil, the real clock;
	// tests pass a k8s.io/utils/clock/testing fake clock.
	Clock clock.Clock
	// Backoff shapes the delay before a retry after an unproductive attempt
	// (see [Client.Run]). If zero, [DefaultBackoff]. Each delay is at most
	// Cap·(1+Jitter); a productive watch resets it.
	Backoff wait.Backoff
	// MinWatchTimeout: each watch asks the server for timeoutSeconds drawn
	// from [MinWatchTimeout, 2·MinWatchTimeout). If zero, 5 minutes, as the
	// Reflector.
	MinWatchTimeout time.Duration
	// Trace receives every decision the client makes (see [TraceEvent]), on
	// the goroutine that runs [Client.Run]. Optional.
	Trace func(TraceEvent)
	// Rand draws the watch timeouts and the backoff jitter, on the
	// goroutine that runs [Client.Run]. If nil, math/rand/v2's global
	// source, so no two runs draw alike; a test that replays a seed (on a
	// fake clock or in a testing/synctest bubble) passes a seeded one.
	Rand *rand.Rand
}

// withDefaults returns o with every zero field set to its default.
func (o Options) withDefaults() Options {
	if o.PageSize == 0 {
		o.PageSize = defaultPageSize
	}
	if o.KeyFunc == nil {
		o.KeyFunc = cache.MetaNamespaceKeyFunc
	}
	if o.Indexers == nil {
		o.Indexers = cache.Indexers{}
	}
	if o.Clock == nil {
		o.Clock = clock.RealClock{}
	}
	if o.Backoff == (wait.Backoff{}) {
		o.Backoff = DefaultBackoff
	}
	if o.MinWatchTimeout == 0 {
		o.MinWatchTimeout = defaultMinWatchTimeout
	}
	if o.Handler == nil {
		o.Handler = cache.ResourceEventHandlerFuncs{}
	}
	if o.Trace == nil {
		o.Trace = func(TraceEvent) {}
	}
	return o
}
