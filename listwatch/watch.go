package listwatch

import (
	"context"
	"math/rand/v2"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
)

// stream is one open watch and what is needed to end it.
type stream struct {
	w       watch.Interface
	cancel  context.CancelFunc
	started time.Time
	// timeout is the timeoutSeconds the server was asked for.
	timeout time.Duration
}

// stop ends the watch and joins its goroutine: client-go's StreamWatcher
// closes its result channel only once its receive goroutine returns, so
// draining the channel after Stop waits for that goroutine
// ([ListerWatcher] requires every watch to close its channel when stopped).
func (s *stream) stop() {
	s.cancel()
	s.w.Stop()
	for range s.w.ResultChan() {
	}
}

// openWatch starts a watch with opts under a context of its own.
func (c *Client) openWatch(ctx context.Context, opts metav1.ListOptions) (*stream, error) {
	extra := rand.N(c.opts.MinWatchTimeout)
	if c.opts.Rand != nil {
		extra = time.Duration(c.opts.Rand.Int64N(int64(c.opts.MinWatchTimeout)))
	}
	timeout := int64((c.opts.MinWatchTimeout + extra) / time.Second)
	opts.TimeoutSeconds = &timeout
	opts.AllowWatchBookmarks = true
	wctx, cancel := context.WithCancel(ctx)
	w, err := c.lw.Watch(wctx, opts)
	if err != nil {
		cancel()
		return nil, err
	}
	return &stream{w: w, cancel: cancel, started: c.opts.Clock.Now(), timeout: time.Duration(timeout) * time.Second}, nil
}

// watch follows s, or a new watch from the client's RV if s is nil, until
// it ends, and says what to do next.
func (c *Client) watch(ctx context.Context, s *stream) outcome {
	if s == nil {
		var err error
		rv := c.LastSyncResourceVersion()
		c.trace(TraceEvent{Kind: TraceWatchStart, Reason: "resume from rv " + rv})
		if s, err = c.openWatch(ctx, metav1.ListOptions{ResourceVersion: rv}); err != nil {
			return c.ended(err, false, "watch request failed")
		}
	}
	defer s.stop()
	// The server ends the stream at timeoutSeconds; a stream still open
	// well past that has hung, and is ended here and resumed.
	deadline := c.opts.Clock.NewTimer(s.timeout + watchDeadlineGrace - c.opts.Clock.Since(s.started))
	defer deadline.Stop()
	advanced := false
	for {
		select {
		case <-ctx.Done():
			return outcome{next: rewatch, productive: true}
		case <-deadline.C():
			return c.ended(nil, true, "stream closed by the client: no end of stream by timeoutSeconds plus grace")
		case ev, ok := <-s.w.ResultChan():
			if !ok {
				healthy := advanced || c.opts.Clock.Since(s.started) >= healthyWatchDuration
				return c.ended(nil, healthy, "stream closed")
			}
			if ev.Type == watch.Error {
				return c.ended(apierrors.FromObject(ev.Object), advanced, "ERROR event")
			}
			if c.apply(ev) {
				advanced = true
			}
		}
	}
}

// ended traces the end of a watch and turns it into an outcome. A stream
// that simply closed (EOF, reset, server timeout) is resumed from the
// client's RV.
func (c *Client) ended(err error, productive bool, how string) outcome {
	out := outcome{next: rewatch, productive: productive, err: err, reason: how}
	if err != nil {
		var why string
		out.next, why = classify(err)
		out.reason = how + ": " + why
	}
	c.trace(TraceEvent{Kind: TraceWatchEnd, Reason: out.reason, Err: err})
	if out.next == relist {
		c.trace(TraceEvent{Kind: TraceRelist, Reason: out.reason, Err: err})
	}
	return out
}

// apply applies one ADDED, MODIFIED, DELETED or BOOKMARK event and reports
// whether it advanced the client's RV. Every event must carry an RV above
// the client's: that single check makes each version arrive at most once
// and in order (guarantee 2), whatever the server replays.
func (c *Client) apply(ev watch.Event) bool {
	e := TraceEvent{Kind: TraceSkipped, EventType: string(ev.Type)}
	acc, err := meta.Accessor(ev.Object)
	if err != nil {
		e.Reason, e.Err = "object without metadata", err
		c.trace(e)
		return false
	}
	e.ObjectRV = acc.GetResourceVersion()
	rv, err := parseRV(e.ObjectRV)
	switch {
	case err != nil:
		e.Reason, e.Err = "unparsable resourceVersion", err
	case rv <= c.rv.Load():
		e.Reason = "not newer than the client's resourceVersion"
	case ev.Type == watch.Bookmark:
		c.setRV(rv)
		c.trace(TraceEvent{Kind: TraceBookmark, ObjectRV: e.ObjectRV})
		return true
	case ev.Type == watch.Added || ev.Type == watch.Modified || ev.Type == watch.Deleted:
		c.applyObject(ev.Type, ev.Object, rv)
		return true
	default:
		e.Reason = "unknown event type"
	}
	c.trace(e)
	return false
}

// applyObject updates the store, advances the RV, then calls the handler.
// ADDED and MODIFIED are told apart by the store, not the event type: after
// a relist the server's view of "new" may differ from the client's.
func (c *Client) applyObject(typ watch.EventType, obj runtime.Object, rv uint64) {
	e := TraceEvent{Kind: TraceApplied, EventType: string(typ), ObjectRV: formatRV(rv)}
	key, err := c.opts.KeyFunc(obj)
	if err != nil {
		c.setRV(rv)
		e.Kind, e.Reason, e.Err = TraceSkipped, "no key", err
		c.trace(e)
		return
	}
	e.Key = key
	old, exists, _ := c.store.GetByKey(key)
	switch {
	case typ == watch.Deleted && !exists:
		c.setRV(rv)
		e.Kind, e.Reason = TraceSkipped, "delete of an object never seen"
	case typ == watch.Deleted:
		_ = c.store.Delete(obj) // the indexer's Delete fails only on a key error, ruled out above
		c.setRV(rv)
		c.opts.Handler.OnDelete(obj)
	case exists:
		_ = c.store.Update(obj)
		c.setRV(rv)
		c.opts.Handler.OnUpdate(old, obj)
		e.EventType = string(watch.Modified)
	default:
		_ = c.store.Add(obj)
		c.setRV(rv)
		c.opts.Handler.OnAdd(obj, false)
		e.EventType = string(watch.Added)
	}
	c.trace(e)
}
