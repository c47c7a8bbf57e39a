package fakeapiserver

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/lw-sim/lw-sim/internal/testdeadline"
)

const (
	// kubectlPath is where the machine image puts kubectl; the test is
	// skipped where it is absent.
	kubectlPath = "/usr/bin/kubectl"
	// kubectlWaitDelay bounds how long Wait waits for kubectl's output
	// pipes after it was killed.
	kubectlWaitDelay = 5 * time.Second
)

// kubectlPod is created with kubectl create -f. It carries no
// --validate=false: kubectl validates it against the server's OpenAPI v3
// and posts with fieldValidation=Strict.
const kubectlPod = `apiVersion: v1
kind: Pod
metadata:
  name: web-1
  labels:
    app: web
spec:
  containers:
  - name: web
    image: nginx
`

// TestKubectl drives an unmodified kubectl against the fake over TLS with a
// bearer token, through a kubeconfig from WriteKubeconfig: create -f, get
// (the server-side Table), get -w seeing a change made after it started,
// and delete. Each step needs the previous one, so the test stops at the
// first step that fails.
func TestKubectl(t *testing.T) {
	if _, err := os.Stat(kubectlPath); err != nil {
		t.Skipf("kubectl end-to-end test skipped: it runs %s, which is not usable here: %v", kubectlPath, err)
	}
	t.Parallel()
	srv := Start(t, WithTLS(), WithToken("kubectl-token"))
	k := newKubectl(t, srv)

	steps := []struct {
		name string
		run  func(t *testing.T)
	}{
		{"create -f", func(t *testing.T) { testKubectlCreate(t, k) }},
		{"get pods", func(t *testing.T) { testKubectlGet(t, k) }},
		{"get pods -w", func(t *testing.T) { testKubectlGetWatch(t, k, srv) }},
		{"delete pod", func(t *testing.T) { testKubectlDelete(t, k, srv) }},
	}
	for _, step := range steps {
		if !t.Run(step.name, step.run) {
			return
		}
	}
}

func testKubectlCreate(t *testing.T, k *kubectl) {
	manifest := filepath.Join(t.TempDir(), "pod.yaml")
	if err := os.WriteFile(manifest, []byte(kubectlPod), 0o600); err != nil {
		t.Fatal(err)
	}
	if got, want := k.run(t, "create", "-f", manifest), "pod/web-1 created\n"; got != want {
		t.Errorf("kubectl create -f = %q, want %q", got, want)
	}
}

func testKubectlGet(t *testing.T, k *kubectl) {
	lines := strings.Split(strings.TrimSpace(k.run(t, "get", "pods")), "\n")
	if diff := cmp.Diff([]string{"NAME", "READY", "STATUS", "RESTARTS", "AGE"}, strings.Fields(lines[0])); diff != "" {
		t.Errorf("kubectl get pods header mismatch (-want +got):\n%s", diff)
	}
	if len(lines) != 2 || !strings.HasPrefix(lines[1], "web-1 ") {
		t.Errorf("kubectl get pods rows = %q, want one row for web-1", lines[1:])
	}
}

// testKubectlGetWatch starts kubectl get pods -w, waits until it printed
// the existing pod (its LIST is done), creates a pod and waits for its row.
// kubectl watches from its list's resourceVersion, so the new pod shows even
// if it is created before the WATCH request arrives.
func testKubectlGetWatch(t *testing.T, k *kubectl, srv *Server) {
	ctx, cancel := testdeadline.Context(t)
	defer cancel()
	cmd := k.command(ctx, "get", "pods", "-w")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("start kubectl get pods -w: %v", err)
	}
	// Killing kubectl (cancel) ends the watch; Wait reaps it. A kill is
	// the expected way out, so Wait's error is not checked.
	defer func() { cancel(); _ = cmd.Wait() }()

	lines := bufio.NewScanner(stdout)
	if !scanUntil(lines, "web-1 ") {
		t.Fatalf("kubectl get pods -w never listed web-1 (%v); stderr:\n%s", ctx.Err(), stderr.String())
	}
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "web-2"},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "nginx"}}},
	}
	if _, err := srv.Clientset().CoreV1().Pods("default").Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		t.Fatalf("Create(pod web-2) = %v", err)
	}
	if !scanUntil(lines, "web-2 ") {
		t.Fatalf("kubectl get pods -w never showed web-2, created after it started (%v); stderr:\n%s", ctx.Err(), stderr.String())
	}
}

func testKubectlDelete(t *testing.T, k *kubectl, srv *Server) {
	// kubectl delete waits (--wait=true) until a watch sees the pod gone.
	if got := k.run(t, "delete", "pod", "web-1"); !strings.HasPrefix(got, `pod "web-1" deleted`) {
		t.Errorf(`kubectl delete pod web-1 = %q, want pod "web-1" deleted`, got)
	}
	_, err := srv.Clientset().CoreV1().Pods("default").Get(t.Context(), "web-1", metav1.GetOptions{})
	if !apierrors.IsNotFound(err) {
		t.Errorf("Get(pod web-1) after kubectl delete = %v, want NotFound", err)
	}
	if got, want := k.run(t, "get", "pods", "-o", "name"), "pod/web-2\n"; got != want {
		t.Errorf("kubectl get pods -o name = %q, want %q", got, want)
	}
}

// kubectl runs /usr/bin/kubectl against one server, isolated from the
// user's own kubeconfig and discovery cache.
type kubectl struct {
	kubeconfig string
	home       string // HOME, so the discovery cache is private to the test
}

func newKubectl(t *testing.T, srv *Server) *kubectl {
	t.Helper()
	home := t.TempDir()
	k := &kubectl{kubeconfig: filepath.Join(home, "kubeconfig"), home: home}
	if err := srv.WriteKubeconfig(k.kubeconfig); err != nil {
		t.Fatalf("WriteKubeconfig = %v", err)
	}
	return k
}

// command builds a kubectl invocation bound to ctx.
func (k *kubectl) command(ctx context.Context, args ...string) *exec.Cmd {
	args = append([]string{"--kubeconfig", k.kubeconfig, "--cache-dir", filepath.Join(k.home, "cache")}, args...)
	cmd := exec.CommandContext(ctx, kubectlPath, args...)
	cmd.Env = []string{"HOME=" + k.home, "PATH=" + os.Getenv("PATH")}
	cmd.WaitDelay = kubectlWaitDelay
	return cmd
}

// run runs kubectl to completion and returns its stdout; a failure or a
// timeout fails the test with stderr.
func (k *kubectl) run(t *testing.T, args ...string) string {
	t.Helper()
	ctx, cancel := testdeadline.Context(t)
	defer cancel()
	cmd := k.command(ctx, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("kubectl %s: %v (%v)\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), err, ctx.Err(), stdout.String(), stderr.String())
	}
	return stdout.String()
}

// scanUntil reads lines until one starts with prefix; false when the
// output ends first (kubectl exited or was killed at its timeout).
func scanUntil(lines *bufio.Scanner, prefix string) bool {
	for lines.Scan() {
		if strings.HasPrefix(lines.Text(), prefix) {
			return true
		}
	}
	return false
}
