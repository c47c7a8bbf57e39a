package fakeapiserver

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// BenchmarkMemoryPerCustomObject is BenchmarkMemoryPerObject for custom
// resources: the memory the server holds per object after creating
// 100 000 small ones of a CRD (seedBigs) through its create path
// (live-B/object, the live heap after a collection), again after one
// full JSON LIST has read every object (listed-live-B/object: what the
// read views add, customresource_view.go), and after the CRD gains a
// default no object has and a full LIST reads them all again
// (defaulted-live-B/object: every view is then a copy of its object).
// One iteration is enough.
func BenchmarkMemoryPerCustomObject(b *testing.B) {
	const n = 100_000
	for b.Loop() {
		srv := Start(b)
		live0 := liveHeap()
		seedBigs(b, srv, n)
		b.ReportMetric(float64(liveHeap()-live0)/n, "live-B/object")
		getAll(b, srv, "/apis/bench.example.com/v1/bigs")
		b.ReportMetric(float64(liveHeap()-live0)/n, "listed-live-B/object")
		addBigsDefault(b, srv)
		getAll(b, srv, "/apis/bench.example.com/v1/bigs")
		b.ReportMetric(float64(liveHeap()-live0)/n, "defaulted-live-B/object")
		runtime.KeepAlive(srv)
	}
}

// BenchmarkCustomListPages reads LIST pages of 10 000 custom objects in
// JSON over loopback HTTP, as BenchmarkListScale reads configmaps: the
// first page (limit 500), a label selector page, a field selector page
// and the whole collection.
func BenchmarkCustomListPages(b *testing.B) {
	srv := Start(b)
	seedBigs(b, srv, 10_000)
	for _, q := range []struct{ name, path string }{
		{"first-page", "/apis/bench.example.com/v1/bigs?limit=500"},
		{"label-one", "/apis/bench.example.com/v1/bigs?limit=500&labelSelector=app%3Dapp-7"},
		{"field-name", "/apis/bench.example.com/v1/bigs?limit=500&fieldSelector=metadata.name%3Dbig-000007"},
		{"full", "/apis/bench.example.com/v1/bigs"},
	} {
		b.Run(q.name, func(b *testing.B) {
			for b.Loop() {
				getAll(b, srv, q.path)
			}
		})
	}
}

// addBigsDefault gives seedBigs' CRD a default for spec.p2, which no
// seeded object has.
func addBigsDefault(b *testing.B, srv *Server) {
	b.Helper()
	ctx := context.Background()
	crds := apiextensionsclient.NewForConfigOrDie(srv.RESTConfig()).ApiextensionsV1().CustomResourceDefinitions()
	crd, err := crds.Get(ctx, "bigs.bench.example.com", metav1.GetOptions{})
	if err != nil {
		b.Fatal(err)
	}
	spec := crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"]
	p2 := spec.Properties["p2"]
	p2.Default = &apiextensionsv1.JSON{Raw: []byte(`"dflt"`)}
	spec.Properties["p2"] = p2
	crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"] = spec
	if _, err := crds.Update(ctx, crd, metav1.UpdateOptions{}); err != nil {
		b.Fatalf("update CRD: %v", err)
	}
}

// getAll GETs path and discards the body, failing on anything but 200.
func getAll(b *testing.B, srv *Server, path string) {
	b.Helper()
	resp, err := http.Get(srv.URL() + path)
	if err != nil {
		b.Fatal(err)
	}
	_, err = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusOK {
		b.Fatalf("GET %s: %s %v", path, resp.Status, err)
	}
}

// seedBigs creates the CRD bigs.bench.example.com (a spec of 20 string
// properties) and n Bigs in 10 namespaces, labelled app=app-<i%50>, two
// spec properties set, straight through the server's create path.
func seedBigs(b *testing.B, srv *Server, n int) {
	b.Helper()
	ctx := context.Background()
	crds := apiextensionsclient.NewForConfigOrDie(srv.RESTConfig()).ApiextensionsV1().CustomResourceDefinitions()
	crd := largeSchemaCRD(flatSchema(20))
	crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["metadata"] = apiextensionsv1.JSONSchemaProps{Type: "object"}
	if _, err := crds.Create(ctx, crd, metav1.CreateOptions{}); err != nil {
		b.Fatalf("create CRD: %v", err)
	}
	if got, err := crds.Get(ctx, crd.Name, metav1.GetOptions{}); err != nil || !crdEstablished(got) {
		b.Fatalf("CRD not Established after create: %v", err)
	}
	res, ok := srv.resources.lookup(schema.GroupVersionResource{Group: "bench.example.com", Version: "v1", Resource: "bigs"})
	if !ok {
		b.Fatal("bigs are not served")
	}
	namespaces := seedBenchNamespaces(b, srv)
	for i := range n {
		ns := fmt.Sprintf("bench-%d", i%namespaces)
		obj := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "bench.example.com/v1", "kind": "Big",
			"metadata": map[string]any{"namespace": ns, "name": fmt.Sprintf("big-%06d", i), "labels": map[string]any{"app": fmt.Sprintf("app-%d", i%50)}},
			"spec":     map[string]any{"p0": fmt.Sprintf("v-%d", i), "p1": "value"},
		}}
		if _, err := srv.createObject(res, ns, obj); err != nil {
			b.Fatalf("seed big %d: %v", i, err)
		}
	}
}
