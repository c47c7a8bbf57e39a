package faultproxy

import (
	"errors"
	"log/slog"
	"net"
	"path/filepath"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/lw-sim/lw-sim/fakeapiserver"
	"github.com/lw-sim/lw-sim/internal/testdeadline"
)

// serveProxy builds a proxy in front of a fake server with cfg, serves it
// on a loopback port and closes it at Cleanup, checking that Serve ended
// cleanly.
func serveProxy(t *testing.T, cfg Config) *Proxy {
	t.Helper()
	up := fakeapiserver.Start(t)
	cfg.Upstream = up.RESTConfig()
	p, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	serveUntilCleanup(t, p, ln)
	return p
}

// serveUntilCleanup serves p on ln in the background; Cleanup closes it
// and requires Serve to have ended cleanly.
//
// Shutdown chain: Close releases hung streams and closes the listener and
// connections → Serve returns on done.
func serveUntilCleanup(t *testing.T, p *Proxy, ln net.Listener) {
	t.Helper()
	done := p.ServeBackground(ln)
	t.Cleanup(func() {
		if err := p.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
}

// TestProxyServeKubeconfig: a proxy serving HTTPS with a caller token
// writes a kubeconfig that client-go uses as is; without the token a
// caller gets 401.
func TestProxyServeKubeconfig(t *testing.T) {
	t.Parallel()
	p := serveProxy(t, Config{TLS: true, Token: "caller-token"})
	if !strings.HasPrefix(p.URL(), "https://127.0.0.1:") {
		t.Errorf("URL() = %q, want https on 127.0.0.1", p.URL())
	}
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := p.WriteKubeconfig(path); err != nil {
		t.Fatalf("WriteKubeconfig = %v", err)
	}
	kc, err := clientcmd.LoadFromFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if kc.CurrentContext != "lw-sim-proxy" {
		t.Errorf("current-context = %q, want lw-sim-proxy", kc.CurrentContext)
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := kubernetes.NewForConfigOrDie(cfg).CoreV1().Namespaces().List(t.Context(), metav1.ListOptions{}); err != nil {
		t.Errorf("List(namespaces) through the written kubeconfig = %v", err)
	}
	anon := rest.AnonymousClientConfig(p.RESTConfig())
	if _, err := kubernetes.NewForConfigOrDie(anon).CoreV1().Namespaces().List(t.Context(), metav1.ListOptions{}); !apierrors.IsUnauthorized(err) {
		t.Errorf("List(namespaces) without the token = %v, want 401 Unauthorized", err)
	}
}

// TestProxyServeLifecycle: WriteKubeconfig needs Serve; Serve after Close
// returns ErrProxyClosed; Close twice is fine.
func TestProxyServeLifecycle(t *testing.T) {
	t.Parallel()
	up := fakeapiserver.Start(t)
	p, err := New(Config{Upstream: up.RESTConfig()})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.WriteKubeconfig(filepath.Join(t.TempDir(), "kubeconfig")); err == nil {
		t.Error("WriteKubeconfig before Serve = nil, want an error")
	}
	if err := p.Close(); err != nil {
		t.Errorf("Close = %v", err)
	}
	if err := p.Close(); err != nil {
		t.Errorf("second Close = %v", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	if err := p.Serve(ln); !errors.Is(err, ErrProxyClosed) {
		t.Errorf("Serve after Close = %v, want ErrProxyClosed", err)
	}
}

// TestProxyRequestLog: with a debug Logger the proxy logs one line per
// request, the guard's refusals included.
func TestProxyRequestLog(t *testing.T) {
	t.Parallel()
	lines := &lineWriter{lines: make(chan string, 16)}
	p := serveProxy(t, Config{Logger: slog.New(slog.NewTextHandler(lines, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	cs := kubernetes.NewForConfigOrDie(p.RESTConfig())
	if _, err := cs.CoreV1().Namespaces().Get(t.Context(), "default", metav1.GetOptions{}); err != nil {
		t.Fatal(err)
	}
	hung, cancel := testdeadline.Context(t) // only a hang fails the wait
	defer cancel()
	select {
	case line := <-lines.lines:
		if !strings.Contains(line, "msg=request method=GET uri=/api/v1/namespaces/default status=200 duration=") {
			t.Errorf("request log line = %q, want method, URI, status and duration", line)
		}
	case <-hung.Done():
		t.Fatal("no request log line")
	}
}

// lineWriter hands each write (one slog line) to the test.
type lineWriter struct{ lines chan string }

func (w *lineWriter) Write(p []byte) (int, error) {
	w.lines <- string(p)
	return len(p), nil
}
