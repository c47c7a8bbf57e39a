package fakeclientset

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"testing"

	"k8s.io/client-go/rest"

	"github.com/lw-sim/lw-sim/fakeapiserver"
	"github.com/lw-sim/lw-sim/fakeapiserver/fakeapiservertest"
)

// Server is an lw-sim fake API server served over an in-process pipe (no
// socket), shared by every client made from it: a typed [Clientset], a
// [DynamicClient], a [MetadataClient], and any client built from
// [Server.RESTConfig] (generated clientsets of CRDs, controller-runtime).
// An object one of them writes is what the others read and watch.
//
// Because the pipe blocks durably, a Server works inside a testing/synctest
// bubble: watch timeouts, bookmarks, informer resyncs and backoffs run on
// the bubble's clock.
type Server struct {
	// Server is the fake API server itself: faults, compaction, watch
	// statistics and its Config are reached through it. Its own URL and
	// RESTConfig name no reachable address (it listens on no socket): use
	// [Server.RESTConfig] of this type.
	*fakeapiserver.Server

	ln     *fakeapiservertest.PipeListener
	served <-chan error
	// ctx is cancelled by close; requests the reactors send, and watches
	// they open, end with it.
	ctx    context.Context
	cancel context.CancelFunc
	// hc is the one HTTP client of every client made from this server, so
	// close can drop their idle connections.
	hc *http.Client

	// mu guards the fields below.
	mu     sync.Mutex
	closed bool
	// defaultConfig is set while the server's discovery is the
	// process-wide memo of the zero Config's (discovery.go).
	defaultConfig bool
	discovered    *apiResources // the server's discovery, read on first use (discovery.go)
}

// NewServer starts a fake API server configured by cfg (the zero Config
// serves what kube-apiserver v1.37.2 serves by default; see
// [fakeapiserver.Config]) on an in-process pipe. tb.Cleanup closes it: every
// watch ends, every connection closes and every goroutine the server and its
// clients' transport started returns. NewServer fails the test with
// tb.Fatalf if cfg is invalid.
func NewServer(tb testing.TB, cfg fakeapiserver.Config) *Server {
	tb.Helper()
	s, err := New(cfg)
	if err != nil {
		tb.Fatalf("fakeclientset: %v", err)
	}
	tb.Cleanup(func() {
		if err := s.Close(); err != nil {
			tb.Errorf("fakeclientset: %v", err)
		}
	})
	return s
}

// New is [NewServer] for code without a testing.TB: the caller owns the
// server and must Close it.
func New(cfg fakeapiserver.Config) (*Server, error) {
	srv, err := fakeapiserver.New(cfg)
	if err != nil {
		return nil, err
	}
	ln := fakeapiservertest.NewPipeListener()
	ctx, cancel := context.WithCancel(context.Background())
	s := &Server{Server: srv, ln: ln, ctx: ctx, cancel: cancel, defaultConfig: isZeroConfig(cfg)}
	s.served = srv.ServeBackground(ln)
	hc, err := rest.HTTPClientFor(s.RESTConfig())
	if err != nil {
		_ = s.Close()
		return nil, fmt.Errorf("fakeclientset: http client: %w", err)
	}
	s.hc = hc
	return s, nil
}

// RESTConfig returns a client-go config that reaches this server over its
// pipe, for any client: kubernetes.NewForConfig, a generated clientset of a
// CRD, dynamic, metadata, controller-runtime's client.New. Rate limiting
// is off (QPS -1), as a test wants. Each call returns a new config the
// caller may modify; clients built from it share nothing with this
// package's clients but the server.
func (s *Server) RESTConfig() *rest.Config {
	return &rest.Config{
		Host: "http://" + s.ln.Addr().String(),
		Dial: s.ln.DialContext,
		// As kubernetes.NewForConfig sets it: the server names the field
		// manager of an update after the User-Agent's first word.
		UserAgent: rest.DefaultKubernetesUserAgent(),
		QPS:       -1,
		Burst:     -1,
	}
}

// HTTPClient is the one HTTP client of every client made from this
// server, on its pipe: pass it with [Server.RESTConfig] to clients that
// take one (controller-runtime's client.Options.HTTPClient) so that Close
// also drops their idle connections.
func (s *Server) HTTPClient() *http.Client { return s.hc }

// Close ends every request and watch of this package's clients, closes the
// server and waits for its serving goroutine, then closes the idle
// connections of the shared transport, so no goroutine of the server or of
// its clients' transport is left. It reports a watch-path bug the server
// counted ([fakeapiserver.WatchStats] StaleDropped). Safe to call more than
// once.
//
// Shutdown chain: cancel ends the reactors' requests and watches →
// Server.Close ends every watch handler and closes the listener and every
// connection → Serve returns and ServeBackground's goroutine sends on served
// → the transport's connections, now closed, end their read and write loops.
func (s *Server) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	s.mu.Unlock()
	s.cancel()
	err := s.Server.Close()
	if serr := <-s.served; serr != nil && err == nil {
		err = serr
	}
	if s.hc != nil {
		s.hc.CloseIdleConnections()
	}
	if n := s.WatchStats().StaleDropped; n > 0 && err == nil {
		err = fmt.Errorf("%d watch event(s) at or below their stream's last RV were dropped: a watch-path bug", n)
	}
	return err
}

// isZeroConfig says whether cfg serves what the zero Config serves: nothing
// that changes discovery is set (the other fields are timers, limits and
// transport).
func isZeroConfig(cfg fakeapiserver.Config) bool {
	return cfg.Scheme == nil && cfg.GroupVersions == nil && cfg.Resources == nil
}
