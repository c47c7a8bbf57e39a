package fake_test

import (
	"context"
	"runtime"
	"testing"

	"go.uber.org/goleak"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/lw-sim/lw-sim/fakeclientset/crfake/fake"
)

// TestDropIn: the import-path-only form builds controller-runtime's client
// on a server (a seeded object has the server's uid), AddIndex reaches it,
// and once the client is dropped and collected the server is closed: no
// goroutine is left.
func TestDropIn(t *testing.T) {
	use := func() {
		var c client.WithWatch = fake.NewClientBuilder().WithObjects(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "c"}}).Build()
		var got corev1.ConfigMap
		if err := c.Get(context.Background(), client.ObjectKey{Namespace: "ns", Name: "c"}, &got); err != nil || got.UID == "" {
			t.Errorf("Get = %v, %v; want the server's config map", got.UID, err)
		}
		if err := fake.AddIndex(c, &corev1.ConfigMap{}, "data.k", func(client.Object) []string { return nil }); err != nil {
			t.Errorf("AddIndex: %v", err)
		}
		if n := fake.NewFakeClient(); n == nil {
			t.Error("NewFakeClient = nil")
		}
	}
	use()
	runtime.GC()
	runtime.GC()
	// goleak retries while the cleanups close the servers.
	goleak.VerifyNone(t)
}
