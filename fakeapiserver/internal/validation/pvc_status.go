package validation

import (
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// resizeStatuses are the values of status.allocatedResourceStatuses,
// sorted as the NotSupported message lists them.
var resizeStatuses = []string{
	string(corev1.PersistentVolumeClaimControllerResizeInProgress),
	string(corev1.PersistentVolumeClaimControllerResizeInfeasible),
	string(corev1.PersistentVolumeClaimNodeResizeInProgress),
	string(corev1.PersistentVolumeClaimNodeResizeInfeasible),
	string(corev1.PersistentVolumeClaimNodeResizePending),
}

// PVCStatus is core validation's
// ValidatePersistentVolumeClaimStatusUpdate with
// RecoverVolumeExpansionFailure on (GA, locked on since v1.34): the
// metadata update, capacity quantities not negative, then the keys and
// values of allocatedResourceStatuses and allocatedResources. Its
// resourceVersion and spec.accessModes checks cannot fail here (the
// server sets the stored resourceVersion; the spec is the stored one), nor
// can healthStatus's (CSIVolumeHealth is off: the write drops it).
//
// kube-apiserver walks these maps in Go's random order, so the causes of
// several bad entries of one map come in any order there; here they come
// sorted by key.
func PVCStatus(pvc *corev1.PersistentVolumeClaim, old runtime.Object) field.ErrorList {
	s := pvc.Status
	errs := MetaUpdate(pvc, old)
	capPath := statusPath.Child("capacity")
	for _, name := range sortedKeys(s.Capacity) {
		errs = append(errs, validateBasicResource(s.Capacity[name], capPath.Key(string(name)))...)
	}
	errs = append(errs, validateResizeStatuses(s.AllocatedResourceStatuses)...)
	return append(errs, validateAllocatedResources(s.AllocatedResources)...)
}

// validateResizeStatuses checks each key of allocatedResourceStatuses and
// its value. The NotSupported of a bad value names the key, on the map's
// path, as kube-apiserver's does.
func validateResizeStatuses(statuses map[corev1.ResourceName]corev1.ClaimResourceStatus) field.ErrorList {
	path := statusPath.Child("allocatedResourceStatuses")
	var errs field.ErrorList
	for _, name := range sortedKeys(statuses) {
		errs = append(errs, validatePVCResourceKey(string(name), path)...)
		if !slices.Contains(resizeStatuses, string(statuses[name])) {
			errs = append(errs, field.NotSupported(path, string(name), resizeStatuses))
		}
	}
	return errs
}

// validateAllocatedResources checks each key of allocatedResources, then
// its quantity (the second check only of a well-formed key, and the
// non-negative check only of a quantity whose rounded value passed).
func validateAllocatedResources(allocated corev1.ResourceList) field.ErrorList {
	path := statusPath.Child("allocatedResources")
	var errs field.ErrorList
	for _, name := range sortedKeys(allocated) {
		if e := validatePVCResourceKey(string(name), path); len(e) > 0 {
			errs = append(errs, e...)
			continue
		}
		q := allocated[name]
		if e := validateBasicResource(q, path.Key(string(name))); len(e) > 0 {
			errs = append(errs, e...)
			continue
		}
		// ValidateResourceQuantityValue of storage, not an integer resource.
		errs = append(errs, nonNegativeQuantity(q, path.Key(string(name)))...)
	}
	return errs
}

// validatePVCResourceKey is core validation's
// validatePersistentVolumeClaimResourceKey: a qualified name, and of the
// native (unprefixed or kubernetes.io/) names only storage.
func validatePVCResourceKey(key string, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, msg := range validation.IsQualifiedName(key) {
		errs = append(errs, field.Invalid(path, key, msg))
	}
	if len(errs) == 0 && isNativeResource(key) && key != string(corev1.ResourceStorage) {
		errs = append(errs, field.NotSupported(path, key, []string{string(corev1.ResourceStorage)}))
	}
	return errs
}

// validateBasicResource is core validation's validateBasicResource: the
// quantity rounded up to an integer is not negative.
func validateBasicResource(q resource.Quantity, path *field.Path) field.ErrorList {
	if v := q.Value(); v < 0 {
		return field.ErrorList{field.Invalid(path, v, "must be a valid resource quantity")}
	}
	return nil
}

// nonNegativeQuantity is core validation's ValidateNonnegativeQuantity.
func nonNegativeQuantity(q resource.Quantity, path *field.Path) field.ErrorList {
	if q.Sign() < 0 {
		return field.ErrorList{field.Invalid(path, q.String(), "must be greater than or equal to 0")}
	}
	return nil
}

// isNativeResource is core helper's IsNativeResource: a resource name
// without a prefix, or in the kubernetes.io/ namespace.
func isNativeResource(name string) bool {
	return !strings.Contains(name, "/") || strings.Contains(name, "kubernetes.io/")
}

// sortedKeys are m's keys in order.
func sortedKeys[V any](m map[corev1.ResourceName]V) []corev1.ResourceName {
	keys := make([]corev1.ResourceName, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
