package kinds

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/lw-sim/lw-sim/fakeapiserver/internal/defaults"
	"github.com/lw-sim/lw-sim/fakeapiserver/internal/validation"
)

// namespaceKinds: kubernetes pkg/registry/core/namespace/strategy.go.
// Defaults: internal/defaults defaults.go (the metadata.name label);
// validation: internal/validation core.go, namespace_finalize.go; printer:
// internal/tables printers_core.go; field labels: internal/fieldlabels.
// The finalize subresource and the terminating delete are the server's
// (subresource_finalize.go, write_delete.go).
var namespaceKinds = []kind{
	{gk("", "Namespace"), Strategy{
		Default:          typed(defaults.Namespace),
		Validate:         validation.Namespace,
		ClusterScoped:    true,
		ShortNames:       []string{"ns"},
		PrepareForCreate: typedTimed(func(ns *corev1.Namespace, _ metav1.Time) { defaults.NamespaceForCreate(ns) }),
		PrepareForUpdate: typedUpdate(keepNamespaceFinalizers),
		Subresources:     []string{"finalize"},
		HoldsDeletion:    namespaceFinalizing,
	}},
}

// keepNamespaceFinalizers is namespaceStrategy.PrepareForUpdate's other
// half (the status is kept for every kind with one): an update of the
// main resource keeps spec.finalizers, which only the finalize
// subresource changes.
func keepNamespaceFinalizers(ns, old *corev1.Namespace) {
	ns.Spec.Finalizers = old.Spec.Finalizers
}

// namespaceFinalizing reports whether a Namespace still has
// spec.finalizers, which keep it from being deleted by an update
// (kubernetes pkg/registry/core/namespace/storage
// ShouldDeleteNamespaceDuringUpdate).
func namespaceFinalizing(obj runtime.Object) bool {
	ns, ok := obj.(*corev1.Namespace)
	return ok && len(ns.Spec.Finalizers) > 0
}
