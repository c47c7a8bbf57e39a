package fakeapiserver

import (
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// benchPageSize is the page size of the benchmark's paged traversals, the
// client-go pager's and most informers' default.
const benchPageSize = 500

// BenchmarkListPaged walks every pod of a 10 000 and a 100 000 pod store
// in pages of 500 through client-go, and reports the time per page. A page
// costs O(log n + limit) in the store, so ns/page must stay about the same
// at both sizes; what remains is encoding and HTTP, proportional to the
// page, not to the store.
func BenchmarkListPaged(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		b.Run(fmt.Sprintf("pods=%d", n), func(b *testing.B) {
			srv := Start(b)
			seedPods(b, srv, n)
			cs := srv.Clientset()
			pages := 0
			b.ResetTimer()
			for b.Loop() {
				opts := metav1.ListOptions{Limit: benchPageSize}
				seen := 0
				for {
					l, err := cs.CoreV1().Pods("").List(b.Context(), opts)
					if err != nil {
						b.Fatalf("LIST pods %+v = %v", opts, err)
					}
					pages++
					seen += len(l.Items)
					if l.Continue == "" {
						break
					}
					opts.Continue = l.Continue
				}
				if seen != n {
					b.Fatalf("paged LIST saw %d pods, want %d", seen, n)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(pages), "ns/page")
		})
	}
}

// benchNamespaces is how many namespaces the seeders spread objects over.
const benchNamespaces = 10

// seedBenchNamespaces creates the namespaces bench-0 … bench-9 through the
// server's create path and returns how many there are.
func seedBenchNamespaces(tb testing.TB, srv *Server) int {
	tb.Helper()
	nsRes := srv.namespaces()
	for i := range benchNamespaces {
		ns := &corev1.Namespace{
			TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Namespace"},
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("bench-%d", i)},
		}
		if _, err := srv.createObject(nsRes, "", ns); err != nil {
			tb.Fatalf("seed namespace: %v", err)
		}
	}
	return benchNamespaces
}

// seedPods creates n pods in 10 namespaces straight through the server's
// create path (the one POST uses after decoding), skipping HTTP: seeding
// 100 000 pods over the API would dominate the benchmark's setup.
func seedPods(tb testing.TB, srv *Server, n int) {
	tb.Helper()
	podRes, ok := srv.resources.lookup(schema.GroupVersionResource{Version: "v1", Resource: "pods"})
	if !ok {
		tb.Fatal("pods are not served")
	}
	namespaces := seedBenchNamespaces(tb, srv)
	start := time.Now()
	for i := range n {
		ns := fmt.Sprintf("bench-%d", i%namespaces)
		pod := benchPod(ns, i)
		podRes.applyDefaults(pod) // as a POST's decode does (write_create.go)
		if _, err := srv.createObject(podRes, ns, pod); err != nil {
			tb.Fatalf("seed pod %d: %v", i, err)
		}
	}
	tb.Logf("seeded %d pods in %v", n, time.Since(start))
}

// benchPod is a small scheduled pod, about 1 KiB as JSON.
func benchPod(ns string, i int) *corev1.Pod {
	return &corev1.Pod{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{
			Namespace: ns,
			Name:      fmt.Sprintf("pod-%06d", i),
			Labels:    map[string]string{"app": fmt.Sprintf("app-%d", i%50), "tier": "bench"},
		},
		Spec: corev1.PodSpec{
			NodeName:   fmt.Sprintf("node-%d", i%100),
			Containers: []corev1.Container{{Name: "main", Image: "registry.k8s.io/pause:3.10"}},
		},
		Status: corev1.PodStatus{Phase: corev1.PodRunning, PodIP: fmt.Sprintf("10.%d.%d.%d", i>>16&255, i>>8&255, i&255)},
	}
}
