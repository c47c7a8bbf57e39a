package fakeapiserver

import (
	"bytes"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/client-go/applyconfigurations"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
	aggregatorapply "k8s.io/kube-aggregator/pkg/client/applyconfiguration"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/lw-sim/lw-sim/internal/kubewire"
)

// fieldManagers are the managedFields bookkeepers of one resource, one per
// endpoint as kube-apiserver's installer builds them
// (endpoints/installer.go registerResourceHandlers): the main resource and,
// when served, its status subresource (subresource "status" in entries).
type fieldManagers struct {
	main   *managedfields.FieldManager
	status *managedfields.FieldManager
	// scale records writes to the scale subresource, on the Scale kind
	// (autoscaling/v1) with subresource "scale"; nil without one.
	scale *managedfields.FieldManager
	// approval records writes to a CertificateSigningRequest's approval
	// subresource (subresource "approval"); nil for other kinds.
	approval *managedfields.FieldManager
	// finalize records writes to a Namespace's finalize subresource
	// (subresource "finalize"); nil for other kinds.
	finalize *managedfields.FieldManager
	// create is the main endpoint's shortcut for creates
	// (managedfields_create.go); nil where it could not be prepared.
	create *createFields
}

// newTypeConverterFor picks the structured-merge-diff schema of a kind:
// client-go's applyconfigurations schema (generated from the same OpenAPI
// kube-apiserver serves, so list types, map keys and atomic structs agree)
// when it knows the kind, else a deduced converter (every field atomic, as
// kube-apiserver treats a schemaless CRD) for kinds a custom scheme adds.
func newTypeConverterFor(builtin managedfields.TypeConverter, proto runtime.Object, gvk schema.GroupVersionKind) managedfields.TypeConverter {
	probe := proto.DeepCopyObject()
	probe.GetObjectKind().SetGroupVersionKind(gvk)
	if _, err := builtin.ObjectToTyped(probe); err == nil {
		return builtin
	}
	return managedfields.NewDeducedTypeConverter()
}

// builtinTypeConverter is client-go's converter over scheme (what its
// NewClientset uses for apply).
func builtinTypeConverter(scheme *runtime.Scheme) managedfields.TypeConverter {
	return applyconfigurations.NewTypeConverter(scheme)
}

// defaulterFunc adapts a resource's defaulting to runtime.ObjectDefaulter:
// an applied object is defaulted like a decoded body
// (structuredmerge.go Apply calls the defaulter on the merged result).
type defaulterFunc func(runtime.Object)

// Default implements runtime.ObjectDefaulter.
func (f defaulterFunc) Default(obj runtime.Object) { f(obj) }

// lazyFieldManagers builds a resource's field managers on first use:
// building them (and probing the TypeConverter) for every served kind would
// multiply the cost of starting a server.
type lazyFieldManagers struct {
	scheme  *runtime.Scheme
	builtin func() managedfields.TypeConverter
	once    sync.Once
	fm      fieldManagers
	err     error
}

// errNoFieldManagers is the error of a resource description made outside
// the resource table (a subresource's own kind), which has none.
var errNoFieldManagers = errors.New("fakeapiserver: resource has no field managers")

// managers returns the field managers of r, building them once.
func (r *resourceInfo) managers() (fieldManagers, error) {
	l := r.fields
	if l == nil {
		return fieldManagers{}, fmt.Errorf("%w: %s", errNoFieldManagers, r.Kind)
	}
	l.once.Do(func() { l.fm, l.err = r.readStrategy().newFieldManagers(l, r) })
	return l.fm, l.err
}

// newBuiltin builds the field managers of a built-in or scheme-derived
// resource (builtinReads.newFieldManagers).
func (l *lazyFieldManagers) newBuiltin(r *resourceInfo) (fieldManagers, error) {
	return newFieldManagers(l.scheme, r, l.typeConverterOf(r), l.builtin())
}

// typeConverterOf returns the structured-merge-diff schema of r: its
// Resource.TypeConverter (a CRD's), kube-aggregator's for APIServices,
// else the built-in one when it knows the kind (newTypeConverterFor).
func (l *lazyFieldManagers) typeConverterOf(r *resourceInfo) managedfields.TypeConverter {
	tc := r.TypeConverter
	if tc == nil && r.Kind.Group == apiregistrationv1.GroupName {
		// APIServices are kube-aggregator's: its applyconfigurations
		// schema, not client-go's, knows them.
		tc = aggregatorapply.NewTypeConverter(l.scheme)
	}
	if tc == nil {
		tc = newTypeConverterFor(l.builtin(), r.newObject(), r.Kind)
	}
	return tc
}

// newFieldManagers builds the field managers of info with tc (the
// Resource.TypeConverter hook, else the built-in schema). Custom resources
// plug in by setting Resource.TypeConverter to a converter built from the
// CRD's structural schema (managedfields.NewTypeConverter, as the
// apiextensions-apiserver does) or managedfields.NewDeducedTypeConverter
// for a schemaless one; if they are stored as unstructured objects the
// scheme cannot convert, this is where managedfields.NewDefaultCRDFieldManager
// and a convertor for them belong. The hub version is the served version itself: this server
// keeps objects in their versioned Go types, so the scheme converts a
// version onto itself (and unstructured apply results into the typed kind).
func newFieldManagers(scheme *runtime.Scheme, info *resourceInfo, tc, builtin managedfields.TypeConverter) (fieldManagers, error) {
	var fm fieldManagers
	gv := info.Kind.GroupVersion()
	defaulter := defaulterFunc(info.applyDefaults)
	mainReset, statusReset := resetFieldsOf(info)
	// The versions of a kind stored once convert into each other
	// (builtin_conversion.go).
	convertor := runtime.ObjectConvertor(builtinConvertor{ObjectConvertor: scheme, scheme: scheme})
	var err error
	fm.main, err = managedfields.NewDefaultFieldManager(tc, convertor, defaulter, scheme, info.Kind, gv, "", mainReset)
	if err != nil {
		return fm, fmt.Errorf("fakeapiserver: resource %s: %w", info.Kind, err)
	}
	if cf, err := newCreateFields(scheme, info, tc, mainReset); err == nil {
		fm.create = cf // else creates take the field manager's own path
	}
	if info.hasStatus {
		fm.status, err = managedfields.NewDefaultFieldManager(tc, convertor, defaulter, scheme, info.Kind, gv, "status", statusReset)
		if err != nil {
			return fm, fmt.Errorf("fakeapiserver: resource %s/status: %w", info.Kind, err)
		}
	}
	if info.strategy.Serves("approval") {
		fm.approval, err = managedfields.NewDefaultFieldManager(tc, scheme, defaulter, scheme, info.Kind, gv, "approval", approvalResetFields(info))
		if err != nil {
			return fm, fmt.Errorf("fakeapiserver: resource %s/approval: %w", info.Kind, err)
		}
	}
	if info.strategy.Serves("finalize") {
		fm.finalize, err = managedfields.NewDefaultFieldManager(tc, scheme, defaulter, scheme, info.Kind, gv, "finalize", finalizeResetFields(info))
		if err != nil {
			return fm, fmt.Errorf("fakeapiserver: resource %s/finalize: %w", info.Kind, err)
		}
	}
	if info.Scale != nil {
		scaleTC := newTypeConverterFor(builtin, &autoscalingv1.Scale{}, scaleGVK)
		fm.scale, err = managedfields.NewDefaultFieldManager(scaleTC, scheme, defaulterFunc(func(runtime.Object) {}), scheme, scaleGVK, scaleGVK.GroupVersion(), "scale", nil)
		if err != nil {
			return fm, fmt.Errorf("fakeapiserver: resource %s/scale: %w", info.Kind, err)
		}
	}
	return fm, nil
}

// fieldManager returns the field manager of the request's endpoint.
func (req *request) fieldManager() (*managedfields.FieldManager, error) {
	fm, err := req.res.managers()
	if err != nil {
		return nil, err
	}
	if req.isStatus() && fm.status != nil {
		return fm.status, nil
	}
	if req.isApproval() && fm.approval != nil {
		return fm.approval, nil
	}
	if req.isFinalize() && fm.finalize != nil {
		return fm.finalize, nil
	}
	return fm.main, nil
}

// managerName is the manager a create, update or non-apply patch is
// recorded under: the fieldManager parameter, else the User-Agent up to its
// first "/" (handlers/create.go managerOrUserAgent, prefixFromUserAgent:
// unprintable characters dropped, cut at FieldManagerMaxLength).
func managerName(req *request) string {
	if m := kubewire.QueryOf(req.r).Get("fieldManager"); m != "" {
		return m
	}
	ua, _, _ := strings.Cut(req.r.UserAgent(), "/")
	var buf bytes.Buffer
	for _, r := range ua {
		if !unicode.IsPrint(r) {
			continue
		}
		if buf.Len()+utf8.RuneLen(r) > validation.FieldManagerMaxLength {
			break
		}
		buf.WriteRune(r)
	}
	return buf.String()
}

// trackCreate records the creating manager's fields on a decoded create
// body, as the create handler does before admission and the strategy run
// (so fields they add are owned by nobody).
//
// The shortcut of managedfields_create.go records the same entry without
// the field manager's layers; where it declines, the field manager runs.
func (s *Server) trackCreate(req *request, obj runtime.Object) runtime.Object {
	if fm, err := req.res.managers(); err == nil && fm.create != nil && !req.isStatus() {
		now := s.cfg.Clock.Now().UTC().Truncate(time.Second) // as stampManagedFields stamps
		if fm.create.track(obj, managerName(req), now) {
			return obj
		}
	}
	return s.trackUpdate(req, req.res.newObject(), obj)
}

// trackUpdate records the manager of an update or non-apply patch of live
// into obj's managedFields (FieldManager.UpdateNoErrors). A client may
// replace managedFields on the main resource by sending them (an empty
// list resets them); on a subresource the live ones are kept.
//
// Like FieldManager.UpdateNoErrors it never fails the write: without a
// field manager (a resource description made outside the resource table)
// obj is returned unchanged.
func (s *Server) trackUpdate(req *request, live, obj runtime.Object) runtime.Object {
	fm, err := req.fieldManager()
	if err != nil {
		return obj
	}
	return s.track(fm, managerName(req), live, obj)
}

// track records manager's update of live into obj with fm, stamped with
// the server's clock.
func (s *Server) track(fm *managedfields.FieldManager, manager string, live, obj runtime.Object) runtime.Object {
	kept := managedTimes(live, obj)
	start := time.Now()
	out := fm.UpdateNoErrors(live, obj, manager)
	s.stampManagedFields(out, start, kept)
	return out
}

// managedTimes collects the managedFields times the objects carry.
func managedTimes(objs ...runtime.Object) map[time.Time]bool {
	kept := map[time.Time]bool{}
	for _, o := range objs {
		for _, e := range mustAccessor(o).GetManagedFields() {
			if e.Time != nil {
				kept[e.Time.Time] = true
			}
		}
	}
	return kept
}

// stampManagedFields rewrites the times the field manager stamped with the
// wall clock (time.Now, not injectable) to the server's clock, at second
// precision as they are serialised. An entry is freshly stamped when its
// time is at or after start and is none of the times the live object or the
// request carried (kept, collected before the call), which entries merely
// carried over keep.
func (s *Server) stampManagedFields(obj runtime.Object, start time.Time, kept map[time.Time]bool) {
	m := mustAccessor(obj)
	entries := m.GetManagedFields()
	if len(entries) == 0 {
		return
	}
	now := metav1.NewTime(s.cfg.Clock.Now().UTC().Truncate(time.Second))
	changed := false
	for i, e := range entries {
		if e.Time == nil || kept[e.Time.Time] || e.Time.Time.Before(start) {
			continue
		}
		entries[i].Time = now.DeepCopy()
		changed = true
	}
	if changed {
		sortManagedFields(entries)
		m.SetManagedFields(entries)
	}
}

// sortManagedFields orders entries as the field manager's encoder does
// (internal/managedfields.go sortEncodedManagedFields): Apply before
// Update, then by time in seconds, manager, apiVersion and subresource. It
// runs again after restamping, because the encoder ordered by wall-clock
// times the server's clock may contradict.
func sortManagedFields(entries []metav1.ManagedFieldsEntry) {
	seconds := func(t *metav1.Time) int64 {
		if t == nil {
			return 0
		}
		return t.Unix()
	}
	sort.SliceStable(entries, func(i, j int) bool {
		p, q := entries[i], entries[j]
		switch {
		case p.Operation != q.Operation:
			return p.Operation < q.Operation
		case seconds(p.Time) != seconds(q.Time):
			return seconds(p.Time) < seconds(q.Time)
		case p.Manager != q.Manager:
			return p.Manager < q.Manager
		case p.APIVersion != q.APIVersion:
			return p.APIVersion < q.APIVersion
		}
		return p.Subresource < q.Subresource
	})
}

// resetFieldsOf returns the exclude filters of the main and status
// endpoints: a kind with a status subresource has its status reset by the
// main strategy and its spec by the status strategy, as every built-in
// strategy with a status subresource does, plus the strategy's own
// (internal/kinds ResetFields).
func resetFieldsOf(info *resourceInfo) (main, status map[fieldpath.APIVersion]fieldpath.Filter) {
	if !info.hasStatus {
		return nil, nil
	}
	extra := info.strategy.ResetFields
	mainSet := fieldpath.NewSet(append([]fieldpath.Path{fieldpath.MakePathOrDie("status")}, extra.Main...)...)
	statusPaths := append([]fieldpath.Path{fieldpath.MakePathOrDie("spec")}, extra.Status...)
	// Custom resources too (customReads.statusResetsMetadata).
	if extra.StatusResetsMetadata || info.readStrategy().statusResetsMetadata() {
		statusPaths = append(statusPaths, fieldpath.MakePathOrDie("metadata"))
	}
	statusSet := fieldpath.NewSet(statusPaths...)
	v := fieldpath.APIVersion(info.Kind.GroupVersion().String())
	main = fieldpath.NewExcludeFilterSetMap(map[fieldpath.APIVersion]*fieldpath.Set{v: mainSet})
	status = fieldpath.NewExcludeFilterSetMap(map[fieldpath.APIVersion]*fieldpath.Set{v: statusSet})
	return main, status
}

// keepManagedFields carries the managedFields the status field manager
// computed over to the object a status write stores (the status strategy
// resets the spec and, per kind, some metadata: keepStatusMetadata; never
// managedFields).
func keepManagedFields(dst, src runtime.Object) {
	mustAccessor(dst).SetManagedFields(mustAccessor(src).GetManagedFields())
}
