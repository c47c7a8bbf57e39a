package fakeapiserver

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

func TestWriteKubeconfig(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		opts   []Option
		wantCA bool
		token  string
	}{
		{name: "plain"},
		{name: "tls", opts: []Option{WithTLS()}, wantCA: true},
		{name: "tls and token", opts: []Option{WithTLS(), WithToken("s3cret")}, wantCA: true, token: "s3cret"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := Start(t, tt.opts...)
			// A missing parent directory is created.
			path := filepath.Join(t.TempDir(), "sub", "kubeconfig")
			if err := srv.WriteKubeconfig(path); err != nil {
				t.Fatalf("WriteKubeconfig(%q) = %v", path, err)
			}
			assertKubeconfigFile(t, path)

			kc, err := clientcmd.LoadFromFile(path)
			if err != nil {
				t.Fatalf("LoadFromFile(%q) = %v", path, err)
			}
			assertKubeconfigContent(t, kc, srv.URL(), tt.wantCA, tt.token)

			// client-go programs load it this way.
			cfg, err := clientcmd.BuildConfigFromFlags("", path)
			if err != nil {
				t.Fatalf("BuildConfigFromFlags(%q) = %v", path, err)
			}
			cs, err := kubernetes.NewForConfig(cfg)
			if err != nil {
				t.Fatalf("NewForConfig = %v", err)
			}
			if diff := cmp.Diff(seededNamespaces, namespaceNames(t, cs)); diff != "" {
				t.Errorf("List(namespaces) through the kubeconfig mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestWriteKubeconfigReplaces checks that an existing, more open file is
// replaced by a 0600 one and that no temporary file is left behind.
func TestWriteKubeconfigReplaces(t *testing.T) {
	t.Parallel()
	srv := Start(t, WithTLS(), WithToken("s3cret"))
	dir := t.TempDir()
	path := filepath.Join(dir, "kubeconfig")
	if err := os.WriteFile(path, []byte("not a kubeconfig"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := srv.WriteKubeconfig(path); err != nil {
		t.Fatalf("WriteKubeconfig(%q) over an existing file = %v", path, err)
	}
	assertKubeconfigFile(t, path)
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if diff := cmp.Diff([]string{"kubeconfig"}, names); diff != "" {
		t.Errorf("directory after WriteKubeconfig mismatch (-want +got):\n%s", diff)
	}
}

// TestWriteKubeconfigTokenNeedsTLS: clientcmd drops a kubeconfig's token for
// an http server, so the kubeconfig would not work.
func TestWriteKubeconfigTokenNeedsTLS(t *testing.T) {
	t.Parallel()
	srv := Start(t, WithToken("s3cret"))
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := srv.WriteKubeconfig(path); err == nil || !strings.Contains(err.Error(), "needs TLS") {
		t.Errorf("WriteKubeconfig with a token and no TLS = %v, want a needs-TLS error", err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("Stat(%q) after a failed WriteKubeconfig = %v, want not exist", path, err)
	}
}

func TestWriteKubeconfigBeforeServe(t *testing.T) {
	t.Parallel()
	srv, err := New(Config{})
	if err != nil {
		t.Fatalf("New(Config{}) = %v", err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := srv.WriteKubeconfig(path); err == nil {
		t.Errorf("WriteKubeconfig before Serve = nil, want an error")
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("Stat(%q) after a failed WriteKubeconfig = %v, want not exist", path, err)
	}
}

// assertKubeconfigFile requires path to be a regular file with mode 0600.
func assertKubeconfigFile(t *testing.T, path string) {
	t.Helper()
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatalf("Lstat(%q) = %v", path, err)
	}
	if got := fi.Mode(); got != 0o600 {
		t.Errorf("kubeconfig mode = %v, want -rw-------", got)
	}
}

// assertKubeconfigContent checks the one cluster, user and context named
// lw-sim.
func assertKubeconfigContent(t *testing.T, kc *clientcmdapi.Config, url string, wantCA bool, token string) {
	t.Helper()
	if kc.CurrentContext != "lw-sim" {
		t.Errorf("current-context = %q, want lw-sim", kc.CurrentContext)
	}
	kctx := kc.Contexts["lw-sim"]
	if kctx == nil || kctx.Cluster != "lw-sim" || kctx.AuthInfo != "lw-sim" {
		t.Fatalf("context lw-sim = %+v, want cluster and user lw-sim", kctx)
	}
	cluster, user := kc.Clusters["lw-sim"], kc.AuthInfos["lw-sim"]
	if cluster == nil || user == nil {
		t.Fatalf("cluster lw-sim = %+v, user lw-sim = %+v, want both", cluster, user)
	}
	if cluster.Server != url {
		t.Errorf("cluster server = %q, want %q", cluster.Server, url)
	}
	if got := len(cluster.CertificateAuthorityData) > 0; got != wantCA {
		t.Errorf("cluster has certificate-authority-data: %t, want %t", got, wantCA)
	}
	if user.Token != token {
		t.Errorf("user token = %q, want %q", user.Token, token)
	}
}
