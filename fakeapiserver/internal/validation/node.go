package validation

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	netutils "k8s.io/utils/net"
)

// taintEffects are the supported taint effects, in the order the
// NotSupported message lists them (not sorted).
var taintEffects = []string{string(corev1.TaintEffectNoSchedule), string(corev1.TaintEffectPreferNoSchedule), string(corev1.TaintEffectNoExecute)}

// Node is the node strategy's Validate (ValidateNode) and
// ValidateUpdate (ValidateNode, then ValidateNodeUpdate): the metadata,
// taints (under metadata.taints, as kube-apiserver names them), capacity
// and allocatable, swap capacity, declared features and pod CIDRs; on
// update also duplicate addresses, pod CIDRs and providerID that cannot
// change once set, and externalID. A main-resource update keeps the
// stored status, so its status checks only see stored values.
//
// Some causes come twice, as on kube-apiserver (a pod CIDR changed at
// several indexes); the server reports each once (invalidIfAny).
// ValidateNodeSpecificAnnotations is not reproduced.
func Node(n *corev1.Node, old runtime.Object) field.ErrorList {
	var errs field.ErrorList
	if old == nil {
		errs = validateMetaCreate(n, apimachineryvalidation.NameIsDNSSubdomain)
	} else {
		errs = MetaUpdate(n, old)
	}
	errs = append(errs, validateTaints(n.Spec.Taints, metadataPath.Child("taints"))...)
	errs = append(errs, nodeResources(statusPath.Child("capacity"), n.Status.Capacity)...)
	errs = append(errs, nodeResources(statusPath.Child("allocatable"), n.Status.Allocatable)...)
	errs = append(errs, validateSwapStatus(n.Status.NodeInfo.Swap)...)
	errs = append(errs, validateDeclaredFeatures(n.Status.DeclaredFeatures, statusPath.Child("declaredFeatures"))...)
	errs = append(errs, validatePodCIDRs(n.Spec.PodCIDRs)...)
	if o, ok := old.(*corev1.Node); ok {
		errs = append(errs, duplicateAddresses(n.Status.Addresses)...)
		errs = append(errs, validateNodeSpecUpdate(n.Spec, o.Spec)...)
	}
	return errs
}

// validateTaints is core validation's validateNodeTaints: each key a
// label name, each value a label value, an effect from the supported
// ones, and no two taints of one key and effect.
func validateTaints(taints []corev1.Taint, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	seen := map[corev1.TaintEffect]map[string]bool{}
	for i, t := range taints {
		p := path.Index(i)
		errs = append(errs, metav1validation.ValidateLabelName(t.Key, p.Child("key"))...)
		if msgs := validation.IsValidLabelValue(t.Value); len(msgs) != 0 {
			errs = append(errs, field.Invalid(p.Child("value"), t.Value, strings.Join(msgs, ";")))
		}
		errs = append(errs, validateTaintEffect(t.Effect, p.Child("effect"))...)
		if seen[t.Effect][t.Key] {
			dup := field.Duplicate(p, internalTaint{Key: t.Key, Value: t.Value, Effect: t.Effect, TimeAdded: t.TimeAdded})
			dup.Detail = "taints must be unique by key and effect pair"
			errs = append(errs, dup)
			continue
		}
		if seen[t.Effect] == nil {
			seen[t.Effect] = map[string]bool{}
		}
		seen[t.Effect][t.Key] = true
	}
	return errs
}

// internalTaint is a Taint as kube-apiserver renders it in a Duplicate
// cause: its internal type has no JSON tags.
type internalTaint struct {
	Key       string
	Value     string
	Effect    corev1.TaintEffect
	TimeAdded *metav1.Time
}

// validateTaintEffect is core validation's validateTaintEffect of a
// taint (where an empty effect is not allowed).
func validateTaintEffect(effect corev1.TaintEffect, path *field.Path) field.ErrorList {
	switch effect {
	case "":
		return field.ErrorList{field.Required(path, "")}
	case corev1.TaintEffectNoSchedule, corev1.TaintEffectPreferNoSchedule, corev1.TaintEffectNoExecute:
		return nil
	}
	return field.ErrorList{field.NotSupported(path, string(effect), taintEffects)}
}

// validateSwapStatus is core validation's validateNodeSwapStatus, under
// the path kube-apiserver gives it (metadata.nodeSwapStatus).
func validateSwapStatus(swap *corev1.NodeSwapStatus) field.ErrorList {
	if swap == nil || swap.Capacity == nil || *swap.Capacity > 0 {
		return nil
	}
	return field.ErrorList{field.Invalid(metadataPath.Child("nodeSwapStatus", "capacity"), *swap.Capacity, "must be greater than zero")}
}

// validatePodCIDRs is ValidateNode's pod CIDR check: each a valid CIDR
// (strictly: StrictIPCIDRValidation is on by default since v1.36), and
// more than one only as a dual-stack pair.
func validatePodCIDRs(cidrs []string) field.ErrorList {
	path := field.NewPath("spec", "podCIDRs")
	var errs field.ErrorList
	for i, c := range cidrs {
		errs = append(errs, validation.IsValidCIDRForLegacyField(path.Index(i), c, true, nil)...)
	}
	if len(cidrs) > 1 {
		dualStack, err := netutils.IsDualStackCIDRStrings(cidrs)
		if err != nil {
			errs = append(errs, field.InternalError(path, fmt.Errorf("invalid PodCIDRs. failed to check with dual stack with error:%v", err)))
		}
		if !dualStack || len(cidrs) > 2 {
			errs = append(errs, field.Invalid(path, cidrs, "may specify no more than one CIDR for each IP family"))
		}
	}
	return errs
}

// validateNodeSpecUpdate is ValidateNodeUpdate's spec part: pod CIDRs
// may only be set, not changed; providerID likewise; externalID never.
func validateNodeSpecUpdate(spec, old corev1.NodeSpec) field.ErrorList {
	var errs field.ErrorList
	if len(old.PodCIDRs) > 0 {
		changed := field.Forbidden(field.NewPath("spec", "podCIDRs"), `node updates may not change podCIDR except from "" to valid`)
		if len(old.PodCIDRs) != len(spec.PodCIDRs) {
			errs = append(errs, changed)
		} else {
			for i := range old.PodCIDRs {
				if old.PodCIDRs[i] != spec.PodCIDRs[i] {
					errs = append(errs, changed)
				}
			}
		}
	}
	providerID := field.NewPath("spec", "providerID")
	switch {
	case old.ProviderID != "" && spec.ProviderID != "" && old.ProviderID != spec.ProviderID:
		errs = append(errs, field.Invalid(providerID, nil, "field cannot be modified once set"))
	case old.ProviderID != "" && spec.ProviderID == "":
		errs = append(errs, field.Invalid(providerID, nil, "field cannot be cleared once set"))
	}
	if spec.DoNotUseExternalID != old.DoNotUseExternalID {
		errs = append(errs, field.Forbidden(field.NewPath("spec", "externalID"), "may not be updated"))
	}
	return errs
}
