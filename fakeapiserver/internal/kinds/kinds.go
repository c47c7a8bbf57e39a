package kinds

import (
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/lw-sim/lw-sim/fakeapiserver/internal/validation"
	"github.com/lw-sim/lw-sim/internal/fieldlabels"
)

// Strategy is what kube-apiserver's registry does for one kind on a write
// beyond the generic store's rules. Every field is optional: the zero
// Strategy is a namespaced kind with the generic metadata validation, no
// defaults and no subresource but status (when the type has a status).
type Strategy struct {
	// ClusterScoped is the inverse of NamespaceScoped(), for a kind that
	// kube-apiserver's discovery does not describe (which then wins).
	ClusterScoped bool
	// ShortNames are kubectl's short names, for such a kind too.
	ShortNames []string
	// TracksGeneration makes a create set metadata.generation to 1 and a
	// spec change bump it (the strategies' PrepareForUpdate).
	TracksGeneration bool
	// GenerationChanged, with TracksGeneration, is the kind's own rule for
	// an update that bumps metadata.generation (generation.go); nil means
	// a spec change.
	GenerationChanged func(obj, old runtime.Object) bool
	// ReturnsDeletedObject makes DELETE answer with the deleted object
	// (store.go ReturnDeletedObject).
	ReturnsDeletedObject bool
	// FieldLabels are the kind's field-selector keys and values; nil means
	// metadata.name and metadata.namespace only.
	FieldLabels *fieldlabels.Labels
	// Default is the decoder's defaulting of a written body (SetDefaults_*).
	Default func(runtime.Object)
	// Validate is the strategy's Validate (old nil) and ValidateUpdate;
	// nil means [validation.Generic] (the server's default).
	Validate validation.Func
	// ValidateStatus is the status strategy's ValidateUpdate; nil means
	// [validation.MetaUpdate].
	ValidateStatus validation.Func
	// KeepsStatusOnCreate keeps the status a create writes; otherwise the
	// server zeroes it before PrepareForCreate, as most strategies do.
	KeepsStatusOnCreate bool
	// PrepareForCreate is the strategy's PrepareForCreate (and the default
	// mutating admission plugins' effect) once the server has set the
	// system metadata; now is the server's clock.
	PrepareForCreate func(obj runtime.Object, now metav1.Time)
	// PrepareNamedForCreate is the part of PrepareForCreate that derives
	// from the final name (a generateName retry runs it again).
	PrepareNamedForCreate func(obj runtime.Object)
	// PrepareForUpdate is the strategy's PrepareForUpdate on an update of
	// the main resource, after the server kept the stored status.
	PrepareForUpdate func(obj, old runtime.Object)
	// PrepareForStatusUpdate is the status strategy's PrepareForUpdate,
	// after the server put the written status onto the stored object.
	PrepareForStatusUpdate func(obj, old runtime.Object, now metav1.Time)
	// ResetFields are the paths the strategies reset beyond status (main)
	// and spec (status), which no field manager owns.
	ResetFields ResetFields
	// Scale is where a /scale subresource reads and writes; nil means none.
	Scale *Scale
	// Subresources are the subresources besides status and scale the kind
	// serves ("binding", "eviction", "token", "approval", "finalize").
	Subresources []string
	// HoldsDeletion is the kind's half of ShouldDeleteDuringUpdate: it
	// reports whether obj, marked for deletion with no finalizer left, is
	// still held by a rule of its kind (a Namespace's spec.finalizers).
	HoldsDeletion func(obj runtime.Object) bool
	// Grants is what a create (old nil) or update of an RBAC kind grants,
	// for its storage's escalation check, which the server makes with the
	// writer's permissions (rbac_escalation.go); nil for a kind that
	// grants nothing.
	Grants func(obj, old runtime.Object) Grant
	// GracefulDelete is CheckGracefulDelete: non-nil makes every delete
	// mark the object first (deletionTimestamp, then DELETED once the
	// grace is 0); it returns the grace period in seconds for obj.
	GracefulDelete func(obj runtime.Object, requested *int64) int64
	// GCPolicy is the strategy's DefaultGarbageCollectionPolicy for the
	// versions served: what a DELETE without a propagation policy does to
	// the dependents (the zero value: background deletion).
	GCPolicy GCPolicy
}

// GCPolicy is registry/rest's GarbageCollectionPolicy: a kind's default
// for a DELETE that sets neither propagationPolicy nor orphanDependents.
type GCPolicy string

const (
	// GCDeleteDependents (the default, for a strategy without
	// DefaultGarbageCollectionPolicy too): dependents are deleted in the
	// background; no finalizer is added.
	GCDeleteDependents GCPolicy = ""
	// GCOrphanDependents: a DELETE adds the "orphan" finalizer (batch/v1
	// Jobs and v1 ReplicationControllers, for compatibility).
	GCOrphanDependents GCPolicy = "OrphanDependents"
	// GCUnsupported: no propagation finalizer is ever added, whatever the
	// request says (Events).
	GCUnsupported GCPolicy = "Unsupported"
)

// Grant is what an RBAC object grants ([Strategy.Grants]): a role's rules
// (with Aggregation when it sets, or had, an aggregationRule, which
// needs full authority), or the role a binding refers to.
type Grant struct {
	Rules       []rbacv1.PolicyRule
	Aggregation bool
	// RoleRef is set for a binding.
	RoleRef *rbacv1.RoleRef
}

// ResetFields are a strategy's GetResetFields beyond the generic ones.
type ResetFields struct {
	// Main are reset by the main resource's strategy besides status.
	Main []fieldpath.Path
	// Status are reset by the status strategy besides spec.
	Status []fieldpath.Path
	// StatusResetsMetadata marks status strategies that reset all of
	// metadata (ResetObjectMetaForStatus).
	StatusResetsMetadata bool
}

// Scale locates the replicas and selector a /scale subresource reads, as
// the server's ScaleSubresource does (dot-separated JSON paths).
type Scale struct {
	// SpecReplicasPath is the desired replica count, written by the
	// subresource; StatusReplicasPath the observed one; LabelSelectorPath
	// the selector reported as status.selector.
	SpecReplicasPath, StatusReplicasPath, LabelSelectorPath string
	// UnsetReplicas is what a missing spec replicas count reads as.
	UnsetReplicas int64
}

// Serves reports whether the kind has the named subresource (besides
// status and scale).
func (s *Strategy) Serves(sub string) bool {
	for _, x := range s.Subresources {
		if x == sub {
			return true
		}
	}
	return false
}

// For returns the strategy of the built-in kind gk (the zero Strategy for
// a kind without one) with its field labels (internal/fieldlabels, which
// watchcheck reads too).
func For(gk schema.GroupKind) Strategy {
	s := index[gk]
	if s.FieldLabels == nil {
		s.FieldLabels = fieldlabels.Builtin(gk)
	}
	return s
}

// kind is one entry of a family.
type kind struct {
	gk schema.GroupKind
	s  Strategy
}

// families are the kind families of the files of this package; a new
// family is one file and one line here.
var families = [][]kind{
	podKinds, serviceKinds, namespaceKinds, nodeKinds, volumeKinds, configKinds,
	appsKinds, batchKinds, autoscalingKinds, rbacKinds, certificatesKinds,
	apiextensionsKinds, apiregistrationKinds, flowcontrolKinds, admissionKinds,
	storageKinds, networkingKinds, schedulingKinds, resourceKinds, miscKinds,
}

// index is families by kind, built once; read only.
var index = func() map[schema.GroupKind]Strategy {
	m := map[schema.GroupKind]Strategy{}
	for _, f := range families {
		for _, k := range f {
			if _, dup := m[k.gk]; dup {
				panic("kinds: " + k.gk.String() + " listed twice")
			}
			m[k.gk] = k.s
		}
	}
	return m
}()

// typed adapts a hook over one Go type: an object of another type (an
// older group-version's struct) is left alone, as upstream has no such
// strategy for it.
func typed[T runtime.Object](f func(T)) func(runtime.Object) {
	return func(obj runtime.Object) {
		if o, ok := obj.(T); ok {
			f(o)
		}
	}
}

// typedUpdate adapts an update hook over one Go type (both objects).
func typedUpdate[T runtime.Object](f func(obj, old T)) func(obj, old runtime.Object) {
	return func(obj, old runtime.Object) {
		o, ok := obj.(T)
		p, okOld := old.(T)
		if ok && okOld {
			f(o, p)
		}
	}
}

// typedTimed adapts a create hook that reads the clock.
func typedTimed[T runtime.Object](f func(obj T, now metav1.Time)) func(runtime.Object, metav1.Time) {
	return func(obj runtime.Object, now metav1.Time) {
		if o, ok := obj.(T); ok {
			f(o, now)
		}
	}
}

// typedStatus adapts a status update hook that reads the clock.
func typedStatus[T runtime.Object](f func(obj, old T, now metav1.Time)) func(obj, old runtime.Object, now metav1.Time) {
	return func(obj, old runtime.Object, now metav1.Time) {
		o, ok := obj.(T)
		p, okOld := old.(T)
		if ok && okOld {
			f(o, p, now)
		}
	}
}

// gk is a GroupKind literal.
func gk(group, kind string) schema.GroupKind { return schema.GroupKind{Group: group, Kind: kind} }
