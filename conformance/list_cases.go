package conformance

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// listCases are the cases of this file, in the order [Cases] runs them.
func listCases() []Case {
	return []Case{
		{Name: "ListEmpty", Run: runListEmpty},
		{Name: "ListKeyOrder", Run: runListKeyOrder},
		{Name: "ListItemsHaveNoKind", Run: runListItemsHaveNoKind},
		{Name: "ListRV0IgnoresLimit", Run: runListRV0IgnoresLimit},
		{Name: "ListRV0NotOlderThan", Run: runListRV0NotOlderThan},
		{Name: "ListExactOldState", Run: runListExactOldState},
		{Name: "ListLegacyPagedIsExact", Run: runListLegacyPagedIsExact},
		{Name: "ListLegacyRVIsNotOlderThan", Run: runListLegacyRVIsNotOlderThan},
		{Name: "ListNotOlderThanOldRV", Run: runListNotOlderThanOldRV},
		{Name: "ListNotOlderThanHonoursLimit", Run: runListNotOlderThanHonoursLimit},
		// LIST resourceVersion=N>current waits, then 504
		// (storage/cacher/watch_cache.go waitUntilFreshLocked).
		tooLargeCase("ListTooLargeRV", collection, q()),
		// The same with resourceVersionMatch=Exact.
		tooLargeCase("ListTooLargeRVExact", collection, q("resourceVersionMatch", "Exact")),
		// The same with resourceVersionMatch=NotOlderThan.
		tooLargeCase("ListTooLargeRVNotOlderThan", collection, q("resourceVersionMatch", "NotOlderThan")),
		// The same with limit (legacy exact).
		tooLargeCase("ListTooLargeRVPaged", collection, q("limit", "2")),
		// GET ?resourceVersion=N>current waits, then 504 (storage/cacher/delegator.go
		// Get, storage/cacher/watch_cache.go waitUntilFreshLocked).
		tooLargeCase("GetTooLargeRV", func(e *env) string { return e.cms() + "/a" }, q()),
	}
}

// runListEmpty: an empty collection lists as "items":[] (never null) with a
// non-empty list resourceVersion (storage/cacher/cacher.go GetList: "never
// return a nil Items"; storage/api_object_versioner.go UpdateList).
func runListEmpty(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	r := e.c.do(ctx, t, request{Path: e.cms()})
	r.mustCode(t, http.StatusOK, "list")
	var raw map[string]any
	r.decode(t, &raw)
	items, ok := raw["items"].([]any)
	if !ok || len(items) != 0 {
		t.Errorf("items = %#v, want an empty JSON array", raw["items"])
	}
	var l list
	r.decode(t, &l)
	l.rv(t)
	if l.Kind != "ConfigMapList" || l.APIVersion != "v1" {
		t.Errorf("kind/apiVersion = %s/%s, want ConfigMapList/v1", l.Kind, l.APIVersion)
	}
}

// runListKeyOrder: items come in name order whatever the creation order, each
// with its own RV, and the list RV is at least every item's RV
// (storage/cacher/store/store_btree.go OrderedListPrefix,
// storage/api_object_versioner.go UpdateList).
func runListKeyOrder(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	rvs := e.createN(ctx, "c", "a", "b")
	l := e.list(ctx)
	if diff := cmp.Diff([]string{"a", "b", "c"}, l.names()); diff != "" {
		t.Errorf("list names (-want +got):\n%s", diff)
	}
	byName := map[string]int64{"c": rvs[0], "a": rvs[1], "b": rvs[2]}
	for _, it := range l.Items {
		if got := rvOf(t, it); got != byName[nameOf(it)] {
			t.Errorf("item %s rv = %d, want its create rv %d", nameOf(it), got, byName[nameOf(it)])
		}
	}
	if lrv := l.rv(t); lrv < rvs[2] {
		t.Errorf("list rv = %d, want >= newest item rv %d", lrv, rvs[2])
	}
}

// runListItemsHaveNoKind: list items carry no kind/apiVersion [observed on
// v1.37.2].
func runListItemsHaveNoKind(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	e.createN(ctx, "a")
	for _, it := range e.list(ctx).Items {
		if _, ok := it["kind"]; ok {
			t.Errorf("item has kind %v", it["kind"])
		}
		if _, ok := it["apiVersion"]; ok {
			t.Errorf("item has apiVersion %v", it["apiVersion"])
		}
	}
}

// runListRV0IgnoresLimit: resourceVersion=0 drops the limit: all items, no
// continue (storage/cacher/cacher.go computeListLimit).
func runListRV0IgnoresLimit(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	e.createN(ctx, "a", "b", "c")
	e.catchUpCache(ctx) // so the "any" read below sees all three
	l := e.list(ctx, "resourceVersion", "0", "limit", "2")
	if diff := cmp.Diff([]string{"a", "b", "c"}, l.names()); diff != "" {
		t.Errorf("names (-want +got):\n%s", diff)
	}
	if l.Metadata.Continue != "" || l.Metadata.RemainingItemCount != nil {
		t.Errorf("continue=%q remaining=%v, want neither", l.Metadata.Continue, l.Metadata.RemainingItemCount)
	}
}

// runListRV0NotOlderThan: resourceVersion=0&resourceVersionMatch=NotOlderThan
// is the "any" read (storage/cacher/delegator.go GetList): some consistent
// state, not necessarily the newest — the real watch cache may not have seen a
// write acknowledged a moment ago (DIVERGENCES.md) — so the case checks that
// the list is exactly the state at the resourceVersion it reports.
func runListRV0NotOlderThan(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	e.createN(ctx, "a", "b")
	l := e.list(ctx, "resourceVersion", "0", "resourceVersionMatch", "NotOlderThan")
	rv := strconv.FormatInt(l.rv(t), 10)
	exact := e.list(ctx, "resourceVersion", rv, "resourceVersionMatch", "Exact")
	if diff := cmp.Diff(exact.names(), l.names()); diff != "" {
		t.Errorf("rv=0 list at rv %s differs from the Exact list at that rv (-exact +rv0):\n%s", rv, diff)
	}
}

// runListExactOldState: an Exact LIST at an older RV returns the state at
// that RV, and reports exactly that RV (storage/cacher/delegator.go GetList).
func runListExactOldState(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	rvs := e.createN(ctx, "a", "b")
	e.update(ctx, "a", "v2", nil)
	e.createN(ctx, "c")
	l := e.list(ctx, "resourceVersion", strconv.FormatInt(rvs[1], 10), "resourceVersionMatch", "Exact")
	if got := l.rv(t); got != rvs[1] {
		t.Errorf("list rv = %d, want exactly %d", got, rvs[1])
	}
	if diff := cmp.Diff([]string{"a", "b"}, l.names()); diff != "" {
		t.Errorf("names (-want +got):\n%s", diff)
	}
	if len(l.Items) > 0 {
		if got := l.Items[0]["data"].(map[string]any)["k"]; got != "v" {
			t.Errorf("a at rv %d has data %v, want the old value v", rvs[1], got)
		}
		if got := rvOf(t, l.Items[0]); got != rvs[0] {
			t.Errorf("a at rv %d has rv %d, want %d", rvs[1], got, rvs[0])
		}
	}
}

// runListLegacyPagedIsExact: resourceVersion=N with limit>0 and no match is
// an exact read at N (legacy paging semantics, storage/cacher/delegator.go GetList).
func runListLegacyPagedIsExact(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	rvs := e.createN(ctx, "a", "b", "c")
	l := e.list(ctx, "resourceVersion", strconv.FormatInt(rvs[1], 10), "limit", "10")
	if got := l.rv(t); got != rvs[1] {
		t.Errorf("list rv = %d, want exactly %d", got, rvs[1])
	}
	if diff := cmp.Diff([]string{"a", "b"}, l.names()); diff != "" {
		t.Errorf("names (-want +got):\n%s", diff)
	}
}

// runListLegacyRVIsNotOlderThan: resourceVersion=N without limit or match
// returns the latest state, at an RV >= N (storage/cacher/delegator.go GetList).
func runListLegacyRVIsNotOlderThan(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	rvs := e.createN(ctx, "a", "b", "c")
	e.catchUpCache(ctx)
	l := e.list(ctx, "resourceVersion", strconv.FormatInt(rvs[0], 10))
	if got := l.rv(t); got < rvs[2] {
		t.Errorf("list rv = %d, want >= %d (latest)", got, rvs[2])
	}
	if diff := cmp.Diff([]string{"a", "b", "c"}, l.names()); diff != "" {
		t.Errorf("names (-want +got):\n%s", diff)
	}
}

// runListNotOlderThanOldRV: NotOlderThan with an old RV returns the latest
// state (storage/cacher/delegator.go GetList "always fine").
func runListNotOlderThanOldRV(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	rvs := e.createN(ctx, "a", "b")
	e.del(ctx, "a")
	e.catchUpCache(ctx)
	l := e.list(ctx, "resourceVersion", strconv.FormatInt(rvs[0], 10), "resourceVersionMatch", "NotOlderThan")
	if got := l.rv(t); got <= rvs[1] {
		t.Errorf("list rv = %d, want > %d (after the delete)", got, rvs[1])
	}
	if diff := cmp.Diff([]string{"b"}, l.names()); diff != "" {
		t.Errorf("names (-want +got):\n%s", diff)
	}
}

// runListNotOlderThanHonoursLimit: NotOlderThan with a limit pages
// (storage/cacher/delegator.go GetList). It asks for "not older than the last
// create": at an earlier RV the real server may answer from a watch cache that
// has not applied the later creates yet (a loaded run got a and b, no token),
// which NotOlderThan allows.
func runListNotOlderThanHonoursLimit(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	rvs := e.createN(ctx, "a", "b", "c")
	l := e.list(ctx, "resourceVersion", strconv.FormatInt(rvs[2], 10), "resourceVersionMatch", "NotOlderThan", "limit", "2")
	if diff := cmp.Diff([]string{"a", "b"}, l.names()); diff != "" {
		t.Errorf("names (-want +got):\n%s", diff)
	}
	if l.Metadata.Continue == "" {
		t.Errorf("no continue token on a partial page")
	}
	if got := l.rv(t); got < rvs[2] {
		t.Errorf("list rv = %d, want >= %d", got, rvs[2])
	}
}

// tooLargeStatus is the 504 of a read at an RV the server has not reached
// (storage/errors.go NewTooLargeResourceVersionError via the watch cache).
func tooLargeStatus(want int64) statusShape {
	st := wantStatus(http.StatusGatewayTimeout, "Timeout",
		fmt.Sprintf("Timeout: Too large resource version: %d, current: 1", want), nil)
	st.Details = shapeOf(metavStatusWithTooLargeDetails()).Details
	return st
}

// tooLargeCase is the case name: a read of path with query at
// resourceVersion current+1000 answers the 504 after the freshness wait,
// with Retry-After: 1.
func tooLargeCase(name string, path func(e *env) string, query url.Values) Case {
	return Case{Name: name, Run: func(ctx context.Context, t *testing.T, target Target) {
		e := setup(ctx, t, target)
		e.createN(ctx, "a")
		want := e.currentRV(ctx) + 1000
		qs := maps.Clone(query)
		qs.Set("resourceVersion", strconv.FormatInt(want, 10))
		r := e.c.doTimed(ctx, t, request{Path: path(e), Query: qs})
		checkStatus(t, "read "+qs.Encode(), r, tooLargeStatus(want))
		if got := r.Header.Get("Retry-After"); got != "1" {
			t.Errorf("Retry-After = %q, want 1", got)
		}
	}}
}

// collection is the path of the case's ConfigMaps.
func collection(e *env) string { return e.cms() }
