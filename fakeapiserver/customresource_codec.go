package fakeapiserver

import (
	"context"
	"fmt"
	"io"
	"maps"
	"net/http"

	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	schemaobjectmeta "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/objectmeta"
	structuralpruning "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer/json"
)

// Custom resources are served in JSON and YAML only: the real handler
// negotiates protobuf too but cannot encode unstructured objects in it, so a
// client that accepts only protobuf gets the handlers' 406 and one that
// also accepts JSON gets JSON [observed]; a protobuf body is not decodable.

// resourceCtxKey carries the routed resource in a request's context, so the
// media-type negotiation shared by every handler picks the resource's
// serializers.
type resourceCtxKey struct{}

// withCustomResource returns r with res, a custom resource, in its
// context (customReads.withResource).
func withCustomResource(r *http.Request, res *resourceInfo) *http.Request {
	return r.WithContext(context.WithValue(r.Context(), resourceCtxKey{}, res))
}

// statusRequest is r for writing a Status: errors of custom resource
// requests are negotiated over the scheme's serializers, protobuf
// included, as the CR handler's scope serializer negotiates them (a
// protobuf-only Accept gets its 406 in protobuf) [observed].
func statusRequest(r *http.Request) *http.Request {
	if res, ok := r.Context().Value(resourceCtxKey{}).(*resourceInfo); !ok || res == nil {
		return r
	}
	return r.WithContext(context.WithValue(r.Context(), resourceCtxKey{}, (*resourceInfo)(nil)))
}

// mediaTypesFor returns the serializers of the resource a request is
// routed to: the scheme's for built-ins (and for a nil request), the CR
// serializers for custom resources.
func (s *Server) mediaTypesFor(r *http.Request) []runtime.SerializerInfo {
	if res := routedCustomResource(r); res != nil {
		return res.custom.serializers(res.Kind.GroupVersion())
	}
	return s.codecs.SupportedMediaTypes()
}

// routedCustomResource is the custom resource r is routed to, or nil (a
// built-in, no resource, or a nil request).
func routedCustomResource(r *http.Request) *resourceInfo {
	if r == nil {
		return nil
	}
	if res, ok := r.Context().Value(resourceCtxKey{}).(*resourceInfo); ok && res != nil { // only custom resources are put there
		return res
	}
	return nil
}

// serializers are the JSON and YAML serializers of one served version:
// decoding prunes and coerces as the handler's schemaCoercingDecoder does,
// encoding writes objects in the served version.
func (cr *customResource) serializers(gv schema.GroupVersion) []runtime.SerializerInfo {
	creator, typer := unstructuredCreator{}, unstructuredTyper{}
	mk := func(opts json.SerializerOptions, strict bool) runtime.Serializer {
		return crSerializer{Serializer: json.NewSerializerWithOptions(json.DefaultMetaFactory, creator, typer, opts), cr: cr, gv: gv, strict: strict}
	}
	return []runtime.SerializerInfo{
		{
			MediaType: runtime.ContentTypeJSON, MediaTypeType: "application", MediaTypeSubType: "json", EncodesAsText: true,
			Serializer:       mk(json.SerializerOptions{}, false),
			PrettySerializer: mk(json.SerializerOptions{Pretty: true}, false),
			StrictSerializer: mk(json.SerializerOptions{Strict: true}, true),
			StreamSerializer: &runtime.StreamSerializerInfo{
				EncodesAsText: true,
				Serializer:    json.NewSerializerWithOptions(json.DefaultMetaFactory, creator, typer, json.SerializerOptions{}),
				Framer:        json.Framer,
			},
		},
		{
			MediaType: runtime.ContentTypeYAML, MediaTypeType: "application", MediaTypeSubType: "yaml", EncodesAsText: true,
			Serializer:       mk(json.SerializerOptions{Yaml: true}, false),
			StrictSerializer: mk(json.SerializerOptions{Yaml: true, Strict: true}, true),
		},
	}
}

// crSerializer wraps a JSON or YAML serializer with the handler's schema
// coercion on decode and the "None" conversion on encode.
type crSerializer struct {
	runtime.Serializer
	cr     *customResource
	gv     schema.GroupVersion
	strict bool
}

// Decode decodes, then prunes unknown fields and coerces metadata; under a
// strict serializer the pruned paths are strict-decoding errors
// (`unknown field "spec.x"`), which the handlers turn into warnings or a
// 422 per fieldValidation.
func (c crSerializer) Decode(data []byte, defaults *schema.GroupVersionKind, into runtime.Object) (runtime.Object, *schema.GroupVersionKind, error) {
	var strictErrs []error
	obj, gvk, err := c.Serializer.Decode(data, defaults, into)
	if err != nil {
		se, ok := runtime.AsStrictDecodingError(err)
		if !ok || obj == nil {
			return nil, gvk, err
		}
		strictErrs = se.Errors()
	}
	if u, ok := obj.(*unstructured.Unstructured); ok {
		unknown, err := c.cr.coerce(u, c.strict)
		if err != nil {
			return nil, gvk, err
		}
		for _, f := range unknown {
			strictErrs = append(strictErrs, fmt.Errorf(`unknown field "%s"`, f))
		}
	}
	if c.strict && len(strictErrs) > 0 {
		return obj, gvk, runtime.NewStrictDecodingError(strictErrs)
	}
	return obj, gvk, nil
}

// Encode writes custom resources of this group in the served version
// (shallow copies: store objects are shared).
func (c crSerializer) Encode(obj runtime.Object, w io.Writer) error {
	return c.Serializer.Encode(c.toServedVersion(obj), w)
}

func (c crSerializer) toServedVersion(obj runtime.Object) runtime.Object {
	switch o := obj.(type) {
	case *unstructured.Unstructured:
		return c.itemToServedVersion(o)
	case *unstructured.UnstructuredList:
		out := &unstructured.UnstructuredList{Object: maps.Clone(o.Object), Items: make([]unstructured.Unstructured, len(o.Items))}
		for i := range o.Items {
			out.Items[i] = *c.itemToServedVersion(&o.Items[i])
		}
		return out
	}
	return obj
}

func (c crSerializer) itemToServedVersion(u *unstructured.Unstructured) *unstructured.Unstructured {
	gvk := u.GroupVersionKind()
	if gvk.Group != c.gv.Group || gvk.Version == c.gv.Version {
		return u
	}
	cp := &unstructured.Unstructured{Object: maps.Clone(u.Object)}
	cp.SetAPIVersion(c.gv.String())
	return cp
}

// coerce is the handler's unstructuredSchemaCoercer.apply for requests:
// ObjectMeta is read back in its typed form (dropping what does not
// belong), unknown fields are pruned by the structural schema of the body's
// version, non-nullable nulls without defaults dropped, and embedded
// ObjectMetas coerced. It returns the pruned paths.
func (cr *customResource) coerce(u *unstructured.Unstructured, trackUnknown bool) ([]string, error) {
	kind, foundKind, err := unstructured.NestedString(u.Object, "kind")
	if err != nil {
		return nil, err
	}
	apiVersion, foundAPIVersion, err := unstructured.NestedString(u.Object, "apiVersion")
	if err != nil {
		return nil, err
	}
	objectMeta, foundMeta, unknown, err := schemaobjectmeta.GetObjectMetaWithOptions(u.Object, schemaobjectmeta.ObjectMetaOptions{ReturnUnknownFieldPaths: trackUnknown})
	if err != nil {
		return nil, err
	}
	gv, err := schema.ParseGroupVersion(apiVersion)
	if err != nil {
		return nil, err
	}
	// Only the CRD's own kind is pruned; other objects (options) pass.
	if s := cr.serving().structural[gv.Version]; gv.Group == cr.gk.Group && kind == cr.gk.Kind {
		if !cr.preserveUnknownFields {
			unknown = append(unknown, structuralpruning.PruneWithOptions(u.Object, s, true, structuralschema.UnknownFieldPathOptions{TrackUnknownFieldPaths: trackUnknown})...)
			structuraldefaulting.PruneNonNullableNullsWithoutDefaults(u.Object, s)
		}
		ferr, paths := schemaobjectmeta.CoerceWithOptions(nil, u.Object, s, false, schemaobjectmeta.CoerceOptions{ReturnUnknownFieldPaths: trackUnknown})
		if ferr != nil {
			return nil, ferr
		}
		unknown = append(unknown, paths...)
	}
	if foundKind {
		u.SetKind(kind)
	}
	if foundAPIVersion {
		u.SetAPIVersion(apiVersion)
	}
	if foundMeta {
		if err := schemaobjectmeta.SetObjectMeta(u.Object, objectMeta); err != nil {
			return nil, err
		}
	}
	return unknown, nil
}

// unstructuredCreator makes the empty objects the JSON serializer decodes
// custom resources into.
type unstructuredCreator struct{}

func (unstructuredCreator) New(kind schema.GroupVersionKind) (runtime.Object, error) {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(kind)
	return u, nil
}
