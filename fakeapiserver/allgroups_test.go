package fakeapiserver

import (
	"encoding/json"
	"net/http"
	"slices"
	"testing"

	"github.com/lw-sim/lw-sim/fakeapiserver/internal/openapi"
)

// TestAllGroupVersions serves every group-version of client-go's scheme:
// each is in discovery, every listable resource lists, and every OpenAPI
// v3 document the root names is served and is JSON.
func TestAllGroupVersions(t *testing.T) {
	t.Parallel()
	srv := Start(t, WithConfig(func(cfg *Config) { cfg.GroupVersions = AllGroupVersions() }))
	_, lists, err := newDiscoveryClient(t, srv, false).ServerGroupsAndResources()
	if err != nil {
		t.Fatalf("ServerGroupsAndResources() = %v", err)
	}
	byGV := resourcesByGV(lists)
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
