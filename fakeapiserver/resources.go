package fakeapiserver

import (
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/apimachinery/pkg/version"

	"github.com/lw-sim/lw-sim/fakeapiserver/internal/discovery"
	"github.com/lw-sim/lw-sim/fakeapiserver/internal/kinds"
	"github.com/lw-sim/lw-sim/internal/fieldlabels"
)

// Resource describes one served resource. Most fields are derived from the
// scheme; a [Config.Resources] entry overrides what it sets for its Kind.
type Resource struct {
	// Kind is the served kind, e.g. apps/v1 Deployment. Required.
	Kind schema.GroupVersionKind
	// Plural is the resource name in URLs. If empty, defaults to the lower-case
	// plural guessed from Kind (meta.UnsafeGuessKindToResource).
	Plural string
	// ClusterScoped marks resources that live outside namespaces (nodes,
	// namespaces, persistentvolumes, ...). Defaults come from a built-in table.
	ClusterScoped bool
	// ShortNames are advertised in discovery for kubectl (po, cm, ...).
	ShortNames []string
	// TracksGeneration makes creates set metadata.generation to 1 and spec
	// changes bump it, as the strategies of pods and workloads do.
	TracksGeneration bool
	// ReturnsDeletedObject makes DELETE answer with the deleted object rather
	// than a Success Status (pods do; configmaps don't). See apiserver
	// pkg/registry/generic/registry/store.go (ReturnDeletedObject).
	ReturnsDeletedObject bool
	// FieldLabels lists the field-selector keys the resource supports besides
	// metadata.name and metadata.namespace, and how to read them from an
	// object. Nil means only the two metadata fields, with the generic
	// "is not a known field selector" error for any other key.
	FieldLabels *FieldLabels
	// Default fills the defaults of a decoded create, update or patch body,
	// as kube-apiserver's decoder applies the SetDefaults_* of the kind.
	// Nil means none; built-in kinds get their strategy's (internal/kinds,
	// over internal/defaults: Pods, workloads, Services, Nodes, volumes,
	// RBAC bindings, webhooks, HPAs, ...).
	Default func(obj runtime.Object)
	// Validate checks what a create or an update of the main resource is
	// about to store, as the kind's registry strategy does; errors become
	// the 422 Invalid Status. Nil means the generic metadata checks (a
	// DNS-subdomain name); built-in kinds get their entry in
	// internal/validation.
	Validate ValidateFunc
	// ValidateStatus checks what an update through the status subresource
	// is about to store (old is never nil), as the kind's status strategy
	// does. Nil means the metadata update checks alone; built-in kinds
	// whose status strategy checks the status (Pods, Deployments,
	// ReplicaSets, StatefulSets, DaemonSets, ReplicationControllers, Jobs,
	// HorizontalPodAutoscalers, CertificateSigningRequests, Services,
	// PersistentVolumeClaims, Nodes) get their entry in internal/validation
	// (validation.StatusFor).
	ValidateStatus ValidateFunc
	// Scale serves the scale subresource (autoscaling/v1 Scale) from the
	// paths it names; nil means none. See [ScaleSubresource].
	Scale *ScaleSubresource
	// TypeConverter is the structured-merge-diff schema server-side apply
	// and managedFields use for this kind (list types, map keys, atomic
	// fields). If nil, client-go's applyconfigurations schema for built-in
	// kinds (the one kube-apiserver's OpenAPI yields), else a deduced one
	// that treats every field as atomic. A custom resource plugs in a
	// converter built from its CRD schema (managedfields.NewTypeConverter).
	TypeConverter managedfields.TypeConverter
}

// FieldLabels is a resource's field-selector support: the keys it accepts
// (with the kube-apiserver error for others, Keys, metadata.* included),
// deprecated keys mapped onto supported ones (Aliases; pods: spec.host),
// and how to read them from an object (Fields).
type FieldLabels = fieldlabels.Labels

// resourceInfo is the resolved, immutable description of a served resource
// used by the handlers.
type resourceInfo struct {
	Resource
	gvr       schema.GroupVersionResource
	listKind  schema.GroupVersionKind
	singular  string
	hasStatus bool
	// verbs are the verbs served on the resource (not its subresources),
	// sorted, as discovery lists them: kube-apiserver's where it serves the
	// kind, else every verb of a stored resource.
	verbs metav1.Verbs
	// categories and storageVersionHash are advertised in discovery.
	categories         []string
	storageVersionHash string
	// builtin marks a resource described by kube-apiserver's discovery,
	// whose categories, hash and subresources are taken from there.
	builtin bool
	// builtinSubresources are kube-apiserver's discovery entries of the
	// resource's subresources ("pods/status", "deployments/scale", ...);
	// discovery lists those this server serves (servesSubresource).
	builtinSubresources []metav1.APIResource
	// review answers the create of a resource that is not stored
	// (authorization and authentication reviews); nil for stored ones.
	review     reviewFunc
	newObject  func() runtime.Object
	newList    func() runtime.Object
	storageKey string             // store partition: the group-qualified resource, e.g. "pods", "deployments.apps"
	fields     *lazyFieldManagers // built on first write: most resources of a server are never written
	// custom is set for a version of a CustomResourceDefinition's resource
	// (customresource_*.go); nil for built-ins.
	custom *customResource
	// strategy is the built-in kind's write rules (internal/kinds); the
	// zero Strategy for custom resources and reviews.
	strategy kinds.Strategy
	// writes is the strategy adapter the write paths call
	// (write_strategy.go); nil means builtinWrites.
	writes writeStrategy
	// reads is the adapter the read paths call (read_strategy.go); nil
	// means builtinReads.
	reads readStrategy
	// conversion converts a built-in version that shares its store
	// partition with the other served versions of its group-resource to
	// and from the storage version (builtin_conversion.go); nil for the
	// others.
	conversion *builtinConversion
}

// writeStrategy returns the resource's strategy adapter.
func (r *resourceInfo) writeStrategy() writeStrategy {
	if r.writes == nil {
		return builtinWrites{}
	}
	return r.writes
}

// resourceTable is the set of served resources, looked up by URL. It is
// built by newResourceTable; afterwards resources come and go at runtime
// through put and remove (CRDs), so every read after construction goes
// through the locked accessors (lookup, resourcesOf, servedGroupVersions).
type resourceTable struct {
	// mu guards the fields below once the table is shared.
	mu     sync.RWMutex
	byGVR  map[schema.GroupVersionResource]*resourceInfo
	byGVK  map[schema.GroupVersionKind]*resourceInfo
	groups []schema.GroupVersion // configured group-versions, core first, then by group
	// builtinTC is client-go's type converter over the scheme, the default
	// Resource.TypeConverter, made on first use.
	builtinTC func() managedfields.TypeConverter
	// custom holds the entries of each CRD by its name, so an update or a
	// delete removes exactly what the CRD added.
	custom map[string][]*resourceInfo
}

// put serves info at runtime, replacing what was served at its
// group-version-resource. A resource of a group-version not configured
// makes that group-version served (discovery and routing) while it lasts.
func (t *resourceTable) put(info *resourceInfo) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if old, ok := t.byGVR[info.gvr]; ok {
		delete(t.byGVK, old.Kind)
	}
	t.byGVR[info.gvr] = info
	t.byGVK[info.Kind] = info
}

// remove stops serving gvr at runtime; its stored objects are the caller's
// to delete.
func (t *resourceTable) remove(gvr schema.GroupVersionResource) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if old, ok := t.byGVR[gvr]; ok {
		delete(t.byGVK, old.Kind)
		delete(t.byGVR, gvr)
	}
}

// servedGroupVersions lists every served group-version: the configured ones
// in table order, then any that only single-kind or runtime registrations
// add, by name.
func (t *resourceTable) servedGroupVersions() []schema.GroupVersion {
	t.mu.RLock()
	defer t.mu.RUnlock()
	gvs := slices.Clone(t.groups)
	var extra []schema.GroupVersion
	for gvr := range t.byGVR {
		if gv := gvr.GroupVersion(); !slices.Contains(gvs, gv) && !slices.Contains(extra, gv) {
			extra = append(extra, gv)
		}
	}
	slices.SortFunc(extra, func(a, b schema.GroupVersion) int { return strings.Compare(a.String(), b.String()) })
	return append(gvs, extra...)
}

// servesGroup reports whether any version of group is served (the empty
// group is core's, served at /api, not under /apis).
func (t *resourceTable) servesGroup(group string) bool {
	t.mu.RLock()
	defer t.mu.RUnlock()
	for _, gv := range t.groups {
		if gv.Group == group {
			return true
		}
	}
	for gvr := range t.byGVR {
		if gvr.Group == group {
			return true
		}
	}
	return false
}

// newResourceTable derives the served resources of every group-version in gvs
// from the scheme: each kind K with a list kind KList is a resource.
func newResourceTable(scheme *runtime.Scheme, gvs []schema.GroupVersion, overrides []Resource) (*resourceTable, error) {
	t := &resourceTable{
		byGVR:     map[schema.GroupVersionResource]*resourceInfo{},
		byGVK:     map[schema.GroupVersionKind]*resourceInfo{},
		builtinTC: sync.OnceValue(func() managedfields.TypeConverter { return builtinTypeConverter(scheme) }),
	}
	byKind := map[schema.GroupVersionKind]Resource{}
	for _, o := range overrides {
		byKind[o.Kind] = o
	}
	builtin, err := discovery.Builtin()
	if err != nil {
		return nil, err
	}
	known := builtinKinds(builtin)
	for _, gv := range gvs {
		if slices.Contains(t.groups, gv) {
			continue // listed twice
		}
		if len(scheme.KnownTypes(gv)) == 0 {
			return nil, fmt.Errorf("fakeapiserver: group-version %q is not registered in the scheme", gv)
		}
		var err error
		if b, ok := builtin[gv]; ok {
			err = t.addBuiltin(scheme, gv, b, byKind)
		} else {
			err = t.addDerived(scheme, gv, byKind, known)
		}
		if err != nil {
			return nil, err
		}
		t.groups = append(t.groups, gv)
	}
	for _, o := range overrides {
		if _, ok := t.byGVK[o.Kind]; !ok {
			if err := t.add(scheme, o); err != nil {
				return nil, err
			}
		}
	}
	sort.SliceStable(t.groups, func(i, j int) bool { return t.groups[i].Group == "" && t.groups[j].Group != "" })
	t.shareVersionStorage()
	return t, nil
}

// addBuiltin adds the resources kube-apiserver serves in gv, as its
// discovery describes them: plural, singular, scope, verbs, short names,
// categories, storage version hash and subresources. A stored resource
// (one that is listed) needs its kind and list kind in the scheme; a
// create-only one is served when this server answers it (reviews.go), and
// left out otherwise (bindings: pods/binding does the same).
func (t *resourceTable) addBuiltin(scheme *runtime.Scheme, gv schema.GroupVersion, b *discovery.BuiltinGroupVersion, byKind map[schema.GroupVersionKind]Resource) error {
	for _, api := range b.Resources {
		gvk := gv.WithKind(api.Kind)
		r, ok := byKind[gvk]
		if !ok {
			r = defaultResource(gvk)
			r.Plural, r.ClusterScoped, r.ShortNames = api.Name, !api.Namespaced, api.ShortNames
		}
		if !slices.Contains(api.Verbs, "list") {
			review, ok := reviewHandlers[gvk.GroupKind()]
			if !ok {
				continue
			}
			if err := t.addReview(scheme, r, api, review); err != nil {
				return err
			}
			continue
		}
		if err := t.add(scheme, r); err != nil {
			return err
		}
		t.byGVK[gvk].applyBuiltin(api, b.Subresources[api.Name])
	}
	return nil
}

// applyBuiltin takes verbs, categories, storage version hash, singular name
// and subresources from kube-apiserver's discovery entry api and its
// subresources subs.
func (info *resourceInfo) applyBuiltin(api metav1.APIResource, subs []metav1.APIResource) {
	info.builtin = true
	info.verbs = api.Verbs
	info.categories = api.Categories
	info.storageVersionHash = api.StorageVersionHash
	info.builtinSubresources = subs
	info.hasStatus = slices.ContainsFunc(subs, func(s metav1.APIResource) bool { return s.Name == api.Name+"/status" })
	if api.SingularName != "" {
		info.singular = api.SingularName
	}
}

// builtinKind is kube-apiserver's discovery of a kind in the version it
// serves by default.
type builtinKind struct {
	api  metav1.APIResource
	subs []metav1.APIResource
}

// builtinKinds indexes the captured discovery by group and kind (stored
// resources only).
func builtinKinds(builtin map[schema.GroupVersion]*discovery.BuiltinGroupVersion) map[schema.GroupKind]builtinKind {
	out := map[schema.GroupKind]builtinKind{}
	for gv, b := range builtin {
		for _, api := range b.Resources {
			if slices.Contains(api.Verbs, "list") {
				out[schema.GroupKind{Group: gv.Group, Kind: api.Kind}] = builtinKind{api: api, subs: b.Subresources[api.Name]}
			}
		}
	}
	return out
}

// addDerived derives the resources of a group-version kube-apiserver does
// not serve by default from the scheme: each kind K with a list kind KList
// is a resource. A kind kube-apiserver serves in another version (a beta
// of resource.k8s.io, say) is described as there (plural, scope, verbs,
// short names, subresources, storage version hash: its storage version is
// the same); any other gets every verb and the scope tables here.
func (t *resourceTable) addDerived(scheme *runtime.Scheme, gv schema.GroupVersion, byKind map[schema.GroupVersionKind]Resource, known map[schema.GroupKind]builtinKind) error {
	types := scheme.KnownTypes(gv)
	for kind := range types {
		if _, ok := types[kind+"List"]; !ok || strings.HasSuffix(kind, "List") || isOptionsKind(kind) {
			continue
		}
		gvk := gv.WithKind(kind)
		b, isKnown := known[gvk.GroupKind()]
		r, ok := byKind[gvk]
		if !ok {
			r = defaultResource(gvk)
			if isKnown {
				r.Plural, r.ClusterScoped, r.ShortNames = b.api.Name, !b.api.Namespaced, b.api.ShortNames
			}
		}
		if err := t.add(scheme, r); err != nil {
			return err
		}
		if isKnown && t.byGVK[gvk].gvr.Resource == b.api.Name {
			t.byGVK[gvk].applyBuiltin(b.api, b.subs)
		}
	}
	return nil
}

// shareVersionStorage lets the served kinds that internal/conversion
// converts to a served storage kind share its store partition, as
// kube-apiserver keeps them (builtin_conversion.go: HPAs of autoscaling/v1
// and v2, core and events.k8s.io Events), and gives every other served
// version of a group-resource a partition of its own, but the preferred
// one when none of its versions is shared: with no conversion between
// them, an object written in one version is not visible in another (see
// conformance/DIVERGENCES.md).
func (t *resourceTable) shareVersionStorage() {
	byStorage := map[schema.GroupVersionKind]*resourceInfo{}
	for _, r := range t.byGVR {
		if c, ok := builtinConversions[r.Kind]; ok && c.storage == r.Kind {
			byStorage[r.Kind] = r
		}
	}
	byGR := map[schema.GroupResource][]*resourceInfo{}
	sharedGR := map[schema.GroupResource]bool{}
	for gvr, r := range t.byGVR {
		if c, ok := builtinConversions[r.Kind]; ok && byStorage[c.storage] != nil {
			r.conversion = c
			r.storageKey = byStorage[c.storage].storageKey
			if r.convertsOnRead() {
				r.reads = convertedReads{}
			}
			sharedGR[gvr.GroupResource()] = true
			continue
		}
		byGR[gvr.GroupResource()] = append(byGR[gvr.GroupResource()], r)
	}
	for gr, rs := range byGR {
		if len(rs) < 2 && !sharedGR[gr] {
			continue
		}
		slices.SortFunc(rs, func(a, b *resourceInfo) int {
			return version.CompareKubeAwareVersionStrings(b.gvr.Version, a.gvr.Version)
		})
		if !sharedGR[gr] {
			rs = rs[1:]
		}
		for _, r := range rs {
			r.storageKey += "/" + r.gvr.Version
		}
	}
}

// isOptionsKind filters the meta kinds registered in every group-version
// that are not resources: request options, WatchEvent, Status and the
// discovery documents (APIGroup has an APIGroupList twin, so the KList rule
// alone would serve "apigroups").
func isOptionsKind(kind string) bool {
	switch kind {
	case "WatchEvent", "Status", "APIGroup", "APIVersions", "APIResourceList":
		return true
	}
	return strings.HasSuffix(kind, "Options")
}

// defaultResource is the registration a kind gets when nothing overrides
// it: its strategy's facts and hooks (internal/kinds).
func defaultResource(gvk schema.GroupVersionKind) Resource {
	st := kinds.For(gvk.GroupKind())
	return Resource{
		Kind:                 gvk,
		ClusterScoped:        st.ClusterScoped,
		ShortNames:           st.ShortNames,
		TracksGeneration:     st.TracksGeneration,
		ReturnsDeletedObject: st.ReturnsDeletedObject,
		FieldLabels:          st.FieldLabels,
		Default:              st.Default,
		Validate:             ValidateFunc(st.Validate),
		ValidateStatus:       ValidateFunc(st.ValidateStatus),
		Scale:                scaleSubresource(st.Scale),
	}
}

// add registers r while the table is built (no locking).
func (t *resourceTable) add(scheme *runtime.Scheme, r Resource) error {
	info, err := t.newResourceInfo(scheme, r)
	if err != nil {
		return err
	}
	t.byGVR[info.gvr] = info
	t.byGVK[r.Kind] = info
	return nil
}

// newResourceInfo resolves a stored resource of a kind in scheme (which
// needs its list kind too), with every verb and the table's field
// managers; see [Resource] for defaults.
func (t *resourceTable) newResourceInfo(scheme *runtime.Scheme, r Resource) (*resourceInfo, error) {
	plural, singular := meta.UnsafeGuessKindToResource(r.Kind)
	if r.Plural != "" {
		plural = r.Kind.GroupVersion().WithResource(r.Plural)
	}
	listKind := r.Kind.GroupVersion().WithKind(r.Kind.Kind + "List")
	proto, err := scheme.New(r.Kind)
	if err != nil {
		return nil, fmt.Errorf("fakeapiserver: resource %s: %w", r.Kind, err)
	}
	if _, err := scheme.New(listKind); err != nil {
		return nil, fmt.Errorf("fakeapiserver: resource %s needs a list kind: %w", r.Kind, err)
	}
	info := &resourceInfo{
		Resource:   r,
		gvr:        plural,
		listKind:   listKind,
		singular:   singular.Resource,
		hasStatus:  hasStatusField(proto),
		verbs:      discovery.StoredVerbs(),
		newObject:  func() runtime.Object { o, _ := scheme.New(r.Kind); return o },
		newList:    func() runtime.Object { o, _ := scheme.New(listKind); return o },
		storageKey: plural.GroupResource().String(),
		strategy:   kinds.For(r.Kind.GroupKind()),
	}
	// The kinds whose writes need the server (write_strategy.go).
	switch r.Kind.GroupKind() {
	case crdGVK.GroupKind():
		info.writes = crdWrites{} // apiextensions-apiserver's strategy
	case serviceGroupKind:
		info.writes = serviceWrites{} // cluster IPs and node ports
	case namespaceGroupKind:
		info.writes = namespaceWrites{} // terminated on delete
	}
	if r.Kind.Group == admissionConfigGroup && slices.Contains(admissionConfigKinds, r.Kind.Kind) {
		info.writes = admissionConfigWrites{} // param authorization, rule warnings
	}
	info.fields = &lazyFieldManagers{scheme: scheme, builtin: t.builtinTC}
	return info, nil
}

// hasStatusField reports whether the kind's Go type has a Status field, which
// is what makes kube-apiserver install a /status subresource for it.
func hasStatusField(obj runtime.Object) bool {
	v := reflect.ValueOf(obj)
	if v.Kind() == reflect.Pointer {
		v = v.Elem()
	}
	_, ok := v.Type().FieldByName("Status")
	return ok && v.Kind() == reflect.Struct
}

// lookup finds the resource served at group/version/plural.
func (t *resourceTable) lookup(gvr schema.GroupVersionResource) (*resourceInfo, bool) {
	t.mu.RLock()
	defer t.mu.RUnlock()
	r, ok := t.byGVR[gvr]
	return r, ok
}

// lookupKind returns the resource that serves gvk.
func (t *resourceTable) lookupKind(gvk schema.GroupVersionKind) (*resourceInfo, bool) {
	t.mu.RLock()
	defer t.mu.RUnlock()
	r, ok := t.byGVK[gvk]
	return r, ok
}

// stored returns one served resource per store partition (storageKey),
// reviews left out, ordered by storageKey: what a reader of every stored
// object (the garbage collector) lists.
func (t *resourceTable) stored() []*resourceInfo {
	t.mu.RLock()
	defer t.mu.RUnlock()
	seen := map[string]*resourceInfo{}
	for _, r := range t.byGVR {
		if r.review != nil || r.storageKey == "" {
			continue
		}
		if cur, ok := seen[r.storageKey]; !ok || preferStored(r, cur) {
			seen[r.storageKey] = r
		}
	}
	out := make([]*resourceInfo, 0, len(seen))
	for _, r := range seen {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].storageKey < out[j].storageKey })
	return out
}

// preferStored reports whether r rather than cur reads a shared store
// partition for stored(): the storage version, else the first by
// group-version-resource.
func preferStored(r, cur *resourceInfo) bool {
	if rs, cs := r.isStorageVersion(), cur.isStorageVersion(); rs != cs {
		return rs
	}
	return r.gvr.String() < cur.gvr.String()
}

// setCustom replaces the entries a CRD serves (none removes them). A
// built-in resource is never replaced: the CRD's names were refused before.
func (t *resourceTable) setCustom(crdName string, infos []*resourceInfo) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, old := range t.custom[crdName] {
		if t.byGVR[old.gvr] == old {
			delete(t.byGVR, old.gvr)
			delete(t.byGVK, old.Kind)
		}
	}
	if t.custom == nil {
		t.custom = map[string][]*resourceInfo{}
	}
	t.custom[crdName] = infos
	if len(infos) == 0 {
		delete(t.custom, crdName)
	}
	for _, info := range infos {
		if cur, ok := t.byGVR[info.gvr]; ok && cur.custom == nil {
			continue
		}
		t.byGVR[info.gvr] = info
		t.byGVK[info.Kind] = info
	}
}

// customOf returns the entries a CRD serves now.
func (t *resourceTable) customOf(crdName string) []*resourceInfo {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return slices.Clone(t.custom[crdName])
}

// sharingStorage returns the served resources that share res's store
// partition, res included, newest version first, then by group.
func (t *resourceTable) sharingStorage(res *resourceInfo) []schema.GroupVersionResource {
	t.mu.RLock()
	defer t.mu.RUnlock()
	var out []schema.GroupVersionResource
	for gvr, r := range t.byGVR {
		if r.storageKey == res.storageKey {
			out = append(out, gvr)
		}
	}
	slices.SortFunc(out, func(a, b schema.GroupVersionResource) int {
		if c := version.CompareKubeAwareVersionStrings(b.Version, a.Version); c != 0 {
			return c
		}
		return strings.Compare(a.Group, b.Group)
	})
	return out
}

// resourcesOf returns the resources of one group-version, sorted by plural.
func (t *resourceTable) resourcesOf(gv schema.GroupVersion) []*resourceInfo {
	t.mu.RLock()
	defer t.mu.RUnlock()
	var out []*resourceInfo
	for gvr, r := range t.byGVR {
		if gvr.GroupVersion() == gv {
			out = append(out, r)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].gvr.Resource < out[j].gvr.Resource })
	return out
}

// qualified returns the group-qualified resource used in error messages
// ("pods", "deployments.apps").
func (r *resourceInfo) qualified() schema.GroupResource { return r.gvr.GroupResource() }
