package listwatch

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
)

// watchList syncs the store with a streaming list (as client-go
// tools/cache/reflector.go watchList does): one watch
// with sendInitialEvents=true, resourceVersionMatch=NotOlderThan and
// allowWatchBookmarks=true from RV "" (a consistent start, as list uses).
// The server sends ADDED for every object, then a BOOKMARK annotated
// k8s.io/initial-events-end whose RV is the snapshot's; the events are
// collected apart and diffed into the store at that bookmark, exactly like a
// LIST. The same stream is then returned, to be followed as the watch.
//
// A 4xx refusal (other than 410/429) before the bookmark, as an HTTP error
// or an ERROR event, returns an error wrapping ErrWatchListRefused.
// Unlike the Reflector, a stream that ends early is retried only after a
// backoff (the caller's), never in a tight loop.
func (c *Client) watchList(ctx context.Context) (*stream, error) {
	send := true
	c.trace(TraceEvent{Kind: TraceWatchStart, Reason: "watch-list (sendInitialEvents)"})
	s, err := c.openWatch(ctx, metav1.ListOptions{
		SendInitialEvents:    &send,
		ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan,
	})
	if err != nil {
		return nil, watchListError(err)
	}
	if err := c.collectInitialEvents(ctx, s); err != nil {
		s.stop()
		return nil, err
	}
	return s, nil
}

// collectInitialEvents reads s up to the initial-events-end bookmark and
// replaces the store with what it read.
func (c *Client) collectInitialEvents(ctx context.Context, s *stream) error {
	var keys []string
	objs := map[string]runtime.Object{}
	for {
		var ev watch.Event
		var ok bool
		select {
		case <-ctx.Done():
			return ctx.Err()
		case ev, ok = <-s.w.ResultChan():
		}
		if !ok {
			return ErrNoInitialEventsEnd
		}
		switch ev.Type {
		case watch.Error:
			return watchListError(apierrors.FromObject(ev.Object))
		case watch.Bookmark:
			acc, err := meta.Accessor(ev.Object)
			if err != nil {
				return fmt.Errorf("watch-list bookmark: %w", err)
			}
			if acc.GetAnnotations()[metav1.InitialEventsAnnotationKey] != "true" {
				continue
			}
			items := make([]runtime.Object, 0, len(keys))
			for _, k := range keys {
				if o, ok := objs[k]; ok {
					items = append(items, o)
				}
			}
			c.trace(TraceEvent{Kind: TracePage, ListRV: acc.GetResourceVersion(), Items: len(items), Reason: "watch-list initial events"})
			return c.replace(items, acc.GetResourceVersion())
		default:
			key, err := c.opts.KeyFunc(ev.Object)
			if err != nil {
				return fmt.Errorf("watch-list %s event: %w", ev.Type, err)
			}
			if _, seen := objs[key]; !seen {
				keys = append(keys, key)
			}
			objs[key] = ev.Object
			if ev.Type == watch.Deleted {
				delete(objs, key)
			}
		}
	}
}

// watchListError marks a refusal with ErrWatchListRefused.
func watchListError(err error) error {
	if isRefusal(err) {
		return fmt.Errorf("%w: %w", ErrWatchListRefused, err)
	}
	return fmt.Errorf("watch-list: %w", err)
}
