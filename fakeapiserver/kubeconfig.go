package fakeapiserver

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"k8s.io/apimachinery/pkg/runtime"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	clientcmdlatest "k8s.io/client-go/tools/clientcmd/api/latest"
)

const (
	// kubeconfigName names the cluster, the user and the context of a
	// written kubeconfig; the context is the current one.
	kubeconfigName = "lw-sim"
	// kubeconfigDirMode is used for a missing parent directory: the file
	// may hold a bearer token, so nobody else needs to list it.
	kubeconfigDirMode = 0o700
)

// WriteKubeconfig writes a kubeconfig for this server to path, for kubectl
// (--kubeconfig or $KUBECONFIG) and clientcmd.BuildConfigFromFlags("", path).
// It holds one cluster, one user and one context, all named "lw-sim", with
// that context current. The cluster is [Server.URL] with the server's CA
// (certificate-authority-data) when it serves TLS; the user carries
// [Config.Token] when one is set; a token needs [Config.TLS], because
// client-go and kubectl read a kubeconfig's credentials only for an https
// server (clientcmd/client_config.go, "only try to read the auth information
// if we are secure"), so WriteKubeconfig refuses to write a token they would
// drop. The file has mode 0600 even if it existed
// with another mode, and missing parent directories are created.
//
// The content is what clientcmd.WriteToFile writes, but it goes to a
// temporary file in the same directory that is then renamed over path, so a
// reader never sees a partial kubeconfig and an existing file's mode never
// leaks the token; a symlink at path is replaced, not followed. WriteKubeconfig fails if the server is not
// serving yet (see [Server.Serve]).
func (s *Server) WriteKubeconfig(path string) error {
	cfg, err := s.kubeconfig()
	if err != nil {
		return fmt.Errorf("fakeapiserver: write kubeconfig %s: %w", path, err)
	}
	// This is clientcmd.Write, minus package clientcmd: that would pull
	// its command-line and auth-plugin dependencies into every test binary
	// that uses this package.
	data, err := runtime.Encode(clientcmdlatest.Codec, &cfg)
	if err != nil {
		return fmt.Errorf("fakeapiserver: write kubeconfig %s: %w", path, err)
	}
	if err := writeFileAtomic(path, data); err != nil {
		return fmt.Errorf("fakeapiserver: write kubeconfig: %w", err)
	}
	return nil
}

// kubeconfig builds the kubeconfig from RESTConfig, so a kubeconfig user
// and a RESTConfig user see the same server, CA, TLS server name and token.
func (s *Server) kubeconfig() (clientcmdapi.Config, error) {
	rc := s.RESTConfig()
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
	kctx.Cluster, kctx.AuthInfo, kctx.Namespace = kubeconfigName, kubeconfigName, "default"

	cfg := clientcmdapi.NewConfig()
	cfg.Clusters[kubeconfigName] = cluster
	cfg.AuthInfos[kubeconfigName] = user
	cfg.Contexts[kubeconfigName] = kctx
	cfg.CurrentContext = kubeconfigName
	return *cfg, nil
}

// writeFileAtomic writes data to path with mode 0600 by way of a temporary
// file in path's directory (os.CreateTemp makes it 0600) and a rename.
func writeFileAtomic(path string, data []byte) (err error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, kubeconfigDirMode); err != nil {
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
