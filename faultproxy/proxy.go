package faultproxy

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
	"k8s.io/utils/clock"

	"github.com/lw-sim/lw-sim/internal/faults"
)

// Fault types, the same as fakeapiserver's (aliases of internal/faults).
type (
	Fault         = faults.Fault
	FaultInjector = faults.Injector
	FaultRecord   = faults.Record
)

// Config configures a [Proxy].
type Config struct {
	// Upstream is how to reach the apiserver (host, TLS, credentials), as
	// from a kubeconfig. Required. The proxy authenticates upstream with
	// it; what callers send as credentials (Authorization,
	// Proxy-Authorization, Cookie) or to change identity (Impersonate-*)
	// is dropped first.
	Upstream *rest.Config
	// Token, when set, is the bearer token every caller must send (401
	// Unauthorized otherwise). It is checked here and never forwarded.
	Token string
	// AllowedHosts, when non-nil, refuses requests whose Host header is
	// not an IP address, localhost, *.localhost or one of these names (403,
	// internal/hostcheck; a guard against DNS rebinding). "*" allows all.
	AllowedHosts []string
	// Clock times latencies, delays and windows. If nil, the real clock.
	Clock clock.WithTickerAndDelayedExecution
	// ControlAPI serves the control API under /_lwsim/ (see
	// internal/faults ControlHandler). Off by default.
	ControlAPI bool
}

// Proxy forwards requests to one apiserver and injects faults on the way.
// Its handler runs on the caller's http.Server; the proxy starts no
// goroutine of its own.
type Proxy struct {
	upstream  *url.URL
	transport http.RoundTripper
	inj       *faults.Injector
	control   http.Handler
	handler   http.Handler
	seenRV    atomic.Int64
	stop      context.CancelFunc
}

// New builds a proxy to cfg.Upstream.
func New(cfg Config) (*Proxy, error) {
	if cfg.Upstream == nil || cfg.Upstream.Host == "" {
		return nil, fmt.Errorf("faultproxy: no upstream host")
	}
	host := cfg.Upstream.Host
	if !strings.Contains(host, "://") {
		host = "https://" + host
	}
	u, err := url.Parse(host)
	if err != nil {
		return nil, fmt.Errorf("faultproxy: upstream host: %w", err)
	}
	rt, err := rest.TransportFor(cfg.Upstream)
	if err != nil {
		return nil, fmt.Errorf("faultproxy: upstream transport: %w", err)
	}
	stopCtx, stop := context.WithCancel(context.Background())
	p := &Proxy{upstream: u, transport: rt, stop: stop}
	p.inj = faults.New(faults.Config{Target: proxyTarget{p}, Clock: cfg.Clock, Stop: stopCtx})
	if cfg.ControlAPI {
		p.control = faults.ControlHandler(p.inj)
	}
	p.handler = guard(cfg, http.HandlerFunc(p.serveHTTP))
	return p, nil
}

// Faults returns the proxy's fault injector.
func (p *Proxy) Faults() *FaultInjector { return p.inj }

// Handler returns the proxy's HTTP handler: the caller checks of [Config]
// (Host, Token), then the control API, request faults and forwarding.
func (p *Proxy) Handler() http.Handler { return p.handler }

// Close ends every fault and releases hung streams. The http.Server that
// serves Handler is the caller's to close.
func (p *Proxy) Close() {
	p.stop()
	p.inj.Close()
}

// observeRV raises the highest RV seen.
func (p *Proxy) observeRV(rv int64) {
	for {
		cur := p.seenRV.Load()
		if rv <= cur || p.seenRV.CompareAndSwap(cur, rv) {
			break
		}
	}
	p.inj.Poll()
}

// proxyTarget is the proxy as the injector's target: no state faults.
type proxyTarget struct{ p *Proxy }

var (
	_ faults.Target    = proxyTarget{}
	_ faults.Supporter = proxyTarget{}
)

func (t proxyTarget) CurrentRV() int64 { return t.p.seenRV.Load() }

func (proxyTarget) Compact(int64) error {
	return fmt.Errorf("%w: a proxy cannot compact the apiserver's storage", faults.ErrUnsupported)
}

func (proxyTarget) Restart() error {
	return fmt.Errorf("%w: a proxy cannot restart the apiserver", faults.ErrUnsupported)
}

// Supports refuses state faults, which need the apiserver's storage.
func (proxyTarget) Supports(f faults.Fault) error {
	switch f.Kind {
	case faults.Compact, faults.Restart:
		return fmt.Errorf("%w: %s needs the apiserver's storage; the proxy only sees requests and streams (use lw-sim serve, or act on the cluster itself)", faults.ErrUnsupported, f.Kind)
	}
	return nil
}

// schemaEmpty is the empty group-resource of proxy errors.
var schemaEmpty = schema.GroupResource{}
