package faultproxy

import (
	"errors"
	"fmt"
	"net"

	"k8s.io/client-go/rest"

	"github.com/lw-sim/lw-sim/internal/kubeconfig"
	"github.com/lw-sim/lw-sim/internal/serving"
)

// ErrProxyClosed is returned by Serve after Close.
var ErrProxyClosed = errors.New("faultproxy: proxy closed")

// kubeconfigName names the cluster, the user and the context of the
// kubeconfig the proxy writes for its callers.
const kubeconfigName = "lw-sim-proxy"

// Serve accepts connections on ln until Close, over TLS when [Config.TLS]
// is set, and forwards them upstream. It returns ErrProxyClosed after Close.
func (p *Proxy) Serve(ln net.Listener) error {
	if err := p.front.Serve(ln); !errors.Is(err, serving.ErrClosed) {
		return fmt.Errorf("faultproxy: serve: %w", err)
	}
	return ErrProxyClosed
}

// ServeBackground serves on ln in a new goroutine, like go p.Serve(ln), but
// returns only once the proxy is accepting connections (or Serve has
// already failed), so URL, RESTConfig and WriteKubeconfig report ln's
// address as soon as it returns. The caller owns the goroutine: after Close
// it must receive from the returned channel, which yields Serve's result
// exactly once — nil when Serve ended because of Close — and is then closed.
func (p *Proxy) ServeBackground(ln net.Listener) <-chan error {
	return serving.Background(ln, p.Serve, ErrProxyClosed)
}

// URL is the base URL the proxy listens on ("" before Serve).
func (p *Proxy) URL() string { return p.front.URL() }

// RESTConfig returns a client-go config for callers of the proxy: its URL,
// its CA with [Config.TLS] and [Config.Token]. The upstream credentials stay
// in the proxy. Each call returns a new config the caller may modify.
func (p *Proxy) RESTConfig() *rest.Config {
	cfg := &rest.Config{Host: p.URL(), BearerToken: p.token, QPS: -1}
	if ca := p.front.CA(); ca != nil {
		cfg.TLSClientConfig = rest.TLSClientConfig{CAData: append([]byte(nil), ca...)}
	}
	return cfg
}

// WriteKubeconfig writes a kubeconfig for callers of the proxy to path, as
// fakeapiserver.Server.WriteKubeconfig does for a server: one cluster, user
// and context named "lw-sim-proxy", current, from [Proxy.RESTConfig]; mode
// 0600, replaced atomically; a token needs [Config.TLS]. It fails if the
// proxy is not serving yet.
func (p *Proxy) WriteKubeconfig(path string) error {
	if err := kubeconfig.Write(path, kubeconfigName, p.RESTConfig()); err != nil {
		return fmt.Errorf("faultproxy: %w", err)
	}
	return nil
}
