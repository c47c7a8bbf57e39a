package fakeapiserver

import (
	"fmt"
	"reflect"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"
)

// admissionObjects is the admission.ObjectInterfaces the webhook plugins
// create, type, default and convert objects with, as kube-apiserver's
// RequestScope is for built-in kinds and the CRD handler's scope for
// custom resources (endpoints/handlers/rest.go RequestScope). The fake
// keeps objects in their external versions, so where kube-apiserver
// converts internal ⇄ versioned, a conversion here is mostly a copy: same
// Go type (or both unstructured) is copied, anything else goes to the
// scheme's conversions.
type admissionObjects struct{ s *Server }

var (
	_ admission.ObjectInterfaces = admissionObjects{}
	_ runtime.ObjectCreater      = admissionObjects{}
	_ runtime.ObjectTyper        = admissionObjects{}
	_ runtime.ObjectDefaulter    = admissionObjects{}
	_ runtime.ObjectConvertor    = admissionObjects{}

	_ runtime.EquivalentResourceMapper = equivalentResources{}
)

// GetObjectCreater, GetObjectTyper, GetObjectDefaulter and
// GetObjectConvertor return o itself (the methods below).
func (o admissionObjects) GetObjectCreater() runtime.ObjectCreater     { return o }
func (o admissionObjects) GetObjectTyper() runtime.ObjectTyper         { return o }
func (o admissionObjects) GetObjectDefaulter() runtime.ObjectDefaulter { return o }
func (o admissionObjects) GetObjectConvertor() runtime.ObjectConvertor { return o }

// GetEquivalentResourceMapper returns the served resources' equivalences
// (matchPolicy Equivalent).
func (o admissionObjects) GetEquivalentResourceMapper() runtime.EquivalentResourceMapper {
	return equivalentResources(o)
}

// equivalentResources is the matchPolicy Equivalent mapper: the served
// versions of a custom resource are equivalent, as the CRD handler
// registers them (apiextensions-apiserver pkg/apiserver
// customresource_handler.go, RegisterKindFor per version), and convert
// as its "None" strategy does (only apiVersion changes). The versions of
// a built-in resource stored once (builtin_conversion.go) are equivalent,
// as kube-apiserver's EquivalentResourceRegistry keys them by storage
// prefix, and convert through internal/conversion; other built-in
// resources have no equivalents here.
type equivalentResources struct{ s *Server }

// EquivalentResourcesFor returns the served versions of resource's CRD,
// or of a built-in resource stored once (resource included); none for
// other built-in resources.
func (m equivalentResources) EquivalentResourcesFor(resource schema.GroupVersionResource, _ string) []schema.GroupVersionResource {
	res, ok := m.s.resources.lookup(resource)
	if ok && res.conversion != nil {
		return m.s.resources.sharingStorage(res)
	}
	if !ok || res.custom == nil {
		return nil
	}
	var out []schema.GroupVersionResource
	for _, r := range m.s.resources.customOf(res.custom.crdName) {
		if r.gvr.GroupResource() == resource.GroupResource() {
			out = append(out, r.gvr)
		}
	}
	return out
}

// KindFor is the kind served at resource (a subresource's own kind for
// scale, eviction, binding and token).
func (m equivalentResources) KindFor(resource schema.GroupVersionResource, subresource string) schema.GroupVersionKind {
	if kind, ok := otherKindSubresources[subresource]; ok {
		return kind
	}
	res, ok := m.s.resources.lookup(resource)
	if !ok {
		return schema.GroupVersionKind{}
	}
	return res.Kind
}

// New returns an empty object of gvk: the served resource's type (an
// unstructured object for a custom resource), else the scheme's.
func (o admissionObjects) New(gvk schema.GroupVersionKind) (runtime.Object, error) {
	if res, ok := o.s.resources.lookupKind(gvk); ok {
		obj := res.newObject()
		obj.GetObjectKind().SetGroupVersionKind(gvk)
		return obj, nil
	}
	return o.s.cfg.Scheme.New(gvk)
}

// ObjectKinds is the scheme's, but an unstructured object is of the kind
// it names (runtime.UnstructuredObjectTyper).
func (o admissionObjects) ObjectKinds(obj runtime.Object) ([]schema.GroupVersionKind, bool, error) {
	if u, ok := obj.(runtime.Unstructured); ok {
		gvk := u.GetObjectKind().GroupVersionKind()
		if gvk.Kind == "" {
			return nil, false, runtime.NewMissingKindErr("object has no kind field ")
		}
		return []schema.GroupVersionKind{gvk}, false, nil
	}
	return o.s.cfg.Scheme.ObjectKinds(obj)
}

// Recognizes reports whether gvk is served or in the scheme.
func (o admissionObjects) Recognizes(gvk schema.GroupVersionKind) bool {
	_, ok := o.s.resources.lookupKind(gvk)
	return ok || o.s.cfg.Scheme.Recognizes(gvk)
}

// Default runs the defaults of the served resource of obj's kind, as the
// mutating dispatcher asks after applying a webhook's patch.
func (o admissionObjects) Default(obj runtime.Object) {
	if res, ok := o.s.resources.lookupKind(obj.GetObjectKind().GroupVersionKind()); ok {
		res.applyDefaults(obj)
	}
}

// Convert copies in into out when they are of one Go type (the fake's
// "conversion" between a request's object and the webhook's version of
// it: a custom resource's CRD's conversion webhook converts it if it has
// one), keeping out's apiVersion and kind; other pairs are the scheme's.
func (o admissionObjects) Convert(in, out, context any) error {
	inObj, ok1 := in.(runtime.Object)
	outObj, ok2 := out.(runtime.Object)
	if ok1 && ok2 && reflect.TypeOf(in) != reflect.TypeOf(out) {
		if kinds, _, err := o.s.cfg.Scheme.ObjectKinds(outObj); err == nil && len(kinds) > 0 {
			if converted, ok, err := convertBuiltin(o.s.cfg.Scheme, inObj, kinds[0].GroupVersion()); ok {
				if err != nil {
					return err
				}
				reflect.ValueOf(out).Elem().Set(reflect.ValueOf(converted).Elem())
				return nil
			}
		}
	}
	if !ok1 || !ok2 || reflect.TypeOf(in) != reflect.TypeOf(out) {
		return o.s.cfg.Scheme.Convert(in, out, context)
	}
	gvk := outObj.GetObjectKind().GroupVersionKind()
	if u, ok := inObj.(*unstructured.Unstructured); ok {
		if converted, ok, err := o.convertByWebhook(u, gvk.GroupVersion()); ok {
			if err != nil {
				return err
			}
			u = converted
		}
		out.(*unstructured.Unstructured).Object = u.DeepCopy().Object
	} else {
		reflect.ValueOf(out).Elem().Set(reflect.ValueOf(inObj.DeepCopyObject()).Elem())
	}
	if !gvk.Empty() {
		outObj.GetObjectKind().SetGroupVersionKind(gvk)
	}
	return nil
}

// ConvertToVersion is the scheme's, an unstructured object only changing
// its apiVersion (the "None" conversion of custom resources) unless its
// CRD has a conversion webhook, which converts it.
func (o admissionObjects) ConvertToVersion(in runtime.Object, gv runtime.GroupVersioner) (runtime.Object, error) {
	if u, ok := in.(*unstructured.Unstructured); ok {
		gvk, ok := gv.KindForGroupVersionKinds([]schema.GroupVersionKind{u.GroupVersionKind()})
		if !ok {
			return nil, fmt.Errorf("fakeapiserver: no version of %v in %v", u.GroupVersionKind(), gv)
		}
		if converted, ok, err := o.convertByWebhook(u, gvk.GroupVersion()); ok {
			return converted, err
		}
		out := u.DeepCopy()
		out.SetGroupVersionKind(gvk)
		return out, nil
	}
	if kinds, _, err := o.s.cfg.Scheme.ObjectKinds(in); err == nil && len(kinds) > 0 {
		if gvk, ok := gv.KindForGroupVersionKinds(kinds); ok {
			if converted, ok, err := convertBuiltin(o.s.cfg.Scheme, in, gvk.GroupVersion()); ok {
				return converted, err // builtin_conversion.go
			}
		}
	}
	return o.s.cfg.Scheme.ConvertToVersion(in, gv)
}

// convertByWebhook converts a custom resource u to gv with its CRD's
// conversion webhook, as the request scope's converter the admission
// plugins are given does (customresource_conversion.go); ok is false for
// objects of other resources, of a CRD without a conversion webhook, and
// already in gv.
func (o admissionObjects) convertByWebhook(u *unstructured.Unstructured, gv schema.GroupVersion) (*unstructured.Unstructured, bool, error) {
	from := u.GroupVersionKind()
	if gv.Empty() || from.GroupVersion() == gv {
		return nil, false, nil
	}
	res, found := o.s.resources.lookupKind(from)
	if !found || !res.custom.convertsByWebhook() {
		return nil, false, nil
	}
	out, err := res.custom.converter.ConvertToVersion(u, gv)
	if err != nil {
		return nil, true, err
	}
	cu, isU := out.(*unstructured.Unstructured)
	if !isU {
		return nil, true, fmt.Errorf("fakeapiserver: conversion of %s returned a %T", from, out)
	}
	return cu, true, nil
}

// ConvertFieldLabel is the scheme's.
func (o admissionObjects) ConvertFieldLabel(gvk schema.GroupVersionKind, label, value string) (string, string, error) {
	return o.s.cfg.Scheme.ConvertFieldLabel(gvk, label, value)
}
