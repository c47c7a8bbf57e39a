package fakeapiserver

import (
	"fmt"

	"github.com/lw-sim/lw-sim/internal/kubeconfig"
)

// kubeconfigName names the cluster, the user and the context of a written
// kubeconfig; the context is the current one.
const kubeconfigName = "lw-sim"

// WriteKubeconfig writes a kubeconfig for this server to path, for kubectl
// (--kubeconfig or $KUBECONFIG) and clientcmd.BuildConfigFromFlags("", path).
// It holds one cluster, one user and one context, all named "lw-sim", with
// that context current. The cluster is [Server.URL] with the server's CA
// (certificate-authority-data) when it serves TLS; the user carries
// [Config.Token] when one is set; a token needs [Config.TLS], because
// client-go and kubectl read a kubeconfig's credentials only for an https
// server, so WriteKubeconfig refuses to write a token they would drop. The
// file has mode 0600 even if it existed with another mode, missing parent
// directories are created, and it is replaced atomically (a reader never
// sees a partial kubeconfig; a symlink at path is replaced, not followed).
// WriteKubeconfig fails if the server is not serving yet (see
// [Server.Serve]).
func (s *Server) WriteKubeconfig(path string) error {
	if err := kubeconfig.Write(path, kubeconfigName, s.RESTConfig()); err != nil {
		return fmt.Errorf("fakeapiserver: %w", err)
	}
	return nil
}
