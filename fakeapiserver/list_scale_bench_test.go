package fakeapiserver

import (
	"fmt"
	"io"
	"net/http"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// BenchmarkListScale reads one LIST page (limit 500, JSON, all
// namespaces) of a 10 000 and a 200 000 configmap store over loopback
// HTTP: the first page, a page whose label selector matches nothing, and
// pages selecting one namespace or one name by field; and the whole
// collection unpaged. The first page
// costs O(log n + limit) in the store, so its ns/op must stay about the
// same at both sizes; a selector page costs what it scans.
func BenchmarkListScale(b *testing.B) {
	for _, n := range []int{10_000, 200_000} {
		b.Run(fmt.Sprintf("objects=%d", n), func(b *testing.B) { benchListScale(b, n) })
	}
}

// benchListScale is BenchmarkListScale at n objects.
func benchListScale(b *testing.B, n int) {
	srv := Start(b)
	seedConfigMaps(b, srv, n)
	for _, q := range []struct{ name, path string }{
		{"first-page", "/api/v1/configmaps?limit=500"},
		{"label-none", "/api/v1/configmaps?limit=500&labelSelector=app%3Dnone"},
		{"label-one", "/api/v1/configmaps?limit=500&labelSelector=app%3Dapp-7"},
		{"field-namespace", "/api/v1/configmaps?limit=500&fieldSelector=metadata.namespace%3Dbench-3"},
		{"field-name", "/api/v1/configmaps?limit=500&fieldSelector=metadata.name%3Dcm-000007"},
		{"full", "/api/v1/configmaps"},
	} {
		b.Run(q.name, func(b *testing.B) {
			for b.Loop() {
				resp, err := http.Get(srv.URL() + q.path)
				if err != nil {
					b.Fatal(err)
				}
				_, err = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if err != nil || resp.StatusCode != http.StatusOK {
					b.Fatalf("GET %s: %s %v", q.path, resp.Status, err)
				}
			}
		})
	}
}

// seedConfigMaps creates n small configmaps in 10 namespaces, labelled
// app=app-<i%50>, straight through the server's create path.
func seedConfigMaps(tb testing.TB, srv *Server, n int) {
	tb.Helper()
	cmRes, ok := srv.resources.lookup(schema.GroupVersionResource{Version: "v1", Resource: "configmaps"})
	if !ok {
		tb.Fatal("configmaps are not served")
	}
	namespaces := seedBenchNamespaces(tb, srv)
	for i := range n {
		ns := fmt.Sprintf("bench-%d", i%namespaces)
		cm := &corev1.ConfigMap{
			TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
			ObjectMeta: metav1.ObjectMeta{
				Namespace: ns, Name: fmt.Sprintf("cm-%06d", i),
				Labels: map[string]string{"app": fmt.Sprintf("app-%d", i%50)},
			},
			Data: map[string]string{"key": "value"},
		}
		if _, err := srv.createObject(cmRes, ns, cm); err != nil {
			tb.Fatalf("seed configmap %d: %v", i, err)
		}
	}
}
