package fakeapiserver

import (
	"encoding/json"
	"net/http"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/kube-openapi/pkg/spec3"
	"k8s.io/kube-openapi/pkg/validation/spec"

	"github.com/lw-sim/lw-sim/fakeapiserver/internal/openapi"
)

// TestOpenAPIRuntimeGroupVersion publishes a group-version at runtime, as
// CRDs do, and withdraws it: /openapi/v3 lists it and its group, its
// document is served, /openapi/v2 carries its paths and definitions, and
// all of it goes away again.
func TestOpenAPIRuntimeGroupVersion(t *testing.T) {
	t.Parallel()
	srv := Start(t)
	gv := schema.GroupVersion{Group: "stable.example.com", Version: "v1"}
	v3 := &spec3.OpenAPI{Version: "3.0.0", Info: &spec.Info{InfoProps: spec.InfoProps{Title: "Kubernetes CRD Swagger", Version: "v0.1.0"}}}
	v2 := &openapi.V2Part{
		Paths:       map[string]spec.PathItem{"/apis/stable.example.com/v1/crontabs": {}},
		Definitions: spec.Definitions{"com.example.stable.v1.CronTab": *spec.StringProperty()},
	}
	srv.openapi.AddGroupVersion(gv, v3, func() (*openapi.V2Part, error) { return v2, nil })
	checkPublished(t, srv, true)
	srv.openapi.RemoveGroupVersion(gv)
	checkPublished(t, srv, false)
}

// checkPublished checks that stable.example.com/v1 is (or is not) in both
// OpenAPI versions.
func checkPublished(t *testing.T, srv *Server, want bool) {
	t.Helper()
	var root handlerRoot
	if err := json.Unmarshal(getRaw(t, srv, http.MethodGet, "/openapi/v3", nil).body, &root); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"apis/stable.example.com/v1", "apis/stable.example.com"} {
		if _, got := root.Paths[p]; got != want {
			t.Errorf("/openapi/v3 lists %q = %v, want %v", p, got, want)
		}
		code := getRaw(t, srv, http.MethodGet, "/openapi/v3/"+p, nil).code
		if got := code == http.StatusOK; got != want {
			t.Errorf("GET /openapi/v3/%s = %d, want served %v", p, code, want)
		}
	}
	var v2 struct {
		Paths       map[string]any `json:"paths"`
		Definitions map[string]any `json:"definitions"`
	}
	if err := json.Unmarshal(getRaw(t, srv, http.MethodGet, "/openapi/v2", nil).body, &v2); err != nil {
		t.Fatal(err)
	}
	if _, got := v2.Paths["/apis/stable.example.com/v1/crontabs"]; got != want {
		t.Errorf("/openapi/v2 has the crontabs path = %v, want %v", got, want)
	}
	if _, got := v2.Definitions["com.example.stable.v1.CronTab"]; got != want {
		t.Errorf("/openapi/v2 has the CronTab definition = %v, want %v", got, want)
	}
	if _, ok := v2.Definitions["io.k8s.api.batch.v1.Job"]; !ok {
		t.Errorf("/openapi/v2 lost the built-in Job definition")
	}
}

// handlerRoot is the /openapi/v3 root document.
type handlerRoot struct {
	Paths map[string]struct {
		ServerRelativeURL string `json:"serverRelativeURL"`
	} `json:"paths"`
}
