package fakeapiserver

import (
	"crypto/x509"
	"fmt"
	"log/slog"
	"net/netip"
	"slices"
	"strings"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
	"k8s.io/utils/clock"
)

const (
	// defaultMaxRequestBodyBytes is kube-apiserver's --max-resource-write-bytes
	// default (3 MiB); larger bodies get 413 RequestEntityTooLarge.
	defaultMaxRequestBodyBytes = 3 * 1024 * 1024
	// defaultMinRequestTimeout is kube-apiserver's --min-request-timeout: a
	// watch without timeoutSeconds lasts this times a random factor in [1, 2)
	// (apiserver pkg/endpoints/handlers/get.go, handleWatch).
	defaultMinRequestTimeout = 1800 * time.Second
)

// DefaultGroupVersions are the group-versions a server serves when
// [Config.GroupVersions] is nil: those kube-apiserver v1.37.2 serves by
// default (its /apis). apiextensions.k8s.io/v1 serves
// CustomResourceDefinitions (crd.go), whose resources are then served too;
// apiregistration.k8s.io/v1 the APIServices (apiservices.go), whose types
// come from k8s.io/kube-aggregator, not client-go's scheme. Each is served
// with kube-apiserver's discovery (captured/README.md).
var DefaultGroupVersions = []schema.GroupVersion{
	{Version: "v1"},
	{Group: "admissionregistration.k8s.io", Version: "v1"},
	{Group: "apiextensions.k8s.io", Version: "v1"},
	{Group: "apiregistration.k8s.io", Version: "v1"},
	{Group: "apps", Version: "v1"},
	{Group: "authentication.k8s.io", Version: "v1"},
	{Group: "authorization.k8s.io", Version: "v1"},
	{Group: "autoscaling", Version: "v1"},
	{Group: "autoscaling", Version: "v2"},
	{Group: "batch", Version: "v1"},
	{Group: "certificates.k8s.io", Version: "v1"},
	{Group: "coordination.k8s.io", Version: "v1"},
	{Group: "discovery.k8s.io", Version: "v1"},
	{Group: "events.k8s.io", Version: "v1"},
	{Group: "flowcontrol.apiserver.k8s.io", Version: "v1"},
	{Group: "networking.k8s.io", Version: "v1"},
	{Group: "node.k8s.io", Version: "v1"},
	{Group: "policy", Version: "v1"},
	{Group: "rbac.authorization.k8s.io", Version: "v1"},
	{Group: "resource.k8s.io", Version: "v1"},
	{Group: "scheduling.k8s.io", Version: "v1"},
	{Group: "storage.k8s.io", Version: "v1"},
	{Group: "storagemigration.k8s.io", Version: "v1"},
}

// AllGroupVersions returns every group-version of client-go's scheme:
// DefaultGroupVersions and the alpha, beta and older versions
// kube-apiserver serves only when enabled. Pass it as
// [Config.GroupVersions] to serve them all.
func AllGroupVersions() []schema.GroupVersion {
	return clientgoscheme.Scheme.PrioritizedVersionsAllGroups()
}

// Config configures a [Server]. The zero value is a working configuration;
// every field documents its default.
type Config struct {
	// Scheme holds the Go types of every served kind. If nil, a new scheme
	// with all of client-go's built-in types is used (never a shared global,
	// so servers stay independent).
	Scheme *runtime.Scheme
	// GroupVersions are served in full. One kube-apiserver v1.37.2 serves by
	// default is served as it serves it: its resources with their scope,
	// verbs, short names, categories and OpenAPI documents (the
	// create-only reviews answer; see DIVERGENCES.md for what is left out).
	// For any other, every kind K with a list kind KList in Scheme becomes a
	// resource with every verb and a generated OpenAPI v3 document. Adding a
	// group is adding it here (and to Scheme if it is not a built-in one).
	// If nil, DefaultGroupVersions.
	GroupVersions []schema.GroupVersion
	// Resources override the derived registration of a kind (plural, scope,
	// field selectors, ...) or add single kinds. Optional.
	Resources []Resource
	// Clock drives every timer: watch timeouts, bookmarks, compaction. If nil,
	// the real clock. Tests and scenarios pass a fake clock.
	Clock clock.WithTickerAndDelayedExecution
	// Logger receives one line per request at debug level (method, request
	// URI, status, duration; logged when the response ends, so a watch's line
	// comes when its stream does) and warnings. If nil, logs are discarded.
	Logger *slog.Logger
	// TLS, when set, serves HTTPS with the certificate it names
	// ([ServingTLS]); nil serves plain HTTP.
	TLS *ServingTLS
	// Token, when set, is a bearer token ("Bearer" matched in any case)
	// that authenticates as kube-apiserver's loopback admin:
	// system:apiserver in system:authenticated and system:masters. With a
	// Token or a ClientCA, callers are authenticated as kube-apiserver
	// authenticates them (authn.go): a wrong token gets 401 Unauthorized,
	// a service-account token the server minted (TokenRequest) is that
	// service account, and a request without credentials is
	// system:anonymous, who may GET /healthz, /livez, /readyz and /version
	// and gets 403 Forbidden for anything else (the bootstrap RBAC
	// policy). With neither, every request without credentials is the
	// admin, as before lw-sim authenticated.
	Token string
	// ClientCA, when set, authenticates client certificates it verifies
	// as kube-apiserver's --client-ca-file does: the certificate's subject
	// CN is the user, its O values the groups (envtest's AddUser makes its
	// users so). The server asks clients for a certificate issued by it;
	// one it does not verify is 401. Needs TLS.
	ClientCA *x509.CertPool
	// Authorization selects the authorizer, by kube-apiserver's
	// --authorization-mode name: [AuthorizationAlwaysAllow] (the default
	// when empty) or [AuthorizationRBAC]. New fails for any other.
	Authorization AuthorizationMode
	// ServiceAccountIssuer is the issuer (iss) of the service-account
	// tokens the server mints (TokenRequest) and the audience API callers'
	// tokens must have (kube-apiserver's --service-account-issuer and
	// --api-audiences default). If empty,
	// "https://kubernetes.default.svc.cluster.local".
	ServiceAccountIssuer string
	// MaxRequestBodyBytes caps request bodies (413 above it). If zero, 3 MiB
	// as kube-apiserver.
	MaxRequestBodyBytes int64
	// Compaction sets when history is compacted automatically (see
	// [CompactionConfig] for the defaults). Server.Compact forces it.
	Compaction CompactionConfig
	// MinRequestTimeout is the base of the default watch timeout (a watch
	// without timeoutSeconds ends after MinRequestTimeout*[1,2)). If zero,
	// 1800 s as kube-apiserver.
	MinRequestTimeout time.Duration
	// Watch configures the WATCH path; see [WatchConfig] for its defaults.
	Watch WatchConfig
	// APIServers sets how many kube-apiserver instances, each with its own
	// watch cache, serve the one store behind a load balancer (see
	// [APIServersConfig]; balancer.go, apiserver_instance.go). If zero, one
	// instance whose cache follows the store: the server as before.
	APIServers APIServersConfig
	// AllowedHosts, when non-nil, turns on the guard against DNS
	// rebinding (internal/hostcheck): a request whose Host header is not an
	// IP address, localhost, *.localhost or one of these names gets 403
	// Forbidden before anything else; "*" allows every host. nil (the
	// default, for tests) answers any Host; lw-sim serve always sets it.
	AllowedHosts []string
	// ResponseCompressionLevel is the compress/gzip level of the responses
	// the server gzips: those over 128 KiB for a client that accepts gzip,
	// sent with Content-Encoding: gzip and Vary: Accept-Encoding as
	// kube-apiserver sends them. The level only changes how much smaller
	// the valid gzip stream is, which no API promises. 0 (gzip.NoCompression,
	// the default) sends stored blocks: the body, framed and checksummed,
	// which costs both sides a copy and a CRC where deflate costs the server
	// milliseconds a page, a loss on loopback. [KubeAPIServerCompressionLevel]
	// (1) gives the real server's bytes; -2 (gzip.HuffmanOnly) up to 9 are
	// accepted too, anything else makes New fail.
	ResponseCompressionLevel int
	// ControlAPI serves the fault-injection control API under /_lwsim/
	// ([faults.ControlHandler]), behind Token when one is set. Off
	// by default. [Server.Faults] works either way.
	ControlAPI bool
	// ServiceClusterIPRange is the service CIDR cluster IPs are allocated
	// from (kube-apiserver's --service-cluster-ip-range, single-stack). If
	// unset, [DefaultServiceClusterIPRange]. Node ports come from
	// 30000-32767.
	ServiceClusterIPRange netip.Prefix
	// Controllers are the kube-controller-manager controllers the server
	// runs itself, by their names there (--controllers):
	// [ControllerGarbageCollector], [ControllerNamespace],
	// [ControllerServiceAccount]. None by default, as envtest runs none
	// (kube-apiserver alone): deleted owners keep their dependents. They
	// act after the writes they react to, on the server's goroutine and
	// clock, as the real ones act on their informers' events.
	Controllers []string

	// decodeEveryRead makes the store keep no decoded object with a
	// codec past its write (store.Options.DecodeEveryRead), so every
	// read decodes its protobuf or JSON: for this package's tests, which
	// must see no difference.
	decodeEveryRead bool
	// customResourcesDecoded keeps custom resources as written, without
	// their codec (customresource_store.go), and encodes their LIST
	// pages whole (no listPage.spliceCustomJSON): the tests' reference
	// for what the codec and the splice must not change.
	customResourcesDecoded bool
}

// The controllers Config.Controllers can name.
const (
	// ControllerGarbageCollector deletes dependents whose owners are
	// gone, orphans or deletes the dependents of owners deleted with
	// propagationPolicy Orphan or Foreground (their finalizers), and
	// removes references to absent owners from objects that keep another
	// (controller_gc.go).
	ControllerGarbageCollector = "garbage-collector-controller"
	// ControllerNamespace deletes the content of a namespace being deleted,
	// records the deletion conditions, and finalizes it once empty, so it
	// goes (controller_namespace.go).
	ControllerNamespace = "namespace-controller"
	// ControllerServiceAccount creates the ServiceAccount "default" in
	// every Active namespace (controller_serviceaccount.go).
	ControllerServiceAccount = "serviceaccount-controller"
	// ControllerValidatingAdmissionPolicyStatus type-checks the
	// expressions of each ValidatingAdmissionPolicy and records the
	// warnings in its status.typeChecking, with status.observedGeneration
	// (controller_policy_status.go).
	ControllerValidatingAdmissionPolicyStatus = "validatingadmissionpolicy-status-controller"
)

// knownControllers are the names Config.Controllers accepts.
var knownControllers = []string{ControllerGarbageCollector, ControllerNamespace, ControllerServiceAccount,
	ControllerValidatingAdmissionPolicyStatus}

// checkControllers refuses a controller name this server does not run.
func checkControllers(names []string) error {
	for _, n := range names {
		if !slices.Contains(knownControllers, n) {
			return fmt.Errorf("fakeapiserver: Config.Controllers: unknown controller %q (known: %s)", n, strings.Join(knownControllers, ", "))
		}
	}
	return nil
}

// newDefaultScheme registers client-go's built-in types, the unversioned
// meta types (Status, ...) and meta.k8s.io/v1 (Table) in a new scheme, as
// client-go's kubernetes/scheme does for its global one.
func newDefaultScheme() *runtime.Scheme {
	s := runtime.NewScheme()
	metav1.AddToGroupVersion(s, schema.GroupVersion{Version: "v1"})
	// meta.k8s.io/v1 DeleteOptions, ListOptions, ... as clients send them.
	metav1.AddToGroupVersion(s, metav1.SchemeGroupVersion)
	// These only register types; client-go's own init treats them as
	// infallible in the same way.
	utilruntime.Must(metav1.AddMetaToScheme(s))
	utilruntime.Must(clientgoscheme.AddToScheme(s))
	utilruntime.Must(apiextensionsv1.AddToScheme(s))
	utilruntime.Must(apiregistrationv1.AddToScheme(s))
	return s
}

// withDefaults returns cfg with every zero field set to its default.
func (cfg Config) withDefaults() Config {
	if cfg.Scheme == nil {
		cfg.Scheme = newDefaultScheme()
	}
	if cfg.GroupVersions == nil {
		cfg.GroupVersions = DefaultGroupVersions
	}
	if cfg.Clock == nil {
		cfg.Clock = clock.RealClock{}
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.MaxRequestBodyBytes == 0 {
		cfg.MaxRequestBodyBytes = defaultMaxRequestBodyBytes
	}
	if !cfg.ServiceClusterIPRange.IsValid() {
		cfg.ServiceClusterIPRange = DefaultServiceClusterIPRange
	}
	if cfg.Authorization == "" {
		cfg.Authorization = AuthorizationAlwaysAllow
	}
	if cfg.ServiceAccountIssuer == "" {
		cfg.ServiceAccountIssuer = defaultServiceAccountIssuer
	}
	cfg.APIServers = cfg.APIServers.withDefaults()
	if cfg.MinRequestTimeout == 0 {
		cfg.MinRequestTimeout = defaultMinRequestTimeout
	}
	return cfg
}

// ServingTLS is the certificate the server serves HTTPS with ([Config.TLS],
// [WithTLS]).
type ServingTLS struct {
	// CertFile and KeyFile, when set (both or neither; one alone makes New
	// fail), are PEM files of the certificate chain and private key, as
	// kube-apiserver's --tls-cert-file and --tls-private-key-file. New
	// reads them once (kube-apiserver reloads them when they change; this
	// server keeps what it read). RESTConfig and the kubeconfig then trust
	// exactly the certificates of CertFile and verify the host of the
	// server's URL (internal/serving CertificateFiles). Neither: a
	// self-signed certificate for 127.0.0.1, ::1, localhost and the
	// AllowedHosts names (internal/serving SelfSignedTLS), whose CA is in
	// RESTConfig and the written kubeconfig.
	CertFile, KeyFile string
}
