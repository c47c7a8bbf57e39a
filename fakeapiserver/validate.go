package fakeapiserver

import (
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// ValidateFunc checks an object a write is about to store, as a kind's
// registry strategy does (Validate on create, ValidateUpdate on update).
// old is nil for a create; for an update it is the stored object, and obj
// already carries the server-owned metadata (uid, creationTimestamp,
// resourceVersion) the update keeps. obj is fully decoded and defaulted.
// The function must not modify either object. A non-empty list becomes the
// 422 Invalid Status naming the Kind and the object's name.
type ValidateFunc func(obj, old runtime.Object) field.ErrorList

// builtinValidators are the strategies' validations of the built-in kinds,
// per GroupKind, as kube-apiserver v1.37 applies them (kubernetes
// pkg/apis/core/validation and pkg/apis/apps/validation), reduced to the
// checks tests hit most. A kind not listed gets [validateGenericObject]:
// object metadata with a DNS-subdomain name.
var builtinValidators = map[schema.GroupKind]ValidateFunc{
	{Kind: "Namespace"}:                                              validateNamespace,
	{Kind: "ConfigMap"}:                                              validateConfigMap,
	{Kind: "Secret"}:                                                 validateSecret,
	{Kind: "Service"}:                                                validateService,
	{Kind: "Pod"}:                                                    validatePod,
	{Kind: "ReplicationController"}:                                  validateReplicationController,
	{Group: "apps", Kind: "Deployment"}:                              validateDeployment,
	{Group: "apps", Kind: "ReplicaSet"}:                              validateReplicaSet,
	{Group: "apps", Kind: "StatefulSet"}:                             validateStatefulSet,
	{Group: "apps", Kind: "DaemonSet"}:                               validateDaemonSet,
	{Group: "batch", Kind: "Job"}:                                    validateJob,
	{Group: "rbac.authorization.k8s.io", Kind: "Role"}:               validateRBACObject,
	{Group: "rbac.authorization.k8s.io", Kind: "ClusterRole"}:        validateRBACObject,
	{Group: "rbac.authorization.k8s.io", Kind: "RoleBinding"}:        validateRBACObject,
	{Group: "rbac.authorization.k8s.io", Kind: "ClusterRoleBinding"}: validateRBACObject,
}

// validatorFor returns the validation of a kind: its entry in
// builtinValidators, else the generic metadata checks.
func validatorFor(gk schema.GroupKind) ValidateFunc {
	if v, ok := builtinValidators[gk]; ok {
		return v
	}
	return validateGenericObject
}

// validateWrite runs the resource's validation on a create (old nil) or an
// update of the main resource and returns the real 422: Invalid, the Kind
// (group-qualified), the object's name and one cause per field error
// (rest.BeforeCreate / BeforeUpdate).
func validateWrite(res *resourceInfo, obj, old runtime.Object) error {
	validate := res.Validate
	if validate == nil {
		validate = validateGenericObject
	}
	return invalidIfAny(res, obj, validate(obj, old))
}

// validateStatusWrite is the validation of a write through the status
// subresource: the status strategies check the metadata update (and status
// details lw-sim does not reproduce).
func validateStatusWrite(res *resourceInfo, obj, old runtime.Object) error {
	return invalidIfAny(res, obj, validateMetaUpdate(obj, old))
}

// invalidIfAny turns a non-empty error list into the 422 Invalid Status.
func invalidIfAny(res *resourceInfo, obj runtime.Object, errs field.ErrorList) error {
	if len(errs) == 0 {
		return nil
	}
	return apierrors.NewInvalid(res.Kind.GroupKind(), mustAccessor(obj).GetName(), errs)
}

// validateUpdate validates an update of the main resource or, through the
// status subresource, of the status.
func validateUpdate(req *request, next, old runtime.Object) error {
	if req.isStatus() {
		return validateStatusWrite(req.res, next, old)
	}
	return validateWrite(req.res, next, old)
}
