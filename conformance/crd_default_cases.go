package conformance

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// crdDefaultCases are the cases of this file, in the order [Cases] runs them.
func crdDefaultCases() []Case {
	return []Case{
		{Name: "CRDefaultOnRead", Run: runCRDefaultOnRead},
	}
}

// runCRDefaultOnRead: a default added to a CRD's schema after an object
// was stored shows on every read (GET through both served versions, LIST,
// a watch-list and a legacy watch's initial event) at the object's unchanged
// resourceVersion and generation, as the storage codec defaults what it
// reads (apiextensions-apiserver customresource_handler.go
// unstructuredDefaulter); the stored object changes only on its next
// write: an empty merge patch then writes the default (a new RV, the
// generation kept: the spec as read did not change), and the next empty
// patch is a no-op.
func runCRDefaultOnRead(ctx context.Context, t *testing.T, target Target) {
	ce := setupCRD(ctx, t, target)
	stored := ce.createWidget(ctx, "w", object{"size": 3})
	rv := metaOf(stored)["resourceVersion"]
	crd, _ := ce.crd(ctx)
	v1 := crd["spec"].(object)["versions"].([]any)[0].(object)
	spec := v1["schema"].(object)["openAPIV3Schema"].(object)["properties"].(object)["spec"].(object)
	spec["properties"].(object)["color"] = object{"type": "string", "default": "blue"}
	r := ce.c.do(ctx, t, request{Method: http.MethodPut, Path: crdPath + "/" + ce.name, Body: crd})
	r.mustCode(t, http.StatusOK, "add a default to the CRD")

	// The real handler picks the new schema up asynchronously.
	var got object
	waitOn(ctx, nil, false, establishTimeout, func() bool {
		got = ce.getWidget(ctx, ce.widgets()+"/w")
		return specOf(got)["color"] == "blue"
	})
	want := object{"size": float64(3), "color": "blue"}
	check := func(what string, o object) {
		t.Helper()
		if diff := cmp.Diff([]any{want, rv, float64(1)}, []any{specOf(o), metaOf(o)["resourceVersion"], metaOf(o)["generation"]}); diff != "" {
			t.Errorf("%s: spec, resourceVersion, generation (-want +got):\n%s", what, diff)
		}
	}
	check("GET", got)
	check("GET v1beta1", ce.getWidget(ctx, strings.Replace(ce.widgets(), "/v1/", "/v1beta1/", 1)+"/w"))
	var l list
	r = ce.c.do(ctx, t, request{Path: ce.widgets()})
	r.mustCode(t, http.StatusOK, "list widgets")
	r.decode(t, &l)
	if len(l.Items) != 1 {
		t.Fatalf("LIST: %d items", len(l.Items))
	}
	check("LIST", l.Items[0])
	// Watches that start with the current state: the CRD update replaced
	// the real server's storage and its watch cache, so an RV from before
	// the update is too old for a replay there.
	for _, query := range [][]string{
		{"sendInitialEvents", "true", "resourceVersionMatch", "NotOlderThan", "allowWatchBookmarks", "true"},
		{}, // resourceVersion unset: the legacy initial events
	} {
		ev := ce.c.watch(ctx, t, request{Path: ce.widgets(), Query: q(query...)}).mustNext(ctx, "watch widgets")
		if ev.Type != "ADDED" {
			t.Fatalf("watch %v: first event %s", query, ev.Type)
		}
		check("WATCH "+q(query...).Encode(), ev.Object)
	}

	patch := func() object {
		r := ce.c.do(ctx, t, request{Method: http.MethodPatch, Path: ce.widgets() + "/w", Body: []byte(`{}`), ContentType: "application/merge-patch+json"})
		r.mustCode(t, http.StatusOK, "empty merge patch")
		var o object
		r.decode(t, &o)
		return o
	}
	first := patch()
	if specOf(first)["color"] != "blue" || metaOf(first)["resourceVersion"] == rv || metaOf(first)["generation"] != float64(1) {
		t.Errorf("first empty patch: spec %v, rv %v (was %v), generation %v; want the default written at a new RV, generation 1",
			specOf(first), metaOf(first)["resourceVersion"], rv, metaOf(first)["generation"])
	}
	if second := patch(); metaOf(second)["resourceVersion"] != metaOf(first)["resourceVersion"] {
		t.Errorf("second empty patch: rv %v, want the no-op's %v", metaOf(second)["resourceVersion"], metaOf(first)["resourceVersion"])
	}
}

// getWidget GETs path and decodes the 200 answer.
func (ce *crdEnv) getWidget(ctx context.Context, path string) object {
	ce.t.Helper()
	r := ce.c.do(ctx, ce.t, request{Path: path})
	r.mustCode(ce.t, http.StatusOK, "get "+path)
	var o object
	r.decode(ce.t, &o)
	return o
}

// specOf is a decoded object's spec.
func specOf(o object) object {
	s, _ := o["spec"].(object)
	return s
}
