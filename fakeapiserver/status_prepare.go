package fakeapiserver

import (
	"reflect"

	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

// keepStatusMetadata gives base, the stored object with the written
// status, the written metadata, as the built-in status strategies do: they
// reset the spec, not the metadata (a label or annotation written through
// /status is stored), except the metadata paths a kind's strategy resets
// too (extraResetFields: a Deployment's labels, a Pod's ownerReferences)
// and all of it for the kinds that call ResetObjectMetaForStatus
// (metadataResetKinds). Custom resources keep the stored metadata: their
// status strategy copies the old object whole. What the server owns
// (uid, creationTimestamp, generation, resourceVersion) prepareUpdate sets
// afterwards.
func keepStatusMetadata(res *resourceInfo, base, next, old runtime.Object) {
	gk := res.Kind.GroupKind()
	if _, ok := base.(*unstructured.Unstructured); ok || metadataResetKinds[gk] {
		return
	}
	dst, src := objectMetaField(base), objectMetaField(next)
	if !dst.IsValid() || !src.IsValid() || dst.Type() != src.Type() {
		return
	}
	om, ok := src.Addr().Interface().(*metav1.ObjectMeta)
	if !ok {
		return
	}
	dst.Set(reflect.ValueOf(*om.DeepCopy()))
	m, o := mustAccessor(base), mustAccessor(old)
	for _, p := range extraResetFields[gk].status {
		if len(p) != 2 || p[0].FieldName == nil || *p[0].FieldName != "metadata" || p[1].FieldName == nil {
			continue
		}
		switch *p[1].FieldName {
		case "labels":
			m.SetLabels(o.GetLabels())
		case "ownerReferences":
			m.SetOwnerReferences(o.GetOwnerReferences())
		case "deletionTimestamp":
			m.SetDeletionTimestamp(o.GetDeletionTimestamp())
		}
	}
}

// objectMetaField returns the ObjectMeta field of a typed object, or the
// zero Value.
func objectMetaField(obj runtime.Object) reflect.Value {
	v := reflect.ValueOf(obj)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return reflect.Value{}
	}
	return v.Elem().FieldByName("ObjectMeta")
}

// prepareStatusUpdate is the part of a status strategy's PrepareForUpdate
// that fills what a status write left out from the stored object (the
// copy of the status onto the stored object is copyStatus). next is the
// object about to be validated and stored, old the stored one, now the
// server's clock.
func prepareStatusUpdate(next, old runtime.Object, now metav1.Time) {
	switch n := next.(type) {
	case *corev1.Pod:
		if o, ok := old.(*corev1.Pod); ok {
			preparePodStatus(&n.Status, &o.Status)
		}
	case *corev1.PersistentVolumeClaim:
		// DropDisabledFieldsFromStatus: healthStatus is CSIVolumeHealth's
		// (alpha, off), kept only if already stored.
		if o, ok := old.(*corev1.PersistentVolumeClaim); ok && o.Status.HealthStatus == nil {
			n.Status.HealthStatus = nil
		}
	case *corev1.PersistentVolume:
		if o, ok := old.(*corev1.PersistentVolume); ok {
			preparePVPhaseTransition(&n.Status, &o.Status, now)
		}
	case *corev1.Node:
		// nodeStatusStrategy.PrepareForUpdate: status.config (the removed
		// dynamic kubelet config) is kept only if already stored.
		if o, ok := old.(*corev1.Node); ok && o.Status.Config == nil {
			n.Status.Config = nil
		}
	case *certificatesv1.CertificateSigningRequest:
		if o, ok := old.(*certificatesv1.CertificateSigningRequest); ok {
			prepareCSRStatus(n, o, now)
		}
	}
}

// preparePVPhaseTransition is persistentvolumeStatusStrategy.PrepareForUpdate:
// a write that keeps the phase and leaves lastPhaseTransitionTime out
// keeps the stored one; a write that changes the phase without setting a
// new time records now.
func preparePVPhaseTransition(s, old *corev1.PersistentVolumeStatus, now metav1.Time) {
	switch {
	case s.Phase == old.Phase && s.LastPhaseTransitionTime == nil:
		s.LastPhaseTransitionTime = old.LastPhaseTransitionTime
	case s.Phase != old.Phase && (s.LastPhaseTransitionTime == nil || s.LastPhaseTransitionTime.Equal(old.LastPhaseTransitionTime)):
		s.LastPhaseTransitionTime = &now
	}
}

// preparePodStatus is podStatusStrategy.PrepareForUpdate: a qosClass
// left out is backfilled (old kubelets dropped it; it is immutable), and so
// are the DRA status fields, observedGeneration and each condition's
// observedGeneration (preserveOldObservedGeneration: conditions of one
// type in order); the fields of gated-off features are dropped.
func preparePodStatus(s, old *corev1.PodStatus) {
	if s.QOSClass == "" {
		s.QOSClass = old.QOSClass
	}
	preserveClaimStatuses(s, old)
	dropDisabledPodStatusFields(s, old)
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

// preserveClaimStatuses keeps the stored DRA status fields a status write
// left out (nil): an old or misbehaving client strips fields it does not
// know. An empty list still clears a list.
func preserveClaimStatuses(s, old *corev1.PodStatus) {
	if s.ResourceClaimStatuses == nil {
		s.ResourceClaimStatuses = old.ResourceClaimStatuses
	}
	if s.ExtendedResourceClaimStatus == nil {
		s.ExtendedResourceClaimStatus = old.ExtendedResourceClaimStatus
	}
	if s.NodeAllocatableResourceClaimStatuses == nil {
		s.NodeAllocatableResourceClaimStatuses = old.NodeAllocatableResourceClaimStatuses
	}
}

// dropDisabledPodStatusFields is the part of podutil's
// dropDisabledPodStatusFields whose features are off by default in v1.37:
// a field is dropped unless the stored status already uses it.
func dropDisabledPodStatusFields(s, old *corev1.PodStatus) {
	// CSIVolumeHealth, alpha.
	if len(old.VolumeHealth) == 0 {
		s.VolumeHealth = nil
	}
	// DRANodeAllocatableResources, alpha.
	if len(old.NodeAllocatableResourceClaimStatuses) == 0 {
		s.NodeAllocatableResourceClaimStatuses = nil
	}
	// ImageVolumeWithDigest, alpha.
	if !volumeStatusInUse(old) {
		for _, statuses := range [][]corev1.ContainerStatus{s.ContainerStatuses, s.InitContainerStatuses, s.EphemeralContainerStatuses} {
			for i := range statuses {
				for j := range statuses[i].VolumeMounts {
					statuses[i].VolumeMounts[j].VolumeStatus = nil
				}
			}
		}
	}
}

// volumeStatusInUse reports whether a container status of s has a volume
// mount with a volumeStatus.
func volumeStatusInUse(s *corev1.PodStatus) bool {
	for _, statuses := range [][]corev1.ContainerStatus{s.ContainerStatuses, s.InitContainerStatuses, s.EphemeralContainerStatuses} {
		for _, c := range statuses {
			for _, m := range c.VolumeMounts {
				if m.VolumeStatus != nil {
					return true
				}
			}
		}
	}
	return false
}
