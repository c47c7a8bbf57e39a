package main

import (
	"errors"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// getWithHost GETs url with the Host header set to host and returns the
// status code.
func getWithHost(t *testing.T, url, host string) int {
	t.Helper()
	return getWithHostBy(t, http.DefaultClient, url, host)
}

// getWithHostBy is getWithHost with hc.
func getWithHostBy(t *testing.T, hc *http.Client, url, host string) int {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Host = host
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// TestServeHostCheck: serve answers loopback names, IP addresses and
// --allow-host names, and refuses a DNS-rebinding Host with 403.
func TestServeHostCheck(t *testing.T) {
	t.Parallel()
	sr := startServe(t, "--allow-host", "dev.example")
	url := sr.restConfig(t).Host + "/api/v1/namespaces"
	hc := sr.httpClient(t)
	for host, want := range map[string]int{
		"localhost:6443": http.StatusOK, "127.0.0.1": http.StatusOK, "dev.example": http.StatusOK,
		"attacker.example:6443": http.StatusForbidden,
	} {
		if got := getWithHostBy(t, hc, url, host); got != want {
			t.Errorf("GET with Host %q = %d, want %d", host, got, want)
		}
	}
}

// TestServeControlRefusesTextPlain: the cross-site "simple request" a web
// page can send (text/plain POST) cannot add a fault.
func TestServeControlRefusesTextPlain(t *testing.T) {
	t.Parallel()
	sr := startServe(t, "--control")
	resp, err := sr.httpClient(t).Post(sr.restConfig(t).Host+"/_lwsim/faults", "text/plain", strings.NewReader(`{"kind":"EndWatch"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnsupportedMediaType {
		t.Errorf("text/plain POST = %d, want 415", resp.StatusCode)
	}
}

// TestProxyExposure: beyond loopback the proxy needs --token, and a token
// needs --tls; both are refused before anything listens.
func TestProxyExposure(t *testing.T) {
	t.Parallel()
	for _, flags := range [][]string{
		{"--listen", "0.0.0.0:0"},
		{"--listen", "0.0.0.0:0", "--token", "t"},
		{"--token", "t"},
	} {
		args := append([]string{"proxy", "--upstream-kubeconfig", "/nonexistent"}, flags...)
		stderr := newSyncBuffer()
		err := run(t.Context(), args, newSyncBuffer(), stderr)
		if !errors.As(err, new(*usageError)) {
			t.Errorf("proxy %q = %v, want a usage error", flags, err)
		}
	}
}

// TestProxyHelpSaysWhatItForwards: --help names the headers it drops.
func TestProxyHelpSaysWhatItForwards(t *testing.T) {
	t.Parallel()
	stdout := newSyncBuffer()
	if err := run(t.Context(), []string{"proxy", "--help"}, stdout, newSyncBuffer()); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Authorization", "Cookie", "Impersonate-*", "--token", "--allow-host"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("proxy --help does not mention %s:\n%s", want, stdout)
		}
	}
}

// TestProxyToken: with --tls --token the written kubeconfig carries the
// token and CA and works; a caller without the token gets 401.
func TestProxyToken(t *testing.T) {
	t.Parallel()
	_, kubeconfig := startProxy(t, "--tls", "--token", "caller-token")
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.BearerToken != "caller-token" {
		t.Errorf("kubeconfig token = %q, want caller-token", cfg.BearerToken)
	}
	if _, err := kubernetes.NewForConfigOrDie(cfg).CoreV1().Namespaces().List(t.Context(), metav1.ListOptions{}); err != nil {
		t.Errorf("List(namespaces) with the kubeconfig = %v", err)
	}
	anon := rest.AnonymousClientConfig(cfg)
	_, err = kubernetes.NewForConfigOrDie(anon).CoreV1().Namespaces().List(t.Context(), metav1.ListOptions{})
	if !strings.Contains(err.Error(), "Unauthorized") {
		t.Errorf("List(namespaces) without the token = %v, want Unauthorized", err)
	}
}

// TestServeSlowWatcherDefaults: serve turns the slow-consumer rules on by
// default (fakeapiserver.Start leaves them off) and documents them.
func TestServeSlowWatcherDefaults(t *testing.T) {
	t.Parallel()
	stdout := newSyncBuffer()
	if err := run(t.Context(), []string{"serve", "--help"}, stdout, newSyncBuffer()); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"--watch-max-lag int", "(default 200)", "--watch-write-timeout duration", "(default 10s)", "--allow-host name"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("serve --help does not show %q:\n%s", want, stdout)
		}
	}
}

// TestProxyWarnsBeyondLoopback: a proxy told to listen beyond loopback
// with --token and --tls warns that callers act with the upstream
// credentials (here it then stops at the missing upstream kubeconfig,
// before it listens anywhere).
func TestProxyWarnsBeyondLoopback(t *testing.T) {
	t.Parallel()
	stderr := newSyncBuffer()
	err := run(t.Context(), []string{"proxy", "--upstream-kubeconfig", filepath.Join(t.TempDir(), "missing"),
		"--listen", "0.0.0.0:0", "--token", "t", "--tls"}, newSyncBuffer(), stderr)
	if err == nil || !strings.Contains(err.Error(), "upstream kubeconfig") {
		t.Errorf("proxy with a missing upstream kubeconfig = %v, want its error", err)
	}
	const want = "warning: listening on 0.0.0.0:0, beyond loopback; every caller with the token acts upstream as the upstream kubeconfig's user"
	if !strings.Contains(stderr.String(), want) {
		t.Errorf("stderr = %q, want the warning %q", stderr, want)
	}
}

// TestProxyHostCheckFlag: lw-sim proxy answers loopback names and
// --allow-host names, and refuses a DNS-rebinding Host with 403, before
// anything goes upstream; its control API too.
func TestProxyHostCheckFlag(t *testing.T) {
	t.Parallel()
	url, _ := startProxy(t, "--allow-host", "dev.example", "--control")
	for host, want := range map[string]int{
		"localhost:6444": http.StatusOK, "127.0.0.1": http.StatusOK, "dev.example": http.StatusOK,
		"attacker.example:6444": http.StatusForbidden,
	} {
		if got := getWithHost(t, url+"/version", host); got != want {
			t.Errorf("GET /version with Host %q = %d, want %d", host, got, want)
		}
	}
	if got := getWithHost(t, url+"/_lwsim/faults", "attacker.example"); got != http.StatusForbidden {
		t.Errorf("GET /_lwsim/faults with Host attacker.example = %d, want 403", got)
	}
}
