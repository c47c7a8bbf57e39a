package faultproxy

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"

	"k8s.io/apimachinery/pkg/runtime/schema"
	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/client-go/rest"
	"k8s.io/utils/clock"

	"github.com/lw-sim/lw-sim/faults"
	"github.com/lw-sim/lw-sim/internal/serving"
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
	// [faults.ControlHandler]). Off by default.
	ControlAPI bool
	// TLS makes [Proxy.Serve] serve HTTPS with a fresh self-signed
	// certificate for 127.0.0.1, ::1, localhost and the AllowedHosts names;
	// its CA is in RESTConfig and the written kubeconfig. Callers need it to
	// send Token: kubectl and client-go send a kubeconfig's token only over
	// HTTPS.
	TLS bool
	// Logger receives one line per request at debug level (method, request
	// URI, status, duration, when the response ends). If nil, none.
	Logger *slog.Logger
}

// Proxy forwards requests to one apiserver and injects faults on the way.
// It serves and is stopped as fakeapiserver.Server is: New → Serve (or
// ServeBackground) → Close, with URL, RESTConfig and WriteKubeconfig for its
// callers (serve.go). Its Handler may also run on the caller's own
// http.Server; the proxy then starts no goroutine of its own.
type Proxy struct {
	upstream  *url.URL
	transport http.RoundTripper
	inj       *faults.Injector
	control   http.Handler
	handler   http.Handler
	front     *serving.Front // the http.Server of Serve, its TLS and URL
	token     string         // Config.Token, for RESTConfig
	seenRV    atomic.Int64
	clk       clock.WithTickerAndDelayedExecution
	// inst is the proxy as an apiserver instance (instance.go).
	inst *instance
	// stopCtx ends with Close; stop ends it.
	stopCtx context.Context
	stop    context.CancelFunc
}

// New builds a proxy to cfg.Upstream.
func New(cfg Config) (*Proxy, error) {
	u, rt, err := upstreamOf(cfg.Upstream)
	if err != nil {
		return nil, err
	}
	if cfg.Clock == nil {
		cfg.Clock = clock.RealClock{}
	}
	p := &Proxy{upstream: u, transport: rt, token: cfg.Token, clk: cfg.Clock, inst: newInstance()}
	stopCtx, stop := context.WithCancel(context.Background())
	p.stopCtx, p.stop = stopCtx, stop
	p.inj = faults.New(faults.Config{Target: proxyTarget{p}, Clock: cfg.Clock, Stop: stopCtx})
	if cfg.ControlAPI {
		p.control = faults.ControlHandler(p.inj)
	}
	// The request log is outermost, so it sees the guard's 401s and 403s.
	p.handler = serving.LogRequests(cfg.Logger, guard(cfg, http.HandlerFunc(p.serveHTTP)))
	// The certificate covers the names the Host check lets in.
	if p.front, err = serving.NewFront(p.handler, serving.Options{TLS: cfg.TLS, Hosts: cfg.AllowedHosts}); err != nil {
		stop()
		p.inj.Close()
		return nil, fmt.Errorf("faultproxy: %w", err)
	}
	return p, nil
}

// upstreamOf is the base URL of the apiserver rc describes (https when it
// names no scheme, as client-go assumes) and a transport with its TLS and
// credentials.
func upstreamOf(rc *rest.Config) (*url.URL, http.RoundTripper, error) {
	if rc == nil || rc.Host == "" {
		return nil, nil, fmt.Errorf("faultproxy: no upstream host")
	}
	host := rc.Host
	if !strings.Contains(host, "://") {
		host = "https://" + host
	}
	u, err := url.Parse(host)
	if err != nil {
		return nil, nil, fmt.Errorf("faultproxy: upstream host: %w", err)
	}
	rt, err := rest.TransportFor(rc)
	if err != nil {
		return nil, nil, fmt.Errorf("faultproxy: upstream transport: %w", err)
	}
	return u, rt, nil
}

// Faults returns the proxy's fault injector: faults added to it act on
// this proxy's requests and streams only. The store's state faults
// (Compact, Restart) and instance faults naming an instance other than
// [InstanceName] are refused by Add with [faults.ErrUnsupported]; the
// instance faults act on the proxy as one apiserver instance (instance.go).
func (p *Proxy) Faults() *faults.Injector { return p.inj }

// Handler returns the proxy's HTTP handler: the caller checks of [Config]
// (Host, Token), then the control API, request faults and forwarding.
func (p *Proxy) Handler() http.Handler { return p.handler }

// Close ends every fault, releases hung streams and, when Serve runs,
// closes its listener and every connection. An http.Server of the
// caller's that serves Handler is the caller's to close. It is safe to
// call more than once.
//
// Shutdown chain: stop() and the injector's Close release hung and
// delayed streams → the front's http.Server.Close closes the listener and
// every connection, so forwarded streams end → Serve returns ErrProxyClosed.
// Idle upstream connections are closed last, so their goroutines end too.
func (p *Proxy) Close() error {
	p.stop()
	p.inj.Close()
	err := p.front.Close()
	utilnet.CloseIdleConnectionsFor(p.transport)
	return err
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

// proxyTarget is the proxy as the injector's target: no store state
// faults; the instance faults change the proxy itself (instance.go).
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

// Supports refuses state faults, which need the apiserver's storage, and
// instance faults for an instance other than the proxy.
func (proxyTarget) Supports(f faults.Fault) error {
	switch f.Kind {
	case faults.Compact, faults.Restart:
		return fmt.Errorf("%w: %s needs the apiserver's storage; the proxy only sees requests and streams (use lw-sim serve, or act on the cluster itself; RestartAPIServer restarts the proxy as an apiserver instance)", faults.ErrUnsupported, f.Kind)
	case faults.LagAPIServer, faults.FreezeAPIServer, faults.PartitionAPIServer, faults.RestartAPIServer, faults.HealAPIServer:
		if err := checkInstanceName(f.APIServer); err != nil {
			return fmt.Errorf("%s: %w", f.Kind, err)
		}
	}
	return nil
}

// schemaEmpty is the empty group-resource of proxy errors.
var schemaEmpty = schema.GroupResource{}
