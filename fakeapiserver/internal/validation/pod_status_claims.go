package validation

import (
	corev1 "k8s.io/api/core/v1"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// validatePodResourceClaimStatuses is core validation's
// validatePodResourceClaimStatuses: each status names an entry of
// spec.resourceClaims, once, and the claim it names is a valid name.
func validatePodResourceClaimStatuses(statuses []corev1.PodResourceClaimStatus, claims []corev1.PodResourceClaim, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	seen := map[string]bool{}
	for i, s := range statuses {
		p := path.Index(i)
		if !havePodClaim(claims, s.Name) {
			errs = append(errs, field.Invalid(p.Child("name"), s.Name, "must match the name of an entry in `spec.resourceClaims`"))
		}
		if seen[s.Name] {
			errs = append(errs, field.Duplicate(p.Child("name"), s.Name))
		}
		seen[s.Name] = true
		if s.ResourceClaimName != nil {
			for _, msg := range apimachineryvalidation.NameIsDNSSubdomain(*s.ResourceClaimName, false) {
				// The value is the pointer, as the real check passes it.
				errs = append(errs, field.Invalid(p.Child("resourceClaimName"), s.ResourceClaimName, msg))
			}
		}
	}
	return errs
}

// havePodClaim reports whether claims has an entry named name.
func havePodClaim(claims []corev1.PodResourceClaim, name string) bool {
	for _, c := range claims {
		if c.Name == name {
			return true
		}
	}
	return false
}

// validateExtendedResourceClaimStatus is core validation's
// validatePodExtendedResourceClaimStatus (DRAExtendedResource is GA in
// v1.37): at least one request mapping, each of a container of the spec
// and one of its resource requests, with a DNS-label request name, no two
// alike; and a valid resourceClaimName.
func validateExtendedResourceClaimStatus(s *corev1.PodExtendedResourceClaimStatus, spec *corev1.PodSpec, path *field.Path) field.ErrorList {
	if s == nil {
		return nil
	}
	var errs field.ErrorList
	mappings := path.Child("requestMappings")
	if len(s.RequestMappings) == 0 {
		errs = append(errs, field.Required(mappings, "at least one request mapping is required"))
	}
	seen := map[corev1.ContainerExtendedResourceRequest]bool{}
	for i, m := range s.RequestMappings {
		errs = append(errs, validateRequestMapping(m, spec, mappings.Index(i), path)...)
		if seen[m] {
			p := mappings.Index(i)
			errs = append(errs, field.Duplicate(p.Child("containerName"), m.ContainerName),
				field.Duplicate(p.Child("resourceName"), m.ResourceName),
				field.Duplicate(p.Child("requestName"), m.RequestName))
		}
		seen[m] = true
	}
	if s.ResourceClaimName == "" {
		return append(errs, field.Required(path.Child("resourceClaimName"), ""))
	}
	for _, msg := range apimachineryvalidation.NameIsDNSSubdomain(s.ResourceClaimName, false) {
		errs = append(errs, field.Invalid(path.Child("resourceClaimName"), s.ResourceClaimName, msg))
	}
	return errs
}

// validateRequestMapping checks one request mapping at path. The real
// check reports a bad requestName at extPath's (the status's own)
// "requestName" child, not the mapping's; so does this one.
func validateRequestMapping(m corev1.ContainerExtendedResourceRequest, spec *corev1.PodSpec, path, extPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	// Regular containers shadow init containers of the same name, as the
	// real map of containers by name does.
	c := containerNamed(spec.Containers, m.ContainerName)
	if c == nil {
		c = containerNamed(spec.InitContainers, m.ContainerName)
	}
	if c == nil {
		errs = append(errs, field.Invalid(path.Child("containerName"), m.ContainerName, "must match the name of an entry in spec.initContainers.name or spec.containers.name"))
	} else if _, ok := c.Resources.Requests[corev1.ResourceName(m.ResourceName)]; !ok {
		errs = append(errs, field.Invalid(path.Child("resourceName"), m.ResourceName, "must match the extended resource name of an entry in spec.initContainers.resources.requests or spec.containers.resources.requests"))
	}
	for _, msg := range validation.IsDNS1123Label(m.RequestName) {
		errs = append(errs, field.Invalid(extPath.Child("requestName"), m.RequestName, msg).WithOrigin("format=k8s-short-name"))
	}
	return errs
}
