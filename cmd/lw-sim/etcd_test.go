package main

import (
	"errors"
	"io"
	"net/http"
	"strconv"
	"testing"
)

// TestEtcdStandIn: started as envtest starts etcd, the stand-in answers
// GET /health as a healthy etcd does on every client URL, and stops
// cleanly when its context ends (SIGTERM in main).
func TestEtcdStandIn(t *testing.T) {
	t.Parallel()
	ports := []int{freePort(t), freePort(t)}
	urls := "http://127.0.0.1:" + strconv.Itoa(ports[0]) + ",http://localhost:" + strconv.Itoa(ports[1])
	r := startStandIn(t, "http://127.0.0.1:"+strconv.Itoa(ports[1]), // the second URL's line: both listen
		"/assets/etcd", "--advertise-client-urls="+urls, "--data-dir="+t.TempDir(),
		"--listen-client-urls="+urls, "--listen-peer-urls=http://localhost:0", "--unsafe-no-fsync=true",
		"--quota-backend-bytes=8589934592") // not emulated: a warning
	for _, p := range ports {
		url := "http://127.0.0.1:" + strconv.Itoa(p)
		if code, body := httpGet(t, url+"/health"); code != http.StatusOK || body != `{"health":"true","reason":""}` {
			t.Errorf("GET %s/health = %d %q, want 200 and etcd's healthy body", url, code, body)
		}
		if code, _ := httpGet(t, url+"/v3/kv/range"); code != http.StatusNotFound {
			t.Errorf("GET %s/v3/kv/range = %d, want 404: the stand-in speaks no etcd API", url, code)
		}
	}
	if err := r.stop(); err != nil {
		t.Fatalf("run(etcd) after cancel = %v, want nil", err)
	}
	if want := "lw-sim etcd: warning: ignoring flags it does not emulate: --quota-backend-bytes=8589934592\n"; r.stderr.String() != want {
		t.Errorf("etcd stderr = %q, want %q", r.stderr.String(), want)
	}
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	if _, err := client.Get("http://127.0.0.1:" + strconv.Itoa(ports[0]) + "/health"); err == nil {
		t.Errorf("GET /health after stop succeeded, want the port closed")
	}
}

// TestEtcdStandInFlags: etcd's Go-flag spellings parse; a client URL the
// stand-in cannot serve is a usage error.
func TestEtcdStandInFlags(t *testing.T) {
	t.Parallel()
	port := strconv.Itoa(freePort(t))
	r := startStandIn(t, "serving health checks on http://127.0.0.1:"+port,
		"etcd", "-listen-client-urls=http://127.0.0.1:"+port, "-data-dir", t.TempDir())
	if err := r.stop(); err != nil {
		t.Fatalf("run(etcd -listen-client-urls=...) = %v", err)
	}
	for _, url := range []string{"https://127.0.0.1:2379", "unix:///tmp/etcd.sock", "http://127.0.0.1"} {
		err := run(t.Context(), []string{"etcd", "--listen-client-urls", url}, io.Discard, io.Discard)
		if !errors.As(err, new(*usageError)) {
			t.Errorf("run(etcd --listen-client-urls %s) = %v, want a usage error", url, err)
		}
	}
}

// httpGet returns the status and body of GET url, on a connection of its
// own (no idle connection outlives it for goleak to find).
func httpGet(t *testing.T, url string) (int, string) {
	t.Helper()
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := client.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	return resp.StatusCode, string(body)
}
