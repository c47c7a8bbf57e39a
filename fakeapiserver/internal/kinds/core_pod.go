package kinds

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/lw-sim/lw-sim/fakeapiserver/internal/defaults"
	"github.com/lw-sim/lw-sim/fakeapiserver/internal/validation"
)

// defaultPodGracePeriod is the grace a pod without
// terminationGracePeriodSeconds gets (core/v1 DefaultTerminationGracePeriodSeconds).
const defaultPodGracePeriod = 30

// podKinds: kubernetes pkg/registry/core/pod/strategy.go and
// podtemplate/strategy.go. Defaults: defaults.Pod, PodTemplate
// (internal/defaults pod.go, template.go); validation: internal/validation
// pod.go, pod_status.go; printer: internal/tables printers_pod.go; field
// labels: internal/fieldlabels (Pod).
var podKinds = []kind{
	{gk("", "Pod"), Strategy{
		Default:                typed(defaults.Pod),
		Validate:               validation.TypedCreate(validation.Pod),
		ValidateStatus:         validation.TypedPair(validation.PodStatus),
		ShortNames:             []string{"po"},
		TracksGeneration:       true, // since 1.35
		ReturnsDeletedObject:   true,
		PrepareForCreate:       typedTimed(preparePodForCreate),
		PrepareForStatusUpdate: typedStatus(preparePodStatusUpdate),
		ResetFields: ResetFields{Status: []fieldpath.Path{
			fieldpath.MakePathOrDie("metadata", "deletionTimestamp"),
			fieldpath.MakePathOrDie("metadata", "ownerReferences"),
		}},
		Subresources:   []string{"binding", "eviction"},
		GracefulDelete: podGracePeriod,
	}},
	// A PodTemplate's desired state is its template, which its strategy's
	// PrepareForUpdate compares for the generation.
	{gk("", "PodTemplate"), Strategy{
		Default:          typed(defaults.PodTemplateObject),
		TracksGeneration: true,
	}},
}

// preparePodForCreate is podStrategy.PrepareForCreate after the server
// zeroed the status: phase Pending, the QoS class, and the default
// mutating admission plugins (defaults.PodForCreate).
func preparePodForCreate(pod *corev1.Pod, _ metav1.Time) {
	pod.Status.Phase = corev1.PodPending
	defaults.PodForCreate(pod)
}

// podGracePeriod is the pod strategy's CheckGracefulDelete: pods that are
// scheduled and not terminal wait the requested grace, else their
// terminationGracePeriodSeconds, else 30 s; others are deleted at once
// (after being marked, as every pod is).
func podGracePeriod(obj runtime.Object, requested *int64) int64 {
	pod, ok := obj.(*corev1.Pod)
	if !ok || pod.Spec.NodeName == "" || pod.Status.Phase == corev1.PodSucceeded || pod.Status.Phase == corev1.PodFailed {
		return 0
	}
	switch {
	case requested != nil:
		return *requested
	case pod.Spec.TerminationGracePeriodSeconds != nil:
		return *pod.Spec.TerminationGracePeriodSeconds
	}
	return defaultPodGracePeriod
}

// preparePodStatusUpdate is podStatusStrategy.PrepareForUpdate: a qosClass
// left out is backfilled (old kubelets dropped it; it is immutable), and so
// are the DRA status fields, observedGeneration and each condition's
// observedGeneration (preserveOldObservedGeneration: conditions of one
// type in order); the fields of gated-off features are dropped.
func preparePodStatusUpdate(pod, oldPod *corev1.Pod, _ metav1.Time) {
	s, old := &pod.Status, &oldPod.Status
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
