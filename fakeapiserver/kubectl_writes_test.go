package fakeapiserver

import (
	"os"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestKubectlDryRunAndScale drives an unmodified kubectl through a server
// dry-run delete (nothing is deleted) and kubectl scale (the Deployment's
// spec.replicas changes through deployments/scale).
func TestKubectlDryRunAndScale(t *testing.T) {
	if _, err := os.Stat(kubectlPath); err != nil {
		t.Skipf("kubectl end-to-end test skipped: it runs %s, which is not usable here: %v", kubectlPath, err)
	}
	t.Parallel()
	srv := Start(t, WithTLS(), WithToken("kubectl-token"))
	k := newKubectl(t, srv)
	cs := srv.Clientset()
	ctx := t.Context()
	cm, err := cs.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "x"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := k.run(t, "delete", "cm", "x", "--dry-run=server"); !strings.HasPrefix(got, `configmap "x" deleted (server dry run)`) {
		t.Errorf("kubectl delete cm x --dry-run=server = %q", got)
	}
	if cur, err := cs.CoreV1().ConfigMaps("default").Get(ctx, "x", metav1.GetOptions{}); err != nil || cur.ResourceVersion != cm.ResourceVersion {
		t.Errorf("Get(cm x) after the dry-run delete = %v, %v; want it unchanged", cur, err)
	}

	mustCreateDeployment(t, ctx, cs, "web", 1)
	if got, want := k.run(t, "scale", "deployment", "web", "--replicas=3"), "deployment.apps/web scaled\n"; got != want {
		t.Errorf("kubectl scale = %q, want %q", got, want)
	}
	d, err := cs.AppsV1().Deployments("default").Get(ctx, "web", metav1.GetOptions{})
	if err != nil || d.Spec.Replicas == nil || *d.Spec.Replicas != 3 {
		t.Errorf("Deployment after kubectl scale = %v, %v; want 3 replicas", d.Spec.Replicas, err)
	}
}
