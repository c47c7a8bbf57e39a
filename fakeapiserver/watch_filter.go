package fakeapiserver

import (
	"strings"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/lw-sim/lw-sim/fakeapiserver/store"
)

// visible returns the event type a watcher with this scope and these
// selectors receives for a store event, or "" for none, and the object it
// sends when that is not the event's own:
//
//	old matches  new matches  emitted
//	no           yes          ADDED (new)
//	yes          yes          MODIFIED (new)
//	yes          no/deleted   DELETED (old content, the event's RV)
//	no           no           nothing
//
// The object is nil when the event's own goes out (ev.Encodings, as
// stored, a delete's copy included): then it is read only if its encoding
// is not cached (outEvent.object), so a watch without selectors decodes
// no stored object to send its cached encoding. A DELETED of an object
// leaving the selection carries a copy of its previous content.
func (w *watchStream) visible(ev *store.Event) (watch.EventType, runtime.Object) {
	oldMatch := ev.Prev != nil && w.matches(ev.Key, ev.Prev)
	if ev.Type == watch.Deleted {
		if oldMatch {
			return watch.Deleted, nil
		}
		return "", nil
	}
	newMatch := w.matches(ev.Key, ev.Encodings)
	switch {
	case newMatch && oldMatch:
		return watch.Modified, nil
	case newMatch:
		return watch.Added, nil
	case oldMatch:
		return watch.Deleted, withResourceVersion(ev.PrevObject(), ev.RV)
	}
	return "", nil
}

// lagging reports whether more than maxLag of events are for this watcher
// (0: no limit), the lag rule of [WatchConfig.SlowWatcherMaxLag]. Only the
// events it would send count: the cacher's buffer for a watcher fills when
// its client does not take what it is sent, and events outside a
// watcher's namespace or selectors take nothing from its client. Counting
// the resource's events cut selector watches whose clients kept up, after
// a burst of writes they would never see (issue 21). Counting stops at
// maxLag+1, and starts only when there are more events than that.
func (w *watchStream) lagging(events []store.Event, maxLag int) bool {
	if maxLag <= 0 || len(events) <= maxLag {
		return false
	}
	n := 0
	for _, ev := range events {
		if ev.RV > w.lastRV && w.wouldSee(ev) {
			if n++; n > maxLag {
				return true
			}
		}
	}
	return false
}

// wouldSee reports whether visible gives ev to this watcher, without
// building what it would send.
func (w *watchStream) wouldSee(ev store.Event) bool {
	if ev.Prev != nil && w.matches(ev.Key, ev.Prev) {
		return true
	}
	return ev.Type != watch.Deleted && w.matches(ev.Key, ev.Encodings)
}

// matches reports whether the object under key that enc holds is in the
// watch's namespace and passes its selectors; only a watch with selectors
// reads the object (which may decode it: store.Encodings.Object).
func (w *watchStream) matches(key string, enc *store.Encodings) bool {
	if !strings.HasPrefix(key, w.prefix) {
		return false
	}
	return w.filter == nil || w.filter(enc.Object())
}

// withResourceVersion returns a copy of a shared store object with another
// resourceVersion (the DELETED event of an object leaving a selection).
func withResourceVersion(obj runtime.Object, rv int64) runtime.Object {
	cp := obj.DeepCopyObject()
	mustAccessor(cp).SetResourceVersion(formatRV(rv))
	return cp
}
