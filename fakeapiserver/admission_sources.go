package fakeapiserver

import (
	"sync"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/informers"
	admissionregistrationinformers "k8s.io/client-go/informers/admissionregistration"
	admissionregistrationv1informers "k8s.io/client-go/informers/admissionregistration/v1"
	coreinformers "k8s.io/client-go/informers/core"
	corev1informers "k8s.io/client-go/informers/core/v1"
	admissionregistrationv1listers "k8s.io/client-go/listers/admissionregistration/v1"
	corev1listers "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/lw-sim/lw-sim/fakeapiserver/store"
)

// The webhook plugins of k8s.io/apiserver read their configurations and
// the namespaces through a client-go SharedInformerFactory, which in
// kube-apiserver lists and watches its own loopback. Here the factory is
// a facade over the store (storeInformers): the listers read the store,
// and the configuration informers are brought up to date, synchronously,
// before each admission (configInformer.sync), so a webhook configuration
// takes effect for the very next request. kube-apiserver applies it once
// its informer has seen it, a few milliseconds later: tests against the
// fake need no polling, and tests that poll pass on both.

// storeInformers is the informers.SharedInformerFactory the webhook
// plugins are given. Only the informers they use are implemented
// (generic/webhook.go SetExternalKubeInformerFactory and
// configuration/*_webhook_manager.go): the embedded interface is nil, so
// anything else would panic, which the plugins' code paths never reach.
type storeInformers struct {
	informers.SharedInformerFactory
	s          *Server
	mutating   *configInformer
	validating *configInformer
}

// newStoreInformers returns the facade over s's store.
func newStoreInformers(s *Server) *storeInformers {
	return &storeInformers{
		s: s,
		mutating: newConfigInformer(schema.GroupVersionResource{
			Group: "admissionregistration.k8s.io", Version: "v1", Resource: "mutatingwebhookconfigurations",
		}),
		validating: newConfigInformer(schema.GroupVersionResource{
			Group: "admissionregistration.k8s.io", Version: "v1", Resource: "validatingwebhookconfigurations",
		}),
	}
}

// Core serves the namespace informer.
func (f *storeInformers) Core() coreinformers.Interface { return coreGroup{s: f.s} }

// Admissionregistration serves the webhook configuration informers.
func (f *storeInformers) Admissionregistration() admissionregistrationinformers.Interface {
	return admissionGroup{f: f}
}

// coreGroup serves the namespace informer.
type coreGroup struct {
	coreinformers.Interface
	s *Server
}

// V1 serves the namespace informer.
func (g coreGroup) V1() corev1informers.Interface { return coreV1{s: g.s} }

type coreV1 struct {
	corev1informers.Interface
	s *Server
}

// Namespaces returns the store-backed namespace informer.
func (v coreV1) Namespaces() corev1informers.TypedNamespaceInformer {
	return namespaceInformer{s: v.s}
}

// namespaceInformer's lister reads the store; its informer is always
// synced. TypedInformer (the embedded nil interface) is not used.
type namespaceInformer struct {
	corev1informers.TypedNamespaceInformer
	s *Server
}

// Informer returns an informer that is always synced.
func (i namespaceInformer) Informer() cache.SharedIndexInformer { return syncedInformer{} }

// Lister returns a lister over the store.
func (i namespaceInformer) Lister() corev1listers.NamespaceLister { return namespaceLister{s: i.s} }

// namespaceLister is a NamespaceLister over the store, at its latest
// state.
type namespaceLister struct{ s *Server }

// List returns the namespaces whose labels match selector.
func (l namespaceLister) List(selector labels.Selector) ([]*corev1.Namespace, error) {
	objs, err := l.s.latest(l.s.namespaces(), "")
	if err != nil {
		return nil, err
	}
	var out []*corev1.Namespace
	for _, obj := range objs {
		if ns, ok := obj.(*corev1.Namespace); ok && selector.Matches(labels.Set(ns.Labels)) {
			out = append(out, ns)
		}
	}
	return out, nil
}

// Get returns the namespace, or the informer lister's NotFound.
func (l namespaceLister) Get(name string) (*corev1.Namespace, error) {
	obj, err := l.s.store.Get(l.s.namespaces().storageKey, name, 0)
	if err != nil {
		return nil, apierrors.NewNotFound(corev1.Resource("namespace"), name)
	}
	ns, ok := obj.(*corev1.Namespace)
	if !ok {
		return nil, apierrors.NewNotFound(corev1.Resource("namespace"), name)
	}
	return ns, nil
}

// admissionGroup serves the two webhook configuration informers.
type admissionGroup struct {
	admissionregistrationinformers.Interface
	f *storeInformers
}

// V1 serves the webhook configuration informers.
func (g admissionGroup) V1() admissionregistrationv1informers.Interface { return admissionV1{f: g.f} }

// admissionV1 serves the webhook configuration informers; the policy
// informers (the embedded nil interface) are not used by the webhook
// plugins.
type admissionV1 struct {
	admissionregistrationv1informers.Interface
	f *storeInformers
}

// MutatingWebhookConfigurations returns the mutating configurations' informer.
func (v admissionV1) MutatingWebhookConfigurations() admissionregistrationv1informers.TypedMutatingWebhookConfigurationInformer {
	return mutatingConfigs{c: v.f.mutating}
}

// ValidatingWebhookConfigurations returns the validating configurations'
// informer.
func (v admissionV1) ValidatingWebhookConfigurations() admissionregistrationv1informers.TypedValidatingWebhookConfigurationInformer {
	return validatingConfigs{c: v.f.validating}
}

// mutatingConfigs and validatingConfigs serve a configInformer and a
// lister of its indexer; TypedInformer is not used.
type mutatingConfigs struct {
	admissionregistrationv1informers.TypedMutatingWebhookConfigurationInformer
	c *configInformer
}

// Informer returns the configInformer.
func (m mutatingConfigs) Informer() cache.SharedIndexInformer { return m.c }

// Lister returns a lister of the configInformer's indexer.
func (m mutatingConfigs) Lister() admissionregistrationv1listers.MutatingWebhookConfigurationLister {
	return admissionregistrationv1listers.NewMutatingWebhookConfigurationLister(m.c.indexer)
}

type validatingConfigs struct {
	admissionregistrationv1informers.TypedValidatingWebhookConfigurationInformer
	c *configInformer
}

// Informer returns the configInformer.
func (v validatingConfigs) Informer() cache.SharedIndexInformer { return v.c }

// Lister returns a lister of the configInformer's indexer.
func (v validatingConfigs) Lister() admissionregistrationv1listers.ValidatingWebhookConfigurationLister {
	return admissionregistrationv1listers.NewValidatingWebhookConfigurationLister(v.c.indexer)
}

// configInformer is the informer of one webhook configuration resource:
// an indexer and the event handlers of the configuration managers, which
// sync brings up to the store's state. Only AddEventHandler and HasSynced
// are implemented (the embedded interface is nil).
type configInformer struct {
	cache.SharedIndexInformer
	gvr     schema.GroupVersionResource
	indexer cache.Indexer

	// mu guards the fields below, and serialises sync.
	mu       sync.Mutex
	handlers []cache.ResourceEventHandler
	// rvs is the resourceVersion of each configuration in indexer.
	rvs map[string]string
}

func newConfigInformer(gvr schema.GroupVersionResource) *configInformer {
	return &configInformer{
		gvr:     gvr,
		indexer: cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{}),
		rvs:     map[string]string{},
	}
}

// AddEventHandler registers h; the registration is synced at once (the
// facade has no initial list to wait for).
func (c *configInformer) AddEventHandler(h cache.ResourceEventHandler) (cache.ResourceEventHandlerRegistration, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.handlers = append(c.handlers, h)
	return syncedRegistration{}, nil
}

// HasSynced is always true.
func (c *configInformer) HasSynced() bool { return true }

// sync makes the indexer hold exactly objs (the store's configurations)
// and tells the handlers what changed, as a watch would: an add, an
// update or a delete per configuration whose resourceVersion differs. It
// reports whether any configuration exists. The handlers only mark the
// managers' caches stale (configuration/*_webhook_manager.go), so they
// run under mu.
func (c *configInformer) sync(objs []runtime.Object) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	seen := make(map[string]bool, len(objs))
	for _, obj := range objs {
		m := mustAccessor(obj)
		name, rv := m.GetName(), m.GetResourceVersion()
		seen[name] = true
		old, had := c.rvs[name]
		if had && old == rv {
			continue
		}
		prev, _, _ := c.indexer.GetByKey(name)
		_ = c.indexer.Update(obj) // never fails: the key function reads metadata
		c.rvs[name] = rv
		for _, h := range c.handlers {
			if had {
				h.OnUpdate(prev, obj)
			} else {
				h.OnAdd(obj, false)
			}
		}
	}
	for name := range c.rvs {
		if seen[name] {
			continue
		}
		prev, _, _ := c.indexer.GetByKey(name)
		if prev != nil {
			_ = c.indexer.Delete(prev)
		}
		delete(c.rvs, name)
		for _, h := range c.handlers {
			h.OnDelete(prev)
		}
	}
	return len(objs) > 0
}

// syncedInformer is the informer of the namespace facade: always synced.
type syncedInformer struct{ cache.SharedIndexInformer }

// HasSynced is always true.
func (syncedInformer) HasSynced() bool { return true }

// syncedRegistration is a handler registration that is synced from the
// start.
type syncedRegistration struct{}

// HasSynced and HasSyncedChecker report a registration synced from the
// start.
func (syncedRegistration) HasSynced() bool                     { return true }
func (syncedRegistration) HasSyncedChecker() cache.DoneChecker { return doneChecker{} }

// doneChecker is done from the start.
type doneChecker struct{}

// Name names the store.
func (doneChecker) Name() string { return "fakeapiserver store" }

// Done returns a closed channel.
func (doneChecker) Done() <-chan struct{} {
	ch := make(chan struct{})
	close(ch)
	return ch
}

// serviceLister is a ServiceLister over the store, which the webhook
// client's service resolver reads (apiserver pkg/util/proxy ResolveCluster).
type serviceLister struct{ s *Server }

// List returns the services of every namespace whose labels match.
func (l serviceLister) List(selector labels.Selector) ([]*corev1.Service, error) {
	return l.Services("").List(selector)
}

// Services returns the lister of one namespace.
func (l serviceLister) Services(namespace string) corev1listers.ServiceNamespaceLister {
	return serviceNamespaceLister{s: l.s, namespace: namespace}
}

type serviceNamespaceLister struct {
	s         *Server
	namespace string
}

func (l serviceNamespaceLister) services() *resourceInfo {
	r, _ := l.s.resources.lookup(schema.GroupVersionResource{Version: "v1", Resource: "services"})
	return r
}

// List returns the services of the namespace ("" all) whose labels match.
func (l serviceNamespaceLister) List(selector labels.Selector) ([]*corev1.Service, error) {
	res := l.services()
	if res == nil {
		return nil, nil
	}
	objs, err := l.s.latest(res, scopePrefix(l.namespace))
	if err != nil {
		return nil, err
	}
	var out []*corev1.Service
	for _, obj := range objs {
		if svc, ok := obj.(*corev1.Service); ok && selector.Matches(labels.Set(svc.Labels)) {
			out = append(out, svc)
		}
	}
	return out, nil
}

// Get returns the service, or the informer lister's NotFound
// (`service "name" not found`).
func (l serviceNamespaceLister) Get(name string) (*corev1.Service, error) {
	notFound := apierrors.NewNotFound(corev1.Resource("service"), name)
	res := l.services()
	if res == nil {
		return nil, notFound
	}
	obj, err := l.s.store.Get(res.storageKey, objectKey(res, l.namespace, name), 0)
	if err != nil {
		return nil, notFound
	}
	svc, ok := obj.(*corev1.Service)
	if !ok {
		return nil, notFound
	}
	return svc, nil
}

// latest lists res's objects under prefix at the store's latest state.
func (s *Server) latest(res *resourceInfo, prefix string) ([]runtime.Object, error) {
	page, err := s.store.List(res.storageKey, store.ListOptions{Prefix: prefix})
	if err != nil {
		return nil, err
	}
	return page.Items, nil
}

var (
	_ informers.SharedInformerFactory = (*storeInformers)(nil)
	_ corev1listers.NamespaceLister   = namespaceLister{}
	_ corev1listers.ServiceLister     = serviceLister{}
	_ cache.SharedIndexInformer       = (*configInformer)(nil)
)
