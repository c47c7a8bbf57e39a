package fakeapiserver

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"

	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apiserver/pkg/authentication/authenticator"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/lw-sim/lw-sim/fakeapiserver/internal/openapi"
	"github.com/lw-sim/lw-sim/fakeapiserver/store"
	"github.com/lw-sim/lw-sim/internal/hostcheck"
	"github.com/lw-sim/lw-sim/internal/serving"
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
	// apiservers are the kube-apiserver instances in front of store and
	// the load balancer choosing one per request (balancer.go).
	apiservers    *balancer
	faults        faultHooks         // fault injection, see faults.go
	hosts         *hostcheck.Checker // nil: any Host ([Config.AllowedHosts])
	openapi       *openapi.Service   // /openapi/v2 and /openapi/v3 (internal/openapi)
	crds          crdController      // CustomResourceDefinitions (crd.go)
	pageBufs      pageBuffers        // LIST page bodies (list_buffers.go)
	gzips         gzipWriters        // gzipped responses (compression.go)
	services      *serviceAllocator  // cluster IPs and node ports (service_alloc.go)
	ctrl          *controllerLoop    // kube-apiserver's in-process controllers (controllers.go)
	admission     *serverAdmission   // admission webhooks and policies (admission.go)
	policyChecker policyTypeChecker  // the policy status controller's (controller_policy_status.go)

	// storeCodecs are store's codecs (store_codec.go); the tests read
	// their decode counts.
	storeCodecs *storeCodecs

	front *serving.Front    // the http.Server of Serve, its TLS and URL
	admin *user.DefaultInfo // the admin user, shared and never modified (authn.go adminUser)

	authn   authenticator.Request // authn.go
	authz   *authz                // authz.go
	tokens  *tokenSigner          // service-account tokens (satoken.go)
	tokenFM lazyFieldManager      // managedFields of TokenRequests (tokenrequest.go)

	// stopCtx is cancelled by Close; every watch stream selects on it.
	stopCtx context.Context
	stop    context.CancelFunc
	// inflight counts running handlers, so Close can wait for them.
	inflight sync.WaitGroup

	// mu guards the fields below.
	mu     sync.Mutex
	closed bool
	// servePort is the TCP port Serve last listened on, 0 before: the
	// kubernetes Service's target port (bootstrap_service.go).
	servePort int32
}

// New builds a server from cfg (see [Config] for defaults). It creates the
// objects kube-apiserver creates at start (bootstrap.go): the namespaces
// default, kube-system, kube-public and kube-node-lease, the Service
// default/kubernetes, the mandatory and suggested FlowSchemas and
// priority levels, and a local APIService per served built-in
// group-version; and it starts the goroutine of the controllers that keep
// them (controllers.go), which Close stops. It does not listen; call
// Serve.
func New(cfg Config) (*Server, error) {
	cfg = cfg.withDefaults()
	if err := checkCompressionLevel(cfg.ResponseCompressionLevel); err != nil {
		return nil, err
	}
	if err := checkAuthConfig(cfg); err != nil {
		return nil, err
	}
	if err := checkControllers(cfg.Controllers); err != nil {
		return nil, err
	}
	if err := cfg.APIServers.check(); err != nil {
		return nil, err
	}
	table, err := newResourceTable(cfg.Scheme, cfg.GroupVersions, cfg.Resources)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	codecs := &storeCodecs{keepUnstructured: cfg.customResourcesDecoded}
	st := store.New(store.Options{ // list_index.go, store_codec.go
		Indexes: storeIndexes, Codec: codecs.codec, DecodeEveryRead: cfg.decodeEveryRead,
	})
	s := &Server{
		cfg:        cfg,
		codecs:     serializer.NewCodecFactory(cfg.Scheme),
		resources:  table,
		store:      st,
		apiservers: newBalancer(cfg.APIServers, st, cfg.Clock),
		watch:      newWatchHub(cfg.Watch, cfg.Clock),
		stopCtx:    ctx,
		stop:       cancel,
		admin:      newAdminUser(newUID()),
		gzips:      gzipWriters{level: cfg.ResponseCompressionLevel},
		services:   newServiceAllocator(cfg.ServiceClusterIPRange),
	}
	s.storeCodecs = codecs
	s.admission = newServerAdmission(s)
	if s.openapi, err = openapi.NewService(cfg.Clock, table.servedGroupVersions(), table.generateOpenAPI); err != nil {
		cancel()
		return nil, err
	}
	if cfg.AllowedHosts != nil {
		s.hosts = hostcheck.New(cfg.AllowedHosts...)
	}
	if err := s.setUpAuth(); err != nil { // auth.go
		cancel()
		return nil, err
	}
	// The request log is outermost, so it sees every answer, 403s of the
	// Host check and 401s included.
	// In-flight accounting (for Close) and the watch hand-off are next
	// (handler.go serveInFlight).
	// The balancer is next: it picks the instance every later step (and
	// the request log's header) sees.
	s.handler = serving.LogRequests(cfg.Logger, s.serveInFlight(s.balance(s.buildHandler())))
	// The certificate covers the names the Host check lets in.
	if s.front, err = serving.NewFront(s.handler, frontOptions(cfg)); err != nil {
		cancel()
		return nil, fmt.Errorf("fakeapiserver: %w", err)
	}
	if err := s.seedBootstrap(); err != nil {
		cancel()
		return nil, err
	}
	if err := s.seedBootstrapPolicy(); err != nil { // rbac_bootstrap.go
		cancel()
		return nil, err
	}
	s.startControllers()
	s.compactor = s.startCompactor(cfg.Compaction)
	s.startFaults() // fault injector and its RV poller (faults.go)
	return s, nil
}

// Handler returns the server's HTTP handler, for embedding in another
// http.Server or an in-memory transport.
func (s *Server) Handler() http.Handler { return s.handler }

// Serve accepts connections on ln until Close, over TLS when [Config.TLS] is
// set. It returns ErrServerClosed after Close. Before it accepts the first
// connection, the Service default/kubernetes, if it still targets the
// 6443 New gave it, is pointed at ln's TCP port, as kube-apiserver's
// targets its secure port (bootstrap_service.go).
func (s *Server) Serve(ln net.Listener) error {
	if err := s.retargetKubernetesService(ln); err != nil {
		s.cfg.Logger.Warn("fakeapiserver: serve", "err", err)
	}
	if err := s.front.Serve(ln); !errors.Is(err, serving.ErrClosed) {
		return fmt.Errorf("fakeapiserver: serve: %w", err)
	}
	return ErrServerClosed
}

// URL is the base URL the server listens on ("" before Serve).
func (s *Server) URL() string { return s.front.URL() }

// RESTConfig returns a client-go config for this server (host, CA, token).
// Each call returns a new config the caller may modify.
func (s *Server) RESTConfig() *rest.Config {
	cfg := &rest.Config{Host: s.URL(), BearerToken: s.cfg.Token, QPS: -1}
	if ca := s.front.CA(); ca != nil {
		cfg.TLSClientConfig = rest.TLSClientConfig{CAData: append([]byte(nil), ca...)}
		// The self-signed certificate names localhost whatever address
		// the server listens on; a certificate from files names what its
		// maker chose, so the URL's host is checked against it.
		if s.cfg.TLS.CertFile == "" {
			cfg.ServerName = "localhost"
		}
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
// (hung ones too: the fault injector releases them on stopCtx), and so
// does the controller goroutine, which Close waits for →
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
	s.mu.Unlock()
	s.stop()
	s.stopControllers()
	s.admission.close()
	s.compactor.stop()
	s.stopFaults() // after stop(): its poller watches stopCtx (faults.go)
	err := s.front.Close()
	s.inflight.Wait()
	return err
}

// frontOptions are the listener's options: HTTPS as [Config.TLS] says,
// client certificates, and the certificate covering the names the Host
// check lets in.
func frontOptions(cfg Config) serving.Options {
	o := serving.Options{Hosts: cfg.AllowedHosts, ClientCAs: cfg.ClientCA}
	if cfg.TLS != nil {
		o.TLS, o.CertFile, o.KeyFile = true, cfg.TLS.CertFile, cfg.TLS.KeyFile
	}
	return o
}
