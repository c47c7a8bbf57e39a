package conformance

// Cases for what issue 10 asks of custom resources beyond CRUD: the
// LIST/WATCH semantics the built-ins have (a watch-list with its
// initial-events-end bookmark, a 410 for a continue token whose revision
// was compacted) and the CRD's schema in /openapi/v3 and /openapi/v2.

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// crdListwatchCases are the cases of this file, in the order [Cases] runs them.
func crdListwatchCases() []Case {
	return []Case{
		{Name: "CRWatchList", Run: runCRWatchList},
		{Name: "CRContinueCompacted", Run: runCRContinueCompacted, Exclusive: true},
		{Name: "CROpenAPI", Run: runCROpenAPI},
	}
}

// runCRWatchList: a watch-list of custom resources sends the current
// ones as ADDED, then the bookmark that ends the initial events (kind
// Widget, only the resourceVersion and the annotation), then live events.
func runCRWatchList(ctx context.Context, t *testing.T, target Target) {
	ce := setupCRD(ctx, t, target)
	ce.createWidget(ctx, "b", object{"size": 2})
	ce.createWidget(ctx, "a", object{"size": 3})
	w := ce.c.watch(ctx, t, request{Path: ce.widgets(), Query: q("sendInitialEvents", "true",
		"resourceVersionMatch", "NotOlderThan", "allowWatchBookmarks", "true")})
	defer w.stop()
	evs := w.takeN(ctx, 3, "watch-list of widgets")
	if diff := cmp.Diff([]string{"ADDED a", "ADDED b", "BOOKMARK "}, []string{
		evs[0].Type + " " + nameOf(evs[0].Object), evs[1].Type + " " + nameOf(evs[1].Object), evs[2].Type + " " + nameOf(evs[2].Object)}); diff != "" {
		t.Fatalf("initial events (-want +got):\n%s", diff)
	}
	bm := evs[2].Object
	if bm["kind"] != "Widget" || bm["apiVersion"] != ce.group+"/v1" {
		t.Errorf("bookmark kind/apiVersion = %v/%v, want Widget/%s/v1", bm["kind"], bm["apiVersion"], ce.group)
	}
	if diff := cmp.Diff(map[string]any{initialEventsEnd: "true"}, metaOf(bm)["annotations"]); diff != "" {
		t.Errorf("bookmark annotations (-want +got):\n%s", diff)
	}
	c := rvOf(t, ce.createWidget(ctx, "c", object{"size": 4}))
	ev := w.mustNext(ctx, "live event after the bookmark")
	for ev.Type == "BOOKMARK" {
		ev = w.mustNext(ctx, "live event after the bookmark")
	}
	if diff := cmp.Diff(evSummary{"ADDED", "c", c}, summarize(t, []event{ev})[0]); diff != "" {
		t.Errorf("live event (-want +got):\n%s", diff)
	}
}

// runCRContinueCompacted: a continue token of custom resources whose
// revision was compacted is 410 Expired with the inconsistent-continue
// token, as for built-ins.
func runCRContinueCompacted(ctx context.Context, t *testing.T, target Target) {
	comp := requireCompactor(t, target)
	ce := setupCRD(ctx, t, target)
	for _, n := range []string{"a", "b", "c"} {
		ce.createWidget(ctx, n, object{"size": 1})
	}
	r := ce.c.do(ctx, t, request{Path: ce.widgets(), Query: q("limit", "2")})
	r.mustCode(t, http.StatusOK, "first page")
	var p1 list
	r.decode(t, &p1)
	if p1.Metadata.Continue == "" {
		t.Fatal("first page of 3 widgets with limit 2 has no continue token")
	}
	last := ce.createWidget(ctx, "d", object{"size": 1})
	if err := comp.Compact(ctx, rvOf(t, last)); err != nil {
		t.Fatal(err)
	}
	// The real target's Compact waits for the ConfigMaps' watch cache to
	// notice; each resource's cache polls the compacted revision on its
	// own (every 15 s) and serves old pages from its snapshots until then.
	// An Exact LIST at the first page's RV is 410 once this one has.
	waitOn(ctx, nil, false, establishTimeout, func() bool {
		r := ce.c.do(ctx, t, request{Path: ce.widgets(), Query: q("resourceVersion", p1.Metadata.ResourceVersion, "resourceVersionMatch", "Exact")})
		return r.Code == http.StatusGone
	})
	r = ce.c.do(ctx, t, request{Path: ce.widgets(), Query: q("limit", "2", "continue", p1.Metadata.Continue)})
	want := wantStatus(http.StatusGone, metav1.StatusReasonExpired, inconsistentContinueMsg, nil)
	want.Continue = true
	checkStatus(t, "continue after compaction", r, want)
}

// openAPIWidgetKey is the name of a CRD's Widget schema in the OpenAPI
// documents: the group reversed, the version, the kind.
func openAPIWidgetKey(group string) string {
	parts := strings.Split(group, ".")
	slices.Reverse(parts)
	return strings.Join(parts, ".") + ".v1.Widget"
}

// runCROpenAPI: a new CRD's group-version appears in /openapi/v3, whose
// document holds the Widget schema from the CRD (the maximum and default
// of spec.size), and /openapi/v2 holds it too. The real server publishes
// them asynchronously, so the case polls.
func runCROpenAPI(ctx context.Context, t *testing.T, target Target) {
	ce := setupCRD(ctx, t, target)
	key := openAPIWidgetKey(ce.group)
	gvPath := "apis/" + ce.group + "/v1"
	var size map[string]any
	var v2Has bool
	waitOn(ctx, nil, false, establishTimeout, func() bool {
		size, v2Has = nil, false
		var root struct {
			Paths map[string]struct {
				ServerRelativeURL string `json:"serverRelativeURL"`
			} `json:"paths"`
		}
		if !ce.getJSON(ctx, "/openapi/v3", &root) {
			return false
		}
		p, ok := root.Paths[gvPath]
		if !ok || p.ServerRelativeURL == "" {
			return false
		}
		var doc struct {
			Components struct {
				Schemas map[string]json.RawMessage `json:"schemas"`
			} `json:"components"`
		}
		if !ce.getJSON(ctx, p.ServerRelativeURL, &doc) {
			return false
		}
		size = schemaProperty(doc.Components.Schemas[key], "spec", "size")
		var v2 struct {
			Definitions map[string]json.RawMessage `json:"definitions"`
		}
		if !ce.getJSON(ctx, "/openapi/v2", &v2) {
			return false
		}
		_, v2Has = v2.Definitions[key]
		return size != nil && v2Has
	})
	want := map[string]any{"type": "integer", "maximum": float64(10), "default": float64(1)}
	if diff := cmp.Diff(want, size); diff != "" {
		t.Errorf("%s spec.size in /openapi/v3/%s (-want +got):\n%s", key, gvPath, diff)
	}
	if !v2Has {
		t.Errorf("/openapi/v2 has no definition %s", key)
	}
}

// getJSON GETs path as JSON into v; false unless 200 and decodable.
func (e *env) getJSON(ctx context.Context, path string, v any) bool {
	r := e.c.do(ctx, e.t, request{Path: path})
	return r.Code == http.StatusOK && json.Unmarshal(r.Body, v) == nil
}

// schemaProperty returns the schema at properties.<names[0]>.properties.
// <names[1]>... of raw, nil when absent.
func schemaProperty(raw json.RawMessage, names ...string) map[string]any {
	var s map[string]any
	if json.Unmarshal(raw, &s) != nil {
		return nil
	}
	for _, n := range names {
		props, _ := s["properties"].(map[string]any)
		s, _ = props[n].(map[string]any)
		if s == nil {
			return nil
		}
	}
	return s
}
