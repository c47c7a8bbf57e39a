package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/lw-sim/lw-sim/fakeapiserver"
	"github.com/lw-sim/lw-sim/internal/testdeadline"
)

// articleKubeconfig is where the List & Watch article's programs
// (testdata/article) read their
// kubeconfig, relative to their working directory.
const articleKubeconfig = "k8s_watch/kubeconfig-local.conf"

// TestArticleList runs the article's List program, unchanged, against
// `lw-sim serve`: it prints the names of the pods in default.
func TestArticleList(t *testing.T) {
	dir := t.TempDir()
	bin := buildArticleProgram(t, "list")
	sr := startServe(t)
	copyFile(t, sr.kubeconfig, filepath.Join(dir, articleKubeconfig))
	cs := kubernetes.NewForConfigOrDie(sr.restConfig(t))
	for _, name := range []string{"web-1", "api-1", "db-1"} {
		createPod(t, cs, name)
	}
	ctx, cancel := testdeadline.Context(t)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("article list program: %v\n%s", err, out)
	}
	// The list is in key order, as kube-apiserver returns it.
	if got, want := string(out), "api-1\ndb-1\nweb-1\n"; got != want {
		t.Errorf("article list program printed %q, want %q", got, want)
	}
}

// TestArticleWatchFlood runs the article's Watch program: without a
// resourceVersion the watch first sends every existing pod as ADDED (the
// "initial ADDED flood" of section 6.1), then the changes.
func TestArticleWatchFlood(t *testing.T) {
	srv, dir := startArticleServer(t)
	cs := srv.Clientset()
	createPod(t, cs, "a")
	createPod(t, cs, "b")
	lines := runArticleProgram(t, buildArticleProgram(t, "watch"), dir)
	waitForLines(t, lines, "Pod added: %v", 2)
	createPod(t, cs, "c")
	waitForLines(t, lines, "Pod added: %v", 1)
}

// TestArticleListThenWatch runs the article's List-then-Watch program: the
// watch starts at the list's resourceVersion, so existing pods are not
// replayed and only the change made afterwards arrives.
func TestArticleListThenWatch(t *testing.T) {
	srv, dir := startArticleServer(t)
	cs := srv.Clientset()
	createPod(t, cs, "a")
	createPod(t, cs, "b")
	lines := runArticleProgram(t, buildArticleProgram(t, "listwatch"), dir)
	waitForWatchers(t, srv, 1)
	createPod(t, cs, "c")
	first := waitForLines(t, lines, "Pod ", 1)
	if !strings.HasPrefix(first[0], "Pod added: %v") {
		t.Fatalf("first event line = %q, want the ADDED of pod c only", first[0])
	}
	if rest := <-lines; !strings.Contains(rest, `Name:c,`) {
		t.Errorf("event after the list names %q, want pod c", rest)
	}
}

// startArticleServer starts a fake server and writes its kubeconfig where
// the article's programs look for it.
func startArticleServer(t *testing.T) (*fakeapiserver.Server, string) {
	t.Helper()
	srv := fakeapiserver.Start(t)
	dir := t.TempDir()
	if err := srv.WriteKubeconfig(filepath.Join(dir, articleKubeconfig)); err != nil {
		t.Fatalf("WriteKubeconfig: %v", err)
	}
	if _, err := clientcmd.BuildConfigFromFlags("", filepath.Join(dir, articleKubeconfig)); err != nil {
		t.Fatalf("the article's clientcmd.BuildConfigFromFlags rejects the kubeconfig: %v", err)
	}
	return srv, dir
}

// buildArticleProgram compiles one of testdata/article's programs. Each is
// kept as main.go.txt, byte for byte as the article prints it (gofmt would
// reformat a .go file); a build overlay presents it to the go command as
// main.go.
func buildArticleProgram(t *testing.T, name string) string {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("go command not on PATH: %v", err)
	}
	dir, err := filepath.Abs(filepath.Join("testdata", "article", name))
	if err != nil {
		t.Fatal(err)
	}
	overlay, err := json.Marshal(map[string]map[string]string{"Replace": {
		filepath.Join(dir, "main.go"): filepath.Join(dir, "main.go.txt"),
	}})
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	overlayFile := filepath.Join(tmp, "overlay.json")
	if err := os.WriteFile(overlayFile, overlay, 0o600); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(tmp, name)
	cmd := exec.CommandContext(t.Context(), goBin, "build", "-overlay", overlayFile, "-o", bin, "./testdata/article/"+name)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build article %s: %v\n%s", name, err, out)
	}
	return bin
}

// runArticleProgram starts a long-running article program in dir and
// returns its stdout lines; the program is killed at cleanup.
func runArticleProgram(t *testing.T, bin, dir string) <-chan string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, bin)
	cmd.Dir = dir
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", bin, err)
	}
	lines := make(chan string, 1024)
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer close(lines)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	t.Cleanup(func() {
		cancel()
		<-done
		_ = cmd.Wait()
	})
	return lines
}

// waitForLines reads lines until n of them start with prefix and returns
// those; only a program that hangs past the test binary's deadline fails
// it (testdeadline).
func waitForLines(t *testing.T, lines <-chan string, prefix string, n int) []string {
	t.Helper()
	ctx, cancel := testdeadline.Context(t)
	defer cancel()
	var got []string
	for len(got) < n {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("program exited after %d of %d %q lines", len(got), n, prefix)
			}
			if strings.HasPrefix(l, prefix) {
				got = append(got, l)
			}
		case <-ctx.Done():
			t.Fatalf("saw %d of %d %q lines before the test's deadline", len(got), n, prefix)
		}
	}
	return got
}

// waitForWatchers waits until the server has n open watches, so a change
// made next happens after the program's watch is established.
func waitForWatchers(t *testing.T, srv *fakeapiserver.Server, n int64) {
	t.Helper()
	ctx, cancel := testdeadline.Context(t)
	defer cancel()
	for srv.WatchStats().Active < n {
		select {
		case <-ctx.Done():
			t.Fatalf("no watch opened before the test's deadline")
		case <-time.After(10 * time.Millisecond): // polling a counter of another process's progress
		}
	}
}

// createPod creates a pod in default.
func createPod(t *testing.T, cs kubernetes.Interface, name string) {
	t.Helper()
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "busybox"}}},
	}
	if _, err := cs.CoreV1().Pods("default").Create(t.Context(), pod, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create pod %s: %v", name, err)
	}
}

// copyFile copies src to dst, creating dst's directory.
func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	in, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}
