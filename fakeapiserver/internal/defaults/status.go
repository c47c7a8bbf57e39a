package defaults

import (
	corev1 "k8s.io/api/core/v1"
)

// milliScale is the scale SetDefaults_ResourceList rounds quantities up to.
const milliScale = -3

// serviceStatus is the status part of SetDefaults_Service: on a
// LoadBalancer Service, an ingress point with an IP and no ipMode gets
// ipMode VIP (LoadBalancerIPMode, GA). This is what a load-balancer
// controller writing only the IP sees stored.
func serviceStatus(svc *corev1.Service) {
	if svc.Spec.Type != corev1.ServiceTypeLoadBalancer {
		return
	}
	for i, ing := range svc.Status.LoadBalancer.Ingress {
		if ing.IP != "" && ing.IPMode == nil {
			vip := corev1.LoadBalancerIPModeVIP
			svc.Status.LoadBalancer.Ingress[i].IPMode = &vip
		}
	}
}

// roundUpToMilli is SetDefaults_ResourceList: every quantity rounded up to
// milli-units (kubernetes#18538 keeps this for API compatibility).
func roundUpToMilli(list corev1.ResourceList) {
	for name, q := range list {
		q.RoundUp(milliScale)
		list[name] = q
	}
}
