package fakeapiserver

import (
	"context"
	"net"
	"strconv"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// BenchmarkStartToFirstList measures New + Serve + the first successful
// client-go List (typed clientset, protobuf Accept), then Close.
func BenchmarkStartToFirstList(b *testing.B) {
	for b.Loop() {
		srv, err := New(Config{})
		if err != nil {
			b.Fatalf("New: %v", err)
		}
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			b.Fatalf("Listen: %v", err)
		}
		done := srv.ServeBackground(ln)
		cs, err := kubernetes.NewForConfig(srv.RESTConfig())
		if err != nil {
			b.Fatalf("NewForConfig: %v", err)
		}
		if _, err := cs.CoreV1().Pods("default").List(context.Background(), metav1.ListOptions{}); err != nil {
			b.Fatalf("List: %v", err)
		}
		b.StopTimer()
		if err := srv.Close(); err != nil {
			b.Fatalf("Close: %v", err)
		}
		<-done
		b.StartTimer()
	}
}

// BenchmarkCreatePod measures one pod create through the typed clientset
// (protobuf body) per iteration.
func BenchmarkCreatePod(b *testing.B) {
	srv := Start(b)
	pods := srv.Clientset().CoreV1().Pods("default")
	i := 0
	for b.Loop() {
		i++
		if _, err := pods.Create(context.Background(), newTestPod("p-"+strconv.Itoa(i), "nginx"), metav1.CreateOptions{}); err != nil {
			b.Fatalf("Create: %v", err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "creates/s")
}

// BenchmarkGetPod measures one GET of a pod through the typed clientset.
func BenchmarkGetPod(b *testing.B) {
	srv := Start(b)
	pods := srv.Clientset().CoreV1().Pods("default")
	if _, err := pods.Create(context.Background(), newTestPod("p", "nginx"), metav1.CreateOptions{}); err != nil {
		b.Fatalf("Create: %v", err)
	}
	for b.Loop() {
		if _, err := pods.Get(context.Background(), "p", metav1.GetOptions{}); err != nil {
			b.Fatalf("Get: %v", err)
		}
	}
}
