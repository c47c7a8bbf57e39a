package conformance

// Cases for the two resources kube-apiserver v1.37.2 serves without a
// watch cache: core/v1 events and events.k8s.io events (kubernetes
// pkg/kubeapiserver/default_storage_factory_builder.go
// DefaultWatchCacheSizes gives both size 0, so their registry store reads
// and watches etcd directly: apiserver pkg/server/options/etcd.go picks
// generic.UndecoratedStorage). Reads are apiserver
// pkg/storage/etcd3/store.go's (GetList, Get), watches its watcher.go's.

import (
	"context"
	"net/http"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// eventsStorageCases are the cases of this file, in the order [Cases]
// runs them.
func eventsStorageCases() []Case {
	return []Case{
		{Name: "EventsListRV0HonoursLimit", Run: runEventsListRV0HonoursLimit},
		{Name: "EventsTooLargeRVAtOnce", Run: runEventsTooLargeRVAtOnce},
		{Name: "EventsWatchListInitialEvents", Run: runEventsWatchListInitialEvents},
		{Name: "EventsWatchListTooLargeRV", Run: runEventsWatchListTooLargeRV},
		{Name: "EventsWatchNoPeriodicBookmark", Run: runEventsWatchNoPeriodicBookmark, Exclusive: true},
		{Name: "EventsWatchFromCompactedRV", Run: runEventsWatchFromCompactedRV, Exclusive: true},
	}
}

// eventAPI is the collection path of one of the two event resources in a
// namespace and the body of a valid Event named name for it. Both are one
// storage (events.k8s.io events are the core Events, converted), so a case
// writes through one of them.
type eventAPI struct {
	path string
	body func(name string) object
}

// coreEvents is core/v1 events in ns.
func coreEvents(ns string) eventAPI {
	return eventAPI{nsPath(ns, "events"), func(name string) object { return coreEvent(name, ns) }}
}

// eventsV1Events is events.k8s.io/v1 events in ns.
func eventsV1Events(ns string) eventAPI {
	return eventAPI{"/apis/events.k8s.io/v1/namespaces/" + ns + "/events", func(name string) object {
		return eventsV1(name, ns, validEventFields())
	}}
}

// coreEvent is a valid core/v1 Event named name in ns.
func coreEvent(name, ns string) object {
	return object{"apiVersion": "v1", "kind": "Event", "metadata": object{"name": name},
		"reason": "Tested", "message": "m", "type": "Normal",
		"involvedObject": object{"kind": "ConfigMap", "namespace": ns, "name": "cm", "apiVersion": "v1"}}
}

// createEventAt POSTs body to path and returns the stored object's RV.
func (e *env) createEventAt(ctx context.Context, path string, body object) int64 {
	e.t.Helper()
	r := e.c.do(ctx, e.t, request{Method: http.MethodPost, Path: path, Body: body})
	r.mustCode(e.t, http.StatusCreated, "create "+path)
	var o object
	r.decode(e.t, &o)
	return rvOf(e.t, o)
}

// listAt GETs path with the query and decodes a 200 answer.
func (e *env) listAt(ctx context.Context, path string, query ...string) list {
	e.t.Helper()
	r := e.c.do(ctx, e.t, request{Path: path, Query: q(query...)})
	r.mustCode(e.t, http.StatusOK, "list "+path+"?"+q(query...).Encode())
	var l list
	r.decode(e.t, &l)
	return l
}

// runEventsListRV0HonoursLimit: a LIST of events at resourceVersion=0 is
// etcd's (storage.ValidateListOptions: RV 0 and a limit read the latest
// state a page at a time), so, unlike a cached resource's
// (ListRV0IgnoresLimit), it honours the limit and returns a continue
// token in etcd's form; and it holds every event written before it, with no cache to lag.
func runEventsListRV0HonoursLimit(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	api := eventsV1Events(e.ns)
	var last int64
	for _, n := range []string{"a", "b", "c"} {
		last = e.createEventAt(ctx, api.path, api.body(n))
	}
	all := e.listAt(ctx, api.path, "resourceVersion", "0")
	if diff := cmp.Diff([]string{"a", "b", "c"}, all.names()); diff != "" {
		t.Errorf("%s rv=0 right after the writes (-want +got):\n%s", api.path, diff)
	}
	if got := all.rv(t); got < last {
		t.Errorf("%s rv=0 list rv %d, want >= %d (the last write)", api.path, got, last)
	}
	page := e.listAt(ctx, api.path, "resourceVersion", "0", "limit", "2")
	if diff := cmp.Diff([]string{"a", "b"}, page.names()); diff != "" {
		t.Errorf("%s rv=0 limit=2 (-want +got):\n%s", api.path, diff)
	}
	if page.Metadata.Continue == "" {
		t.Fatalf("%s rv=0 limit=2: no continue token", api.path)
	}
	// etcd's token: the start key has no leading "/" (etcd3 GetList's
	// keyPrefix ends in one; the cache's "/b\x00": ListContinueTokenFormat).
	if c := decodeContinue(t, page.Metadata.Continue); c.RV != page.rv(t) || c.Start != "b\x00" {
		t.Errorf("%s continue token rv %d start %q, want the page's rv %d and start \"b\\x00\"", api.path, c.RV, c.Start, page.rv(t))
	}
	rest := e.listAt(ctx, api.path, "continue", page.Metadata.Continue)
	if diff := cmp.Diff([]string{"c"}, rest.names()); diff != "" {
		t.Errorf("%s second page (-want +got):\n%s", api.path, diff)
	}
}

// runEventsTooLargeRVAtOnce: a read of events at an RV etcd has not
// reached is the 504 "Too large resource version" at once, from etcd
// (store.go validateMinimumResourceVersion for NotOlderThan and GET,
// listReadError's ErrFutureRev for Exact), with no retry advice
// (retrySeconds 0: no Retry-After, no retryAfterSeconds); the watch
// cache's answer waits 3 s and advises 1 s.
func runEventsTooLargeRVAtOnce(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	api := coreEvents(e.ns)
	e.createEventAt(ctx, api.path, api.body("a"))
	want := e.currentRV(ctx) + 1000
	wantSt := wantStatus(http.StatusGatewayTimeout, "Timeout",
		"Timeout: Too large resource version: "+itoa(want)+", current: 1", nil)
	wantSt.Details = shapeOf(metav1.Status{Details: &metav1.StatusDetails{
		Causes: []metav1.StatusCause{{Type: metav1.CauseTypeResourceVersionTooLarge, Message: "Too large resource version"}},
	}}).Details
	for _, rq := range []request{
		{Path: api.path, Query: q("resourceVersion", itoa(want), "resourceVersionMatch", "NotOlderThan")},
		{Path: api.path, Query: q("resourceVersion", itoa(want), "resourceVersionMatch", "Exact")},
		{Path: api.path, Query: q("resourceVersion", itoa(want), "limit", "2")},
		{Path: api.path + "/a", Query: q("resourceVersion", itoa(want))},
	} {
		// No doTimed, and a bound: a fake that waited for its clock would
		// not answer.
		rctx, cancel := context.WithTimeout(ctx, eventTimeout)
		r := e.c.do(rctx, t, rq)
		cancel()
		checkStatus(t, "read "+rq.Path+"?"+rq.Query.Encode(), r, wantSt)
		if got := r.Header.Get("Retry-After"); got != "" {
			t.Errorf("%s?%s: Retry-After = %q, want none", rq.Path, rq.Query.Encode(), got)
		}
	}
}

// runEventsWatchListInitialEvents: a watch-list of events is etcd3's
// (watcher.go areInitialEventsRequired, isInitialEventsEndBookmarkRequired):
// ADDED for the events now, the initial-events-end BOOKMARK (an empty
// Event carrying the list's RV and the annotation), then the changes.
func runEventsWatchListInitialEvents(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	api := coreEvents(e.ns)
	a := e.createEventAt(ctx, api.path, api.body("a"))
	b := e.createEventAt(ctx, api.path, api.body("b"))
	w := e.c.watch(ctx, t, request{Path: api.path, Query: q("sendInitialEvents", "true",
		"resourceVersionMatch", "NotOlderThan", "allowWatchBookmarks", "true")})
	evs := []event{w.mustNext(ctx, "first"), w.mustNext(ctx, "second"), w.mustNext(ctx, "third")}
	want := []evSummary{{"ADDED", "a", a}, {"ADDED", "b", b}}
	if diff := cmp.Diff(want, summarize(t, evs[:2])); diff != "" {
		t.Errorf("%s initial events (-want +got):\n%s", api.path, diff)
	}
	end := evs[2]
	if end.Type != "BOOKMARK" {
		t.Fatalf("%s third event %s, want the initial-events-end BOOKMARK", api.path, end.Type)
	}
	if end.Object["kind"] != "Event" {
		t.Errorf("%s bookmark kind %v, want Event", api.path, end.Object["kind"])
	}
	md := metaOf(end.Object)
	if diff := cmp.Diff(map[string]any{initialEventsEnd: "true"}, md["annotations"]); diff != "" {
		t.Errorf("%s bookmark annotations (-want +got):\n%s", api.path, diff)
	}
	if rv := rvOf(t, end.Object); rv < b {
		t.Errorf("%s bookmark rv %d, want >= %d", api.path, rv, b)
	}
	c := e.createEventAt(ctx, api.path, api.body("c"))
	if diff := cmp.Diff([]evSummary{{"ADDED", "c", c}}, summarize(t, []event{w.mustNext(ctx, "live")})); diff != "" {
		t.Errorf("%s live event (-want +got):\n%s", api.path, diff)
	}
}

// runEventsWatchListTooLargeRV: a watch-list of events at an RV etcd has
// not reached opens (200) and ends with one ERROR: the 504 "Too large
// resource version" at once (etcd3 watcher.go startWatching), where the
// watch cache would wait 3 s first.
func runEventsWatchListTooLargeRV(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	api := coreEvents(e.ns)
	e.createEventAt(ctx, api.path, api.body("a"))
	want := e.currentRV(ctx) + 1000
	w := e.c.watch(ctx, t, request{Path: api.path, Query: q("sendInitialEvents", "true",
		"resourceVersionMatch", "NotOlderThan", "allowWatchBookmarks", "true", "resourceVersion", itoa(want))})
	ev := w.mustNext(ctx, "watch-list from a future RV")
	if ev.Type != "ERROR" {
		t.Fatalf("event %s, want ERROR", ev.Type)
	}
	st := response{Code: http.StatusGatewayTimeout, Body: mustJSON(t, ev.Object)}.status(t)
	if st.Code != http.StatusGatewayTimeout || st.Reason != metav1.StatusReasonTimeout {
		t.Errorf("ERROR %d %s %q, want 504 Timeout", st.Code, st.Reason, st.Message)
	}
	if prefix := "Timeout: Too large resource version: " + itoa(want) + ", current: "; len(st.Message) < len(prefix) || st.Message[:len(prefix)] != prefix {
		t.Errorf("ERROR message %q, want it to start %q", st.Message, prefix)
	}
}

// runEventsWatchNoPeriodicBookmark: a watch of events with
// allowWatchBookmarks gets no periodic BOOKMARK: the etcd3 watcher sends
// bookmarks only for etcd progress notifications, which the registry never
// asks for (storage.ListOptions.ProgressNotify is unset; watcher.go
// isInitialEventsEndBookmarkRequired's comment), so the one the watch cache
// sends 2 s before the deadline (WatchBookmarkBeforeDeadline) never comes.
func runEventsWatchNoPeriodicBookmark(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	api := coreEvents(e.ns)
	cur := e.currentRV(ctx)
	w := e.c.watch(ctx, t, request{Path: api.path, Query: q("resourceVersion", itoa(cur), "allowWatchBookmarks", "true",
		"fieldSelector", "metadata.name=nothing", "timeoutSeconds", "3")})
	e.createEventAt(ctx, api.path, api.body("a"))
	// collect moves a fake's clock step by step, past the cache's bookmark
	// time (deadline - 2 s), then the deadline.
	evs, ended := w.collectToEnd(ctx, shortWatchWait)
	if !ended {
		t.Errorf("watch did not end")
	}
	if len(evs) != 0 {
		t.Errorf("events %v, want none (no periodic bookmark from etcd)", eventTypes(evs))
	}
}

// runEventsWatchFromCompactedRV: events have no watch cache, so etcd
// compaction bounds their watch history (where a cached resource's watch
// outlives it: WatchAfterCompaction): a watch from an RV below the
// compaction is 200 and one ERROR 410 Expired with etcd3's message
// (errors.go interpretWatchError), not the cacher's "too old resource
// version: N (M)"; an Exact LIST there is etcd's list 410.
func runEventsWatchFromCompactedRV(ctx context.Context, t *testing.T, target Target) {
	comp := requireCompactor(t, target)
	e := setup(ctx, t, target)
	api := coreEvents(e.ns)
	a := e.createEventAt(ctx, api.path, api.body("a"))
	e.createEventAt(ctx, api.path, api.body("b"))
	u := e.createEventAt(ctx, api.path, api.body("c"))
	if err := comp.Compact(ctx, u); err != nil {
		t.Fatal(err)
	}
	w := e.c.watch(ctx, t, request{Path: api.path, Query: q("resourceVersion", itoa(a))})
	ev := w.mustNext(ctx, "watch from below the compaction")
	if ev.Type != "ERROR" {
		t.Fatalf("event %s %v, want ERROR", ev.Type, ev.Object)
	}
	st := response{Code: http.StatusGone, Body: mustJSON(t, ev.Object)}.status(t)
	wantSt := metav1.Status{TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: metav1.StatusFailure,
		Code: http.StatusGone, Reason: metav1.StatusReasonExpired, Message: "The resourceVersion for the provided watch is too old."}
	if diff := cmp.Diff(wantSt, st); diff != "" {
		t.Errorf("ERROR status (-want +got):\n%s", diff)
	}
	if _, _, closed := w.next(ctx, eventTimeout); !closed {
		t.Errorf("watch did not end after the ERROR")
	}
	r := e.c.do(ctx, t, request{Path: api.path, Query: q("resourceVersion", strconv.FormatInt(a, 10), "resourceVersionMatch", "Exact")})
	checkStatus(t, "list Exact below the compaction", r, wantStatus(http.StatusGone, metav1.StatusReasonExpired,
		"The resourceVersion for the provided list is too old.", nil))
}
