package crfake_test

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/lw-sim/lw-sim/fakeclientset/crfake"
)

// TestBubbleWatchTimeout: built inside a synctest bubble, the client's
// server runs on the bubble's clock: a watch with a 10-minute
// timeoutSeconds ends exactly then, in microseconds of real time, and
// t.Cleanup closes the server before the bubble ends.
func TestBubbleWatchTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		c := crfake.NewClientBuilder(t).WithObjects(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "c"}}).Build()
		start := time.Now()
		w, err := c.Watch(ctx, &corev1.ConfigMapList{}, client.InNamespace("ns"), &client.ListOptions{Raw: &metav1.ListOptions{TimeoutSeconds: ptr.To[int64](600)}})
		if err != nil {
			t.Fatalf("Watch: %v", err)
		}
		defer w.Stop()
		events := 0
		for range w.ResultChan() {
			events++
		}
		if took := time.Since(start); took != 600*time.Second {
			t.Errorf("watch ended after %v of bubble time, want its timeoutSeconds (10m0s)", took)
		}
		// Without a resourceVersion the watch starts with the state.
		if events != 1 {
			t.Errorf("got %d events, want the seeded config map's ADDED", events)
		}
	})
}
