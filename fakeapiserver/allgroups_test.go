package fakeapiserver

import (
	"encoding/json"
	"net/http"
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/lw-sim/lw-sim/fakeapiserver/internal/openapi"
)

// TestAllGroupVersions serves every group-version of client-go's scheme:
// each is in discovery, every listable resource lists, as JSON and as a
// Table (kubectl get), /openapi/v2 has a definition of each listable kind,
// and every OpenAPI v3 document the root names is served and is JSON.
func TestAllGroupVersions(t *testing.T) {
	t.Parallel()
	srv := Start(t, WithConfig(func(cfg *Config) { cfg.GroupVersions = AllGroupVersions() }))
	_, lists, err := newDiscoveryClient(t, srv, false).ServerGroupsAndResources()
	if err != nil {
		t.Fatalf("ServerGroupsAndResources() = %v", err)
	}
	byGV := resourcesByGV(lists)
	v2Kinds := openAPIV2Kinds(t, srv)
	for _, gv := range AllGroupVersions() {
		if _, ok := byGV[gv.String()]; !ok {
			t.Errorf("discovery lacks %s", gv)
		}
	}
	for gv, list := range byGV {
		for _, r := range list {
			if !slices.Contains(r.Verbs, "list") {
				continue
			}
			path := "/apis/" + gv + "/" + r.Name
			if gv == "v1" {
				path = "/api/v1/" + r.Name
			}
			if resp := getRaw(t, srv, http.MethodGet, path, nil); resp.code != http.StatusOK {
				t.Errorf("GET %s = %d %s", path, resp.code, resp.body)
			}
			resp := getRaw(t, srv, http.MethodGet, path, map[string]string{"Accept": tableAccept})
			var table struct{ Kind string }
			if resp.code != http.StatusOK || json.Unmarshal(resp.body, &table) != nil || table.Kind != "Table" {
				t.Errorf("GET %s as a Table = %d %.200s", path, resp.code, resp.body)
			}
			if gvk := gvkOf(gv, r.Kind); !v2Kinds[gvk] {
				t.Errorf("/openapi/v2 has no definition of %v", gvk)
			}
		}
	}
	var root handlerRoot
	if err := json.Unmarshal(getRaw(t, srv, http.MethodGet, "/openapi/v3", nil).body, &root); err != nil {
		t.Fatalf("GET /openapi/v3: %v", err)
	}
	for _, gv := range AllGroupVersions() {
		p := openapi.GroupVersionPath(gv)
		if _, ok := root.Paths[p]; !ok {
			t.Errorf("/openapi/v3 lacks %q", p)
			continue
		}
		resp := getRaw(t, srv, http.MethodGet, "/openapi/v3/"+p, nil)
		if resp.code != http.StatusOK || !json.Valid(resp.body) {
			t.Errorf("GET /openapi/v3/%s = %d, valid JSON %v", p, resp.code, json.Valid(resp.body))
		}
	}
}

// tableAccept is what kubectl get asks for.
const tableAccept = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json"

// gvkOf is the group-version-kind of kind in the discovery group-version
// gv ("v1", "apps/v1").
func gvkOf(gv, kind string) schema.GroupVersionKind {
	parsed, _ := schema.ParseGroupVersion(gv)
	return parsed.WithKind(kind)
}

// openAPIV2Kinds is the set of kinds /openapi/v2 defines, from each
// definition's x-kubernetes-group-version-kind.
func openAPIV2Kinds(t *testing.T, srv *Server) map[schema.GroupVersionKind]bool {
	t.Helper()
	var doc struct {
		Definitions map[string]struct {
			GVKs []struct{ Group, Version, Kind string } `json:"x-kubernetes-group-version-kind"`
		} `json:"definitions"`
	}
	resp := getRaw(t, srv, http.MethodGet, "/openapi/v2", nil)
	if err := json.Unmarshal(resp.body, &doc); resp.code != http.StatusOK || err != nil {
		t.Fatalf("GET /openapi/v2 = %d, %v", resp.code, err)
	}
	kinds := map[schema.GroupVersionKind]bool{}
	for _, d := range doc.Definitions {
		for _, k := range d.GVKs {
			kinds[schema.GroupVersionKind{Group: k.Group, Version: k.Version, Kind: k.Kind}] = true
		}
	}
	return kinds
}
