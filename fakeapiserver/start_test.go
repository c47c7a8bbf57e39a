package fakeapiserver

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	clocktesting "k8s.io/utils/clock/testing"
)

// seededNamespaces are the namespaces New creates, as kube-apiserver does.
var seededNamespaces = []string{"default", "kube-node-lease", "kube-public", "kube-system"}

func TestStart(t *testing.T) {
	t.Parallel()
	srv := Start(t)

	u, err := url.Parse(srv.URL())
	if err != nil {
		t.Fatalf("URL() = %q: %v", srv.URL(), err)
	}
	if u.Scheme != "http" || u.Hostname() != "127.0.0.1" || u.Port() == "" || u.Port() == "0" {
		t.Errorf("URL() = %q, want http://127.0.0.1:<port>", srv.URL())
	}
	if diff := cmp.Diff(seededNamespaces, namespaceNames(t, srv.Clientset())); diff != "" {
		t.Errorf("List(namespaces) mismatch (-want +got):\n%s", diff)
	}
}

func TestStartOptions(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		opts       []Option
		wantScheme string
		wantToken  string
	}{
		{name: "defaults", wantScheme: "http"},
		{name: "tls", opts: []Option{WithTLS()}, wantScheme: "https"},
		{name: "token", opts: []Option{WithToken("s3cret")}, wantScheme: "http", wantToken: "s3cret"},
		{name: "tls and token", opts: []Option{WithTLS(), WithToken("s3cret")}, wantScheme: "https", wantToken: "s3cret"},
		{
			name:       "WithConfig then a later option wins",
			opts:       []Option{WithConfig(func(c *Config) { c.TLS, c.Token = &ServingTLS{}, "early" }), WithToken("late")},
			wantScheme: "https",
			wantToken:  "late",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := Start(t, tt.opts...)
			if got := srv.URL(); !strings.HasPrefix(got, tt.wantScheme+"://127.0.0.1:") {
				t.Errorf("URL() = %q, want scheme %s on 127.0.0.1", got, tt.wantScheme)
			}
			if got := srv.RESTConfig().BearerToken; got != tt.wantToken {
				t.Errorf("RESTConfig().BearerToken = %q, want %q", got, tt.wantToken)
			}
			// The server's own config reaches it: right CA, right token.
			if diff := cmp.Diff(seededNamespaces, namespaceNames(t, srv.Clientset())); diff != "" {
				t.Errorf("List(namespaces) mismatch (-want +got):\n%s", diff)
			}
			if tt.wantToken != "" {
				cfg := srv.RESTConfig()
				cfg.BearerToken = "wrong"
				assertUnauthorized(t, cfg)
			}
		})
	}
}

func TestStartWithClock(t *testing.T) {
	t.Parallel()
	// A fake clock must not stop the server from serving plain requests.
	fake := clocktesting.NewFakeClock(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	srv := Start(t, WithClock(fake))
	if got := srv.cfg.Clock; got != fake {
		t.Errorf("Config.Clock = %T, want the fake clock passed to WithClock", got)
	}
	namespaceNames(t, srv.Clientset())
}

// TestStartIndependentServers proves servers share no state: a write to one
// is invisible to the other.
func TestStartIndependentServers(t *testing.T) {
	t.Parallel()
	a, b := Start(t), Start(t)
	ctx := t.Context()
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "only-in-a"}}
	if _, err := a.Clientset().CoreV1().ConfigMaps("default").Create(ctx, cm, metav1.CreateOptions{}); err != nil {
		t.Fatalf("a: Create(configmap) = %v", err)
	}
	_, err := b.Clientset().CoreV1().ConfigMaps("default").Get(ctx, "only-in-a", metav1.GetOptions{})
	if !apierrors.IsNotFound(err) {
		t.Errorf("b: Get(configmap only-in-a) = %v, want NotFound", err)
	}
}

// TestStartCleanupCloses relies on TestMain's goleak check to prove that the
// serving goroutine is gone after Cleanup; here it checks the port is closed.
func TestStartCleanupCloses(t *testing.T) {
	t.Parallel()
	var addr string
	t.Run("serve", func(t *testing.T) {
		srv := Start(t)
		namespaceNames(t, srv.Clientset())
		u, err := url.Parse(srv.URL())
		if err != nil {
			t.Fatalf("URL() = %q: %v", srv.URL(), err)
		}
		addr = u.Host
	})
	if addr == "" {
		t.Fatal("subtest did not record the server address")
	}
	conn, err := net.Dial("tcp", addr) // a closed loopback port refuses at once
	if err == nil {
		_ = conn.Close()
		t.Errorf("Dial(%s) after Cleanup succeeded, want connection refused", addr)
	}
}

func TestStartInvalidConfigFailsTest(t *testing.T) {
	t.Parallel()
	rec := &fatalRecorder{TB: t}
	bad := WithConfig(func(c *Config) {
		c.GroupVersions = []schema.GroupVersion{{Group: "nope.example.com", Version: "v1"}}
	})
	done := make(chan struct{})
	go func() {
		defer close(done)
		Start(rec, bad)
		rec.fatalf("Start returned, want it to stop the test goroutine")
	}()
	select {
	case <-done:
	case <-hangGuard(t):
		t.Fatal("Start with an invalid config did not return")
	}
	if got := rec.message(); !strings.Contains(got, "nope.example.com") {
		t.Errorf("Start(invalid group-version) Fatalf message = %q, want it to name the group-version", got)
	}
}

// fatalRecorder is a testing.TB whose Fatalf records the message and ends
// the calling goroutine, as testing.T's does, without failing the real test.
type fatalRecorder struct {
	testing.TB

	// mu guards the fields below.
	mu  sync.Mutex
	msg string
}

func (r *fatalRecorder) Helper() {}

func (r *fatalRecorder) Fatalf(format string, args ...any) {
	r.fatalf(format, args...)
}

func (r *fatalRecorder) fatalf(format string, args ...any) {
	r.mu.Lock()
	r.msg = fmt.Sprintf(format, args...)
	r.mu.Unlock()
	runtime.Goexit()
}

func (r *fatalRecorder) message() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.msg
}

// namespaceNames lists namespaces through cs and returns their names in
// list order (key order, as kube-apiserver returns them).
func namespaceNames(t *testing.T, cs kubernetes.Interface) []string {
	t.Helper()
	list, err := cs.CoreV1().Namespaces().List(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatalf("List(namespaces) = %v", err)
	}
	names := make([]string, 0, len(list.Items))
	for _, ns := range list.Items {
		names = append(names, ns.Name)
	}
	return names
}

// assertUnauthorized lists namespaces with cfg and requires the 401
// Unauthorized Status kube-apiserver sends for a bad bearer token.
func assertUnauthorized(t *testing.T, cfg *rest.Config) {
	t.Helper()
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatalf("NewForConfig = %v", err)
	}
	_, err = cs.CoreV1().Namespaces().List(t.Context(), metav1.ListOptions{})
	var st apierrors.APIStatus
	if !errors.As(err, &st) {
		t.Fatalf("List(namespaces) with a wrong token = %v, want a Status error", err)
	}
	want := metav1.Status{Status: metav1.StatusFailure, Code: 401, Reason: metav1.StatusReasonUnauthorized, Message: "Unauthorized"}
	got := st.Status()
	got.TypeMeta, got.ListMeta = metav1.TypeMeta{}, metav1.ListMeta{}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("List(namespaces) with a wrong token Status mismatch (-want +got):\n%s", diff)
	}
}
