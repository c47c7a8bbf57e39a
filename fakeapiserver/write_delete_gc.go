package fakeapiserver

import (
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/lw-sim/lw-sim/fakeapiserver/internal/kinds"
)

// gcFinalizers is registry/generic/registry/store.go
// deletionFinalizersForGarbageCollection: the finalizers a DELETE leaves
// on the object so that the garbage collector handles its dependents as
// asked — "orphan" (orphan them), "foregroundDeletion" (delete them
// first) or neither (background: the collector deletes them after the
// owner is gone). kube-apiserver adds these whether or not a garbage
// collector runs (its --enable-garbage-collector defaults to true), so
// without one (envtest, or lw-sim without GarbageCollector) an orphan or
// foreground delete leaves the object marked and in place. changed reports
// whether they differ from the object's, as sets.
func gcFinalizers(policy kinds.GCPolicy, m metav1.Object, opts *metav1.DeleteOptions) (finalizers []string, changed bool) {
	orphan := shouldOrphanDependents(policy, m, opts)
	foreground := shouldDeleteDependents(policy, m, opts)
	// First remove both, then add back what is asked.
	for _, f := range m.GetFinalizers() {
		if f != metav1.FinalizerOrphanDependents && f != metav1.FinalizerDeleteDependents {
			finalizers = append(finalizers, f)
		}
	}
	if orphan {
		finalizers = append(finalizers, metav1.FinalizerOrphanDependents)
	}
	if foreground {
		finalizers = append(finalizers, metav1.FinalizerDeleteDependents)
	}
	if sameSet(finalizers, m.GetFinalizers()) {
		return m.GetFinalizers(), false
	}
	return finalizers, true
}

// shouldOrphanDependents is store.go's: an explicit option wins
// (orphanDependents, then propagationPolicy), then a propagation finalizer
// already on the object, then the kind's default.
func shouldOrphanDependents(policy kinds.GCPolicy, m metav1.Object, opts *metav1.DeleteOptions) bool {
	if policy == kinds.GCUnsupported {
		return false
	}
	//nolint:staticcheck // SA1019: the deprecated option is still honoured, first
	if opts.OrphanDependents != nil {
		return *opts.OrphanDependents //nolint:staticcheck // as above
	}
	if p := opts.PropagationPolicy; p != nil {
		switch *p {
		case metav1.DeletePropagationOrphan:
			return true
		case metav1.DeletePropagationBackground, metav1.DeletePropagationForeground:
			return false
		}
	}
	for _, f := range m.GetFinalizers() {
		switch f {
		case metav1.FinalizerOrphanDependents:
			return true
		case metav1.FinalizerDeleteDependents:
			return false
		}
	}
	return policy == kinds.GCOrphanDependents
}

// shouldDeleteDependents is store.go's: foreground only when asked (by
// propagationPolicy or a finalizer already there); orphanDependents, even
// false, means not foreground.
func shouldDeleteDependents(policy kinds.GCPolicy, m metav1.Object, opts *metav1.DeleteOptions) bool {
	if policy == kinds.GCUnsupported {
		return false
	}
	//nolint:staticcheck // SA1019: the deprecated option is still honoured, first
	if opts.OrphanDependents != nil {
		return false
	}
	if p := opts.PropagationPolicy; p != nil {
		switch *p {
		case metav1.DeletePropagationForeground:
			return true
		case metav1.DeletePropagationBackground, metav1.DeletePropagationOrphan:
			return false
		}
	}
	for _, f := range m.GetFinalizers() {
		switch f {
		case metav1.FinalizerDeleteDependents:
			return true
		case metav1.FinalizerOrphanDependents:
			return false
		}
	}
	return false
}

// sameSet reports whether a and b hold the same strings (sets.String's
// Equal, which the store compares finalizers with).
func sameSet(a, b []string) bool {
	for _, x := range a {
		if !slices.Contains(b, x) {
			return false
		}
	}
	for _, x := range b {
		if !slices.Contains(a, x) {
			return false
		}
	}
	return true
}
