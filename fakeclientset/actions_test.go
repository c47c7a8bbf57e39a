package fakeclientset_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/lw-sim/lw-sim/fakeclientset"
)

// exercise makes one call of each kind the typed clients have, ignoring
// their errors: the point is what is recorded.
func exercise(ctx context.Context, cs kubernetes.Interface) {
	pods := cs.CoreV1().Pods("ns")
	_, _ = pods.Create(ctx, newPod("ns", "p1"), metav1.CreateOptions{FieldManager: "test"})
	_, _ = pods.Get(ctx, "p1", metav1.GetOptions{})
	_, _ = pods.List(ctx, metav1.ListOptions{LabelSelector: "app=web", Limit: 10})
	_, _ = pods.Get(ctx, "p1", metav1.GetOptions{ResourceVersion: "0"})
	// The same input on both clients, so the recorded actions can match.
	p := newPod("ns", "p1")
	p.Labels["tier"] = "front"
	_, _ = pods.Update(ctx, p, metav1.UpdateOptions{})
	_, _ = pods.UpdateStatus(ctx, p, metav1.UpdateOptions{})
	_, _ = pods.Patch(ctx, "p1", types.MergePatchType, []byte(`{"metadata":{"annotations":{"a":"b"}}}`), metav1.PatchOptions{})
	_, _ = pods.Patch(ctx, "p1", types.StrategicMergePatchType, []byte(`{"metadata":{"labels":{"x":"y"}}}`), metav1.PatchOptions{}, "status")
	_, _ = pods.Apply(ctx, corev1ac.Pod("p1", "ns").WithLabels(map[string]string{"applied": "yes"}), metav1.ApplyOptions{FieldManager: "tester", Force: true})
	_ = pods.EvictV1(ctx, &policyv1.Eviction{ObjectMeta: metav1.ObjectMeta{Name: "p1", Namespace: "ns"}})
	_ = pods.Bind(ctx, &corev1.Binding{ObjectMeta: metav1.ObjectMeta{Name: "p1", Namespace: "ns"}, Target: corev1.ObjectReference{Kind: "Node", Name: "n1"}}, metav1.CreateOptions{})
	w, err := pods.Watch(ctx, metav1.ListOptions{ResourceVersion: "1"})
	if err == nil {
		w.Stop()
	}
	deps := cs.AppsV1().Deployments("ns")
	_, _ = deps.Create(ctx, newDeployment("ns", "d", 1), metav1.CreateOptions{})
	// GetScale and UpdateScale are left out: client-go's fake panics on
	// them (its tracker answers with the Deployment).
	_, _ = cs.CoreV1().Nodes().Create(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1"}}, metav1.CreateOptions{})
	_, _ = cs.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	_, _ = cs.CoreV1().Namespaces().Finalize(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "ns"}}, metav1.UpdateOptions{})
	_ = pods.Delete(ctx, "p1", metav1.DeleteOptions{})
	_ = pods.DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{LabelSelector: "app=web"})
}

// TestActionsMatchClientGo records the same calls on client-go's fake and
// on this package's clientset: the Actions lists are equal, so tests that
// assert on them (sample-controller's filter list and watch, then compare)
// keep passing.
func TestActionsMatchClientGo(t *testing.T) {
	ctx := context.Background()
	seed := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "ns"}}
	want := fake.NewClientset(seed.DeepCopy())
	got := fakeclientset.NewClientset(t, seed.DeepCopy())
	exercise(ctx, want)
	exercise(ctx, got)
	if diff := cmp.Diff(want.Actions(), got.Actions(), allFields); diff != "" {
		t.Errorf("Actions() differ from client-go's fake (-client-go +lw-sim):\n%s", diff)
	}
	got.ClearActions()
	if n := len(got.Actions()); n != 0 {
		t.Errorf("len(Actions()) after ClearActions = %d, want 0", n)
	}
}

// allFields compares unexported fields too: actions hold parsed label and
// field selectors.
var allFields = cmp.Exporter(func(reflect.Type) bool { return true })
