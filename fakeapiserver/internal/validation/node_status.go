package validation

import (
	"fmt"
	"regexp"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// declaredFeatureName is the form of a node's declared feature
// (core validation's nodeDeclaredFeatureRegexp).
var declaredFeatureName = regexp.MustCompile(`^[A-Z][a-zA-Z0-9]*(\/[a-zA-Z][a-zA-Z0-9]*)*$`)

// integerResources are the native resources counted in whole units (core
// helper's integerResources); extended resources are too.
var integerResources = map[corev1.ResourceName]bool{
	corev1.ResourcePods: true, corev1.ResourceQuotas: true, corev1.ResourceServices: true,
	corev1.ResourceReplicationControllers: true, corev1.ResourceSecrets: true, corev1.ResourceConfigMaps: true,
	corev1.ResourcePersistentVolumeClaims: true, corev1.ResourceServicesNodePorts: true,
	corev1.ResourceServicesLoadBalancers: true,
}

// NodeStatus is core validation's ValidateNodeUpdate as the
// node status strategy runs it: the metadata update, capacity and
// allocatable quantities, declared features and duplicate addresses. Its
// spec checks (podCIDRs and providerID immutable, taints, externalID)
// cannot fail here: a status write keeps the stored spec. Neither can
// status.config's: the write drops it. ValidateNodeSpecificAnnotations (the
// taints and preferAvoidPods annotations, parsed as JSON) is not
// reproduced, on status writes as on the main resource.
//
// kube-apiserver walks capacity and allocatable in Go's random order, so
// the causes of several bad entries of one map come in any order there;
// here they come sorted by key.
func NodeStatus(node *corev1.Node, old runtime.Object) field.ErrorList {
	s := node.Status
	errs := MetaUpdate(node, old)
	errs = append(errs, nodeResources(statusPath.Child("capacity"), s.Capacity)...)
	errs = append(errs, nodeResources(statusPath.Child("allocatable"), s.Allocatable)...)
	errs = append(errs, validateDeclaredFeatures(s.DeclaredFeatures, statusPath.Child("declaredFeatures"))...)
	return append(errs, duplicateAddresses(s.Addresses)...)
}

// nodeResources is ValidateResourceQuantityValue of each entry; the
// resource name is a child of the path (status.capacity.cpu), not a key.
func nodeResources(path *field.Path, list corev1.ResourceList) field.ErrorList {
	var errs field.ErrorList
	for _, name := range sortedKeys(list) {
		q, p := list[name], path.Child(string(name))
		errs = append(errs, nonNegativeQuantity(q, p)...)
		if isIntegerResource(name) && q.MilliValue()%1000 != 0 {
			errs = append(errs, field.Invalid(p, q.String(), "must be an integer"))
		}
	}
	return errs
}

// isIntegerResource is core helper's IsIntegerResourceName: the counted
// native resources and every extended resource.
func isIntegerResource(name corev1.ResourceName) bool {
	return integerResources[name] || isExtendedResource(name)
}

// isExtendedResource is core helper's IsExtendedResourceName: a prefixed
// name outside kubernetes.io/ and requests., qualified once "requests."
// is put before it.
func isExtendedResource(name corev1.ResourceName) bool {
	n := string(name)
	if isNativeResource(n) || strings.HasPrefix(n, corev1.DefaultResourceRequestsPrefix) {
		return false
	}
	return len(validation.IsQualifiedName(corev1.DefaultResourceRequestsPrefix+n)) == 0
}

// validateDeclaredFeatures is core validation's validateNodeDeclaredFeatures:
// each name well formed, the list sorted and without duplicates.
func validateDeclaredFeatures(features []string, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, f := range features {
		if msg := declaredFeatureError(f); msg != "" {
			errs = append(errs, field.Invalid(path.Index(i), f, msg))
		}
		if i+1 == len(features) {
			continue
		}
		switch next := features[i+1]; {
		case f == next:
			errs = append(errs, field.Duplicate(path.Index(i+1), next))
		case f > next:
			errs = append(errs, field.Invalid(path.Index(i+1), next, "list must be sorted alphabetically"))
		}
	}
	return errs
}

// declaredFeatureError is core validation's validateNodeDeclaredFeatureName,
// "" for a valid name.
func declaredFeatureError(f string) string {
	if len(f) > validation.DNS1123SubdomainMaxLength {
		return fmt.Sprintf("invalid feature name %q: must be no more than %d characters", f, validation.DNS1123SubdomainMaxLength)
	}
	if !declaredFeatureName.MatchString(f) {
		return fmt.Sprintf("invalid feature name %q: must start with an UpperCamelCase segment, with subsequent segments separated by '/' (e.g., MyFeature or MyFeature/mySubFeature), and contain only alphanumeric characters and slashes", f)
	}
	return ""
}

// internalNodeAddress is a NodeAddress as kube-apiserver renders it in a
// Duplicate cause: its internal type has no JSON tags.
type internalNodeAddress struct {
	Type    corev1.NodeAddressType
	Address string
}

// duplicateAddresses is the "no duplicate addresses" check of
// ValidateNodeUpdate: each repeat of an earlier (type, address) pair.
func duplicateAddresses(addresses []corev1.NodeAddress) field.ErrorList {
	seen := map[corev1.NodeAddress]bool{}
	var errs field.ErrorList
	for i, a := range addresses {
		if seen[a] {
			errs = append(errs, field.Duplicate(statusPath.Child("addresses").Index(i), internalNodeAddress(a)))
		}
		seen[a] = true
	}
	return errs
}
