package validation

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	netutils "k8s.io/utils/net"
)

// supportedIPModes are the load-balancer ingress ipModes, sorted as the
// NotSupported message lists them.
var supportedIPModes = []string{string(corev1.LoadBalancerIPModeProxy), string(corev1.LoadBalancerIPModeVIP)}

// ServiceStatus is core validation's
// ValidateServiceStatusUpdate: the metadata update, then the load-balancer
// status. spec.type is the stored one: a status write keeps the spec.
func ServiceStatus(svc, o *corev1.Service) field.ErrorList {
	errs := MetaUpdate(svc, o)
	return append(errs, validateLoadBalancerStatus(svc.Status.LoadBalancer, o.Status.LoadBalancer,
		statusPath.Child("loadBalancer"), svc.Spec.Type)...)
}

// validateLoadBalancerStatus is core validation's ValidateLoadBalancerStatus:
// ingress only on a LoadBalancer Service; each ingress a valid new IP (an
// IP already stored may stay), an ipMode exactly when there is an IP, and
// a hostname that is a DNS subdomain and not an IP. Ingress ports are not
// checked, as on kube-apiserver.
func validateLoadBalancerStatus(s, old corev1.LoadBalancerStatus, path *field.Path, typ corev1.ServiceType) field.ErrorList {
	ingressPath := path.Child("ingress")
	if typ != corev1.ServiceTypeLoadBalancer && len(s.Ingress) != 0 {
		return field.ErrorList{field.Forbidden(ingressPath, "may only be used when `spec.type` is 'LoadBalancer'")}
	}
	var oldIPs []string
	for _, ing := range old.Ingress {
		if ing.IP != "" {
			oldIPs = append(oldIPs, ing.IP)
		}
	}
	var errs field.ErrorList
	for i, ing := range s.Ingress {
		errs = append(errs, validateIngress(ing, ingressPath.Index(i), oldIPs)...)
	}
	return errs
}

// validateIngress checks one load-balancer ingress point.
func validateIngress(ing corev1.LoadBalancerIngress, path *field.Path, oldIPs []string) field.ErrorList {
	var errs field.ErrorList
	if ing.IP != "" {
		// StrictIPCIDRValidation is on by default since v1.36.
		errs = append(errs, validation.IsValidIPForLegacyField(path.Child("ip"), ing.IP, true, oldIPs)...)
	}
	switch {
	case ing.IPMode == nil:
		// Unreachable through the API for a LoadBalancer Service: defaulting
		// sets VIP (defaults.Service); kept as the real check is.
		if ing.IP != "" {
			errs = append(errs, field.Required(path.Child("ipMode"), "must be specified when `ip` is set"))
		}
	case ing.IP == "":
		errs = append(errs, field.Forbidden(path.Child("ipMode"), "may not be specified when `ip` is not set"))
	case *ing.IPMode != corev1.LoadBalancerIPModeVIP && *ing.IPMode != corev1.LoadBalancerIPModeProxy:
		errs = append(errs, field.NotSupported(path.Child("ipMode"), string(*ing.IPMode), supportedIPModes))
	}
	if ing.Hostname != "" {
		for _, msg := range validation.IsDNS1123Subdomain(ing.Hostname) {
			errs = append(errs, field.Invalid(path.Child("hostname"), ing.Hostname, msg))
		}
		if netutils.ParseIPSloppy(ing.Hostname) != nil {
			errs = append(errs, field.Invalid(path.Child("hostname"), ing.Hostname, "must be a DNS name, not an IP address"))
		}
	}
	return errs
}
