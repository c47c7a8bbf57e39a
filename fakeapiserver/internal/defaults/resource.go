package defaults

import (
	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
)

// The resource.k8s.io/v1 request defaults (kubernetes pkg/apis/resource/v1
// defaults.go SetDefaults_ExactDeviceRequest and SetDefaults_DeviceSubRequest,
// walked as SetObjectDefaults_ResourceClaim and _ResourceClaimTemplate walk
// them). A device taint's timeAdded, which the real decoder stamps with the
// wall clock, is not filled in (conformance/DIVERGENCES.md).

// ResourceClaim defaults its requests and its allocation's tolerations.
func ResourceClaim(c *resourcev1.ResourceClaim) {
	deviceRequests(c.Spec.Devices.Requests)
	if a := c.Status.Allocation; a != nil {
		for i := range a.Devices.Results {
			tolerationOperators(a.Devices.Results[i].Tolerations)
		}
	}
}

// ResourceClaimTemplate defaults its claim spec's requests.
func ResourceClaimTemplate(t *resourcev1.ResourceClaimTemplate) {
	deviceRequests(t.Spec.Spec.Devices.Requests)
}

// deviceRequests gives exact and first-available requests allocation mode
// ExactCount, a count of 1 in that mode, and tolerations operator Equal.
func deviceRequests(reqs []resourcev1.DeviceRequest) {
	for i := range reqs {
		if e := reqs[i].Exactly; e != nil {
			exactCount(&e.AllocationMode, &e.Count)
			tolerationOperators(e.Tolerations)
		}
		for j := range reqs[i].FirstAvailable {
			sub := &reqs[i].FirstAvailable[j]
			exactCount(&sub.AllocationMode, &sub.Count)
			tolerationOperators(sub.Tolerations)
		}
	}
}

// exactCount is the allocation mode and count rule of both request kinds.
func exactCount(mode *resourcev1.DeviceAllocationMode, count *int64) {
	if *mode == "" {
		*mode = resourcev1.DeviceAllocationModeExactCount
	}
	if *mode == resourcev1.DeviceAllocationModeExactCount && *count == 0 {
		*count = 1
	}
}

// tolerationOperators gives each toleration operator Equal.
func tolerationOperators(ts []resourcev1.DeviceToleration) {
	for i := range ts {
		if ts[i].Operator == "" {
			ts[i].Operator = resourcev1.DeviceTolerationOperator(corev1.TolerationOpEqual)
		}
	}
}
