package validation

import (
	corev1 "k8s.io/api/core/v1"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	netutils "k8s.io/utils/net"
)

// systemPodConditions are the condition types whose names need not be
// qualified (core validation's validatePodConditions).
var systemPodConditions = map[corev1.PodConditionType]bool{
	corev1.PodScheduled: true, corev1.PodReady: true, corev1.PodInitialized: true,
}

// PodStatus is core validation's ValidatePodStatusUpdate as
// the pod status strategy runs it with v1.37's default feature gates: the
// metadata update, the pod annotation rules (pod_annotations.go),
// condition types and observedGenerations,
// nominatedNodeName, observedGeneration, an immutable qosClass, container
// state transitions (pod_status_transitions.go), resource claim statuses
// and the extended resource claim status (pod_status_claims.go), the pod
// and host IPs, and the reported users and allocatedResourcesStatus of
// container statuses (pod_status_containers.go). spec.nodeName cannot
// change here: a status write keeps the stored spec, which the checks
// read.
//
// A status write stores the request's labels and annotations (not its
// ownerReferences: keepStatusMetadata), so the annotation rules are
// reachable: the mirror pod and AppArmor annotations may not be added,
// changed or removed. Gated off in v1.37,
// and dropped before validation by the real server and by
// preparePodStatus: volumeHealth (CSIVolumeHealth),
// nodeAllocatableResourceClaimStatuses (DRANodeAllocatableResources) and
// the volumeStatus of container volume mounts (ImageVolumeWithDigest).
func PodStatus(pod, o *corev1.Pod) field.ErrorList {
	s, os := pod.Status, o.Status
	errs := MetaUpdate(pod, o)
	errs = append(errs, validatePodAnnotationUpdates(pod, o)...)
	errs = append(errs, validatePodConditions(s.Conditions)...)
	if s.NominatedNodeName != os.NominatedNodeName && s.NominatedNodeName != "" {
		for _, msg := range apimachineryvalidation.NameIsDNSSubdomain(s.NominatedNodeName, false) {
			errs = append(errs, field.Invalid(statusPath.Child("nominatedNodeName"), s.NominatedNodeName, msg))
		}
		// ClearingNominatedNodeNameAfterBinding, on by default since v1.35.
		if o.Spec.NodeName != "" {
			errs = append(errs, field.Forbidden(statusPath.Child("nominatedNodeName"), "may not be set on pods that are already bound to a node"))
		}
	}
	if s.ObservedGeneration < 0 {
		errs = append(errs, field.Invalid(statusPath.Child("observedGeneration"), s.ObservedGeneration, "must be a non-negative integer"))
	}
	errs = append(errs, apimachineryvalidation.ValidateImmutableField(s.QOSClass, os.QOSClass, statusPath.Child("qosClass"))...)
	errs = append(errs, validateContainerStatuses(pod, o)...)
	errs = append(errs, validatePodIPs(s, os)...)
	errs = append(errs, validateHostIPs(s, os)...)
	return append(errs, validateContainerStatusFields(pod)...)
}

// validateContainerStatuses is the part of ValidatePodStatusUpdate between
// qosClass and the IPs: state transitions against the stored statuses,
// then the DRA claim statuses.
func validateContainerStatuses(pod, old *corev1.Pod) field.ErrorList {
	s, os, spec := pod.Status, old.Status, &old.Spec
	errs := validateStateTransitions(s.ContainerStatuses, os.ContainerStatuses, statusPath.Child("containerStatuses"), spec, spec.Containers)
	errs = append(errs, validateStateTransitions(s.InitContainerStatuses, os.InitContainerStatuses, statusPath.Child("initContainerStatuses"), spec, spec.InitContainers)...)
	errs = append(errs, validateEphemeralStateTransitions(s.EphemeralContainerStatuses, os.EphemeralContainerStatuses, statusPath.Child("ephemeralContainerStatuses"))...)
	errs = append(errs, validatePodResourceClaimStatuses(s.ResourceClaimStatuses, pod.Spec.ResourceClaims, statusPath.Child("resourceClaimStatuses"))...)
	return append(errs, validateExtendedResourceClaimStatus(s.ExtendedResourceClaimStatus, &pod.Spec, statusPath.Child("extendedResourceClaimStatus"))...)
}

// validateContainerStatusFields is the end of ValidatePodStatusUpdate:
// the users each container status reports, then their
// allocatedResourcesStatus (none for ephemeral containers).
func validateContainerStatusFields(pod *corev1.Pod) field.ErrorList {
	s, spec := pod.Status, &pod.Spec
	containers, inits, ephemeral := statusPath.Child("containerStatuses"), statusPath.Child("initContainerStatuses"), statusPath.Child("ephemeralContainerStatuses")
	errs := validateContainerStatusUsers(s.ContainerStatuses, containers, spec.OS)
	errs = append(errs, validateContainerStatusUsers(s.InitContainerStatuses, inits, spec.OS)...)
	errs = append(errs, validateContainerStatusUsers(s.EphemeralContainerStatuses, ephemeral, spec.OS)...)
	errs = append(errs, validateAllocatedResourcesStatus(s.ContainerStatuses, containers, spec.Containers, s.ExtendedResourceClaimStatus)...)
	errs = append(errs, validateAllocatedResourcesStatus(s.InitContainerStatuses, inits, spec.InitContainers, s.ExtendedResourceClaimStatus)...)
	return append(errs, validateNoAllocatedResourcesStatus(s.EphemeralContainerStatuses, ephemeral)...)
}

// validatePodConditions is core validation's validatePodConditions. Its
// field name "Type" is capitalised as the real one is.
func validatePodConditions(conditions []corev1.PodCondition) field.ErrorList {
	var errs field.ErrorList
	path := statusPath.Child("conditions")
	for i, c := range conditions {
		if c.ObservedGeneration < 0 {
			errs = append(errs, field.Invalid(path.Index(i).Child("observedGeneration"), c.ObservedGeneration, "must be a non-negative integer"))
		}
		if systemPodConditions[c.Type] {
			continue
		}
		for _, msg := range validation.IsQualifiedName(string(c.Type)) {
			errs = append(errs, field.Invalid(path.Index(i).Child("Type"), c.Type, msg))
		}
	}
	return errs
}

// validIPs checks each new IP (an IP already stored may stay invalid) and
// that more than one IP is a dual-stack pair.
func validIPs(path *field.Path, ips, oldIPs []string, value any) field.ErrorList {
	var errs field.ErrorList
	for i, ip := range ips {
		// StrictIPCIDRValidation is on by default since v1.36.
		errs = append(errs, validation.IsValidIPForLegacyField(path.Index(i), ip, true, oldIPs)...)
	}
	if len(ips) > 1 {
		dualStack, err := netutils.IsDualStackIPStrings(ips)
		if err != nil {
			errs = append(errs, field.InternalError(path, err))
		}
		if !dualStack || len(ips) > 2 {
			errs = append(errs, field.Invalid(path, value, "may specify no more than one IP for each IP family"))
		}
	}
	return errs
}

// validatePodIPs is core validation's validatePodIPs (podIP and podIPs
// agree once defaulted, see defaults.Pod).
func validatePodIPs(s, os corev1.PodStatus) field.ErrorList {
	path := statusPath.Child("podIPs")
	errs := validIPs(path, podIPStrings(s.PodIPs), podIPStrings(os.PodIPs), s.PodIPs)
	switch {
	case (s.PodIP != "") != (len(s.PodIPs) > 0):
		errs = append(errs, field.Invalid(path, s.PodIPs, "podIP and podIPs must either both be set or both be unset"))
	case len(s.PodIPs) > 0 && s.PodIP != s.PodIPs[0].IP:
		errs = append(errs, field.Invalid(path.Index(0).Child("ip"), s.PodIPs[0].IP, "must be equal to `podIP`"))
	}
	return errs
}

// validateHostIPs is core validation's validateHostIPs.
func validateHostIPs(s, os corev1.PodStatus) field.ErrorList {
	if len(s.HostIPs) == 0 {
		return nil
	}
	path := statusPath.Child("hostIPs")
	var errs field.ErrorList
	if s.HostIP != s.HostIPs[0].IP {
		errs = append(errs, field.Invalid(path.Index(0).Child("ip"), s.HostIPs[0].IP, "must be equal to `hostIP`"))
	}
	return append(errs, validIPs(path, hostIPStrings(s.HostIPs), hostIPStrings(os.HostIPs), s.HostIPs)...)
}

// podIPStrings are the addresses of ips.
func podIPStrings(ips []corev1.PodIP) []string {
	out := make([]string, len(ips))
	for i, ip := range ips {
		out[i] = ip.IP
	}
	return out
}

// hostIPStrings are the addresses of ips.
func hostIPStrings(ips []corev1.HostIP) []string {
	out := make([]string, len(ips))
	for i, ip := range ips {
		out[i] = ip.IP
	}
	return out
}
