package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/lw-sim/lw-sim/internal/testdeadline"
)

func TestServe(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		flags      []string
		wantScheme string
		token      string // the token the kubeconfig must carry; "*": any but ""
	}{
		{name: "default", wantScheme: "https", token: "*"},
		{name: "token", flags: []string{"--token", "s3cret"}, wantScheme: "https", token: "s3cret"},
		{name: "tls, deprecated", flags: []string{"--tls"}, wantScheme: "https", token: "*"},
		{name: "insecure http", flags: []string{"--insecure-http"}, wantScheme: "http"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			sr := startServe(t, tt.flags...)
			if want := "lw-sim serve: serving " + tt.wantScheme + "://127.0.0.1:"; !strings.Contains(sr.stdout.String(), want) {
				t.Errorf("serve stdout = %q, want a line starting %q", sr.stdout.String(), want)
			}
			cfg := sr.restConfig(t)
			if got := cfg.BearerToken; got != tt.token && (tt.token != "*" || got == "") {
				t.Errorf("kubeconfig token = %q, want %q", got, tt.token)
			}
			if names := namespaceNames(t, cfg); !slices.Contains(names, "default") {
				t.Errorf("List(namespaces) = %q, want it to contain default", names)
			}
			if tt.token != "" {
				cfg.BearerToken = "wrong"
				assertUnauthorized(t, cfg)
			}
			if err := sr.stop(); err != nil {
				t.Fatalf("run(serve) after cancel = %v, want nil", err)
			}
			if out := sr.stdout.String(); !strings.HasSuffix(out, "lw-sim serve: stopped\n") {
				t.Errorf("serve stdout = %q, want it to end with the stopped line", out)
			}
		})
	}
}

// TestServeKubeconfigFile checks the file itself: mode 0600, the current
// context named lw-sim, the CA and a token.
func TestServeKubeconfigFile(t *testing.T) {
	t.Parallel()
	sr := startServe(t)
	fi, err := os.Stat(sr.kubeconfig)
	if err != nil {
		t.Fatalf("Stat(kubeconfig) = %v", err)
	}
	if got := fi.Mode().Perm(); got != 0o600 {
		t.Errorf("kubeconfig mode = %v, want 0600", got)
	}
	kc, err := clientcmd.LoadFromFile(sr.kubeconfig)
	if err != nil {
		t.Fatalf("LoadFromFile(kubeconfig) = %v", err)
	}
	if kc.CurrentContext != "lw-sim" {
		t.Errorf("kubeconfig current-context = %q, want lw-sim", kc.CurrentContext)
	}
	if c := kc.Clusters["lw-sim"]; c == nil || len(c.CertificateAuthorityData) == 0 {
		t.Errorf("kubeconfig cluster lw-sim = %+v, want certificate-authority-data", c)
	}
	if u := kc.AuthInfos["lw-sim"]; u == nil || u.Token == "" {
		t.Errorf("kubeconfig user lw-sim = %+v, want a token", u)
	}
}

// TestServeListenPortOnly checks that --listen :PORT binds loopback, not
// every interface.
func TestServeListenPortOnly(t *testing.T) {
	t.Parallel()
	sr := startServe(t, "--listen", ":0")
	if want := "serving https://127.0.0.1:"; !strings.Contains(sr.stdout.String(), want) {
		t.Errorf("serve --listen :0 stdout = %q, want %q", sr.stdout.String(), want)
	}
	namespaceNames(t, sr.restConfig(t))
}

// TestServeRequestLog: with -v 1 serve logs one line per request on
// stderr, with its method, URI, status and duration; without it, none.
func TestServeRequestLog(t *testing.T) {
	t.Parallel()
	quiet := startServe(t)
	sr := startServe(t, "-v", "1", "--token", "s3cret")
	cs := kubernetes.NewForConfigOrDie(sr.restConfig(t))
	if _, err := cs.CoreV1().Namespaces().Get(t.Context(), "default", metav1.GetOptions{}); err != nil {
		t.Fatalf("Get(namespace default) = %v", err)
	}
	ctx, cancel := testdeadline.Context(t)
	defer cancel()
	out := sr.stderr.waitFor(ctx, t, "uri=/api/v1/namespaces/default")
	line := regexp.MustCompile(`(?m)^time=\S+ level=DEBUG msg=request method=GET uri=/api/v1/namespaces/default status=200 duration=\S+$`)
	if !line.MatchString(out) {
		t.Errorf("serve -v 1 stderr lacks the request line; got:\n%s", out)
	}
	// A refused request is logged with its status.
	cfg := sr.restConfig(t)
	cfg.BearerToken = "wrong"
	assertUnauthorized(t, cfg)
	sr.stderr.waitFor(ctx, t, "uri=/api/v1/namespaces status=401")

	namespaceNames(t, quiet.restConfig(t))
	if err := quiet.stop(); err != nil {
		t.Fatal(err)
	}
	if got := quiet.stderr.String(); got != "" {
		t.Errorf("serve without -v stderr = %q, want empty", got)
	}
}

func TestListenAddr(t *testing.T) {
	t.Parallel()
	tests := []struct {
		flag         string
		want         string
		wantLoopback bool
		wantErr      bool
	}{
		{flag: "127.0.0.1:6443", want: "127.0.0.1:6443", wantLoopback: true},
		{flag: ":6443", want: "127.0.0.1:6443", wantLoopback: true},
		{flag: "localhost:0", want: "localhost:0", wantLoopback: true},
		{flag: "[::1]:6443", want: "[::1]:6443", wantLoopback: true},
		{flag: "0.0.0.0:6443", want: "0.0.0.0:6443"},
		{flag: "[::]:6443", want: "[::]:6443"},
		{flag: "6443", wantErr: true},
	}
	for _, tt := range tests {
		got, err := listenAddr(tt.flag)
		if (err != nil) != tt.wantErr || got != tt.want {
			t.Errorf("listenAddr(%q) = %q, %v, want %q (error: %t)", tt.flag, got, err, tt.want, tt.wantErr)
		}
		if err == nil && isLoopback(got) != tt.wantLoopback {
			t.Errorf("isLoopback(%q) = %t, want %t", got, !tt.wantLoopback, tt.wantLoopback)
		}
	}
}

// serveRun is one "lw-sim serve" running in a goroutine of the test.
type serveRun struct {
	kubeconfig string
	stdout     *syncBuffer
	stderr     *syncBuffer

	cancel context.CancelFunc
	result chan error // receives run's result once
	// hung ends only when a stop would outlast the test binary
	// (testdeadline): stop waits for run, not for a budget of its own.
	hung context.Context

	stopOnce sync.Once
	stopErr  error
}

// startServe runs "lw-sim serve" on a free loopback port with a kubeconfig
// in a temporary directory and returns once the kubeconfig is written. The
// test's Cleanup stops it if the test did not.
func startServe(t *testing.T, flags ...string) *serveRun {
	t.Helper()
	sr := &serveRun{
		kubeconfig: filepath.Join(t.TempDir(), "kubeconfig"),
		stdout:     newSyncBuffer(),
		stderr:     newSyncBuffer(),
		result:     make(chan error, 1),
	}
	args := append([]string{"serve", "--listen", "127.0.0.1:0", "--kubeconfig", sr.kubeconfig}, flags...)
	ctx, cancel := context.WithCancel(context.Background())
	sr.cancel = cancel
	hung, stopHung := testdeadline.Derive(context.Background(), t)
	sr.hung = hung
	// returned is cancelled when run returns, so waiting for output stops
	// at once if serve fails to start.
	returned, markReturned := context.WithCancelCause(context.Background())
	go func() {
		err := run(ctx, args, sr.stdout, sr.stderr)
		markReturned(fmt.Errorf("run(serve) returned early: %v", err))
		sr.result <- err
	}()
	t.Cleanup(func() {
		defer stopHung()
		if err := sr.stop(); err != nil {
			t.Errorf("run(serve) after cancel = %v, want nil", err)
		}
	})
	waitCtx, waitCancel := testdeadline.Derive(returned, t)
	defer waitCancel()
	sr.stdout.waitFor(waitCtx, t, "lw-sim serve: kubeconfig "+sr.kubeconfig+"\n")
	return sr
}

// stop cancels run's context and returns its result; later calls return
// the same result.
func (sr *serveRun) stop() error {
	sr.stopOnce.Do(func() {
		sr.cancel()
		select {
		case sr.stopErr = <-sr.result:
		case <-sr.hung.Done():
			sr.stopErr = errors.New("run(serve) did not return after cancel")
		}
	})
	return sr.stopErr
}

// restConfig loads the written kubeconfig as client-go programs do.
func (sr *serveRun) restConfig(t *testing.T) *rest.Config {
	t.Helper()
	cfg, err := clientcmd.BuildConfigFromFlags("", sr.kubeconfig)
	if err != nil {
		t.Fatalf("BuildConfigFromFlags(%q) = %v", sr.kubeconfig, err)
	}
	return cfg
}

// httpClient is a client with the kubeconfig's TLS trust and token.
func (sr *serveRun) httpClient(t *testing.T) *http.Client {
	t.Helper()
	hc, err := rest.HTTPClientFor(sr.restConfig(t))
	if err != nil {
		t.Fatal(err)
	}
	return hc
}

// namespaceNames lists namespaces with cfg.
func namespaceNames(t *testing.T, cfg *rest.Config) []string {
	t.Helper()
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatalf("NewForConfig = %v", err)
	}
	list, err := cs.CoreV1().Namespaces().List(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatalf("List(namespaces) = %v", err)
	}
	var names []string
	for _, ns := range list.Items {
		names = append(names, ns.Name)
	}
	return names
}

// assertUnauthorized requires the 401 Unauthorized Status kube-apiserver
// sends for a bad bearer token.
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

// TestServeControllers: --controllers=garbage-collector-controller makes a
// deleted owner's dependent go; an unknown name is refused.
func TestServeControllers(t *testing.T) {
	t.Parallel()
	sr := startServe(t, "--controllers", "garbage-collector-controller")
	defer sr.stop()
	cs := kubernetes.NewForConfigOrDie(sr.restConfig(t))
	ctx, cancel := testdeadline.Context(t)
	defer cancel()
	cms := cs.CoreV1().ConfigMaps("default")
	owner, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "owner"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "dependent", OwnerReferences: []metav1.OwnerReference{
		{APIVersion: "v1", Kind: "ConfigMap", Name: owner.Name, UID: owner.UID}}}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := cms.Delete(ctx, "owner", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	// The collector acts after the delete, on its own goroutine: wait for
	// the dependent's DELETED event (the test's deadline bounds the wait).
	w, err := cms.Watch(ctx, metav1.ListOptions{FieldSelector: "metadata.name=dependent", ResourceVersion: owner.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	for ev := range w.ResultChan() {
		if ev.Type == watch.Deleted {
			break
		}
	}
	if _, err := cms.Get(ctx, "dependent", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("get dependent after its owner's delete = %v, want not found", err)
	}

	var stdout, stderr bytes.Buffer
	err = run(ctx, []string{"serve", "--controllers", "nosuch-controller", "--kubeconfig", filepath.Join(t.TempDir(), "kc")}, &stdout, &stderr)
	if err == nil || !strings.Contains(err.Error(), `unknown controller "nosuch-controller"`) {
		t.Errorf("serve --controllers nosuch-controller = %v, want the unknown controller refused", err)
	}
}
