package validation

import (
	"fmt"
	"math"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// resourceClaimStatusPrefix starts the name of an allocated resource's
// status that names a resource claim rather than a resource.
const resourceClaimStatusPrefix = "claim:"

// Details of allocatedResourcesStatus names that match nothing the
// container asked for.
const (
	notAClaimOfContainer   = "must match one of the container's resource claims as 'claim:<claimName>/<requestName>' when container.resources.claims[*].request is set or 'claim:<claimName>' when it is empty"
	notARequestOfContainer = "must match one of the container's resource requests"
)

// resourceHealthValues are the health values a container's allocated
// resource may report, sorted.
var resourceHealthValues = []corev1.ResourceHealthStatus{
	corev1.ResourceHealthStatusHealthy, corev1.ResourceHealthStatusUnhealthy, corev1.ResourceHealthStatusUnknown,
}

// validateContainerStatusUsers is core validation's
// validateContainerStatusUsers: a Windows pod's container reports no Linux
// user; a Linux one's (the default) has a uid_t uid and valid group IDs.
func validateContainerStatusUsers(statuses []corev1.ContainerStatus, path *field.Path, os *corev1.PodOS) field.ErrorList {
	osName := corev1.Linux
	if os != nil {
		osName = os.Name
	}
	var errs field.ErrorList
	for i, s := range statuses {
		if s.User == nil || s.User.Linux == nil {
			continue
		}
		p := path.Index(i).Child("user", "linux")
		switch osName {
		case corev1.Windows:
			errs = append(errs, field.Forbidden(p, "cannot be set for a windows pod"))
		case corev1.Linux:
			errs = append(errs, validateLinuxContainerUser(s.User.Linux, p)...)
		}
	}
	return errs
}

// validateLinuxContainerUser checks a reported Linux user: the runtime
// may report any uid_t, wider than a spec's runAsUser may ask for.
func validateLinuxContainerUser(u *corev1.LinuxContainerUser, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	if u.UID < 0 || u.UID > math.MaxUint32 {
		errs = append(errs, field.Invalid(path.Child("uid"), u.UID, fmt.Sprintf("must be between 0 and %d, inclusive", int64(math.MaxUint32))))
	}
	for _, msg := range validation.IsValidGroupID(u.GID) {
		errs = append(errs, field.Invalid(path.Child("gid"), u.GID, msg))
	}
	for g, gid := range u.SupplementalGroups {
		for _, msg := range validation.IsValidGroupID(gid) {
			errs = append(errs, field.Invalid(path.Child("supplementalGroups").Index(g), gid, msg))
		}
	}
	return errs
}

// validateAllocatedResourcesStatus is core validation's
// validateContainerStatusAllocatedResourcesStatus (ResourceHealthStatus
// and ResourceHealthStatusMessage are on by default in v1.37): each entry
// of a spec container's allocatedResourcesStatus names one of its resource
// requests or claims (a status naming no container of the spec is not
// checked for that), and the health of each resource is well-formed with
// unique resource IDs.
func validateAllocatedResourcesStatus(statuses []corev1.ContainerStatus, path *field.Path, containers []corev1.Container, ext *corev1.PodExtendedResourceClaimStatus) field.ErrorList {
	var errs field.ErrorList
	for i, s := range statuses {
		c := containerNamed(containers, s.Name)
		for j, rs := range s.AllocatedResourcesStatus {
			p := path.Index(i).Child("allocatedResourcesStatus").Index(j)
			if c != nil {
				errs = append(errs, validateResourceStatusName(rs.Name, c, ext, p.Child("name"))...)
			}
			errs = append(errs, validateResourceHealths(rs.Resources, p.Child("resources"))...)
		}
	}
	return errs
}

// validateResourceStatusName checks that name is "claim:<claim>[/<request>]"
// of one of c's resource claims (or of its extended resource claim) or
// one of its resource requests.
func validateResourceStatusName(name corev1.ResourceName, c *corev1.Container, ext *corev1.PodExtendedResourceClaimStatus, path *field.Path) field.ErrorList {
	if !strings.HasPrefix(string(name), resourceClaimStatusPrefix) {
		if _, ok := c.Resources.Requests[name]; ok {
			return nil
		}
		return field.ErrorList{field.Invalid(path, name, notARequestOfContainer)}
	}
	for _, claim := range c.Resources.Claims {
		if resourceStatusName(claim.Name, claim.Request) == name {
			return nil
		}
	}
	if matchesExtendedResourceClaim(string(name), c, ext) {
		return nil
	}
	return field.ErrorList{field.Invalid(path, name, notAClaimOfContainer)}
}

// resourceStatusName is the allocatedResourcesStatus name of a container's
// claim of the request (or the whole claim when request is empty).
func resourceStatusName(claim, request string) corev1.ResourceName {
	if request == "" {
		return corev1.ResourceName(resourceClaimStatusPrefix + claim)
	}
	return corev1.ResourceName(resourceClaimStatusPrefix + claim + "/" + request)
}

// matchesExtendedResourceClaim is core validation's
// matchesExtendedResourceClaimStatus: name is "claim:<claim>/<request>"
// of the pod's extended resource claim, and a request mapping of c's maps
// that request to a non-zero resource request of c.
func matchesExtendedResourceClaim(name string, c *corev1.Container, ext *corev1.PodExtendedResourceClaimStatus) bool {
	if ext == nil {
		return false
	}
	claim, request, hasRequest := strings.Cut(strings.TrimPrefix(name, resourceClaimStatusPrefix), "/")
	if claim == "" || !hasRequest || request == "" || claim != ext.ResourceClaimName {
		return false
	}
	for _, m := range ext.RequestMappings {
		if m.ContainerName != c.Name || m.RequestName != request {
			continue
		}
		if q, ok := c.Resources.Requests[corev1.ResourceName(m.ResourceName)]; ok && !q.IsZero() {
			return true
		}
	}
	return false
}

// validateResourceHealths checks each resource's health value, its
// message (non-empty if set, at most ResourceHealthMessageMaxLength
// bytes) and that resource IDs are unique.
func validateResourceHealths(resources []corev1.ResourceHealth, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	seen := map[corev1.ResourceID]bool{}
	for k, r := range resources {
		p := path.Index(k)
		if !validHealth(r.Health) {
			errs = append(errs, field.NotSupported(p.Child("health"), r.Health, resourceHealthValues))
		}
		if r.Message != nil && *r.Message == "" {
			errs = append(errs, field.Required(p.Child("message"), "must be non-empty if specified"))
		} else if r.Message != nil && len(*r.Message) > corev1.ResourceHealthMessageMaxLength {
			errs = append(errs, field.TooLong(p.Child("message"), *r.Message, corev1.ResourceHealthMessageMaxLength))
		}
		if seen[r.ResourceID] {
			errs = append(errs, field.Duplicate(p.Child("resourceID"), r.ResourceID))
		}
		seen[r.ResourceID] = true
	}
	return errs
}

// validHealth reports whether h is one of resourceHealthValues.
func validHealth(h corev1.ResourceHealthStatus) bool {
	for _, v := range resourceHealthValues {
		if h == v {
			return true
		}
	}
	return false
}

// validateNoAllocatedResourcesStatus is core validation's
// validateContainerStatusNoAllocatedResourcesStatus: ephemeral containers
// have no resources allocated.
func validateNoAllocatedResourcesStatus(statuses []corev1.ContainerStatus, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, s := range statuses {
		if len(s.AllocatedResourcesStatus) > 0 {
			errs = append(errs, field.Forbidden(path.Index(i).Child("allocatedResourcesStatus"), "must not be specified in container status"))
		}
	}
	return errs
}
