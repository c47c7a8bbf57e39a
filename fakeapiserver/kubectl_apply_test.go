package fakeapiserver

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/lw-sim/lw-sim/internal/testdeadline"
)

// kubectlApplyCM is applied by kubectl apply --server-side; VALUE is
// replaced by the value of data.key.
const kubectlApplyCM = `apiVersion: v1
kind: ConfigMap
metadata:
  name: ssa
  namespace: default
data:
  key: VALUE
`

// TestKubectlServerSideApply: kubectl apply --server-side creates, a second
// manager's apply of a different value fails with kubectl's conflict report,
// and --force-conflicts takes the field over.
func TestKubectlServerSideApply(t *testing.T) {
	if _, err := os.Stat(kubectlPath); err != nil {
		t.Skipf("kubectl end-to-end test skipped: it runs %s, which is not usable here: %v", kubectlPath, err)
	}
	t.Parallel()
	srv := Start(t, WithTLS(), WithToken("kubectl-token"))
	k := newKubectl(t, srv)
	manifest := func(value string) string {
		path := filepath.Join(t.TempDir(), value+".yaml")
		if err := os.WriteFile(path, []byte(strings.Replace(kubectlApplyCM, "VALUE", value, 1)), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}

	if out := k.run(t, "apply", "--server-side", "-f", manifest("one")); strings.TrimSpace(out) != "configmap/ssa serverside-applied" {
		t.Errorf("first apply printed %q", out)
	}
	if out := k.run(t, "apply", "--server-side", "-f", manifest("one")); strings.TrimSpace(out) != "configmap/ssa serverside-applied" {
		t.Errorf("second apply by the same manager printed %q", out)
	}

	stderr := k.runFailing(t, "apply", "--server-side", "--field-manager=other", "-f", manifest("two"))
	if !strings.Contains(stderr, `Apply failed with 1 conflict: conflict with "kubectl": .data.key`) {
		t.Errorf("conflicting apply: stderr does not report the conflict:\n%s", stderr)
	}

	k.run(t, "apply", "--server-side", "--field-manager=other", "--force-conflicts", "-f", manifest("two"))
	cm, err := srv.Clientset().CoreV1().ConfigMaps("default").Get(context.Background(), "ssa", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if cm.Data["key"] != "two" {
		t.Errorf("data.key = %q after --force-conflicts, want two", cm.Data["key"])
	}
	owners := map[string]string{}
	for _, e := range cm.ManagedFields {
		owners[e.Manager] = string(e.FieldsV1.Raw)
	}
	if !strings.Contains(owners["other"], `"f:key"`) || strings.Contains(owners["kubectl"], `"f:key"`) {
		t.Errorf("after --force-conflicts, want other to own data.key and kubectl not to: %v", owners)
	}
}

// runFailing runs kubectl expecting a non-zero exit and returns its stderr.
func (k *kubectl) runFailing(t *testing.T, args ...string) string {
	t.Helper()
	ctx, cancel := testdeadline.Context(t)
	defer cancel()
	cmd := k.command(ctx, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err == nil {
		t.Fatalf("kubectl %s succeeded, want a failure\nstdout:\n%s", strings.Join(args, " "), stdout.String())
	} else if ctx.Err() != nil {
		t.Fatalf("kubectl %s timed out: %v", strings.Join(args, " "), ctx.Err())
	}
	return stderr.String()
}
