package fakeapiserver

import (
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	netutils "k8s.io/utils/net"
)

// The IP family policies and families a Service may name
// (core validation's supportedServiceIPFamilyPolicy, supportedServiceIPFamily).
var (
	serviceIPFamilyPolicies = []string{string(corev1.IPFamilyPolicyPreferDualStack), string(corev1.IPFamilyPolicyRequireDualStack), string(corev1.IPFamilyPolicySingleStack)}
	serviceIPFamilies       = []string{string(corev1.IPv4Protocol), string(corev1.IPv6Protocol)}
)

// validateClusterIPsFields is core validation's
// ValidateServiceClusterIPsRelatedFields, which the allocation runs
// before anything else (alloc.go initIPFamilyFields): clusterIP and
// clusterIPs agree, families and policy are known values, each cluster IP
// is a valid IP (an IP already stored may stay) or a lone "None", at most
// one per family, each of the family ipFamilies names.
func validateClusterIPsFields(svc, old *corev1.Service) field.ErrorList {
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
		msgs := validation.IsValidIPForLegacyField(ipsPath.Index(i), ip, true, existing)
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
