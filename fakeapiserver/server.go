package fakeapiserver

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/lw-sim/lw-sim/fakeapiserver/internal/openapi"
	"github.com/lw-sim/lw-sim/fakeapiserver/store"
	"github.com/lw-sim/lw-sim/internal/hostcheck"
)

// ErrServerClosed is returned by Serve after Close.
var ErrServerClosed = errors.New("fakeapiserver: server closed")

// Server is one fake kube-apiserver: a resource table, an MVCC store and the
// HTTP handlers over them. Servers share nothing; many may run in one process.
//
// Lifecycle: New → Serve (or Start in tests) → Close. Close ends every open
// watch, waits for in-flight requests and closes the listener.
type Server struct {
	cfg       Config
	codecs    serializer.CodecFactory
	resources *resourceTable
	store     *store.Store
	handler   http.Handler
	watch     *watchHub
	compactor *compactor
	faults    faultHooks         // fault injection, see faults.go
	hosts     *hostcheck.Checker // nil: any Host ([Config.AllowedHosts])
	openapi   *openapi.Service   // /openapi/v2 and /openapi/v3 (internal/openapi)
	crds      crdController      // CustomResourceDefinitions (crd.go)

	tlsConfig *tls.Config // nil for plain HTTP
	tlsCA     []byte      // PEM CA of the serving certificate, nil for plain HTTP
	userUID   string      // UID of the single user (reviews.go)

	// stopCtx is cancelled by Close; every watch stream selects on it.
	stopCtx context.Context
	stop    context.CancelFunc
	// inflight counts running handlers, so Close can wait for them.
	inflight sync.WaitGroup

	// mu guards the fields below.
	mu      sync.Mutex
	httpSrv *http.Server
	url     string
	closed  bool
}

// New builds a server from cfg (see [Config] for defaults). It seeds the
// namespaces kube-apiserver creates at start: default, kube-system,
// kube-public and kube-node-lease. It does not listen; call Serve.
func New(cfg Config) (*Server, error) {
	cfg = cfg.withDefaults()
	limitJSONPatchCopies() // write_limits.go
	table, err := newResourceTable(cfg.Scheme, cfg.GroupVersions, cfg.Resources)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &Server{
		cfg:       cfg,
		codecs:    serializer.NewCodecFactory(cfg.Scheme),
		resources: table,
		store:     store.New(store.Options{}),
		watch:     newWatchHub(cfg.Watch, cfg.Clock),
		stopCtx:   ctx,
		stop:      cancel,
		userUID:   newUID(),
	}
	if s.openapi, err = openapi.NewService(cfg.Clock, table.servedGroupVersions(), table.generateOpenAPI); err != nil {
		cancel()
		return nil, err
	}
	if cfg.AllowedHosts != nil {
		s.hosts = hostcheck.New(cfg.AllowedHosts...)
	}
	if cfg.TLS {
		if s.tlsConfig, s.tlsCA, err = selfSignedTLS(); err != nil {
			cancel()
			return nil, err
		}
	}
	s.handler = s.buildHandler()
	if err := s.seedNamespaces(); err != nil {
		cancel()
		return nil, err
	}
	s.compactor = s.startCompactor(cfg.Compaction)
	s.startFaults() // fault injector and its RV poller (faults.go)
	return s, nil
}

// Handler returns the server's HTTP handler, for embedding in another
// http.Server or an in-memory transport.
func (s *Server) Handler() http.Handler { return s.handler }

// Serve accepts connections on ln until Close, over TLS when [Config.TLS] is
// set. It returns ErrServerClosed after Close.
func (s *Server) Serve(ln net.Listener) error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return ErrServerClosed
	}
	scheme := "http"
	if s.tlsConfig != nil {
		ln = tls.NewListener(ln, s.tlsConfig)
		scheme = "https"
	}
	hs := &http.Server{Handler: s.handler, ReadHeaderTimeout: 30 * time.Second}
	s.httpSrv = hs
	s.url = fmt.Sprintf("%s://%s", scheme, ln.Addr().String())
	s.mu.Unlock()
	if err := hs.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("fakeapiserver: serve: %w", err)
	}
	return ErrServerClosed
}

// URL is the base URL the server listens on ("" before Serve).
func (s *Server) URL() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.url
}

// RESTConfig returns a client-go config for this server (host, CA, token).
// Each call returns a new config the caller may modify.
func (s *Server) RESTConfig() *rest.Config {
	s.mu.Lock()
	defer s.mu.Unlock()
	cfg := &rest.Config{Host: s.url, BearerToken: s.cfg.Token, QPS: -1}
	if s.tlsCA != nil {
		cfg.TLSClientConfig = rest.TLSClientConfig{CAData: append([]byte(nil), s.tlsCA...), ServerName: "localhost"}
	}
	return cfg
}

// Clientset returns a typed clientset for this server. It panics only if
// RESTConfig is invalid, which is a programming error (Serve not called).
func (s *Server) Clientset() kubernetes.Interface {
	cs, err := kubernetes.NewForConfig(s.RESTConfig())
	if err != nil {
		panic(fmt.Sprintf("fakeapiserver: clientset for %q: %v", s.URL(), err))
	}
	return cs
}

// Close ends every watch stream, closes the listener and every connection,
// and waits for the handlers to return. It is safe to call more than once.
//
// Shutdown chain: stop() cancels stopCtx → every watch handler returns
// (hung ones too: the fault injector releases them on stopCtx) →
// http.Server.Close closes the listener and all connections (a graceful
// Shutdown would wait 5 s for connections clients opened but never used)
// → inflight.Wait returns once the last handler has.
func (s *Server) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	hs := s.httpSrv
	s.mu.Unlock()
	s.stop()
	s.compactor.stop()
	s.stopFaults() // after stop(): its poller watches stopCtx (faults.go)
	var err error
	if hs != nil {
		err = hs.Close()
	}
	s.inflight.Wait()
	return err
}
