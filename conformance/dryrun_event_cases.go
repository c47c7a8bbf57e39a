package conformance

// A dry run stores nothing, so a watcher sees nothing of it: issue 10's
// "no RV consumed, no event", checked on every write verb.

import (
	"context"
	"net/http"
	"testing"
)

// dryrunEventCases are the cases of this file, in the order [Cases] runs them.
func dryrunEventCases() []Case {
	return []Case{
		{Name: "DryRunNoEvent", Run: runDryRunNoEvent},
	}
}

// runDryRunNoEvent: dry-run writes of every verb (create, update, merge
// patch, apply, delete, deletecollection) send no watch event: the first
// event a watcher sees after them is the real write that follows, and the
// object written by dry run keeps its resourceVersion.
func runDryRunNoEvent(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	orig := e.create(ctx, "a", nil)
	w := e.c.watch(ctx, t, request{Path: e.cms(), Query: q("resourceVersion", itoa(rvOf(t, orig)))})
	defer w.stop()
	writes := []request{
		{Method: http.MethodPost, Path: e.cms(), Query: dryRun(), Body: cm("b", nil, "v")},
		{Method: http.MethodPut, Path: e.cms() + "/a", Query: dryRun(), Body: cm("a", nil, "w")},
		{Method: http.MethodPatch, Path: e.cms() + "/a", Query: dryRun(), Body: object{"data": object{"k": "p"}}, ContentType: "application/merge-patch+json"},
		{Method: http.MethodPatch, Path: e.cms() + "/a", Query: q("dryRun", "All", "fieldManager", "m", "force", "true"), Body: cm("a", nil, "s"), ContentType: "application/apply-patch+yaml"},
		{Method: http.MethodDelete, Path: e.cms() + "/a", Query: dryRun()},
		{Method: http.MethodDelete, Path: e.cms(), Query: dryRun()},
	}
	for _, req := range writes {
		r := e.c.do(ctx, t, req)
		if r.Code != http.StatusOK && r.Code != http.StatusCreated {
			t.Fatalf("dry-run %s %s: %d %s", req.Method, req.Path, r.Code, r.Body)
		}
	}
	c := rvOf(t, e.create(ctx, "c", nil))
	ev := w.mustNext(ctx, "first event after the dry runs")
	if got, want := summarize(t, []event{ev})[0], (evSummary{"ADDED", "c", c}); got != want {
		t.Errorf("first event after the dry runs = %+v, want %+v", got, want)
	}
	r := e.c.do(ctx, t, request{Path: e.cms() + "/a"})
	r.mustCode(t, http.StatusOK, "get a")
	var a object
	r.decode(t, &a)
	if rvOf(t, a) != rvOf(t, orig) {
		t.Errorf("a after the dry runs at rv %d, want %d", rvOf(t, a), rvOf(t, orig))
	}
}
