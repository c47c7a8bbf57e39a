package fakeclientset_test

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"

	"github.com/lw-sim/lw-sim/fakeclientset"
)

// TestSubresourcesReachTheServer: apply, status, scale, binding,
// ephemeral containers and eviction go to the server's subresources and
// come back typed as the typed client declares (client-go's fake panics on
// GetScale: its tracker answers with the Deployment).
func TestSubresourcesReachTheServer(t *testing.T) {
	ctx := context.Background()
	cs := fakeclientset.NewClientset(t, newPod("ns", "p"), newDeployment("ns", "d", 1))
	pods := cs.CoreV1().Pods("ns")

	applied, err := pods.Apply(ctx, corev1ac.Pod("p", "ns").WithLabels(map[string]string{"applied": "yes"}), metav1.ApplyOptions{FieldManager: "tester"})
	if err != nil || applied.Labels["applied"] != "yes" || len(applied.ManagedFields) == 0 {
		t.Errorf("Apply = %v, %v; want the label and managed fields", applied, err)
	}
	if _, err := pods.Apply(ctx, corev1ac.Pod("p", "ns"), metav1.ApplyOptions{}); err == nil {
		t.Error("Apply without a field manager succeeded, want the server's 422")
	}
	p, err := pods.Get(ctx, "p", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	p.Status.Phase = corev1.PodRunning
	if got, err := pods.UpdateStatus(ctx, p, metav1.UpdateOptions{}); err != nil || got.Status.Phase != corev1.PodRunning {
		t.Errorf("UpdateStatus = %v, %v; want phase Running", got, err)
	}
	if err := pods.Bind(ctx, &corev1.Binding{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns"},
		Target: corev1.ObjectReference{Kind: "Node", Name: "n1"}}, metav1.CreateOptions{}); err != nil {
		t.Errorf("Bind: %v", err)
	}
	if got, _ := pods.Get(ctx, "p", metav1.GetOptions{}); got.Spec.NodeName != "n1" {
		t.Errorf("after Bind, spec.nodeName = %q, want n1", got.Spec.NodeName)
	}

	deps := cs.AppsV1().Deployments("ns")
	scale, err := deps.GetScale(ctx, "d", metav1.GetOptions{})
	if err != nil || scale.Spec.Replicas != 1 {
		t.Fatalf("GetScale = %v, %v; want replicas 1", scale, err)
	}
	scale.Spec.Replicas = 3
	if _, err := deps.UpdateScale(ctx, "d", scale, metav1.UpdateOptions{}); err != nil {
		t.Errorf("UpdateScale: %v", err)
	}
	if d, _ := deps.Get(ctx, "d", metav1.GetOptions{}); d.Spec.Replicas == nil || *d.Spec.Replicas != 3 {
		t.Errorf("after UpdateScale, deployment replicas = %v, want 3", d.Spec.Replicas)
	}

	p2 := newPod("ns", "victim")
	if _, err := pods.Create(ctx, p2, metav1.CreateOptions{}); err != nil {
		t.Fatalf("Create: %v", err)
	}
	if err := pods.EvictV1(ctx, &policyv1.Eviction{ObjectMeta: metav1.ObjectMeta{Name: "victim", Namespace: "ns"}}); err != nil {
		t.Errorf("EvictV1: %v", err)
	}
}
