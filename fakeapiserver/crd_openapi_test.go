package fakeapiserver

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// TestCRDOpenAPIDocuments checks the v2 and v3 documents built for a CRD
// (they were compared with kube-apiserver v1.37.2's for the same CRD: the
// v3 document is identical). They are not served over HTTP yet: the
// /openapi handlers take them once they can add documents at runtime.
func TestCRDOpenAPIDocuments(t *testing.T) {
	t.Parallel()
	srv := Start(t)
	if _, ok, err := srv.customOpenAPIV3(widgetGVR.GroupVersion()); ok || err != nil {
		t.Fatalf("v3 document before the CRD exists: ok %v err %v", ok, err)
	}
	installCRD(t, srv, testWidgetCRD())

	doc, ok, err := srv.customOpenAPIV3(widgetGVR.GroupVersion())
	if err != nil || !ok {
		t.Fatalf("v3 document: ok %v err %v", ok, err)
	}
	var paths []string
	for p := range doc.Paths.Paths {
		paths = append(paths, p)
	}
	want := []string{
		"/apis/example.com/v1/namespaces/{namespace}/widgets",
		"/apis/example.com/v1/namespaces/{namespace}/widgets/{name}",
		"/apis/example.com/v1/namespaces/{namespace}/widgets/{name}/scale",
		"/apis/example.com/v1/namespaces/{namespace}/widgets/{name}/status",
		"/apis/example.com/v1/widgets",
	}
	if diff := cmp.Diff(want, paths, cmpopts.SortSlices(func(a, b string) bool { return a < b })); diff != "" {
		t.Errorf("v3 paths (-want +got):\n%s", diff)
	}
	widget, ok := doc.Components.Schemas["com.example.v1.Widget"]
	if !ok {
		t.Fatalf("v3 schemas %v lack com.example.v1.Widget", keys(doc.Components.Schemas))
	}
	size := widget.Properties["spec"].Properties["size"]
	if size.Maximum == nil || *size.Maximum != 10 {
		t.Errorf("spec.size maximum = %v, want 10", size.Maximum)
	}
	gvk, _ := widget.Extensions["x-kubernetes-group-version-kind"].([]any)
	if len(gvk) != 1 {
		t.Errorf("x-kubernetes-group-version-kind = %v, want one entry", widget.Extensions["x-kubernetes-group-version-kind"])
	}
	if _, ok, _ := srv.customOpenAPIV3(schema.GroupVersion{Group: "example.com", Version: "v2"}); ok {
		t.Errorf("a v3 document for a version the CRD does not serve")
	}

	v2, err := srv.customOpenAPIV2()
	if err != nil || len(v2) != 1 {
		t.Fatalf("v2 specs = %d, %v; want one", len(v2), err)
	}
	for _, def := range []string{"com.example.v1.Widget", "com.example.v1beta1.Widget", "com.example.v1.WidgetList"} {
		if _, ok := v2[0].Definitions[def]; !ok {
			t.Errorf("v2 definitions lack %s", def)
		}
	}
}

// keys returns a map's keys.
func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}
