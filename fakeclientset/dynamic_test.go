package fakeclientset_test

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/lw-sim/lw-sim/fakeclientset"
)

// TestDynamicErrorIsServerStatus: a request of the dynamic fake the
// server refuses returns the server's Status as the error, as the real
// dynamic client does, not client-go's generic error for the code (the
// unstructured decoder read Raw, which has only that).
func TestDynamicErrorIsServerStatus(t *testing.T) {
	dc := fakeclientset.NewSimpleDynamicClient(t, runtime.NewScheme())
	u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Pod", "metadata": map[string]any{"name": "p", "namespace": "default"}}}
	_, err := dc.Resource(corev1.SchemeGroupVersion.WithResource("pods")).Namespace("default").Create(context.Background(), u, metav1.CreateOptions{})
	const want = `Pod "p" is invalid: spec.containers: Required value`
	if err == nil || err.Error() != want || !apierrors.IsInvalid(err) {
		t.Errorf("Create of an invalid pod = %v, want the server's 422 %q", err, want)
	}
}
