package kinds

import (
	"fmt"
	"net/netip"
	"slices"

	corev1 "k8s.io/api/core/v1"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	netutils "k8s.io/utils/net"

	"github.com/lw-sim/lw-sim/fakeapiserver/internal/defaults"
	"github.com/lw-sim/lw-sim/fakeapiserver/internal/validation"
)

// serviceKinds: kubernetes pkg/registry/core/service/strategy.go and
// endpoint/strategy.go. Defaults: internal/defaults service.go, simple.go;
// validation: internal/validation core.go, service_status.go; printers:
// internal/tables printers_core.go. A Service's cluster IP and node ports
// are allocated by the server before validation and released after the
// write (service_prepare.go, service_alloc.go: what is in use is read from
// the stored Services); the rules below, pure functions of the Service
// and the stored one, are what that allocation runs first.
var serviceKinds = []kind{
	{gk("", "Service"), Strategy{
		Default:        typed(defaults.Service),
		Validate:       validation.TypedCreate(validation.Service),
		ValidateStatus: validation.TypedPair(validation.ServiceStatus),
		ShortNames:     []string{"svc"},
	}},
	{gk("", "Endpoints"), Strategy{
		Default:    typed(defaults.Endpoints),
		ShortNames: []string{"ep"},
	}},
}

// What the service REST does to an update before allocating (kubernetes
// pkg/registry/core/service/storage/storage.go and strategy.go), so that
// re-sending a Service without its allocated values keeps them.

// PatchAllocatedValues keeps the old cluster IPs, node ports (matched by
// port name) and health check node port an update leaves out, where both
// sides need them.
func PatchAllocatedValues(svc, old *corev1.Service) {
	if needsClusterIP(old) && needsClusterIP(svc) {
		if svc.Spec.ClusterIP == "" {
			svc.Spec.ClusterIP = old.Spec.ClusterIP
		}
		if len(svc.Spec.ClusterIPs) == 0 && len(old.Spec.ClusterIPs) > 0 {
			svc.Spec.ClusterIPs = slices.Clone(old.Spec.ClusterIPs)
		}
	}
	if needsNodePort(old) && needsNodePort(svc) {
		used := map[int32]bool{}
		oldPorts := nodePortsOf(old)
		for _, p := range nodePortsOf(svc) {
			if slices.Contains(oldPorts, p) {
				used[p] = true
			}
		}
		byName := map[string]int32{}
		for _, p := range old.Spec.Ports {
			byName[p.Name] = p.NodePort
		}
		for i := range svc.Spec.Ports {
			p := &svc.Spec.Ports[i]
			if p.NodePort == 0 && !used[byName[p.Name]] {
				p.NodePort = byName[p.Name]
			}
		}
	}
	if NeedsHealthCheck(old) && NeedsHealthCheck(svc) && svc.Spec.HealthCheckNodePort == 0 {
		svc.Spec.HealthCheckNodePort = old.Spec.HealthCheckNodePort
	}
}

// NormalizeClusterIPs keeps clusterIP and clusterIPs in step: a create
// naming only clusterIP gets clusterIPs from it; an update that drops
// clusterIPs but keeps clusterIP keeps them, one that clears clusterIP
// alone clears both, one that changes clusterIP alone changes both.
func NormalizeClusterIPs(svc, old *corev1.Service) {
	spec := &svc.Spec
	if old == nil {
		if spec.ClusterIP != "" && len(spec.ClusterIPs) == 0 {
			spec.ClusterIPs = []string{spec.ClusterIP}
		}
		return
	}
	if len(old.Spec.ClusterIPs) > 0 && len(spec.ClusterIPs) == 0 && old.Spec.ClusterIP == spec.ClusterIP {
		spec.ClusterIPs = slices.Clone(old.Spec.ClusterIPs)
	}
	if old.Spec.ClusterIP != spec.ClusterIP && slices.Equal(old.Spec.ClusterIPs, spec.ClusterIPs) {
		if spec.ClusterIP == "" {
			spec.ClusterIPs = nil
		} else {
			spec.ClusterIPs = []string{spec.ClusterIP}
		}
	}
}

// DropTypeDependentFields is the strategy's: a change to ExternalName
// clears the IP fields it left as they were, a change to a type without
// node ports clears the unchanged node ports, and the health check node
// port goes when no longer needed.
func DropTypeDependentFields(svc, old *corev1.Service) {
	spec := &svc.Spec
	if needsClusterIP(old) && !needsClusterIP(svc) {
		if slices.Equal(old.Spec.ClusterIPs, spec.ClusterIPs) {
			spec.ClusterIP, spec.ClusterIPs = "", nil
		}
		if slices.Equal(old.Spec.IPFamilies, spec.IPFamilies) {
			spec.IPFamilies = nil
		}
		if (old.Spec.IPFamilyPolicy == nil) == (spec.IPFamilyPolicy == nil) &&
			(spec.IPFamilyPolicy == nil || *spec.IPFamilyPolicy == *old.Spec.IPFamilyPolicy) {
			spec.IPFamilyPolicy = nil
		}
	}
	if needsNodePort(old) && !needsNodePort(svc) && slices.Equal(nodePortsOf(old), nodePortsOf(svc)) {
		for i := range spec.Ports {
			spec.Ports[i].NodePort = 0
		}
	}
	if NeedsHealthCheck(old) && !NeedsHealthCheck(svc) && spec.HealthCheckNodePort == old.Spec.HealthCheckNodePort {
		spec.HealthCheckNodePort = 0
	}
}

// needsClusterIP: every type but ExternalName.
func needsClusterIP(svc *corev1.Service) bool { return svc.Spec.Type != corev1.ServiceTypeExternalName }

// needsNodePort: NodePort, or LoadBalancer allocating node ports.
func needsNodePort(svc *corev1.Service) bool { return ShouldAllocateNodePorts(svc) }

// nodePortsOf lists the set node ports, in port order.
func nodePortsOf(svc *corev1.Service) []int32 {
	var out []int32
	for _, p := range svc.Spec.Ports {
		if p.NodePort != 0 {
			out = append(out, p.NodePort)
		}
	}
	return out
}

// parseIP parses an IP as the API accepts it.
func parseIP(s string) (netip.Addr, error) { return netip.ParseAddr(s) }

// The IP family policies and families a Service may name
// (core validation's supportedServiceIPFamilyPolicy, supportedServiceIPFamily).
var (
	serviceIPFamilyPolicies = []string{string(corev1.IPFamilyPolicyPreferDualStack), string(corev1.IPFamilyPolicyRequireDualStack), string(corev1.IPFamilyPolicySingleStack)}
	serviceIPFamilies       = []string{string(corev1.IPv4Protocol), string(corev1.IPv6Protocol)}
)

// ValidateClusterIPsFields is core validation's
// ValidateServiceClusterIPsRelatedFields, which the allocation runs
// before anything else (alloc.go initIPFamilyFields): clusterIP and
// clusterIPs agree, families and policy are known values, each cluster IP
// is a valid IP (an IP already stored may stay) or a lone "None", at most
// one per family, each of the family ipFamilies names.
func ValidateClusterIPsFields(svc, old *corev1.Service) field.ErrorList {
	spec := &svc.Spec
	if spec.Type == corev1.ServiceTypeExternalName {
		return nil
	}
	ipsPath, famPath := field.NewPath("spec", "clusterIPs"), field.NewPath("spec", "ipFamilies")
	var errs field.ErrorList
	switch {
	case spec.ClusterIP != "" && len(spec.ClusterIPs) == 0:
		errs = append(errs, field.Required(ipsPath, ""))
	case spec.ClusterIP != "" && spec.ClusterIPs[0] != spec.ClusterIP:
		errs = append(errs, field.Invalid(ipsPath, spec.ClusterIPs, "first value must match `clusterIP`"))
	case spec.ClusterIP == "" && len(spec.ClusterIPs) != 0:
		errs = append(errs, field.Invalid(ipsPath, spec.ClusterIPs, "must be empty when `clusterIP` is not specified"))
	}
	seen := map[corev1.IPFamily]bool{}
	for i, fam := range spec.IPFamilies {
		if !slices.Contains(serviceIPFamilies, string(fam)) {
			errs = append(errs, field.NotSupported(famPath.Index(i), fam, serviceIPFamilies))
		}
		if seen[fam] {
			errs = append(errs, field.Duplicate(famPath.Index(i), fam))
		}
		seen[fam] = true
	}
	if p := spec.IPFamilyPolicy; p != nil && !slices.Contains(serviceIPFamilyPolicies, string(*p)) {
		errs = append(errs, field.NotSupported(field.NewPath("spec", "ipFamilyPolicy"), p, serviceIPFamilyPolicies))
	}
	var existing []string
	if old != nil {
		existing = old.Spec.ClusterIPs
	}
	invalidIPs := false
	for i, ip := range spec.ClusterIPs {
		if i == 0 && ip == corev1.ClusterIPNone {
			if len(spec.ClusterIPs) > 1 {
				invalidIPs = true
				errs = append(errs, field.Invalid(ipsPath, spec.ClusterIPs, "'None' must be the first and only value"))
			}
			continue
		}
		// StrictIPCIDRValidation is on by default since v1.36.
		msgs := utilvalidation.IsValidIPForLegacyField(ipsPath.Index(i), ip, true, existing)
		invalidIPs = invalidIPs || len(msgs) > 0
		errs = append(errs, msgs...)
	}
	if len(spec.ClusterIPs) > 2 {
		errs = append(errs, field.Invalid(ipsPath, spec.ClusterIPs, "may only hold up to 2 values"))
	}
	if invalidIPs {
		return errs
	}
	if len(spec.ClusterIPs) > 1 {
		if dual, err := netutils.IsDualStackIPStrings(spec.ClusterIPs); err != nil || !dual {
			errs = append(errs, field.Invalid(ipsPath, spec.ClusterIPs, "may specify no more than one IP for each IP family"))
		}
	}
	headless := len(spec.ClusterIPs) == 1 && spec.ClusterIPs[0] == corev1.ClusterIPNone
	for i, ip := range spec.ClusterIPs {
		if headless || i >= len(spec.IPFamilies) {
			break
		}
		switch v6 := netutils.IsIPv6String(ip); {
		case spec.IPFamilies[i] == corev1.IPv4Protocol && v6:
			errs = append(errs, field.Invalid(ipsPath.Index(i), ip, fmt.Sprintf("expected an IPv4 value as indicated by `ipFamilies[%v]`", i)))
		case spec.IPFamilies[i] == corev1.IPv6Protocol && !v6:
			errs = append(errs, field.Invalid(ipsPath.Index(i), ip, fmt.Sprintf("expected an IPv6 value as indicated by `ipFamilies[%v]`", i)))
		}
	}
	return errs
}

// NeedsHealthCheck is service.NeedsHealthCheck: LoadBalancer with
// externalTrafficPolicy Local.
func NeedsHealthCheck(svc *corev1.Service) bool {
	return svc.Spec.Type == corev1.ServiceTypeLoadBalancer && svc.Spec.ExternalTrafficPolicy == corev1.ServiceExternalTrafficPolicyLocal
}

// ShouldAllocateNodePorts: NodePort, or LoadBalancer unless
// allocateLoadBalancerNodePorts is false.
func ShouldAllocateNodePorts(svc *corev1.Service) bool {
	switch svc.Spec.Type {
	case corev1.ServiceTypeNodePort:
		return true
	case corev1.ServiceTypeLoadBalancer:
		return svc.Spec.AllocateLoadBalancerNodePorts == nil || *svc.Spec.AllocateLoadBalancerNodePorts
	}
	return false
}

// FamilyOf is the family of an IP string ("unknown" if it is none).
func FamilyOf(ip string) corev1.IPFamily {
	if a, err := parseIP(ip); err == nil {
		if a.Is4() {
			return corev1.IPv4Protocol
		}
		return corev1.IPv6Protocol
	}
	return corev1.IPFamily("unknown")
}
