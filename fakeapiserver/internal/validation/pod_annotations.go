package validation

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Annotation keys with pod-specific rules (kubernetes pkg/apis/core
// types.go, k8s.io/api/core/v1 annotation_key_constants.go).
const (
	mirrorPodAnnotation   = corev1.MirrorPodAnnotationKey
	appArmorPrefix        = corev1.DeprecatedAppArmorBetaContainerAnnotationKeyPrefix
	podDeletionCostKey    = corev1.PodDeletionCost
	appArmorRuntimeDflt   = corev1.DeprecatedAppArmorBetaProfileRuntimeDefault
	appArmorUnconfined    = corev1.DeprecatedAppArmorBetaProfileNameUnconfined
	appArmorLocalhostPref = corev1.DeprecatedAppArmorBetaProfileNamePrefix
)

// annotationsPath is the field path of the pod annotations.
var annotationsPath = metadataPath.Child("annotations")

// validatePodAnnotationUpdates is core validation's
// ValidatePodSpecificAnnotationUpdates as ValidatePodStatusUpdate runs it:
// the mirror pod annotation and the AppArmor container annotations may
// not be removed, changed or added; then the new annotations pass
// validatePodSpecificAnnotations. The real server walks the maps in Go's
// random order; the keys are sorted here, so several errors come in one
// of the orders it can produce.
func validatePodAnnotationUpdates(pod, old *corev1.Pod) field.ErrorList {
	var errs field.ErrorList
	for _, k := range slices.Sorted(maps.Keys(old.Annotations)) {
		if v, ok := pod.Annotations[k]; ok && v == old.Annotations[k] {
			continue
		}
		if strings.HasPrefix(k, appArmorPrefix) {
			errs = append(errs, field.Forbidden(annotationsPath.Key(k), "may not remove or update AppArmor annotations"))
		}
		if k == mirrorPodAnnotation {
			errs = append(errs, field.Forbidden(annotationsPath.Key(k), "may not remove or update mirror pod annotation"))
		}
	}
	for _, k := range slices.Sorted(maps.Keys(pod.Annotations)) {
		if _, ok := old.Annotations[k]; ok {
			continue
		}
		if strings.HasPrefix(k, appArmorPrefix) {
			errs = append(errs, field.Forbidden(annotationsPath.Key(k), "may not add AppArmor annotations"))
		}
		if k == mirrorPodAnnotation {
			errs = append(errs, field.Forbidden(annotationsPath.Key(k), "may not add mirror pod annotation"))
		}
	}
	return append(errs, validatePodSpecificAnnotations(pod, old)...)
}

// validatePodSpecificAnnotations is core validation's
// ValidatePodSpecificAnnotations on an update: a mirror pod needs a node,
// a pod-deletion-cost is a 32-bit integer unless the stored one already
// is not (PodDeletionCost is on by default; GetValidationOptionsFromPodSpecAndMeta
// tolerates stored bad data), and an AppArmor annotation names a container
// and a well-formed profile. Not reproduced: the tolerations annotation
// (scheduler.alpha.kubernetes.io/tolerations, parsed as JSON) and the
// seccomp annotations' profile checks.
func validatePodSpecificAnnotations(pod, old *corev1.Pod) field.ErrorList {
	var errs field.ErrorList
	a := pod.Annotations
	if v, ok := a[mirrorPodAnnotation]; ok && pod.Spec.NodeName == "" {
		errs = append(errs, field.Invalid(annotationsPath.Key(mirrorPodAnnotation), v, "must set spec.nodeName if mirror pod annotation is set"))
	}
	if v, ok := a[podDeletionCostKey]; ok && !invalidDeletionCost(old.Annotations) && invalidDeletionCost(a) {
		errs = append(errs, field.Invalid(annotationsPath.Key(podDeletionCostKey), v, "must be a 32bit integer"))
	}
	for _, k := range slices.Sorted(maps.Keys(a)) {
		if !strings.HasPrefix(k, appArmorPrefix) {
			continue
		}
		name := strings.TrimPrefix(k, appArmorPrefix)
		if !podHasContainer(&pod.Spec, name) {
			errs = append(errs, field.Invalid(annotationsPath.Key(k), name, "container not found"))
		}
		if p := a[k]; !validAppArmorProfile(p) {
			errs = append(errs, field.Invalid(annotationsPath.Key(k), p, fmt.Sprintf("invalid AppArmor profile name: %q", p)))
		}
	}
	return errs
}

// invalidDeletionCost reports whether annotations carry a pod-deletion-cost
// that is not a 32-bit integer without a sign or leading zero
// (helper.GetDeletionCostFromPodAnnotations).
func invalidDeletionCost(annotations map[string]string) bool {
	v, ok := annotations[podDeletionCostKey]
	if !ok {
		return false
	}
	// validFirstDigit: "+1" and "08" are refused before parsing.
	if v == "" || !(v[0] == '-' || v == "0" || (v[0] >= '1' && v[0] <= '9')) {
		return true
	}
	_, err := strconv.ParseInt(v, 10, 32)
	return err != nil
}

// validAppArmorProfile is ValidateAppArmorProfileFormat.
func validAppArmorProfile(p string) bool {
	return p == "" || p == appArmorRuntimeDflt || p == appArmorUnconfined || strings.HasPrefix(p, appArmorLocalhostPref)
}

// podHasContainer reports whether spec has a container, init container or
// ephemeral container called name (podSpecHasContainer).
func podHasContainer(spec *corev1.PodSpec, name string) bool {
	for _, c := range spec.Containers {
		if c.Name == name {
			return true
		}
	}
	for _, c := range spec.InitContainers {
		if c.Name == name {
			return true
		}
	}
	for _, c := range spec.EphemeralContainers {
		if c.Name == name {
			return true
		}
	}
	return false
}
