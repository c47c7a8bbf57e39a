package fakeapiserver

import (
	"context"
	"net"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// BenchmarkFirstCRDCreate measures creating testWidgetCRD on a fresh server
// until a GET sees it Established (server start and close excluded). Its
// first iteration in a process is what a user's test pays for installing a
// CRD; run it with -benchtime=1x in fresh processes to see that cost.
func BenchmarkFirstCRDCreate(b *testing.B) {
	ctx := context.Background()
	for b.Loop() {
		b.StopTimer()
		srv, err := New(Config{})
		if err != nil {
			b.Fatalf("New: %v", err)
		}
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			b.Fatalf("Listen: %v", err)
		}
		done := srv.ServeBackground(ln)
		cs := apiextensionsclient.NewForConfigOrDie(srv.RESTConfig())
		crds := cs.ApiextensionsV1().CustomResourceDefinitions()
		b.StartTimer()
		if _, err := crds.Create(ctx, testWidgetCRD(), metav1.CreateOptions{}); err != nil {
			b.Fatalf("create CRD: %v", err)
		}
		got, err := crds.Get(ctx, "widgets.example.com", metav1.GetOptions{})
		if err != nil {
			b.Fatalf("get CRD: %v", err)
		}
		if !crdEstablished(got) {
			b.Fatalf("CRD not Established after create: %v", got.Status.Conditions)
		}
		b.StopTimer()
		if err := srv.Close(); err != nil {
			b.Fatalf("Close: %v", err)
		}
		if err := <-done; err != nil {
			b.Fatalf("Serve: %v", err)
		}
		b.StartTimer()
	}
}

// crdEstablished reports whether crd's Established condition is True.
func crdEstablished(crd *apiextensionsv1.CustomResourceDefinition) bool {
	for _, c := range crd.Status.Conditions {
		if c.Type == apiextensionsv1.Established && c.Status == apiextensionsv1.ConditionTrue {
			return true
		}
	}
	return false
}
