package fakeapiserver

import (
	"sync"
	"sync/atomic"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/informers"
	admissionregistrationinformers "k8s.io/client-go/informers/admissionregistration"
	admissionregistrationv1informers "k8s.io/client-go/informers/admissionregistration/v1"
	admissionregistrationv1listers "k8s.io/client-go/listers/admissionregistration/v1"
	"k8s.io/client-go/tools/cache"
)

// policySnapshot is the informers.SharedInformerFactory a policy plugin
// is built over (admission_policies.go): the namespace informer of the
// store facade (storeInformers), informers holding a fixed set of
// policies and bindings, and, for a policy's paramKind, an informer whose
// lister reads the store (ForResource), so params take effect at once as
// the store changes. Start does nothing: nothing here runs.
type policySnapshot struct {
	*storeInformers
	resources policyResources
	policies  *snapshotInformer
	bindings  *snapshotInformer
}

// newPolicySnapshot returns the factory over base, holding policies and
// bindings of resources.
func newPolicySnapshot(base *storeInformers, resources policyResources, policies, bindings []runtime.Object) *policySnapshot {
	return &policySnapshot{
		storeInformers: base,
		resources:      resources,
		policies:       newSnapshotInformer(policies),
		bindings:       newSnapshotInformer(bindings),
	}
}

// enabled reports whether plugin, initialised, built its policy source:
// the source factory asks for the binding informer, which a plugin
// disabled by its feature gate never does.
func (f *policySnapshot) enabled() bool { return f.bindings.requested.Load() }

// Start does nothing: the informers are always synced.
func (f *policySnapshot) Start(<-chan struct{}) {}

// ForResource returns the store-backed informer of a served resource
// (the policy source's param informer).
func (f *policySnapshot) ForResource(gvr schema.GroupVersionResource) (informers.GenericInformer, error) {
	res, ok := f.s.resources.lookup(gvr)
	if !ok {
		return nil, apierrors.NewNotFound(gvr.GroupResource(), "")
	}
	return storeGenericInformer{s: f.s, res: res}, nil
}

// Admissionregistration serves the policy and binding informers (and the
// webhook ones of the base facade).
func (f *policySnapshot) Admissionregistration() admissionregistrationinformers.Interface {
	return policyGroup{f: f}
}

type policyGroup struct {
	admissionregistrationinformers.Interface
	f *policySnapshot
}

// V1 serves the policy and binding informers.
func (g policyGroup) V1() admissionregistrationv1informers.Interface {
	return policyV1{Interface: admissionV1{f: g.f.storeInformers}, f: g.f}
}

// policyV1 serves the snapshot's informers for its own resources; the
// other kind's are never asked for by its plugin.
type policyV1 struct {
	admissionregistrationv1informers.Interface
	f *policySnapshot
}

func (v policyV1) ValidatingAdmissionPolicies() admissionregistrationv1informers.TypedValidatingAdmissionPolicyInformer {
	return validatingPolicies{i: v.f.policies}
}

func (v policyV1) ValidatingAdmissionPolicyBindings() admissionregistrationv1informers.TypedValidatingAdmissionPolicyBindingInformer {
	return validatingPolicyBindings{i: v.f.bindings}
}

func (v policyV1) MutatingAdmissionPolicies() admissionregistrationv1informers.TypedMutatingAdmissionPolicyInformer {
	return mutatingPolicies{i: v.f.policies}
}

func (v policyV1) MutatingAdmissionPolicyBindings() admissionregistrationv1informers.TypedMutatingAdmissionPolicyBindingInformer {
	return mutatingPolicyBindings{i: v.f.bindings}
}

// validatingPolicies, validatingPolicyBindings, mutatingPolicies and
// mutatingPolicyBindings serve a snapshotInformer and a lister of it.
type validatingPolicies struct {
	admissionregistrationv1informers.TypedValidatingAdmissionPolicyInformer
	i *snapshotInformer
}

func (x validatingPolicies) Informer() cache.SharedIndexInformer { return x.i.request() }
func (x validatingPolicies) Lister() admissionregistrationv1listers.ValidatingAdmissionPolicyLister {
	return admissionregistrationv1listers.NewValidatingAdmissionPolicyLister(x.i.indexer)
}

type validatingPolicyBindings struct {
	admissionregistrationv1informers.TypedValidatingAdmissionPolicyBindingInformer
	i *snapshotInformer
}

func (x validatingPolicyBindings) Informer() cache.SharedIndexInformer { return x.i.request() }
func (x validatingPolicyBindings) Lister() admissionregistrationv1listers.ValidatingAdmissionPolicyBindingLister {
	return admissionregistrationv1listers.NewValidatingAdmissionPolicyBindingLister(x.i.indexer)
}

type mutatingPolicies struct {
	admissionregistrationv1informers.TypedMutatingAdmissionPolicyInformer
	i *snapshotInformer
}

func (x mutatingPolicies) Informer() cache.SharedIndexInformer { return x.i.request() }
func (x mutatingPolicies) Lister() admissionregistrationv1listers.MutatingAdmissionPolicyLister {
	return admissionregistrationv1listers.NewMutatingAdmissionPolicyLister(x.i.indexer)
}

type mutatingPolicyBindings struct {
	admissionregistrationv1informers.TypedMutatingAdmissionPolicyBindingInformer
	i *snapshotInformer
}

func (x mutatingPolicyBindings) Informer() cache.SharedIndexInformer { return x.i.request() }
func (x mutatingPolicyBindings) Lister() admissionregistrationv1listers.MutatingAdmissionPolicyBindingLister {
	return admissionregistrationv1listers.NewMutatingAdmissionPolicyBindingLister(x.i.indexer)
}

// snapshotInformer is a synced informer of fixed objects: it never sends
// an event. registered is closed when the first event handler is added
// (the policy source's, after its first compilation). Only GetIndexer,
// HasSynced and the handler registration are implemented (the embedded
// interface is nil).
type snapshotInformer struct {
	cache.SharedIndexInformer
	indexer cache.Indexer
	// requested is set once the informer was asked for.
	requested atomic.Bool

	once       sync.Once
	registered chan struct{}
}

func newSnapshotInformer(objs []runtime.Object) *snapshotInformer {
	indexer := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	for _, obj := range objs {
		_ = indexer.Add(obj) // never fails: the key function reads metadata
	}
	return &snapshotInformer{indexer: indexer, registered: make(chan struct{})}
}

// request marks the informer asked for and returns it.
func (i *snapshotInformer) request() cache.SharedIndexInformer {
	i.requested.Store(true)
	return i
}

// GetIndexer returns the fixed objects.
func (i *snapshotInformer) GetIndexer() cache.Indexer { return i.indexer }

// HasSynced is always true.
func (i *snapshotInformer) HasSynced() bool { return true }

// AddEventHandler closes registered; the handler gets no event.
func (i *snapshotInformer) AddEventHandler(cache.ResourceEventHandler) (cache.ResourceEventHandlerRegistration, error) {
	i.once.Do(func() { close(i.registered) })
	return syncedRegistration{}, nil
}

// RemoveEventHandler does nothing.
func (i *snapshotInformer) RemoveEventHandler(cache.ResourceEventHandlerRegistration) error {
	return nil
}

// storeGenericInformer is a param informer over one served resource: its
// lister reads the store at its latest state; it is always synced.
type storeGenericInformer struct {
	s   *Server
	res *resourceInfo
}

// Informer returns an informer that is always synced.
func (i storeGenericInformer) Informer() cache.SharedIndexInformer { return syncedInformer{} }

// Lister returns the lister over the store.
func (i storeGenericInformer) Lister() cache.GenericLister { return storeLister{s: i.s, res: i.res} }

// storeLister is a cache.GenericLister (and, with a namespace, a
// GenericNamespaceLister) over the store.
type storeLister struct {
	s         *Server
	res       *resourceInfo
	namespace string
}

// List returns the objects (of the namespace, if any) whose labels match.
func (l storeLister) List(selector labels.Selector) ([]runtime.Object, error) {
	objs, err := l.s.latest(l.res, scopePrefix(l.namespace))
	if err != nil {
		return nil, err
	}
	var out []runtime.Object
	for _, obj := range objs {
		m, err := meta.Accessor(obj)
		if err != nil {
			continue
		}
		if selector.Matches(labels.Set(m.GetLabels())) {
			out = append(out, l.inServedVersion(obj))
		}
	}
	return out, nil
}

// Get returns the object, or the informer lister's NotFound.
func (l storeLister) Get(name string) (runtime.Object, error) {
	obj, err := l.s.store.Get(l.res.storageKey, objectKey(l.res, l.namespace, name), 0)
	if err != nil {
		return nil, apierrors.NewNotFound(l.res.gvr.GroupResource(), name)
	}
	return l.inServedVersion(obj), nil
}

// ByNamespace returns the lister of one namespace.
func (l storeLister) ByNamespace(namespace string) cache.GenericNamespaceLister {
	l.namespace = namespace
	return l
}

// inServedVersion is obj as the informer of the lister's version sees it:
// a custom resource in that version (the "None" conversion), a built-in
// object stored in another version converted (builtin_conversion.go).
func (l storeLister) inServedVersion(obj runtime.Object) runtime.Object {
	if l.res.convertsOnRead() {
		if view, err := l.res.conversion.fromStorage(obj); err == nil {
			return view
		}
		return obj
	}
	u, ok := obj.(*unstructured.Unstructured)
	if !ok || l.res.custom == nil {
		return obj
	}
	u = u.DeepCopy()
	u.SetAPIVersion(l.res.gvr.GroupVersion().String())
	return u
}

// serverRESTMapper maps the server's served kinds and resources, as
// kube-apiserver's discovery-backed REST mapper does for the policy
// plugins (paramKind to its resource and scope).
type serverRESTMapper struct{ s *Server }

// KindFor returns the kind of a served resource.
func (m serverRESTMapper) KindFor(resource schema.GroupVersionResource) (schema.GroupVersionKind, error) {
	res, ok := m.s.resources.lookup(resource)
	if !ok {
		return schema.GroupVersionKind{}, &meta.NoResourceMatchError{PartialResource: resource}
	}
	return res.Kind, nil
}

// KindsFor returns the kind of a served resource.
func (m serverRESTMapper) KindsFor(resource schema.GroupVersionResource) ([]schema.GroupVersionKind, error) {
	gvk, err := m.KindFor(resource)
	if err != nil {
		return nil, err
	}
	return []schema.GroupVersionKind{gvk}, nil
}

// ResourceFor returns resource if it is served.
func (m serverRESTMapper) ResourceFor(resource schema.GroupVersionResource) (schema.GroupVersionResource, error) {
	res, ok := m.s.resources.lookup(resource)
	if !ok {
		return schema.GroupVersionResource{}, &meta.NoResourceMatchError{PartialResource: resource}
	}
	return res.gvr, nil
}

// ResourcesFor returns resource if it is served.
func (m serverRESTMapper) ResourcesFor(resource schema.GroupVersionResource) ([]schema.GroupVersionResource, error) {
	gvr, err := m.ResourceFor(resource)
	if err != nil {
		return nil, err
	}
	return []schema.GroupVersionResource{gvr}, nil
}

// RESTMapping returns the mapping of gk in the first served of versions.
func (m serverRESTMapper) RESTMapping(gk schema.GroupKind, versions ...string) (*meta.RESTMapping, error) {
	mappings, err := m.RESTMappings(gk, versions...)
	if err != nil {
		return nil, err
	}
	return mappings[0], nil
}

// RESTMappings returns the mappings of gk in the served of versions.
func (m serverRESTMapper) RESTMappings(gk schema.GroupKind, versions ...string) ([]*meta.RESTMapping, error) {
	var out []*meta.RESTMapping
	for _, v := range versions {
		res, ok := m.s.resources.lookupKind(gk.WithVersion(v))
		if !ok || res.review != nil {
			continue
		}
		scope := meta.RESTScopeNamespace
		if res.ClusterScoped {
			scope = meta.RESTScopeRoot
		}
		out = append(out, &meta.RESTMapping{Resource: res.gvr, GroupVersionKind: res.Kind, Scope: scope})
	}
	if len(out) == 0 {
		return nil, &meta.NoKindMatchError{GroupKind: gk, SearchedVersions: versions}
	}
	return out, nil
}

// ResourceSingularizer returns the singular name of a served resource.
func (m serverRESTMapper) ResourceSingularizer(resource string) (string, error) {
	return resource, nil
}

var (
	_ informers.SharedInformerFactory = (*policySnapshot)(nil)
	_ informers.GenericInformer       = storeGenericInformer{}
	_ cache.GenericLister             = storeLister{}
	_ cache.GenericNamespaceLister    = storeLister{}
	_ meta.RESTMapper                 = serverRESTMapper{}
)
