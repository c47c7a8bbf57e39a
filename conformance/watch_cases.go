package conformance

import (
	"context"
	"maps"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// watchCases are the cases of this file, in the order [Cases] runs them.
func watchCases() []Case {
	return []Case{
		{Name: "WatchRVUnsetInitialEvents", Run: runWatchRVUnsetInitialEvents, Exclusive: true},
		{Name: "WatchRV0WithBookmarksIsWatchList", Run: runWatchRV0WithBookmarksIsWatchList},
		{Name: "WatchListExplicit", Run: runWatchListExplicit},
		{Name: "WatchListEmptyCollection", Run: runWatchListEmptyCollection},
		{Name: "WatchListFromRVCurrentState", Run: runWatchListFromRVCurrentState},
		{Name: "WatchListWritesAfterHeadersAreEvents", Run: runWatchListWritesAfterHeadersAreEvents},
		{Name: "WatchFromRVReplay", Run: runWatchFromRVReplay},
		{Name: "WatchFromCurrentRVLiveOnly", Run: runWatchFromCurrentRVLiveOnly},
		{Name: "WatchLiveEvents", Run: runWatchLiveEvents},
		{Name: "WatchEventObjectsHaveKind", Run: runWatchEventObjectsHaveKind},
		{Name: "WatchLimitIgnored", Run: runWatchLimitIgnored},
		{Name: "WatchLegacyPath", Run: runWatchLegacyPath},
		{Name: "WatchLegacyNamedPathConflict", Run: runWatchLegacyNamedPathConflict},
		{Name: "WatchLabelSelectorTransitions", Run: runWatchLabelSelectorTransitions},
		{Name: "WatchFieldSelectorName", Run: runWatchFieldSelectorName},
		{Name: "WatchTooLargeRVSilent", Run: runWatchTooLargeRVSilent},
		{Name: "WatchListTooLargeRV", Run: runWatchListTooLargeRV},
		{Name: "WatchTimeoutEndsCleanly", Run: runWatchTimeoutEndsCleanly},
		{Name: "WatchBookmarkBeforeDeadline", Run: runWatchBookmarkBeforeDeadline, Exclusive: true},
		{Name: "WatchNoBookmarksUnlessAllowed", Run: runWatchNoBookmarksUnlessAllowed},
		{Name: "WatchTooOldRV", Run: runWatchTooOldRV, Exclusive: true},
		// sendInitialEvents needs resourceVersionMatch=NotOlderThan (422).
		watchErrorCase("WatchSendInitialEventsWithoutMatch", q("sendInitialEvents", "true"),
			listOptionsInvalid("resourceVersionMatch", "FieldValueForbidden",
				"Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan")),
		// resourceVersionMatch on a watch needs sendInitialEvents (422).
		watchErrorCase("WatchMatchWithoutSendInitialEvents", q("resourceVersionMatch", "NotOlderThan", "resourceVersion", "5"),
			listOptionsInvalid("resourceVersionMatch", "FieldValueForbidden",
				"Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided")),
		// Exact is not a watch match (422).
		watchErrorCase("WatchMatchExactUnsupported", q("sendInitialEvents", "true", "resourceVersionMatch", "Exact"),
			watchMatchExactInvalid()),
		// A non-numeric RV on a watch is 500 with no reason: Cacher.Watch
		// returns ParseResourceVersion's error, no Status
		// (storage/cacher/cacher.go Watch).
		watchErrorCase("WatchInvalidRV", q("resourceVersion", "abc"),
			wantStatus(http.StatusInternalServerError, "",
				`resourceVersion: Invalid value: "abc": strconv.ParseUint: parsing "abc": invalid syntax`, nil)),
		{Name: "WatchSendInitialEventsFalse", Run: runWatchSendInitialEventsFalse},
	}
}

// initialEventsEnd is the annotation of the watch-list end bookmark.
const initialEventsEnd = "k8s.io/initial-events-end"

// shortWatch is the timeoutSeconds of watches that must end by themselves:
// short enough to keep the suite fast on a real server
// (endpoints/handlers/get.go handleWatch).
const shortWatch = "2"

// shortWatchWait bounds waiting for a shortWatch to end.
const shortWatchWait = 8 * time.Second

// evSummary is what cases compare of an event: type, name and RV.
type evSummary struct {
	Type string
	Name string
	RV   int64
}

func summarize(t testing.TB, evs []event) []evSummary {
	t.Helper()
	out := make([]evSummary, len(evs))
	for i, e := range evs {
		out[i] = evSummary{Type: e.Type, Name: nameOf(e.Object), RV: rvOf(t, e.Object)}
	}
	return out
}

// takeN reads n events or fails.
func (w *watchStream) takeN(ctx context.Context, n int, what string) []event {
	w.t.Helper()
	var evs []event
	for i := 0; i < n; i++ {
		evs = append(evs, w.mustNext(ctx, what))
	}
	return evs
}

// runWatchRVUnsetInitialEvents: a watch with RV unset is defaulted to
// sendInitialEvents: synthetic ADDED for every object in name order with
// their own RVs, and no bookmark without allowWatchBookmarks (apimachinery
// apis/meta/internalversion/defaults.go SetListOptionsDefaults).
//
// The case is exclusive and takes the initial events before it moves a
// fake's clock: the 2 s timeout runs from the request, and other cases
// pumping a shared fake clock (50 times real time each) could end the
// watch before its initial events were written (failed so on the fake at
// load 16-20).
func runWatchRVUnsetInitialEvents(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	rvs := e.createN(ctx, "c", "a", "b")
	w := e.c.watch(ctx, t, request{Path: e.cms(), Query: q("timeoutSeconds", shortWatch)})
	evs := w.takeN(ctx, len(rvs), "initial events")
	rest, ended := w.collectToEnd(ctx, shortWatchWait)
	evs = append(evs, rest...)
	if !ended {
		t.Errorf("watch with timeoutSeconds=%s did not end", shortWatch)
	}
	want := []evSummary{{"ADDED", "a", rvs[1]}, {"ADDED", "b", rvs[2]}, {"ADDED", "c", rvs[0]}}
	if diff := cmp.Diff(want, summarize(t, evs)); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}

// runWatchRV0WithBookmarksIsWatchList: resourceVersion=0 with
// allowWatchBookmarks becomes a watch-list: ADDED for all, then the annotated
// initial-events-end BOOKMARK (apimachinery
// apis/meta/internalversion/defaults.go SetListOptionsDefaults,
// storage/cacher/cacher.go setInitialEventsEndBookmarkIfRequested).
func runWatchRV0WithBookmarksIsWatchList(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	rvs := e.createN(ctx, "a", "b")
	e.catchUpCache(ctx) // else the real cache may send b after the bookmark
	w := e.c.watch(ctx, t, request{Path: e.cms(), Query: q("resourceVersion", "0", "allowWatchBookmarks", "true")})
	evs := w.takeN(ctx, 3, "watch-list")
	if diff := cmp.Diff([]string{"ADDED", "ADDED", "BOOKMARK"}, eventTypes(evs)); diff != "" {
		t.Fatalf("event types (-want +got):\n%s", diff)
	}
	checkEndBookmark(t, evs[2], rvs[1])
}

// checkEndBookmark checks an initial-events-end bookmark: kind ConfigMap,
// only metadata.resourceVersion (>= minRV) and the annotation (storage/util.go
// AnnotateInitialEventsEndBookmark).
func checkEndBookmark(t *testing.T, ev event, minRV int64) {
	t.Helper()
	if ev.Type != "BOOKMARK" {
		t.Fatalf("event %s, want BOOKMARK", ev.Type)
	}
	if ev.Object["kind"] != "ConfigMap" || ev.Object["apiVersion"] != "v1" {
		t.Errorf("bookmark kind/apiVersion = %v/%v", ev.Object["kind"], ev.Object["apiVersion"])
	}
	md := metaOf(ev.Object)
	ann, _ := md["annotations"].(map[string]any)
	if diff := cmp.Diff(map[string]any{initialEventsEnd: "true"}, ann); diff != "" {
		t.Errorf("bookmark annotations (-want +got):\n%s", diff)
	}
	for k := range md {
		if k != "resourceVersion" && k != "annotations" {
			t.Errorf("bookmark metadata has %s", k)
		}
	}
	for k := range ev.Object {
		if k != "kind" && k != "apiVersion" && k != "metadata" {
			t.Errorf("bookmark object has %s", k)
		}
	}
	if rv := rvOf(t, ev.Object); rv < minRV {
		t.Errorf("bookmark rv = %d, want >= %d", rv, minRV)
	}
}

// runWatchListExplicit: sendInitialEvents=true&resourceVersionMatch=
// NotOlderThan&allowWatchBookmarks: initial ADDED, the end bookmark, then
// live events with RV above it on the same stream (storage/cacher/cache_watcher.go
// processInterval).
func runWatchListExplicit(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	e.createN(ctx, "b", "a")
	w := e.c.watch(ctx, t, request{Path: e.cms(), Query: q("sendInitialEvents", "true",
		"resourceVersionMatch", "NotOlderThan", "allowWatchBookmarks", "true")})
	evs := w.takeN(ctx, 3, "watch-list")
	if diff := cmp.Diff([]string{"ADDED", "ADDED", "BOOKMARK"}, eventTypes(evs)); diff != "" {
		t.Fatalf("event types (-want +got):\n%s", diff)
	}
	if nameOf(evs[0].Object) != "a" || nameOf(evs[1].Object) != "b" {
		t.Errorf("initial events %s, %s; want a, b", nameOf(evs[0].Object), nameOf(evs[1].Object))
	}
	checkEndBookmark(t, evs[2], 0)
	bm := rvOf(t, evs[2].Object)
	c := rvOf(t, e.create(ctx, "c", nil))
	ev := w.mustNext(ctx, "live event after the bookmark")
	for ev.Type == "BOOKMARK" {
		ev = w.mustNext(ctx, "live event after the bookmark")
	}
	if diff := cmp.Diff(evSummary{"ADDED", "c", c}, summarize(t, []event{ev})[0]); diff != "" {
		t.Errorf("live event (-want +got):\n%s", diff)
	}
	if c <= bm {
		t.Errorf("live event rv %d <= bookmark rv %d", c, bm)
	}
}

// runWatchListEmptyCollection: a watch-list of an empty collection sends
// only the annotated bookmark (storage/cacher/cache_watcher.go nextBookmarkTime).
func runWatchListEmptyCollection(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	w := e.c.watch(ctx, t, request{Path: e.cms(), Query: q("sendInitialEvents", "true",
		"resourceVersionMatch", "NotOlderThan", "allowWatchBookmarks", "true")})
	checkEndBookmark(t, w.mustNext(ctx, "watch-list of nothing"), 0)
}

// runWatchListFromRVCurrentState: a watch-list from an old RV sends the
// current state, not the state at that RV (storage/cacher/cacher.go
// Watch, storage/cacher/watch_cache.go getAllEventsSinceLocked).
func runWatchListFromRVCurrentState(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	rvs := e.createN(ctx, "a", "b")
	upd := rvOf(t, e.update(ctx, "a", "v2", nil))
	e.del(ctx, "b")
	e.catchUpCache(ctx) // the current state includes the delete
	w := e.c.watch(ctx, t, request{Path: e.cms(), Query: q("sendInitialEvents", "true", "resourceVersion", itoa(rvs[0]),
		"resourceVersionMatch", "NotOlderThan", "allowWatchBookmarks", "true")})
	evs := w.takeN(ctx, 2, "watch-list from an old RV")
	if diff := cmp.Diff(evSummary{"ADDED", "a", upd}, summarize(t, evs[:1])[0]); diff != "" {
		t.Errorf("initial event (-want +got):\n%s", diff)
	}
	checkEndBookmark(t, evs[1], upd)
}

// runWatchListWritesAfterHeadersAreEvents: a watch-list's initial state is
// taken before the 200 is written (storage/cacher/cacher.go Watch takes
// the watcher's initial events, watch_cache.go getAllEventsSinceLocked,
// before the handler writes the headers), so a create and a label change
// out of the selector, made once the client has the headers, are two
// events after the end bookmark, not folded into an initial state that
// would then hold neither.
func runWatchListWritesAfterHeadersAreEvents(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	w := e.c.watch(ctx, t, request{Path: e.cms(), Query: q("sendInitialEvents", "true",
		"resourceVersionMatch", "NotOlderThan", "allowWatchBookmarks", "true", "labelSelector", "app=x")})
	in := rvOf(t, e.create(ctx, "a", map[string]string{"app": "x"}))
	out := rvOf(t, e.update(ctx, "a", "v", map[string]string{"app": "y"}))
	checkEndBookmark(t, w.mustNext(ctx, "the end of an empty initial state"), 0)
	var evs []event
	for len(evs) < 2 {
		if ev := w.mustNext(ctx, "the writes after the headers"); ev.Type != "BOOKMARK" {
			evs = append(evs, ev)
		}
	}
	if diff := cmp.Diff([]evSummary{{"ADDED", "a", in}, {"DELETED", "a", out}}, summarize(t, evs)); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}

// runWatchFromRVReplay: a watch from RV N replays every later change in RV
// order, each with its own RV, and no synthetic events
// (storage/cacher/watch_cache_history.go GetIntervalLocked).
func runWatchFromRVReplay(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	rvs := e.createN(ctx, "a", "b")
	u := rvOf(t, e.update(ctx, "a", "v2", nil))
	e.del(ctx, "b")
	c := rvOf(t, e.create(ctx, "c", nil))
	w := e.c.watch(ctx, t, request{Path: e.cms(), Query: q("resourceVersion", itoa(rvs[0]))})
	evs := summarize(t, w.takeN(ctx, 4, "replay"))
	want := []evSummary{{"ADDED", "b", rvs[1]}, {"MODIFIED", "a", u}, {"DELETED", "b", evs[2].RV}, {"ADDED", "c", c}}
	if diff := cmp.Diff(want, evs); diff != "" {
		t.Errorf("replay (-want +got):\n%s", diff)
	}
	if !(u < evs[2].RV && evs[2].RV < c) {
		t.Errorf("DELETED rv %d, want between the update %d and the next create %d", evs[2].RV, u, c)
	}
}

// runWatchFromCurrentRVLiveOnly: a watch from the current RV sends only
// changes made after it (storage/cacher/cacher.go Watch).
func runWatchFromCurrentRVLiveOnly(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	e.createN(ctx, "a")
	cur := e.currentRV(ctx)
	w := e.c.watch(ctx, t, request{Path: e.cms(), Query: q("resourceVersion", itoa(cur))})
	b := rvOf(t, e.create(ctx, "b", nil))
	if diff := cmp.Diff(evSummary{"ADDED", "b", b}, summarize(t, []event{w.mustNext(ctx, "live")})[0]); diff != "" {
		t.Errorf("first event (-want +got):\n%s", diff)
	}
}

// runWatchLiveEvents: ADDED, MODIFIED, DELETED on a live watch, with the write
// responses' RVs; DELETED carries the last state with a new RV
// (storage/cacher/cache_watcher.go convertToWatchEvent, storage/etcd3/store.go
// conditionalDelete).
func runWatchLiveEvents(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	cur := e.currentRV(ctx)
	w := e.c.watch(ctx, t, request{Path: e.cms(), Query: q("resourceVersion", itoa(cur))})
	a := rvOf(t, e.create(ctx, "a", nil))
	u := rvOf(t, e.update(ctx, "a", "v2", nil))
	e.del(ctx, "a")
	evs := w.takeN(ctx, 3, "live")
	got := summarize(t, evs)
	want := []evSummary{{"ADDED", "a", a}, {"MODIFIED", "a", u}, {"DELETED", "a", got[2].RV}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	if got[2].RV <= u {
		t.Errorf("DELETED rv %d, want > last update rv %d", got[2].RV, u)
	}
	if d := evs[2].Object["data"].(map[string]any)["k"]; d != "v2" {
		t.Errorf("DELETED data = %v, want the last state v2", d)
	}
}

// runWatchEventObjectsHaveKind: watch event objects carry kind/apiVersion and
// the stream's Content-Type is application/json even when
// application/json;stream=watch was asked for (endpoints/handlers/watch.go
// serveWatchHandler).
func runWatchEventObjectsHaveKind(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	e.createN(ctx, "a")
	w := e.c.watch(ctx, t, request{Path: e.cms(), Accept: "application/json;stream=watch"})
	if ct := w.resp.Header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type = %q, want application/json", ct)
	}
	ev := w.mustNext(ctx, "initial")
	if ev.Object["kind"] != "ConfigMap" || ev.Object["apiVersion"] != "v1" {
		t.Errorf("event object kind/apiVersion = %v/%v, want ConfigMap/v1", ev.Object["kind"], ev.Object["apiVersion"])
	}
}

// runWatchLimitIgnored: limit on a watch is ignored (endpoints/handlers/get.go
// ListResource).
func runWatchLimitIgnored(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	e.createN(ctx, "a", "b", "c")
	w := e.c.watch(ctx, t, request{Path: e.cms(), Query: q("limit", "1", "timeoutSeconds", shortWatch)})
	evs, _ := w.collect(ctx, shortWatchWait)
	if got := len(evs); got != 3 {
		t.Errorf("watch with limit=1 sent %d events (%v), want all 3", got, eventTypes(evs))
	}
}

// runWatchLegacyPath: /api/v1/watch/namespaces/{ns}/configmaps works as
// ?watch=true (endpoints/handlers/get.go ListResource).
func runWatchLegacyPath(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	e.createN(ctx, "a")
	w := e.c.watch(ctx, t, request{Path: "/api/v1/watch/namespaces/" + e.ns + "/configmaps"})
	ev := w.mustNext(ctx, "legacy watch path")
	if ev.Type != "ADDED" || nameOf(ev.Object) != "a" {
		t.Errorf("event %s %s, want ADDED a", ev.Type, nameOf(ev.Object))
	}
}

// runWatchLegacyNamedPathConflict: a name in the legacy watch path and a
// different metadata.name field selector (400, endpoints/handlers/get.go
// ListResource).
func runWatchLegacyNamedPathConflict(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	r := e.c.do(ctx, t, request{Path: "/api/v1/watch/namespaces/" + e.ns + "/configmaps/a", Query: q("fieldSelector", "metadata.name=b")})
	checkStatus(t, "named watch with a conflicting selector", r, badRequest("fieldSelector metadata.name doesn't match requested name"))
}

// runWatchLabelSelectorTransitions: leaving a label-selected watch is
// DELETED with the old labels and the new RV; entering it is ADDED
// (storage/cacher/cache_watcher.go convertToWatchEvent).
func runWatchLabelSelectorTransitions(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	e.create(ctx, "a", map[string]string{"app": "x"})
	cur := e.currentRV(ctx)
	w := e.c.watch(ctx, t, request{Path: e.cms(), Query: q("resourceVersion", itoa(cur), "labelSelector", "app=x")})
	out := rvOf(t, e.update(ctx, "a", "v", map[string]string{"app": "y"}))
	e.update(ctx, "a", "v2", map[string]string{"app": "y"}) // unmatched → nothing
	in := rvOf(t, e.update(ctx, "a", "v3", map[string]string{"app": "x"}))
	mod := rvOf(t, e.update(ctx, "a", "v4", map[string]string{"app": "x"}))
	evs := w.takeN(ctx, 3, "selector transitions")
	if diff := cmp.Diff([]evSummary{{"DELETED", "a", out}, {"ADDED", "a", in}, {"MODIFIED", "a", mod}}, summarize(t, evs)); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	if l := metaOf(evs[0].Object)["labels"].(map[string]any)["app"]; l != "x" {
		t.Errorf("DELETED labels app=%v, want the old x", l)
	}
}

// runWatchFieldSelectorName: a metadata.name field selector gets only that
// object's events (storage/cacher/cache_watcher.go
// convertToWatchEvent).
func runWatchFieldSelectorName(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	cur := e.currentRV(ctx)
	w := e.c.watch(ctx, t, request{Path: e.cms(), Query: q("resourceVersion", itoa(cur), "fieldSelector", "metadata.name=b")})
	e.createN(ctx, "a")
	b := rvOf(t, e.create(ctx, "b", nil))
	e.update(ctx, "a", "v2", nil)
	ub := rvOf(t, e.update(ctx, "b", "v2", nil))
	evs := w.takeN(ctx, 2, "field-selected watch")
	if diff := cmp.Diff([]evSummary{{"ADDED", "b", b}, {"MODIFIED", "b", ub}}, summarize(t, evs)); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}

// runWatchTooLargeRVSilent: a watch from an RV above the current one (no
// sendInitialEvents) is accepted and sends nothing (storage/cacher/cacher.go Watch).
func runWatchTooLargeRVSilent(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	e.createN(ctx, "a")
	w := e.c.watch(ctx, t, request{Path: e.cms(), Query: q("resourceVersion", itoa(e.currentRV(ctx)+1000), "timeoutSeconds", shortWatch)})
	evs, ended := w.collect(ctx, shortWatchWait)
	if len(evs) != 0 || !ended {
		t.Errorf("events %v, ended %v; want none, ended", eventTypes(evs), ended)
	}
}

// runWatchListTooLargeRV: a watch-list from an RV above the current one is 200,
// then after the freshness wait one ERROR 504 event, then the end
// (storage/cacher/cacher.go Watch, storage/cacher/watch_cache.go
// waitUntilFreshLocked).
func runWatchListTooLargeRV(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	e.createN(ctx, "a")
	want := e.currentRV(ctx) + 1000
	w := e.c.watch(ctx, t, request{Path: e.cms(), Query: q("sendInitialEvents", "true", "resourceVersionMatch", "NotOlderThan",
		"allowWatchBookmarks", "true", "resourceVersion", itoa(want))})
	evs, ended := w.collect(ctx, shortWatchWait)
	if len(evs) != 1 || evs[0].Type != "ERROR" || !ended {
		t.Fatalf("events %v, ended %v; want one ERROR, then the end", eventTypes(evs), ended)
	}
	checkErrorEvent(t, evs[0], tooLargeStatus(want))
}

// checkErrorEvent checks an ERROR event's Status.
func checkErrorEvent(t *testing.T, ev event, want statusShape) {
	t.Helper()
	if ev.Type != "ERROR" {
		t.Fatalf("event %s, want ERROR", ev.Type)
	}
	r := response{Code: int(want.Code), Body: mustJSON(t, ev.Object)}
	checkStatus(t, "ERROR event", r, want)
}

// runWatchTimeoutEndsCleanly: timeoutSeconds ends the stream at the
// deadline with no final event (endpoints/handlers/get.go handleWatch).
func runWatchTimeoutEndsCleanly(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	cur := e.currentRV(ctx)
	start := time.Now()
	w := e.c.watch(ctx, t, request{Path: e.cms(), Query: q("resourceVersion", itoa(cur), "timeoutSeconds", shortWatch)})
	evs, ended := w.collect(ctx, shortWatchWait)
	if !ended || len(evs) != 0 {
		t.Fatalf("events %v, ended %v; want none, ended", eventTypes(evs), ended)
	}
	if _, virtual := target.(Clock); !virtual {
		if d := w.ended.Sub(start); d < 1500*time.Millisecond || d > 5*time.Second {
			t.Errorf("watch with timeoutSeconds=%s lasted %v", shortWatch, d)
		}
	}
}

// runWatchBookmarkBeforeDeadline: with allowWatchBookmarks a watch whose
// collection moved past what it was sent gets a BOOKMARK about 2 s before its
// deadline, without the annotation (storage/cacher/cache_watcher.go
// nextBookmarkTime).
//
// On a fake's clock the case is exclusive and steps it itself: other cases
// pumping a shared clock could pass the bookmark's time before the create
// (a bookmark below it) or the deadline before the bookmark went out
// (none); and a pump runs 2 s of server time in 40 ms, which a loaded
// machine may not give the watch to send the bookmark (each failed so on
// the fake at load 16-20).
func runWatchBookmarkBeforeDeadline(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	cur := e.currentRV(ctx)
	// The selector matches nothing, so the create below moves the
	// collection's RV without sending this watch anything.
	w := e.c.watch(ctx, t, request{Path: e.cms(), Query: q("resourceVersion", itoa(cur), "allowWatchBookmarks", "true",
		"fieldSelector", "metadata.name=nothing", "timeoutSeconds", "3")})
	a := rvOf(t, e.create(ctx, "a", nil))
	var evs []event
	if clk, ok := target.(Clock); ok {
		// Just past the bookmark's time (deadline - 2 s), well before
		// the deadline; then wait for it in real time.
		clk.Advance(1100 * time.Millisecond)
		if ev, got, _ := w.next(ctx, eventTimeout); got {
			evs = append(evs, ev)
		}
	}
	rest, ended := w.collectToEnd(ctx, shortWatchWait)
	evs = append(evs, rest...)
	if !ended {
		t.Errorf("watch did not end")
	}
	if len(evs) == 0 {
		t.Fatalf("no event, want a BOOKMARK before the deadline")
	}
	for _, ev := range evs {
		if ev.Type != "BOOKMARK" {
			t.Errorf("event %s, want only BOOKMARKs", ev.Type)
			continue
		}
		if rv := rvOf(t, ev.Object); rv < a {
			t.Errorf("bookmark rv %d, want >= %d", rv, a)
		}
		if _, ok := metaOf(ev.Object)["annotations"]; ok {
			t.Errorf("periodic bookmark has annotations %v", metaOf(ev.Object)["annotations"])
		}
	}
}

// collectToEnd is collect, then, if the stream has not ended, a wait for
// its end in real time without moving a fake's clock: the server's
// deadline has passed by then, but on a loaded machine the end may take
// longer to arrive than a pump's few hundred milliseconds.
func (w *watchStream) collectToEnd(ctx context.Context, d time.Duration) (evs []event, ended bool) {
	w.t.Helper()
	evs, ended = w.collect(ctx, d)
	for !ended {
		ev, got, closed := w.next(ctx, eventTimeout)
		if !got {
			return evs, closed
		}
		evs = append(evs, ev)
	}
	return evs, ended
}

// runWatchNoBookmarksUnlessAllowed: the same watch without allowWatchBookmarks
// gets nothing (storage/cacher/cache_watcher.go nextBookmarkTime).
func runWatchNoBookmarksUnlessAllowed(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	cur := e.currentRV(ctx)
	w := e.c.watch(ctx, t, request{Path: e.cms(), Query: q("resourceVersion", itoa(cur),
		"fieldSelector", "metadata.name=nothing", "timeoutSeconds", "3")})
	e.create(ctx, "a", nil)
	evs, _ := w.collect(ctx, shortWatchWait)
	if len(evs) != 0 {
		t.Errorf("events %v, want none", eventTypes(evs))
	}
}

// runWatchTooOldRV: a watch from an RV older than the server's watch history is
// HTTP 200, then one ERROR event 410 Expired "too old resource version: N (M)",
// then the end (storage/cacher/watch_cache_history.go GetIntervalLocked). Etcd
// compaction alone does not shorten a real server's watch history (the watch
// cache keeps it), hence the HistoryForgetter ability.
func runWatchTooOldRV(ctx context.Context, t *testing.T, target Target) {
	hf, ok := target.(HistoryForgetter)
	if !ok {
		t.Skipf("target %s cannot forget its watch history (conformance.HistoryForgetter)", target.Name())
	}
	e := setup(ctx, t, target)
	a := rvOf(t, e.create(ctx, "a", nil))
	e.create(ctx, "b", nil) // so that the history restarts strictly after a
	if err := hf.ForgetHistory(ctx); err != nil {
		t.Fatal(err)
	}
	e.c = newClient(t, target) // a restarted server has new credentials
	var evs []event
	var ended bool
	for {
		r := e.c.do(ctx, t, request{Path: e.cms(), Query: q("watch", "true", "resourceVersion", itoa(a), "timeoutSeconds", shortWatch)})
		if r.Code != http.StatusTooManyRequests { // a restarted cache may still be initialising
			break
		}
		if !wait(ctx, target, time.Second, func() bool { return false }) {
			t.Fatal(ctx.Err())
		}
	}
	w := e.c.watch(ctx, t, request{Path: e.cms(), Query: q("resourceVersion", itoa(a))})
	evs, ended = w.collect(ctx, shortWatchWait)
	if len(evs) != 1 || !ended {
		t.Fatalf("events %v, ended %v; want one ERROR, then the end", eventTypes(evs), ended)
	}
	checkErrorEvent(t, evs[0], wantStatus(http.StatusGone, metav1.StatusReasonExpired, "too old resource version: 1 (2)", nil))
}

// watchErrorCase is the case name: a watch of a namespace's ConfigMaps
// with query answers want before it streams.
func watchErrorCase(name string, query url.Values, want statusShape) Case {
	return Case{Name: name, Run: func(ctx context.Context, t *testing.T, target Target) {
		e := setup(ctx, t, target)
		qs := maps.Clone(query)
		qs.Set("watch", "true")
		r := e.c.do(ctx, t, request{Path: e.cms(), Query: qs})
		checkStatus(t, "watch "+qs.Encode(), r, want)
	}}
}

// watchMatchExactInvalid is the 422 of a watch-list with
// resourceVersionMatch=Exact: both rules fire, in this order [observed on
// v1.37.2].
func watchMatchExactInvalid() statusShape {
	forbidden := "Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan"
	unsupported := `Unsupported value: "Exact": supported values: "NotOlderThan"`
	return wantStatus(http.StatusUnprocessableEntity, metav1.StatusReasonInvalid,
		`ListOptions.meta.k8s.io "" is invalid: [resourceVersionMatch: `+forbidden+`, resourceVersionMatch: `+unsupported+`]`,
		&metav1.StatusDetails{Group: "meta.k8s.io", Kind: "ListOptions", Causes: []metav1.StatusCause{
			{Type: "FieldValueForbidden", Message: forbidden, Field: "resourceVersionMatch"},
			{Type: metav1.CauseTypeFieldValueNotSupported, Message: unsupported, Field: "resourceVersionMatch"},
		}})
}

// runWatchSendInitialEventsFalse: sendInitialEvents=false with
// NotOlderThan and RV unset sends no initial events, only new ones
// (storage/cacher/cacher.go Watch).
func runWatchSendInitialEventsFalse(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	e.createN(ctx, "a")
	w := e.c.watch(ctx, t, request{Path: e.cms(), Query: q("sendInitialEvents", "false", "resourceVersionMatch", "NotOlderThan")})
	b := rvOf(t, e.create(ctx, "b", nil))
	if diff := cmp.Diff(evSummary{"ADDED", "b", b}, summarize(t, []event{w.mustNext(ctx, "first event")})[0]); diff != "" {
		t.Errorf("first event (-want +got):\n%s", diff)
	}
}
