package fakeapiserver

// Helpers of the adapters over apiextensions-apiserver's strategies
// (write_strategy.go crdWrites, customWrites).

import (
	"fmt"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	genericvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/api/validation/path"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// crdGVK is apiextensions.k8s.io/v1 CustomResourceDefinition.
var crdGVK = apiextensionsv1.SchemeGroupVersion.WithKind("CustomResourceDefinition")

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

// backToStorageVersion puts obj, validated in the request's version,
// back under the storage version's apiVersion for conversion "None"; with
// a conversion webhook it stays in the request's version, which the store
// converts (customresource_conversion.go).
func (cr *customResource) backToStorageVersion(res *resourceInfo, obj runtime.Object) {
	if !cr.convertsByWebhook() {
		setVersion(obj, cr.storageGV(res))
	}
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

// commonUpdateErrors is BeforeUpdate's validateCommonFields.
func commonUpdateErrors(res *resourceInfo, next, old runtime.Object) field.ErrorList {
	m, o := mustAccessor(next), mustAccessor(old)
	errs := genericvalidation.ValidateObjectMetaAccessor(m, !res.ClusterScoped, path.ValidatePathSegmentName, field.NewPath("metadata"))
	return append(errs, genericvalidation.ValidateObjectMetaAccessorUpdate(m, o, field.NewPath("metadata"))...)
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
