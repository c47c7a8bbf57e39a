package fakeapiserver

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestKubectlGroups drives kubectl through what the built-in groups, the
// reviews and /openapi/v2 make work: auth can-i and whoami, create -f of a
// List (kubectl validates it against /openapi/v2) and explain.
func TestKubectlGroups(t *testing.T) {
	if _, err := os.Stat(kubectlPath); err != nil {
		t.Skipf("kubectl end-to-end test skipped: it runs %s, which is not usable here: %v", kubectlPath, err)
	}
	t.Parallel()
	srv := Start(t, WithTLS(), WithToken("kubectl-token"))
	k := newKubectl(t, srv)

	t.Run("auth can-i", func(t *testing.T) {
		if got := k.run(t, "auth", "can-i", "create", "pods"); got != "yes\n" {
			t.Errorf("kubectl auth can-i create pods = %q, want yes", got)
		}
		if got := k.run(t, "auth", "can-i", "--list", "-n", "default"); !strings.Contains(got, "*.*") {
			t.Errorf("kubectl auth can-i --list = %q, want a rule for *.*", got)
		}
	})
	t.Run("auth whoami", func(t *testing.T) {
		var review struct {
			Status struct {
				UserInfo struct {
					Username string   `json:"username"`
					Groups   []string `json:"groups"`
				} `json:"userInfo"`
			} `json:"status"`
		}
		if err := json.Unmarshal([]byte(k.run(t, "auth", "whoami", "-o", "json")), &review); err != nil {
			t.Fatalf("kubectl auth whoami -o json: %v", err)
		}
		u := review.Status.UserInfo
		wantGroups := []string{"system:authenticated", "system:masters"}
		if u.Username != loopbackUser || !cmp.Equal(u.Groups, wantGroups) {
			t.Errorf("kubectl auth whoami = %q %v, want %q %v", u.Username, u.Groups, loopbackUser, wantGroups)
		}
	})
	t.Run("create -f list", func(t *testing.T) {
		list := corev1.ConfigMapList{TypeMeta: metav1.TypeMeta{Kind: "List", APIVersion: "v1"}}
		for _, name := range []string{"a", "b"} {
			list.Items = append(list.Items, corev1.ConfigMap{
				TypeMeta:   metav1.TypeMeta{Kind: "ConfigMap", APIVersion: "v1"},
				ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
				Data:       map[string]string{"k": name},
			})
		}
		raw, err := json.Marshal(list)
		if err != nil {
			t.Fatal(err)
		}
		file := filepath.Join(k.home, "list.json")
		if err := os.WriteFile(file, raw, 0o600); err != nil {
			t.Fatal(err)
		}
		got := k.run(t, "create", "-f", file, "--validate=true")
		if want := "configmap/a created\nconfigmap/b created\n"; got != want {
			t.Errorf("kubectl create -f list.json = %q, want %q", got, want)
		}
		// The List kubectl get -o json writes creates the same again
		// elsewhere: the round trip the issue reported.
		out := k.run(t, "get", "cm", "a", "b", "-o", "json")
		out = strings.ReplaceAll(out, `"namespace": "default"`, `"namespace": "kube-public"`)
		var dump map[string]any
		if err := json.Unmarshal([]byte(out), &dump); err != nil {
			t.Fatalf("kubectl get cm -o json: %v", err)
		}
		for _, item := range dump["items"].([]any) {
			md := item.(map[string]any)["metadata"].(map[string]any)
			for _, f := range []string{"resourceVersion", "uid", "creationTimestamp"} {
				delete(md, f)
			}
		}
		raw, err = json.Marshal(dump)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, raw, 0o600); err != nil {
			t.Fatal(err)
		}
		if got, want := k.run(t, "create", "-f", file, "--validate=strict"), "configmap/a created\nconfigmap/b created\n"; got != want {
			t.Errorf("kubectl create -f of kubectl get -o json = %q, want %q", got, want)
		}
	})
	t.Run("explain", func(t *testing.T) {
		got := k.run(t, "explain", "deployment.spec", "--output", "plaintext")
		if !strings.Contains(got, "KIND:       Deployment") || !strings.Contains(got, "FIELD: spec <DeploymentSpec>") {
			t.Errorf("kubectl explain deployment.spec = %.300q, want the DeploymentSpec field", got)
		}
	})
}
