package fakeapiserver

import (
	"context"
	"errors"
	"fmt"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	genericvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/api/validation/path"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// The write paths call these hooks where kube-apiserver's generic registry
// calls its strategy (registry/rest/create.go BeforeCreate, update.go
// BeforeUpdate). Built-ins keep lw-sim's own checks; CustomResourceDefinitions
// and custom resources run apiextensions-apiserver's strategies.

// crdGVK is apiextensions.k8s.io/v1 CustomResourceDefinition.
var crdGVK = apiextensionsv1.SchemeGroupVersion.WithKind("CustomResourceDefinition")

// isCRD reports whether res is the CustomResourceDefinition resource.
func isCRD(res *resourceInfo) bool { return res.Kind == crdGVK }

// beforeCreate runs the strategy's PrepareForCreate after the system fields
// are set; a custom resource of a terminating CRD is refused (403), as the
// handler's forbidCreateAdmission does.
func (s *Server) beforeCreate(res *resourceInfo, obj runtime.Object) error {
	switch {
	case isCRD(res):
		return s.crds.prepareCreate(obj)
	case res.custom != nil:
		if s.crdTerminating(res.custom.crdName) {
			return apierrors.NewForbidden(res.qualified(), mustAccessor(obj).GetName(), errors.New("create not allowed while custom resource definition is terminating"))
		}
		res.custom.strategy.PrepareForCreate(context.Background(), obj)
	}
	return nil
}

// validateCreate validates a new object after its name is final: the
// strategy's Validate, then the common ObjectMeta validation, each a 422
// naming the kind, as BeforeCreate does.
func (s *Server) validateCreate(res *resourceInfo, obj runtime.Object) error {
	var errs field.ErrorList
	switch {
	case isCRD(res):
		errs = s.crds.validateCreate(obj)
	case res.custom != nil:
		// The object is validated in the request's version and stored in
		// the storage version ("None" conversion: only apiVersion
		// changes); a generateName retry comes back here.
		setVersion(obj, res.Kind.GroupVersion())
		errs = res.custom.strategy.Validate(context.Background(), obj)
		defer setVersion(obj, res.custom.storageGV(res))
	default:
		return validateWrite(res, obj, nil)
	}
	if len(errs) == 0 {
		errs = genericvalidation.ValidateObjectMetaAccessor(mustAccessor(obj), !res.ClusterScoped, path.ValidatePathSegmentName, field.NewPath("metadata"))
	}
	return invalid(res, obj, errs)
}

// setVersion sets the apiVersion of an unstructured object.
func setVersion(obj runtime.Object, gv schema.GroupVersion) {
	if u, ok := obj.(*unstructured.Unstructured); ok {
		u.SetAPIVersion(gv.String())
	}
}

// storageGV is the group-version custom resources are stored in.
func (cr *customResource) storageGV(res *resourceInfo) schema.GroupVersion {
	return schema.GroupVersion{Group: res.Kind.Group, Version: cr.storageVersion}
}

// afterCreate runs what the CRD controllers do for a new CRD.
func (s *Server) afterCreate(res *resourceInfo, stored runtime.Object) {
	if isCRD(res) {
		s.reconcileCRD(mustAccessor(stored).GetName())
	}
}

// beforeUpdate validates the object about to replace old: built-ins with
// validateUpdate; CRDs and custom resources run their strategy's
// PrepareForUpdate and update validation (BeforeUpdate: common ObjectMeta
// checks, then ValidateUpdate).
func (s *Server) beforeUpdate(req *request, next, old runtime.Object) error {
	res := req.res
	var errs field.ErrorList
	switch {
	case isCRD(res):
		specific, err := s.crds.prepareUpdate(next, old, req.isStatus())
		if err != nil {
			return err
		}
		errs = append(commonUpdateErrors(res, next, old), specific...)
	case res.custom != nil:
		strategy := res.custom.strategy
		if req.isStatus() {
			strategy = res.custom.statusStrategy
		}
		ctx := context.Background()
		// Both sides are seen in the request's version, and the result
		// is stored in the storage version (see validateCreate).
		gv := res.Kind.GroupVersion()
		old = inVersion(old, gv)
		setVersion(next, gv)
		strategy.PrepareForUpdate(ctx, next, old)
		errs = commonUpdateErrors(res, next, old)
		errs = append(errs, strategy.ValidateUpdate(ctx, next, old)...)
		setVersion(next, res.custom.storageGV(res))
	default:
		return validateUpdate(req, next, old)
	}
	return invalid(res, next, errs)
}

// inVersion returns a shared unstructured object in version gv, copying it
// when it is in another.
func inVersion(obj runtime.Object, gv schema.GroupVersion) runtime.Object {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok || u.GetAPIVersion() == gv.String() {
		return obj
	}
	cp := u.DeepCopy()
	cp.SetAPIVersion(gv.String())
	return cp
}

// afterUpdate runs what the CRD controllers do after a CRD changed.
func (s *Server) afterUpdate(res *resourceInfo, stored runtime.Object) {
	if isCRD(res) {
		s.reconcileCRD(mustAccessor(stored).GetName())
	}
}

// commonUpdateErrors is BeforeUpdate's validateCommonFields.
func commonUpdateErrors(res *resourceInfo, next, old runtime.Object) field.ErrorList {
	m, o := mustAccessor(next), mustAccessor(old)
	errs := genericvalidation.ValidateObjectMetaAccessor(m, !res.ClusterScoped, path.ValidatePathSegmentName, field.NewPath("metadata"))
	return append(errs, genericvalidation.ValidateObjectMetaAccessorUpdate(m, o, field.NewPath("metadata"))...)
}

// invalid is the 422 of a failed validation, nil for none.
func invalid(res *resourceInfo, obj runtime.Object, errs field.ErrorList) error {
	if len(errs) == 0 {
		return nil
	}
	return apierrors.NewInvalid(res.Kind.GroupKind(), mustAccessor(obj).GetName(), errs)
}

// crdResource returns the CustomResourceDefinition resource, if served.
func (s *Server) crdResource() (*resourceInfo, bool) {
	return s.resources.lookup(apiextensionsv1.SchemeGroupVersion.WithResource("customresourcedefinitions"))
}

// crdTerminating reports whether the named CRD is being deleted.
func (s *Server) crdTerminating(name string) bool {
	res, ok := s.crdResource()
	if !ok {
		return false
	}
	obj, err := s.current(res, "", name)
	return err == nil && mustAccessor(obj).GetDeletionTimestamp() != nil
}

// errNotCRD is returned when the store holds something else under the CRD
// resource, which only a programming error can cause.
func errNotCRD(obj runtime.Object) error {
	return fmt.Errorf("fakeapiserver: %T stored as a CustomResourceDefinition", obj)
}

// customGroupResource is the group-resource of a CRD's objects.
func customGroupResource(crd *apiextensionsv1.CustomResourceDefinition) schema.GroupResource {
	return schema.GroupResource{Group: crd.Spec.Group, Resource: crd.Status.AcceptedNames.Plural}
}

// customPatchTypes are the patch types the CRD handler applies; strategic
// merge needs Go struct tags, so custom resources refuse it with 415.
var customPatchTypes = []string{string(types.JSONPatchType), string(types.MergePatchType), string(types.ApplyYAMLPatchType)}

// customPatchType is the CR handler's 415 for a strategic merge patch.
func customPatchType(pt types.PatchType) error {
	if pt == types.StrategicMergePatchType {
		return unsupportedMediaType(customPatchTypes)
	}
	return nil
}
