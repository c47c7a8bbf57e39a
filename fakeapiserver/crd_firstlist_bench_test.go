package fakeapiserver

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
)

// BenchmarkCustomFirstList measures the first LIST of a CRD's objects
// (issue 25: lw-sim bench --scale's row "100 custom objects: first page,
// JSON" was 85-311 ms against the real server's 4-10 ms): each iteration
// creates, untimed, a CRD of bench --scale's shape (spec has the given
// number of string properties, none with a default) in a group of its own
// and objects of it, two spec properties set; then times one LIST of them
// (limit 500) through client-go's dynamic client. first-ms is that LIST,
// warm-ms the same LIST again, once every object's read view is built;
// create-us is the untimed creates' wall time per object (8 clients).
func BenchmarkCustomFirstList(b *testing.B) {
	for _, tc := range []struct {
		properties, objects int
	}{
		{2000, 100},
		{20, 100},
	} {
		b.Run(fmt.Sprintf("flat-%d/objects-%d", tc.properties, tc.objects), func(b *testing.B) {
			srv := Start(b)
			ctx := context.Background()
			crds := apiextensionsclient.NewForConfigOrDie(srv.RESTConfig()).ApiextensionsV1().CustomResourceDefinitions()
			dc := dynamic.NewForConfigOrDie(srv.RESTConfig())
			spec := flatSchema(tc.properties)
			var first, warm, creates time.Duration
			i := 0
			for b.Loop() {
				b.StopTimer()
				group := fmt.Sprintf("g%d.bench.example.com", i)
				i++
				crd := largeSchemaCRD(spec)
				crd.Name = "bigs." + group
				crd.Spec.Group = group
				if _, err := crds.Create(ctx, crd, metav1.CreateOptions{}); err != nil {
					b.Fatalf("create CRD: %v", err)
				}
				got, err := crds.Get(ctx, crd.Name, metav1.GetOptions{})
				if err != nil || !crdEstablished(got) {
					b.Fatalf("CRD not Established after create: %v", err)
				}
				objects := dc.Resource(schema.GroupVersionResource{Group: group, Version: "v1", Resource: "bigs"}).Namespace("default")
				start := time.Now()
				createBigs(b, objects, group, tc.objects)
				creates += time.Since(start)
				b.StartTimer()
				start = time.Now()
				l, err := objects.List(ctx, metav1.ListOptions{Limit: 500})
				first += time.Since(start)
				b.StopTimer()
				if err != nil || len(l.Items) != tc.objects {
					b.Fatalf("first LIST: %v", err)
				}
				start = time.Now()
				if _, err := objects.List(ctx, metav1.ListOptions{Limit: 500}); err != nil {
					b.Fatalf("second LIST: %v", err)
				}
				warm += time.Since(start)
				b.StartTimer()
			}
			b.ReportMetric(float64(first.Microseconds())/1e3/float64(b.N), "first-ms")
			b.ReportMetric(float64(warm.Microseconds())/1e3/float64(b.N), "warm-ms")
			b.ReportMetric(float64(creates.Microseconds())/float64(b.N*tc.objects), "create-us")
		})
	}
}

// createBigs creates n Bigs of group in objects with 8 concurrent clients.
func createBigs(b *testing.B, objects dynamic.ResourceInterface, group string, n int) {
	b.Helper()
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for w := range 8 {
		wg.Go(func() {
			for i := w; i < n; i += 8 {
				obj := &unstructured.Unstructured{Object: map[string]any{
					"apiVersion": group + "/v1", "kind": "Big",
					"metadata": map[string]any{"name": fmt.Sprintf("big-%05d", i), "labels": map[string]any{"app": fmt.Sprintf("app-%d", i%50)}},
					"spec":     map[string]any{"p0": fmt.Sprintf("v-%d", i), "p1": "value"},
				}}
				if _, err := objects.Create(context.Background(), obj, metav1.CreateOptions{}); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		b.Fatalf("create objects: %v", err)
	}
}
