package fakeapiserver

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// prepareStatusUpdate is the part of a status strategy's PrepareForUpdate
// that fills what a status write left out from the stored object (the
// copy of the status onto the stored object is copyStatus). next is the
// object about to be validated and stored, old the stored one.
func prepareStatusUpdate(next, old runtime.Object) {
	if p, ok := next.(*corev1.Pod); ok {
		if o, ok := old.(*corev1.Pod); ok {
			preparePodStatus(&p.Status, &o.Status)
		}
	}
}

// preparePodStatus is podStatusStrategy.PrepareForUpdate: a qosClass
// left out is backfilled (old kubelets dropped it; it is immutable), and so
// are observedGeneration and each condition's observedGeneration
// (preserveOldObservedGeneration: conditions of one type in order).
func preparePodStatus(s, old *corev1.PodStatus) {
	if s.QOSClass == "" {
		s.QOSClass = old.QOSClass
	}
	if s.ObservedGeneration == 0 {
		s.ObservedGeneration = old.ObservedGeneration
	}
	oldGenerations := map[corev1.PodConditionType][]int64{}
	for _, c := range old.Conditions {
		oldGenerations[c.Type] = append(oldGenerations[c.Type], c.ObservedGeneration)
	}
	for i, c := range s.Conditions {
		var gen int64
		if gens := oldGenerations[c.Type]; len(gens) > 0 {
			gen, oldGenerations[c.Type] = gens[0], gens[1:]
		}
		if c.ObservedGeneration == 0 {
			s.Conditions[i].ObservedGeneration = gen
		}
	}
}
