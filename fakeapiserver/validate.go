package fakeapiserver

import (
	"slices"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/lw-sim/lw-sim/fakeapiserver/internal/validation"
)

// ValidateFunc checks an object a write is about to store, as a kind's
// registry strategy does (Validate on create, ValidateUpdate on update).
// old is nil for a create; for an update it is the stored object, and obj
// already carries the server-owned metadata (uid, creationTimestamp,
// resourceVersion) the update keeps. obj is fully decoded and defaulted.
// The function must not modify either object. A non-empty list becomes the
// 422 Invalid Status naming the Kind and the object's name.
type ValidateFunc func(obj, old runtime.Object) field.ErrorList

// builtinValidator returns the validation of a built-in kind (its entry
// in internal/validation, else the generic metadata checks) as the
// [Resource].Validate it gets by default.
func builtinValidator(gk schema.GroupKind) ValidateFunc {
	return ValidateFunc(validation.For(gk))
}

// validateWrite runs the resource's validation on a create (old nil) or an
// update of the main resource and returns the real 422: Invalid, the Kind
// (group-qualified), the object's name and one cause per field error
// (rest.BeforeCreate / BeforeUpdate).
func validateWrite(res *resourceInfo, obj, old runtime.Object) error {
	validate := res.Validate
	if validate == nil {
		validate = validation.Generic
	}
	errs := validate(obj, old)
	if old == nil && !res.ClusterScoped && mustAccessor(obj).GetNamespace() == "" {
		errs = withNamespaceRequired(errs)
	}
	return invalidIfAny(res, obj, errs)
}

// withNamespaceRequired adds ValidateObjectMeta's "metadata.namespace:
// Required value" where it reports it, after the name errors. The
// validation table reads an object's scope from its namespace, and one
// namespaced object reaches it without one: a create at the route with an
// empty namespace segment ("/api/v1/namespaces//configmaps"), which
// kube-apiserver admits (NamespaceLifecycle passes objects without a
// namespace) and its validation refuses.
func withNamespaceRequired(errs field.ErrorList) field.ErrorList {
	i := 0
	for i < len(errs) && (errs[i].Field == "metadata.name" || errs[i].Field == "metadata.generateName") {
		i++
	}
	return slices.Insert(errs, i, field.Required(field.NewPath("metadata", "namespace"), ""))
}

// validateStatusWrite is the validation of a write through the status
// subresource: the resource's ValidateStatus (the status strategy's
// ValidateUpdate), else the metadata update checks.
func validateStatusWrite(res *resourceInfo, obj, old runtime.Object) error {
	validate := res.ValidateStatus
	if validate == nil {
		validate = validation.MetaUpdate
	}
	return invalidIfAny(res, obj, validate(obj, old))
}

// invalidIfAny turns a non-empty error list into the 422 Invalid Status.
// An error equal to an earlier one (same field, type, value and detail)
// is reported once: every built-in strategy of kube-apiserver v1.37 embeds
// rest.DeclarativeValidation, whose migration checks pass the handwritten
// errors through ErrorList.Filter, and so through ToAggregate, which drops
// repeats.
func invalidIfAny(res *resourceInfo, obj runtime.Object, errs field.ErrorList) error {
	if len(errs) == 0 {
		return nil
	}
	return apierrors.NewInvalid(res.Kind.GroupKind(), mustAccessor(obj).GetName(), errs.Filter())
}

// validateUpdate validates an update of the main resource or, through the
// status subresource, of the status, or through the approval subresource,
// of a CertificateSigningRequest's conditions, or through the finalize
// subresource, of a Namespace's finalizers.
func validateUpdate(req *request, next, old runtime.Object) error {
	if req.isStatus() {
		return validateStatusWrite(req.res, next, old)
	}
	if req.isApproval() {
		return invalidIfAny(req.res, next, validation.ValidateCSRApprovalUpdate(next, old))
	}
	if req.isFinalize() {
		return invalidIfAny(req.res, next, validation.NamespaceFinalizeUpdate(next, old))
	}
	return validateWrite(req.res, next, old)
}
