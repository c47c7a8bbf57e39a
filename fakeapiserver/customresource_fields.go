package fakeapiserver

import (
	"fmt"
	"sync"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/controller/openapi/builder"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/kube-openapi/pkg/spec3"
	"sigs.k8s.io/structured-merge-diff/v6/typed"

	"github.com/lw-sim/lw-sim/fakeapiserver/internal/openapi"
)

// Server-side apply and managedFields of custom resources, as the CRD
// handler sets them up (customresource_handler.go scopeWithFieldManager):
// managedfields.NewDefaultCRDFieldManager with a TypeConverter built from
// the CRD's OpenAPI (buildOpenAPIModelsForApply; a deduced one if that
// fails, as the handler falls back), the CRD's converter ("None", or the
// conversion webhook's: customresource_conversion.go), the structural
// defaulting and unstructured objects.

// lazyTypeConverter is a CRD's type converter, built by build on first
// use, as the CRD handler builds it with the rest of its serving info on
// the first request for the resource rather than when the CRD is created
// (customresource_handler.go getOrCreateServingInfoFor): building it walks
// the whole schema twice (the OpenAPI v3 spec, then schemaconv), most of
// what a create of a CRD with a large schema cost, and only writes of its
// objects (managedFields, server-side apply) and mutating admission
// policies read it. Safe for concurrent use.
type lazyTypeConverter struct {
	get func() managedfields.TypeConverter
}

// newLazyTypeConverter returns a converter that is build's result, built
// once, when first used.
func newLazyTypeConverter(build func() managedfields.TypeConverter) *lazyTypeConverter {
	return &lazyTypeConverter{get: sync.OnceValue(build)}
}

// ObjectToTyped is the built converter's.
func (l *lazyTypeConverter) ObjectToTyped(obj runtime.Object, opts ...typed.ValidationOptions) (*typed.TypedValue, error) {
	return l.get().ObjectToTyped(obj, opts...)
}

// TypedToObject is the built converter's.
func (l *lazyTypeConverter) TypedToObject(v *typed.TypedValue) (runtime.Object, error) {
	return l.get().TypedToObject(v)
}

// crdTypeConverter builds the apply schema of a CRD from the v3 documents
// of its versions, taken from built. The handler builds them without the
// selectable-fields extension that built's carry; the type converter does
// not read that extension (schemaconv reads only the list, map, union and
// preserve-unknown-fields ones), so the schema is the same, and the
// documents built for /openapi/v3 are not built again.
func crdTypeConverter(crd *apiextensionsv1.CustomResourceDefinition, built *openapi.CRDSpecs) managedfields.TypeConverter {
	var specs []*spec3.OpenAPI
	for _, v := range crd.Spec.Versions {
		s, err := built.V3(crd, v.Name)
		if err != nil {
			return managedfields.NewDeducedTypeConverter()
		}
		specs = append(specs, s)
	}
	merged, err := builder.MergeSpecsV3(specs...)
	if err != nil || merged.Components == nil {
		return managedfields.NewDeducedTypeConverter()
	}
	tc, err := managedfields.NewTypeConverter(merged.Components.Schemas, crd.Spec.PreserveUnknownFields)
	if err != nil {
		return managedfields.NewDeducedTypeConverter()
	}
	return tc
}

// newCustomFieldManagers builds the field managers of one served version.
func newCustomFieldManagers(info *resourceInfo) (fieldManagers, error) {
	var fm fieldManagers
	cr := info.custom
	// The CRD's converter: a conversion webhook converts the objects the
	// managers of other versions are tracked on, as the handler's
	// field manager does with its unsafe converter.
	var conv runtime.ObjectConvertor = noneConverter{}
	if cr.convertsByWebhook() {
		conv = cr.converter
	}
	defaulter := defaulterFunc(cr.defaultObject)
	gv := info.Kind.GroupVersion()
	mainReset, statusReset := resetFieldsOf(info)
	var err error
	fm.main, err = managedfields.NewDefaultCRDFieldManager(info.TypeConverter, conv, defaulter, unstructuredCreator{}, info.Kind, gv, "", mainReset)
	if err != nil {
		return fm, fmt.Errorf("fakeapiserver: resource %s: %w", info.Kind, err)
	}
	if info.hasStatus {
		fm.status, err = managedfields.NewDefaultCRDFieldManager(info.TypeConverter, conv, defaulter, unstructuredCreator{}, info.Kind, gv, "status", statusReset)
		if err != nil {
			return fm, fmt.Errorf("fakeapiserver: resource %s/status: %w", info.Kind, err)
		}
	}
	return fm, nil
}

// noneConverter is the "None" conversion of custom resources: only
// apiVersion changes (apiextensions-apiserver pkg/apiserver/conversion
// nopConverter).
type noneConverter struct{}

// Convert copies an unstructured object into another.
func (noneConverter) Convert(in, out, _ any) error {
	src, ok := in.(*unstructured.Unstructured)
	dst, ok2 := out.(*unstructured.Unstructured)
	if !ok || !ok2 {
		return fmt.Errorf("fakeapiserver: cannot convert %T to %T", in, out)
	}
	dst.Object = src.DeepCopy().Object
	return nil
}

// ConvertToVersion returns a copy of an unstructured object in the
// version target picks.
func (noneConverter) ConvertToVersion(in runtime.Object, target runtime.GroupVersioner) (runtime.Object, error) {
	u, ok := in.(*unstructured.Unstructured)
	if !ok {
		return nil, fmt.Errorf("fakeapiserver: cannot convert %T", in)
	}
	gvk, ok := target.KindForGroupVersionKinds([]schema.GroupVersionKind{u.GroupVersionKind()})
	if !ok {
		return nil, fmt.Errorf("fakeapiserver: %s cannot be converted to %v", u.GroupVersionKind(), target)
	}
	out := u.DeepCopy()
	out.SetGroupVersionKind(gvk)
	return out, nil
}

// ConvertFieldLabel accepts every label (field selectors are checked
// elsewhere).
func (noneConverter) ConvertFieldLabel(_ schema.GroupVersionKind, label, value string) (string, string, error) {
	return label, value, nil
}
