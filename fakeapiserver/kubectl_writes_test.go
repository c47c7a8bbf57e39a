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

// TestKubectlDrain drives kubectl drain: it cordons the node, finds the
// node's pods by field selector and evicts them through pods/eviction,
// then waits until they are gone.
func TestKubectlDrain(t *testing.T) {
	if _, err := os.Stat(kubectlPath); err != nil {
		t.Skipf("kubectl end-to-end test skipped: it runs %s, which is not usable here: %v", kubectlPath, err)
	}
	t.Parallel()
	srv := Start(t, WithTLS(), WithToken("kubectl-token"))
	k := newKubectl(t, srv)
	cs := srv.Clientset()
	ctx := t.Context()
	if _, err := cs.CoreV1().Nodes().Create(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-1"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"on-node", "elsewhere"} {
		p := newTestPod(name, "nginx")
		p.Spec.NodeName = map[string]string{"on-node": "node-1", "elsewhere": "node-2"}[name]
		if _, err := cs.CoreV1().Pods("default").Create(ctx, p, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	out := k.run(t, "drain", "node-1", "--force", "--grace-period=0", "--timeout=30s")
	if !strings.Contains(out, "pod/on-node evicted") || !strings.Contains(out, "node/node-1 drained") {
		t.Errorf("kubectl drain = %q, want on-node evicted and node-1 drained", out)
	}
	pods, err := cs.CoreV1().Pods("default").List(ctx, metav1.ListOptions{})
	if err != nil || len(pods.Items) != 1 || pods.Items[0].Name != "elsewhere" {
		t.Errorf("pods after the drain = %v, %v; want only elsewhere", pods, err)
	}
	node, err := cs.CoreV1().Nodes().Get(ctx, "node-1", metav1.GetOptions{})
	if err != nil || !node.Spec.Unschedulable {
		t.Errorf("node after the drain = unschedulable %v, %v; want cordoned", node.Spec.Unschedulable, err)
	}
}
