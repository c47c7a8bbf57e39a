package validation

import (
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/validate/content"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// metadataPath is the field path of every object's metadata.
var metadataPath = field.NewPath("metadata")

// Generic is the validation of a kind without a specific one: its
// metadata, with a DNS-subdomain name, as most registries check. It is a
// [Func].
func Generic(obj, old runtime.Object) field.ErrorList {
	if old != nil {
		return MetaUpdate(obj, old)
	}
	return validateMetaCreate(obj, apimachineryvalidation.NameIsDNSSubdomain)
}

// validateMetaCreate is kubernetes core validation's ValidateObjectMeta:
// apimachinery's checks (generateName, name by nameFn, namespace,
// generation, labels, annotations, ownerReferences, finalizers,
// managedFields) plus the rule that an unqualified finalizer is a standard
// one. Whether the object must have a namespace follows from the scope,
// which the write path has already applied (a cluster-scoped object has
// none).
func validateMetaCreate(obj runtime.Object, nameFn apimachineryvalidation.ValidateNameFunc) field.ErrorList {
	m := objectMeta(obj)
	errs := apimachineryvalidation.ValidateObjectMetaAccessor(m, m.GetNamespace() != "", nameFn, metadataPath)
	return append(errs, validateKubeFinalizerNames(m.GetFinalizers())...)
}

// MetaUpdate is kubernetes core validation's ValidateObjectMetaUpdate of
// obj replacing old: immutable name, namespace, uid and timestamps, no new
// finalizers once deleting, labels and annotations, and the
// standard-finalizer rule. It is also the whole validation of a write
// through the status subresource of a kind whose strategy names no
// status validation (internal/kinds).
func MetaUpdate(obj, old runtime.Object) field.ErrorList {
	m := objectMeta(obj)
	errs := apimachineryvalidation.ValidateObjectMetaAccessorUpdate(m, objectMeta(old), metadataPath)
	return append(errs, validateKubeFinalizerNames(m.GetFinalizers())...)
}

// standardFinalizers are the finalizer names that need no domain
// (kubernetes pkg/apis/core/helper standardFinalizers).
var standardFinalizers = map[string]bool{
	string(corev1.FinalizerKubernetes): true,
	metav1.FinalizerOrphanDependents:   true,
	metav1.FinalizerDeleteDependents:   true,
}

// validateKubeFinalizerNames is core validation's validateKubeFinalizerName
// for each metadata finalizer.
func validateKubeFinalizerNames(finalizers []string) field.ErrorList {
	var errs field.ErrorList
	for i, f := range finalizers {
		if !strings.Contains(f, "/") && !standardFinalizers[f] {
			errs = append(errs, field.Invalid(metadataPath.Child("finalizers").Index(i), f, "name is neither a standard finalizer name nor is it fully qualified"))
		}
	}
	return errs
}

// RBACObject is the metadata validation of RBAC roles and
// bindings, whose names only need to be path segments ("system:foo" is
// valid; rbac validation ValidateRBACName ignores the prefix flag).
func RBACObject(obj, old runtime.Object) field.ErrorList {
	if old != nil {
		return MetaUpdate(obj, old)
	}
	return validateMetaCreate(obj, func(name string, _ bool) []string { return content.IsPathSegmentName(name) })
}
