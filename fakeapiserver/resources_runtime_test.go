package fakeapiserver

import (
	"net/http"
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// TestResourceTableRuntime serves a resource of a new group-version at
// runtime and withdraws it, as CRDs do: discovery and routing follow.
func TestResourceTableRuntime(t *testing.T) {
	t.Parallel()
	srv := Start(t, WithConfig(func(cfg *Config) {
		cfg.Scheme = newDefaultScheme()
		cfg.Scheme.AddKnownTypeWithName(widgetGV.WithKind("Widget"), &testWidget{})
		cfg.Scheme.AddKnownTypeWithName(widgetGV.WithKind("WidgetList"), &testWidgetList{})
	}))
	const collection = "/apis/example.com/v1/namespaces/default/widgets"
	if code := getRaw(t, srv, http.MethodGet, collection, nil).code; code != http.StatusNotFound {
		t.Fatalf("GET widgets before put = %d, want 404", code)
	}
	info, err := srv.resources.newResourceInfo(srv.cfg.Scheme, Resource{Kind: widgetGV.WithKind("Widget")})
	if err != nil {
		t.Fatal(err)
	}
	srv.resources.put(info)
	if !slices.Contains(srv.resources.servedGroupVersions(), widgetGV) {
		t.Errorf("servedGroupVersions() = %v after put, want %s in it", srv.resources.servedGroupVersions(), widgetGV)
	}
	_, lists, err := newDiscoveryClient(t, srv, true).ServerGroupsAndResources()
	if err != nil {
		t.Fatalf("ServerGroupsAndResources() = %v", err)
	}
	if got := resourcesByGV(lists)[widgetGV.String()]; len(got) != 1 || got[0].Name != "widgets" {
		t.Errorf("discovery of %s after put = %v, want widgets", widgetGV, got)
	}
	if code := getRaw(t, srv, http.MethodGet, collection, nil).code; code != http.StatusOK {
		t.Errorf("GET widgets after put = %d, want 200", code)
	}
	srv.resources.remove(schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"})
	if code := getRaw(t, srv, http.MethodGet, collection, nil).code; code != http.StatusNotFound {
		t.Errorf("GET widgets after remove = %d, want 404", code)
	}
	if code := getRaw(t, srv, http.MethodGet, "/apis/example.com/v1", nil).code; code != http.StatusNotFound {
		t.Errorf("GET /apis/example.com/v1 after remove = %d, want 404", code)
	}
}
