package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEnvtestAssets: the directory holds a copy of this executable and
// links to it named kube-apiserver and etcd, and a link to kubectl; the
// command prints the directory's absolute path; running it again
// replaces its files.
func TestEnvtestAssets(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "assets") // missing: created
	kubectl := filepath.Join(t.TempDir(), "kubectl")
	if err := os.WriteFile(kubectl, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		var stdout, stderr bytes.Buffer
		if err := run(t.Context(), []string{"envtest-assets", dir, "--kubectl", kubectl}, &stdout, &stderr); err != nil {
			t.Fatalf("run(envtest-assets) = %v (stderr %q)", err, stderr.String())
		}
		if got := stdout.String(); got != dir+"\n" {
			t.Errorf("envtest-assets stdout = %q, want the directory %q", got, dir)
		}
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if !sameContent(t, self, filepath.Join(dir, "lw-sim")) {
		t.Errorf("%s/lw-sim differs from the running executable %s", dir, self)
	}
	if st, err := os.Stat(filepath.Join(dir, "lw-sim")); err != nil || st.Mode().Perm() != 0o755 {
		t.Errorf("Stat(%s/lw-sim) = %v, %v, want mode 0755", dir, st.Mode(), err)
	}
	for name, want := range map[string]string{"kube-apiserver": "lw-sim", "etcd": "lw-sim", "kubectl": kubectl} {
		if got, err := os.Readlink(filepath.Join(dir, name)); err != nil || got != want {
			t.Errorf("Readlink(%s/%s) = %q, %v, want %q", dir, name, got, err, want)
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 4 {
		t.Errorf("ReadDir(%s) = %d entries, want 4 (no temporary file left)", dir, len(entries))
	}
}

// TestEnvtestAssetsRefusesForeignFiles: a kube-apiserver, etcd or kubectl
// that lw-sim did not write (a setup-envtest directory) is never replaced.
func TestEnvtestAssetsRefusesForeignFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	etcd := filepath.Join(dir, "etcd")
	if err := os.WriteFile(etcd, []byte("real etcd"), 0o755); err != nil {
		t.Fatal(err)
	}
	err := run(t.Context(), []string{"envtest-assets", dir}, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), etcd+" exists and was not written by lw-sim envtest-assets") {
		t.Errorf("run(envtest-assets) over a real etcd = %v, want a refusal naming it", err)
	}
	if data, _ := os.ReadFile(etcd); string(data) != "real etcd" {
		t.Errorf("etcd = %q after a refusal, want it untouched", data)
	}
	if _, err := os.Lstat(filepath.Join(dir, "lw-sim")); err == nil {
		t.Errorf("a refusal wrote %s/lw-sim, want the directory untouched", dir)
	}
}

// sameContent reports whether files a and b hold the same bytes.
func sameContent(t *testing.T, a, b string) bool {
	t.Helper()
	da, err := os.ReadFile(a)
	if err != nil {
		t.Fatal(err)
	}
	db, err := os.ReadFile(b)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Equal(da, db)
}
