package validation

import (
	corev1 "k8s.io/api/core/v1"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	netutils "k8s.io/utils/net"
)

// systemPodConditions are the condition types whose names need not be
// qualified (core validation's validatePodConditions).
var systemPodConditions = map[corev1.PodConditionType]bool{
	corev1.PodScheduled: true, corev1.PodReady: true, corev1.PodInitialized: true,
}

// validatePodStatusUpdate is core validation's ValidatePodStatusUpdate for
// what tests write into a pod's status: the metadata update, condition
// types and observedGenerations, nominatedNodeName, observedGeneration,
// an immutable qosClass, and the pod and host IPs. Container state
// transitions, resource claim statuses, volume health and the allocated
// resources of container statuses are not checked. spec.nodeName cannot
// change here: a status write keeps the stored spec.
func validatePodStatusUpdate(obj, old runtime.Object) field.ErrorList {
	pod, ok := obj.(*corev1.Pod)
	o, okOld := old.(*corev1.Pod)
	if !ok || !okOld {
		return MetaUpdate(obj, old)
	}
	s, os := pod.Status, o.Status
	errs := MetaUpdate(obj, old)
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
	errs = append(errs, validatePodIPs(s, os)...)
	return append(errs, validateHostIPs(s, os)...)
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
