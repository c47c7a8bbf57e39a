// Package kubeconfig writes the kubeconfig of an lw-sim endpoint (the fake
// server of lw-sim serve, the fault proxy of lw-sim proxy) for kubectl
// (--kubeconfig or $KUBECONFIG) and clientcmd.BuildConfigFromFlags("", path).
// fakeapiserver.Server and faultproxy.Proxy both write theirs with [Write].
package kubeconfig

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	clientcmdlatest "k8s.io/client-go/tools/clientcmd/api/latest"
)

const (
	// defaultNamespace is the namespace of the written context, as
	// kubectl's default.
	defaultNamespace = "default"
	// dirMode is used for a missing parent directory: the file may hold a
	// bearer token, so nobody else needs to list it.
	dirMode = 0o700
)

// Write writes a kubeconfig for the server rc describes to path. It holds
// one cluster, one user and one context, all called name, with that context
// current and namespace default. The cluster is rc.Host with rc's CA
// (certificate-authority-data) and TLS server name; the user carries
// rc.BearerToken. A token needs TLS (a CA), because client-go and kubectl
// read a kubeconfig's credentials only for an https server
// (clientcmd/client_config.go, "only try to read the auth information if we
// are secure"), so Write refuses to write a token they would drop. Write
// fails, writing nothing, if rc.Host is empty (the server is not serving
// yet).
//
// The file has mode 0600 even if it existed with another mode, and missing
// parent directories are created. The content is what clientcmd.WriteToFile
// writes, but it goes to a temporary file in the same directory that is
// then renamed over path, so a reader never sees a partial kubeconfig and
// an existing file's mode never leaks the token; a symlink at path is
// replaced, not followed.
func Write(path, name string, rc *rest.Config) error {
	cfg, err := build(name, rc)
	if err != nil {
		return fmt.Errorf("write kubeconfig %s: %w", path, err)
	}
	// This is clientcmd.Write, minus package clientcmd: that would pull
	// its command-line and auth-plugin dependencies into every test binary
	// that starts a fake server.
	data, err := runtime.Encode(clientcmdlatest.Codec, &cfg)
	if err != nil {
		return fmt.Errorf("write kubeconfig %s: %w", path, err)
	}
	if err := writeFileAtomic(path, data); err != nil {
		return fmt.Errorf("write kubeconfig: %w", err)
	}
	return nil
}

// build makes the kubeconfig from rc, so a kubeconfig user and a
// rest.Config user see the same server, CA, TLS server name and token.
func build(name string, rc *rest.Config) (clientcmdapi.Config, error) {
	if rc.Host == "" {
		return clientcmdapi.Config{}, errors.New("server is not serving yet")
	}
	if rc.BearerToken != "" && rc.CAData == nil {
		return clientcmdapi.Config{}, errors.New("a bearer token needs TLS: client-go and kubectl send a kubeconfig's token only to an https server")
	}
	cluster := clientcmdapi.NewCluster()
	cluster.Server = rc.Host
	cluster.CertificateAuthorityData = rc.CAData
	cluster.TLSServerName = rc.ServerName
	user := clientcmdapi.NewAuthInfo()
	user.Token = rc.BearerToken
	kctx := clientcmdapi.NewContext()
	kctx.Cluster, kctx.AuthInfo, kctx.Namespace = name, name, defaultNamespace

	cfg := clientcmdapi.NewConfig()
	cfg.Clusters[name] = cluster
	cfg.AuthInfos[name] = user
	cfg.Contexts[name] = kctx
	cfg.CurrentContext = name
	return *cfg, nil
}

// writeFileAtomic writes data to path with mode 0600 by way of a temporary
// file in path's directory (os.CreateTemp makes it 0600) and a rename.
func writeFileAtomic(path string, data []byte) (err error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, dirMode); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			_ = os.Remove(f.Name()) // best effort; the write already failed
		}
	}()
	if _, err := f.Write(data); err != nil {
		_ = f.Close() // the write error is the one worth reporting
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}
