package fakeapiserver

import (
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"sync"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"
	genericadmissioninit "k8s.io/apiserver/pkg/admission/initializer"
	validatingpolicy "k8s.io/apiserver/pkg/admission/plugin/policy/validating"
	"k8s.io/apiserver/pkg/admission/plugin/webhook/mutating"
	"k8s.io/apiserver/pkg/admission/plugin/webhook/validating"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	"k8s.io/apiserver/pkg/endpoints/handlers/fieldmanager"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	webhookutil "k8s.io/apiserver/pkg/util/webhook"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	corev1listers "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/rest"

	"github.com/lw-sim/lw-sim/internal/kubewire"
)

// A write's admission runs where kube-apiserver runs its admission chain
// (endpoints/handlers/create.go, update.go, patch.go, delete.go and
// registry/generic/registry/store.go):
//
//  1. mutating admission (admitMutating) once the request's object is
//     decoded, defaulted and its managedFields tracked, before the
//     strategy's preparation and validation: on create after the
//     namespace checks, on update and patch inside the read-modify-write
//     loop (the handlers' admission transformer), on delete after the
//     preconditions (AdmissionToValidateObjectDeleteFunc);
//  2. validating admission (admitValidating) once the object is fully
//     formed and validated, right before it is stored (the store's
//     createValidation / updateValidation / deleteValidation).
//
// The plugins are k8s.io/apiserver's MutatingAdmissionWebhook and
// ValidatingAdmissionWebhook, built per server on first use, as
// kube-apiserver's admission options build them
// (apiserver pkg/server/options/admission.go, kubernetes
// pkg/controlplane/apiserver/admission): over an informer factory
// (admission_sources.go), a namespace client, a service resolver and
// feature gates. A server without any webhook configuration never builds
// them, and its writes skip admission.

// serverAdmission is one server's admission chain.
type serverAdmission struct {
	informers *storeInformers

	// once builds the plugins below on first use.
	once       sync.Once
	buildErr   error
	mutating   admission.MutationInterface
	validating admission.ValidationInterface

	// mu guards the policy plugins of the chain (admission_policies.go),
	// which hold goroutines until closed.
	mu                 sync.Mutex
	closed             bool
	validatingPolicies *policyPlugin
	mutatingPolicies   *policyPlugin
}

// close stops the policy plugins' goroutines (Server.Close); a chain
// built later admits without policies.
func (a *serverAdmission) close() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.closed = true
	if a.validatingPolicies != nil {
		a.validatingPolicies.close()
		a.mutatingPolicies.close()
	}
}

// newServerAdmission returns s's admission chain, plugins not built yet.
func newServerAdmission(s *Server) *serverAdmission {
	return &serverAdmission{informers: newStoreInformers(s)}
}

// plugins returns the admission plugins, building them on first use.
func (a *serverAdmission) plugins(s *Server) (admission.MutationInterface, admission.ValidationInterface, error) {
	a.once.Do(func() { a.buildErr = a.build(s) })
	return a.mutating, a.validating, a.buildErr
}

// build makes the admission chain as kube-apiserver's admission options
// do (apiserver pkg/server/options/admission.go ApplyTo): a plugin
// registry of this server's own with the two webhook plugins registered,
// and the chain of them, in kube-apiserver's order, from
// Plugins.NewFromPlugins, which initialises each plugin
// (admissionInitializer), checks it (ValidateInitialization) and wraps
// the chain in the reinvocation handler, so reinvocationPolicy IfNeeded
// reinvokes a webhook once after a later one changed the object.
func (a *serverAdmission) build(s *Server) error {
	client, err := kubernetes.NewForConfigAndClient(&rest.Config{Host: "http://lwsim.loopback"},
		&http.Client{Transport: inProcessTransport{s: s}})
	if err != nil {
		return fmt.Errorf("fakeapiserver: admission client: %w", err)
	}
	dyn, err := dynamic.NewForConfigAndClient(&rest.Config{Host: "http://lwsim.loopback"},
		&http.Client{Transport: inProcessTransport{s: s}})
	if err != nil {
		return fmt.Errorf("fakeapiserver: admission dynamic client: %w", err)
	}
	init := admissionInitializer{client: client, dynamic: dyn, restMapper: serverRESTMapper{s: s},
		informers: a.informers, resolver: serviceResolver{s: s}, authz: s.authz}
	validatingPolicies := newPolicyPlugin(s, validatingPolicyResources, init, func() (admission.Interface, error) {
		return validatingpolicy.NewPlugin(nil)
	}, admission.Connect, admission.Create, admission.Delete, admission.Update)
	mutatingPolicies := newPolicyPlugin(s, mutatingPolicyResources, init, func() (admission.Interface, error) {
		return newMutatingPolicyPlugin(serverTypeConverters{s: s}), nil
	}, admission.Create, admission.Update, admission.Connect)
	a.mu.Lock()
	a.validatingPolicies, a.mutatingPolicies = validatingPolicies, mutatingPolicies
	if a.closed {
		validatingPolicies.close()
		mutatingPolicies.close()
	}
	a.mu.Unlock()
	plugins := admission.NewPlugins()
	mutating.Register(plugins)
	validating.Register(plugins)
	plugins.Register(validatingPolicyPluginName, func(io.Reader) (admission.Interface, error) { return validatingPolicies, nil })
	plugins.Register(mutatingPolicyPluginName, func(io.Reader) (admission.Interface, error) { return mutatingPolicies, nil })
	chain, err := plugins.NewFromPlugins([]string{mutatingPolicyPluginName, mutating.PluginName, validatingPolicyPluginName, validating.PluginName}, noAdmissionConfig{},
		init, nil)
	if err != nil {
		return fmt.Errorf("fakeapiserver: admission: %w", err)
	}
	a.mutating = chain.(admission.MutationInterface)
	a.validating = chain.(admission.ValidationInterface)
	return nil
}

// noAdmissionConfig is an admission configuration without any plugin
// configuration (no --admission-control-config-file).
type noAdmissionConfig struct{}

func (noAdmissionConfig) ConfigFor(string) (io.Reader, error) { return nil, nil }

// admissionInitializer is the plugin initializer of kube-apiserver's
// admission options (apiserver pkg/admission/initializer and kubernetes
// pkg/kubeapiserver/admission): the external client and informer
// factory, the service resolver, the server's authorizer (for the
// `authorizer` of matchConditions) and the feature gates.
type admissionInitializer struct {
	client     kubernetes.Interface
	dynamic    dynamic.Interface
	restMapper meta.RESTMapper
	informers  informers.SharedInformerFactory
	resolver   webhookutil.ServiceResolver
	authz      authorizer.Authorizer
}

// Initialize implements admission.PluginInitializer.
func (i admissionInitializer) Initialize(plugin admission.Interface) {
	if p, ok := plugin.(genericadmissioninit.WantsExternalKubeClientSet); ok {
		p.SetExternalKubeClientSet(i.client)
	}
	if p, ok := plugin.(genericadmissioninit.WantsDynamicClient); ok {
		p.SetDynamicClient(i.dynamic)
	}
	if p, ok := plugin.(genericadmissioninit.WantsRESTMapper); ok {
		p.SetRESTMapper(i.restMapper)
	}
	if p, ok := plugin.(genericadmissioninit.WantsExternalKubeInformerFactory); ok {
		p.SetExternalKubeInformerFactory(i.informers)
	}
	if p, ok := plugin.(interface {
		SetServiceResolver(webhookutil.ServiceResolver)
	}); ok {
		p.SetServiceResolver(i.resolver)
	}
	if p, ok := plugin.(genericadmissioninit.WantsUnconditionalAuthorizer); ok {
		p.SetUnconditionalAuthorizer(i.authz)
	}
	if p, ok := plugin.(genericadmissioninit.WantsAuthorizer); ok {
		p.SetAuthorizer(i.authz)
	}
	if p, ok := plugin.(genericadmissioninit.WantsFeatures); ok {
		p.InspectFeatureGates(utilfeature.DefaultFeatureGate)
	}
}

// admissionRequest is the write a request makes, as admission sees it:
// its context (user, warnings, deadline), endpoint, names, options and
// dry run.
type admissionRequest struct {
	req *request
	// options is the DeleteOptions of a delete; nil: the CreateOptions or
	// UpdateOptions of the request's query, decoded when needed.
	options runtime.Object
	// kind is the kind admitted when a subresource speaks another kind
	// than its resource (the endpoint's scope.Kind: policy/v1 Eviction,
	// v1 Binding, authentication/v1 TokenRequest, autoscaling/v1 Scale);
	// zero for the resource's own.
	kind schema.GroupVersionKind
	// view, when set, turns the object the write stores into the kind
	// admitted (the Scale of a workload): validating admission of the
	// update sees the views of the new and the old object, as the scale
	// storages' toScaleUpdateValidation makes them. The mutating
	// admission of such a write runs on the subresource's own objects
	// where they are computed (writeScale), not on the stored object.
	view func(runtime.Object) (runtime.Object, error)
}

// request returns the request ar admits, nil for a nil ar (a write made
// outside a request).
func (ar *admissionRequest) request() *request {
	if ar == nil {
		return nil
	}
	return ar.req
}

// admittedSubresources are the subresources whose writes carry the main
// resource's kind and are admitted as such.
var admittedSubresources = map[string]bool{
	"": true, "status": true, "approval": true, "finalize": true, "ephemeralcontainers": true, "resize": true,
}

// otherKindSubresources are the subresources whose writes speak another
// kind, admitted as that kind (kube-apiserver's scope.Kind of their
// endpoints).
var otherKindSubresources = map[string]schema.GroupVersionKind{
	"eviction": evictionGVK, "binding": bindingGVK, "token": tokenRequestGVK, "scale": scaleGVK,
}

// writeAdmission returns the admission of req's write (options: its
// DeleteOptions, nil otherwise), or nil when req is not admitted.
func writeAdmission(req *request, options runtime.Object) *admissionRequest {
	if req == nil {
		return nil
	}
	sub := req.info.subresource
	if admittedSubresources[sub] {
		return &admissionRequest{req: req, options: options}
	}
	kind, ok := otherKindSubresources[sub]
	if !ok {
		return nil
	}
	ar := &admissionRequest{req: req, options: options, kind: kind}
	if sub == "scale" {
		ar.view = scaleView(req.res)
	}
	return ar
}

// subresourceAdmission is the admission of the subresource's own objects
// (a Scale computed from the body or patch) for req, a write through a
// subresource of another kind.
func subresourceAdmission(req *request) *admissionRequest {
	return &admissionRequest{req: req, kind: otherKindSubresources[req.info.subresource]}
}

// admitDelete is AdmissionToValidateObjectDeleteFunc (apiserver
// pkg/registry/rest/delete.go): mutating then validating admission of
// the object to delete, after the preconditions.
func (s *Server) admitDelete(ar *admissionRequest, cur runtime.Object) error {
	if err := s.admitMutating(ar, admission.Delete, nil, cur.DeepCopyObject()); err != nil {
		return err
	}
	return s.admitValidating(ar, admission.Delete, nil, cur.DeepCopyObject())
}

// admitMutating runs mutating admission for op on obj (nil for delete),
// old (nil for create), changing obj in place.
func (s *Server) admitMutating(ar *admissionRequest, op admission.Operation, obj, old runtime.Object) error {
	if ar == nil || ar.view != nil {
		return nil
	}
	webhooks := s.admission.informers.mutating.sync(s.webhookConfigs("mutatingwebhookconfigurations"))
	if !webhooks && len(s.storedAdmissionConfigs(mutatingPolicyResources.bindings)) == 0 {
		return nil
	}
	m, _, err := s.admission.plugins(s)
	if err != nil {
		return err
	}
	if !m.Handles(op) {
		return nil
	}
	if op != admission.Delete {
		// The create, update and patch handlers wrap the chain so that
		// managedFields a mutation left undecodable are reset to what they
		// were before admission, with a warning.
		m = fieldmanager.NewManagedFieldsValidatingAdmissionController(m).(admission.MutationInterface)
	}
	obj, old, restore := ar.inRequestVersion(obj, old)
	defer restore()
	return m.Admit(ar.req.r.Context(), s.admissionAttributes(ar, op, obj, old), admissionObjects{s: s})
}

// admitValidating runs validating admission for op on obj (nil for
// delete) and old (nil for create).
func (s *Server) admitValidating(ar *admissionRequest, op admission.Operation, obj, old runtime.Object) error {
	if ar == nil {
		return nil
	}
	webhooks := s.admission.informers.validating.sync(s.webhookConfigs("validatingwebhookconfigurations"))
	if !webhooks && len(s.storedAdmissionConfigs(validatingPolicyResources.bindings)) == 0 {
		return nil
	}
	_, v, err := s.admission.plugins(s)
	if err != nil {
		return err
	}
	if !v.Handles(op) {
		return nil
	}
	if ar.view != nil {
		if obj, err = ar.view(obj); err != nil {
			return err
		}
		if old, err = ar.view(old); err != nil {
			return err
		}
	}
	obj, old, restore := ar.inRequestVersion(obj, old)
	defer restore()
	return v.Validate(ar.req.r.Context(), s.admissionAttributes(ar, op, obj, old), admissionObjects{s: s})
}

// webhookConfigs lists the stored configurations of one webhook
// configuration resource (none if it is not served).
func (s *Server) webhookConfigs(resource string) []runtime.Object {
	res, ok := s.resources.lookup(schema.GroupVersionResource{Group: "admissionregistration.k8s.io", Version: "v1", Resource: resource})
	if !ok {
		return nil
	}
	objs, err := s.latest(res, "")
	if err != nil {
		return nil
	}
	return objs
}

// admissionAttributes is admission.NewAttributesRecord of the write, by
// the request's user (kube-apiserver's loopback user for the server's own
// writes, which carry none). The name is the URL's, else the object's
// (create.go reads it from the body; AdmissionToValidateObjectFunc
// takes a generated one); a delete of a collection names none.
func (s *Server) admissionAttributes(ar *admissionRequest, op admission.Operation, obj, old runtime.Object) admission.Attributes {
	req := ar.req
	ctx := req.r.Context()
	var u user.Info = s.adminUser()
	if ru, ok := genericapirequest.UserFrom(ctx); ok {
		u = ru
	}
	name := req.info.name
	if name == "" && obj != nil {
		name = mustAccessor(obj).GetName()
	}
	kind := req.res.Kind
	if !ar.kind.Empty() {
		kind = ar.kind
	}
	return admission.NewAttributesRecord(obj, old, kind, req.info.namespace, name, req.res.gvr,
		req.info.subresource, op, ar.operationOptions(op), isDryRun(req.r), u)
}

// operationOptions is the options object webhooks see as
// request.options: the request's CreateOptions or UpdateOptions (a
// patch's, as patchToCreateOptions and patchToUpdateOptions copy them),
// or its DeleteOptions, with their apiVersion and kind (handlers/create.go,
// update.go, delete.go).
func (ar *admissionRequest) operationOptions(op admission.Operation) runtime.Object {
	var opts runtime.Object
	var kind string
	switch {
	case ar.options != nil:
		opts, kind = ar.options.DeepCopyObject(), "DeleteOptions"
	case op == admission.Create:
		opts, kind = &metav1.CreateOptions{}, "CreateOptions"
	default:
		opts, kind = &metav1.UpdateOptions{}, "UpdateOptions"
	}
	if ar.options == nil {
		// Already decoded without error by the handler.
		_ = decodeOptions(ar.req.r, opts)
	}
	opts.GetObjectKind().SetGroupVersionKind(metav1.SchemeGroupVersion.WithKind(kind))
	return opts
}

// inRequestVersion returns obj and old with custom resources in the
// request's version, as admission sees them, and what puts obj back in
// the storage version the write path keeps it in. obj, the request's own
// object, is changed in place (mutating admission changes it there); old
// may be the stored object itself (its view, storedIsView), which
// watchers read at the same time and nobody may write, so it is a copy
// when its version differs.
func (ar *admissionRequest) inRequestVersion(obj, old runtime.Object) (runtime.Object, runtime.Object, func()) {
	res := ar.req.res
	if res.custom == nil {
		return obj, old, func() {}
	}
	version := res.Kind.GroupVersion().String()
	restore := func() {}
	if u, ok := obj.(*unstructured.Unstructured); ok && u.GetAPIVersion() != version {
		was := u.GetAPIVersion()
		u.SetAPIVersion(version)
		restore = func() { u.SetAPIVersion(was) }
	}
	if u, ok := old.(*unstructured.Unstructured); ok && u.GetAPIVersion() != version {
		// Only the top level changes: a shallow copy is enough.
		c := &unstructured.Unstructured{Object: maps.Clone(u.Object)}
		c.SetAPIVersion(version)
		old = c
	}
	return obj, old, restore
}

// serviceResolver resolves a webhook's service reference as
// kube-apiserver's does without aggregator routing (kubernetes
// cmd/kube-apiserver/app/server.go buildServiceResolver): the Service's
// cluster IP and port (kube-aggregator pkg/apiserver/resolvers.go
// NewClusterIPServiceResolver, apiserver pkg/util/proxy ResolveCluster),
// and default/kubernetes:443 to the server itself
// (NewLoopbackServiceResolver). The webhook client then dials the
// cluster IP, which on a machine without a cluster network fails as it
// does for kube-apiserver there.
type serviceResolver struct{ s *Server }

// ResolveEndpoint implements webhookutil.ServiceResolver.
func (r serviceResolver) ResolveEndpoint(namespace, name string, port int32) (*url.URL, error) {
	if namespace == "default" && name == "kubernetes" && port == 443 {
		return url.Parse(r.s.URL())
	}
	return resolveCluster(serviceLister{s: r.s}.Services(namespace), name, port)
}

// resolveCluster is apiserver pkg/util/proxy/proxy.go ResolveCluster and
// findServicePort, with their errors (that package would bring the
// websocket and SPDY proxies in with it).
func resolveCluster(services corev1listers.ServiceNamespaceLister, name string, port int32) (*url.URL, error) {
	svc, err := services.Get(name)
	if err != nil {
		return nil, err
	}
	switch {
	case svc.Spec.Type == corev1.ServiceTypeClusterIP && svc.Spec.ClusterIP == corev1.ClusterIPNone:
		return nil, fmt.Errorf(`cannot route to service with ClusterIP "None"`)
	case svc.Spec.Type == corev1.ServiceTypeClusterIP, svc.Spec.Type == corev1.ServiceTypeLoadBalancer, svc.Spec.Type == corev1.ServiceTypeNodePort:
		for _, p := range svc.Spec.Ports {
			if p.Port == port {
				return &url.URL{Scheme: "https", Host: net.JoinHostPort(svc.Spec.ClusterIP, strconv.Itoa(int(p.Port)))}, nil
			}
		}
		return nil, apierrors.NewServiceUnavailable(fmt.Sprintf("no service port %d found for service %q", port, svc.Name))
	case svc.Spec.Type == corev1.ServiceTypeExternalName:
		return &url.URL{Scheme: "https", Host: net.JoinHostPort(svc.Spec.ExternalName, strconv.Itoa(int(port)))}, nil
	default:
		return nil, fmt.Errorf("unsupported service type %q", svc.Spec.Type)
	}
}

// inProcessTransport serves client-go requests of the admission plugins
// (the namespace matcher's lookup) with the server's own handlers, as
// the loopback client does (loopback.go): no authentication, no faults.
// It serves no watch.
type inProcessTransport struct{ s *Server }

// RoundTrip implements http.RoundTripper.
func (t inProcessTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	rec := httptest.NewRecorder()
	r = kubewire.WithRequestInfo(r) // parsed once, as a client's request is (handler.go)
	info, ok := resourcePath(kubewire.RequestInfoOf(r))
	if !ok {
		return nil, fmt.Errorf("fakeapiserver: admission client %s %s: not a resource path", r.Method, r.URL.Path)
	}
	req, err := t.s.resourceRequest(rec, r, info)
	if err != nil {
		t.s.writeError(rec, r, err)
	} else {
		t.s.serveVerb(req)
	}
	return rec.Result(), nil
}
