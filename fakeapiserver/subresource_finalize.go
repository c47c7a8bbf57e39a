package fakeapiserver

import (
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
)

// The finalize subresource of Namespaces (namespaces/NAME/finalize, what
// the namespace controller and client-go's Namespaces().Finalize write):
// PUT of the whole object, which replaces spec.finalizers (and the
// metadata) but keeps the status, as FinalizeREST's strategy does
// (kubernetes pkg/registry/core/namespace/strategy.go
// namespaceFinalizeStrategy, validated by ValidateNamespaceFinalizeUpdate).
// It shares the update handler; an update that leaves a Terminating
// namespace without finalizers deletes it (ShouldDeleteNamespaceDuringUpdate,
// write_update.go). lw-sim runs no namespace controller, as kube-apiserver
// alone does not: whoever finalizes a namespace (a test, an envtest shim)
// deletes it so.

// isFinalize reports whether the request is for the finalize subresource.
func (req *request) isFinalize() bool { return req.info.subresource == "finalize" }

// finalizeResetFields is the exclude filter of the finalize endpoint's
// field manager (namespaceFinalizeStrategy.GetResetFields): the status.
func finalizeResetFields(info *resourceInfo) map[fieldpath.APIVersion]fieldpath.Filter {
	v := fieldpath.APIVersion(info.Kind.GroupVersion().String())
	return fieldpath.NewExcludeFilterSetMap(map[fieldpath.APIVersion]*fieldpath.Set{v: fieldpath.NewSet(fieldpath.MakePathOrDie("status"))})
}
