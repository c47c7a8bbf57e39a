package conformance

import (
	"context"
	"net/http"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// resourcesliceFieldsCases are the cases of this file, in the order [Cases] runs them.
func resourcesliceFieldsCases() []Case {
	return []Case{
		{Name: "ListResourceSliceFieldSelectors", Run: runListResourceSliceFieldSelectors},
		{Name: "ListResourceSlicesNodeNameToken", Run: runListResourceSlicesNodeNameToken},
	}
}

// resourceSlicesPath is the collection of resource.k8s.io/v1 ResourceSlices
// (cluster-scoped).
const resourceSlicesPath = "/apis/resource.k8s.io/v1/resourceslices"

// runListResourceSliceFieldSelectors: ResourceSlices are listed by
// spec.driver, spec.nodeName and spec.pool.name (resource/v1/conversion.go,
// resourceslice/strategy.go toSelectableFields; DRA drivers' controllers
// list their slices so), a slice without a node matching spec.nodeName="";
// any other field is a 400 naming the group-version and kind.
func runListResourceSliceFieldSelectors(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	driver := e.ns + ".example.com"
	for _, s := range []struct{ name, pool, node string }{
		{"a", "p1", "n1"}, {"b", "p1", ""}, {"c", "p2", "n1"},
	} {
		e.createResourceSlice(ctx, target, e.ns+"-"+s.name, driver, s.pool, s.node)
	}
	for sel, want := range map[string][]string{
		"spec.driver=" + driver:                                   {"a", "b", "c"},
		"spec.driver=" + driver + ",spec.pool.name=p1":            {"a", "b"},
		"spec.driver=" + driver + ",spec.nodeName=n1":             {"a", "c"},
		"spec.driver=" + driver + ",spec.nodeName=":               {"b"},
		"spec.driver=" + driver + ",spec.pool.name!=p1":           {"c"},
		"spec.driver=" + driver + ",metadata.name=" + e.ns + "-c": {"c"},
	} {
		r := e.c.do(ctx, t, request{Path: resourceSlicesPath, Query: q("fieldSelector", sel)})
		r.mustCode(t, http.StatusOK, "list resourceslices fieldSelector="+sel)
		var list struct {
			Items []struct {
				Metadata struct{ Name string } `json:"metadata"`
			} `json:"items"`
		}
		r.decode(t, &list)
		var got []string
		for _, it := range list.Items {
			got = append(got, it.Metadata.Name[len(e.ns)+1:])
		}
		sort.Strings(got)
		if diff := cmp.Diff(want, got, cmpEmpty); diff != "" {
			t.Errorf("fieldSelector=%q (-want +got):\n%s", sel, diff)
		}
	}
	r := e.c.do(ctx, t, request{Path: resourceSlicesPath, Query: q("fieldSelector", "spec.devices=x")})
	checkStatus(t, "list resourceslices fieldSelector=spec.devices=x", r,
		badRequest(`field label not supported for resource.k8s.io/v1, Kind=ResourceSlice: spec.devices`))
}

// runListResourceSlicesNodeNameToken is ListPodsNodeNameToken for
// ResourceSlices: the watch cache indexes them by spec.nodeName too
// (resourceslice/strategy.go Indexers, which kubelets' and DRA drivers'
// lists by node use), so a first page read from its latest snapshot that
// takes the node's last slice has no continue token though a slice on
// another node follows, and a continue page, read without the index, has
// one. ResourceSlices are cluster-scoped: the nodes are named after the
// case's namespace, so no other case's slice is on them.
func runListResourceSlicesNodeNameToken(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	driver := e.ns + ".example.com"
	n1, n2 := e.ns+"-n1", e.ns+"-n2"
	for _, s := range [][2]string{{"a", n1}, {"b", n1}, {"c", n2}} {
		e.createResourceSlice(ctx, target, e.ns+"-"+s[0], driver, "p-"+s[0], s[1])
	}
	type page struct {
		Metadata struct{ Continue string } `json:"metadata"`
		Items    []struct {
			Metadata struct{ Name string } `json:"metadata"`
		} `json:"items"`
	}
	list := func(query ...string) page {
		r := e.c.do(ctx, t, request{Path: resourceSlicesPath, Query: q(query...)})
		r.mustCode(t, http.StatusOK, "list resourceslices "+q(query...).Encode())
		var p page
		r.decode(t, &p)
		return p
	}
	names := func(p page) []string {
		var out []string
		for _, it := range p.Items {
			out = append(out, strings.TrimPrefix(it.Metadata.Name, e.ns+"-"))
		}
		return out
	}
	p1 := list("limit", "2", "fieldSelector", "spec.nodeName="+n1)
	if diff := cmp.Diff([]string{"a", "b"}, names(p1)); diff != "" || p1.Metadata.Continue != "" {
		t.Errorf("first page of 2: continue %q (-want +got names):\n%s; want no token (no more %s slices in the index)", p1.Metadata.Continue, diff, n1)
	}
	p0 := list("limit", "1", "fieldSelector", "spec.nodeName="+n1)
	if p0.Metadata.Continue == "" {
		t.Fatalf("first page of 1: no continue token, want one (b follows in the index)")
	}
	p2 := list("limit", "1", "fieldSelector", "spec.nodeName="+n1, "continue", p0.Metadata.Continue)
	if diff := cmp.Diff([]string{"b"}, names(p2)); diff != "" || p2.Metadata.Continue == "" {
		t.Errorf("continue page of 1: continue %q (-want +got names):\n%s; want a token (c follows, unmatched)", p2.Metadata.Continue, diff)
	}
}

// createResourceSlice creates a ResourceSlice of driver in pool, on node
// (all nodes when node is ""), deleted when the test ends.
func (e *env) createResourceSlice(ctx context.Context, target Target, name, driver, pool, node string) {
	e.t.Helper()
	spec := object{"driver": driver, "pool": object{"name": pool, "generation": 1, "resourceSliceCount": 1}}
	if node != "" {
		spec["nodeName"] = node
	} else {
		spec["allNodes"] = true
	}
	e.c.do(ctx, e.t, request{Method: http.MethodPost, Path: resourceSlicesPath,
		Body: object{"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": object{"name": name}, "spec": spec}}).
		mustCode(e.t, http.StatusCreated, "create resourceslice "+name)
	e.t.Cleanup(func() {
		c := newClient(e.t, target)
		c.do(context.WithoutCancel(ctx), e.t, request{Method: http.MethodDelete, Path: resourceSlicesPath + "/" + name})
	})
}
