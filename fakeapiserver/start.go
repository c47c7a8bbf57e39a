package fakeapiserver

import (
	"net"

	"k8s.io/utils/clock"

	"github.com/lw-sim/lw-sim/internal/serving"
)

// Option adjusts the [Config] that [Start] builds its server from. Options
// are sealed (goleak's pattern): only this package defines them, so new ones
// can be added without breaking callers.
type Option interface {
	apply(*Config)
}

// optionFunc adapts a function to [Option].
type optionFunc func(*Config)

func (f optionFunc) apply(cfg *Config) { f(cfg) }

// WithConfig lets fn edit the whole [Config], for knobs that have no option
// of their own. Options apply in order, so a later option overrides what fn
// set.
func WithConfig(fn func(*Config)) Option { return optionFunc(fn) }

// WithTLS serves HTTPS with a self-signed certificate; [Server.RESTConfig],
// [Server.Clientset] and [Server.WriteKubeconfig] trust its CA. See
// [Config.TLS], which also serves a certificate read from files.
func WithTLS() Option { return optionFunc(func(cfg *Config) { cfg.TLS = &ServingTLS{} }) }

// WithToken requires every request to carry "Authorization: Bearer token";
// others get 401 Unauthorized. RESTConfig and the kubeconfig carry the token.
// See [Config.Token].
func WithToken(token string) Option {
	return optionFunc(func(cfg *Config) { cfg.Token = token })
}

// WithAuthorization selects the authorizer: [AuthorizationRBAC] to
// authorize as a cluster does, [AuthorizationAlwaysAllow] (the default).
// See [Config.Authorization].
func WithAuthorization(mode AuthorizationMode) Option {
	return optionFunc(func(cfg *Config) { cfg.Authorization = mode })
}

// WithClock drives every timer of the server (watch timeouts, bookmarks,
// compaction) from c, typically a k8s.io/utils/clock/testing fake clock. See
// [Config.Clock].
func WithClock(c clock.WithTickerAndDelayedExecution) Option {
	return optionFunc(func(cfg *Config) { cfg.Clock = c })
}

// Start builds a server from the zero [Config] and opts, serves it on a fresh
// port of 127.0.0.1 in a goroutine it owns, and returns it ready for use:
// [Server.URL], [Server.RESTConfig], [Server.Clientset] and
// [Server.WriteKubeconfig] work as soon as Start returns.
//
// Start fails the test with tb.Fatalf if the configuration is invalid or it
// cannot listen. tb.Cleanup closes the server and waits for the serving
// goroutine, so a test that uses Start leaks no goroutine of the server's;
// Cleanup reports an error from Close or Serve with tb.Errorf, and so a
// watch-path bug counted in [WatchStats.StaleDropped]. Servers
// started in one process share nothing and may be used from parallel tests.
func Start(tb TB, opts ...Option) *Server {
	tb.Helper()
	var cfg Config
	for _, o := range opts {
		o.apply(&cfg)
	}
	s, err := New(cfg)
	if err != nil {
		tb.Fatalf("fakeapiserver.Start: %v", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		// New started nothing that Close would not undo.
		_ = s.Close()
		tb.Fatalf("fakeapiserver.Start: listen: %v", err)
	}
	done := s.ServeBackground(ln)
	tb.Cleanup(func() {
		// Shutdown chain: Close ends every watch and shuts the http.Server
		// down → Serve returns → the ServeBackground goroutine sends on
		// done and exits.
		if err := s.Close(); err != nil {
			tb.Errorf("fakeapiserver: Close: %v", err)
		}
		if err := <-done; err != nil {
			tb.Errorf("fakeapiserver: Serve: %v", err)
		}
		if n := s.WatchStats().StaleDropped; n > 0 {
			tb.Errorf("fakeapiserver: %d watch event(s) at or below their stream's last RV were dropped (WatchStats.StaleDropped): a watch-path bug", n)
		}
	})
	return s
}

// ServeBackground serves on ln in a new goroutine, like go s.Serve(ln), but
// returns only once the server is accepting connections (or Serve has already
// failed), so URL, RESTConfig and WriteKubeconfig report ln's address as soon
// as it returns. The caller owns the goroutine: after Close it must receive
// from the returned channel, which yields Serve's result exactly once — nil
// when Serve ended because of Close — and is then closed.
func (s *Server) ServeBackground(ln net.Listener) <-chan error {
	return serving.Background(ln, s.Serve, ErrServerClosed)
}
