package envtest

import (
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// generous stands in for "no deadline" where envtest insists on one (its
// start and stop timeouts; zero means its 20 s default): a loaded
// machine must never fail the test by being slow.
const generous = time.Hour

// TestEnvtestOnLwSim starts envtest exactly as a user's suite does, with
// KUBEBUILDER_ASSETS pointing at "lw-sim envtest-assets DIR": etcd and
// kube-apiserver come up (envtest polls their health), its admin user
// (a client certificate) lists namespaces, a CRD installed through
// CRDInstallOptions is served, a user added with AddUser reaches the
// server with its own certificate, the kubectl of DIR works, and Stop
// leaves no process of DIR running and the port closed.
//
// Not a parallel test: KUBEBUILDER_ASSETS is process-wide (t.Setenv).
func TestEnvtestOnLwSim(t *testing.T) {
	assets := writeAssets(t)
	t.Setenv("KUBEBUILDER_ASSETS", assets)
	env := &envtest.Environment{
		CRDs:                     []*apiextensionsv1.CustomResourceDefinition{widgetCRD()},
		ControlPlaneStartTimeout: generous,
		ControlPlaneStopTimeout:  generous,
	}
	cfg, err := env.Start()
	if err != nil {
		t.Fatalf("envtest Start with KUBEBUILDER_ASSETS=%s: %v", assets, err)
	}
	stopped := false
	t.Cleanup(func() {
		if !stopped {
			_ = env.Stop()
		}
	})
	if got := env.ControlPlane.APIServer.Path; got != filepath.Join(assets, "kube-apiserver") {
		t.Errorf("envtest ran kube-apiserver from %q, want the assets directory's", got)
	}

	c, err := client.New(cfg, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	widget := &unstructured.Unstructured{}
	widget.SetGroupVersionKind(schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"})
	widget.SetNamespace("default")
	widget.SetName("w")
	if err := c.Create(t.Context(), widget); err != nil {
		t.Errorf("Create(widget) through the admin user = %v", err)
	}

	// A client-certificate user of its own (CN alice, O devs): with
	// envtest's --authorization-mode=RBAC, forbidden to list namespaces
	// until a ClusterRoleBinding grants her the view of them, as on
	// kube-apiserver.
	alice, err := env.AddUser(envtest.User{Name: "alice", Groups: []string{"devs"}}, cfg)
	if err != nil {
		t.Fatalf("AddUser(alice) = %v", err)
	}
	cs := kubernetes.NewForConfigOrDie(alice.Config())
	_, err = cs.CoreV1().Namespaces().List(t.Context(), metav1.ListOptions{})
	const forbidden = `namespaces is forbidden: User "alice" cannot list resource "namespaces" in API group "" at the cluster scope`
	if !apierrors.IsForbidden(err) || err.Error() != forbidden {
		t.Errorf("List(namespaces) as alice before a binding = %v, want 403 %q", err, forbidden)
	}
	admin := kubernetes.NewForConfigOrDie(cfg)
	if _, err := admin.RbacV1().ClusterRoles().Create(t.Context(), &rbacv1.ClusterRole{
		ObjectMeta: metav1.ObjectMeta{Name: "namespace-reader"},
		Rules:      []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"namespaces"}, Verbs: []string{"list"}}},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatalf("Create(ClusterRole) as the admin = %v", err)
	}
	if _, err := admin.RbacV1().ClusterRoleBindings().Create(t.Context(), &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "devs-namespace-reader"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "namespace-reader"},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.GroupKind, APIGroup: rbacv1.GroupName, Name: "devs"}},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatalf("Create(ClusterRoleBinding) as the admin = %v", err)
	}
	nss, err := cs.CoreV1().Namespaces().List(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatalf("List(namespaces) as alice after the binding = %v", err)
	}
	if !slices.ContainsFunc(nss.Items, func(ns corev1.Namespace) bool { return ns.Name == "default" }) {
		t.Errorf("List(namespaces) as alice = %v, want default among them", nss.Items)
	}

	if _, err := exec.LookPath("kubectl"); err == nil {
		stdout, _, err := env.ControlPlane.KubeCtl().Run("get", "namespace", "default", "-o", "name")
		if out := readAll(t, stdout); err != nil || out != "namespace/default\n" {
			t.Errorf("kubectl get namespace default = %q, %v, want namespace/default", out, err)
		}
	}

	apiURL := env.ControlPlane.APIServer.SecureServing.URL("https", "").Host
	stopped = true
	if err := env.Stop(); err != nil {
		t.Fatalf("envtest Stop = %v", err)
	}
	if pids := processesRunning(t, assets); len(pids) > 0 {
		t.Errorf("after Stop, processes %v still run an executable of %s", pids, assets)
	}
	if conn, err := net.Dial("tcp", apiURL); err == nil {
		conn.Close()
		t.Errorf("after Stop, %s still accepts connections", apiURL)
	}
}

// writeAssets builds lw-sim and runs "lw-sim envtest-assets DIR" with it,
// returning DIR.
func writeAssets(t *testing.T) string {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("go command not on PATH: %v", err)
	}
	tmp := t.TempDir()
	bin := filepath.Join(tmp, "build", "lw-sim")
	if out, err := exec.CommandContext(t.Context(), goBin, "build", "-o", bin, "github.com/lw-sim/lw-sim/cmd/lw-sim").CombinedOutput(); err != nil {
		t.Fatalf("go build lw-sim: %v\n%s", err, out)
	}
	dir := filepath.Join(tmp, "assets")
	out, err := exec.CommandContext(t.Context(), bin, "envtest-assets", dir).Output()
	if err != nil {
		t.Fatalf("lw-sim envtest-assets %s: %v", dir, err)
	}
	if got := strings.TrimSpace(string(out)); got != dir {
		t.Fatalf("lw-sim envtest-assets printed %q, want %q", got, dir)
	}
	// The built binary goes away: the directory must not depend on it.
	if err := os.Remove(bin); err != nil {
		t.Fatal(err)
	}
	return dir
}

// processesRunning returns the processes whose executable is in dir
// (Linux /proc); elsewhere it skips the check.
func processesRunning(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Logf("no /proc (%v): process check skipped", err)
		return nil
	}
	var pids []string
	for _, e := range entries {
		if exe, err := os.Readlink(filepath.Join("/proc", e.Name(), "exe")); err == nil && filepath.Dir(exe) == dir {
			pids = append(pids, e.Name())
		}
	}
	return pids
}

// widgetCRD is a namespaced CRD example.com/v1 Widget.
func widgetCRD() *apiextensionsv1.CustomResourceDefinition {
	preserve := true
	return &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "widgets.example.com"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "example.com",
			Scope: apiextensionsv1.NamespaceScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "widgets", Singular: "widget", Kind: "Widget", ListKind: "WidgetList"},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{
				Name: "v1", Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
					Type: "object", XPreserveUnknownFields: &preserve,
				}},
			}},
		},
	}
}

// readAll reads what kubectl wrote.
func readAll(t *testing.T, r io.Reader) string {
	t.Helper()
	data, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
