package fakeapiserver

import (
	"bytes"
	"fmt"
	"mime"
	"net/http"
	"strings"

	"github.com/munnerz/goautoneg"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1beta1 "k8s.io/apimachinery/pkg/apis/meta/v1beta1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// notAcceptableMessage is what kube-apiserver (go-restful's route matching)
// answers for an Accept header that no list or watch route produces
// [observed on v1.37.2]. Routes of the other verbs produce no stream types, so
// their message stops after the protobuf entry (see restfulNotAcceptable).
const notAcceptableMessage = "406: Not Acceptable\n\nAvailable representations: application/json, application/yaml, application/vnd.kubernetes.protobuf, application/json;stream=watch, application/vnd.kubernetes.protobuf;stream=watch"

// outputTarget is the transformation an Accept clause asks for with its
// as=, g= and v= parameters (handlers/negotiation MediaTypeOptions.Convert):
// the response is the object itself, or one of the meta.k8s.io forms
// kube-apiserver turns it into (handlers/response.go doTransformObject).
type outputTarget int

const (
	// targetNone sends the object as it is.
	targetNone outputTarget = iota
	// targetTable is the Table of kubectl get (as=Table).
	targetTable
	// targetPartial is the object's metadata alone (as=PartialObjectMetadata).
	targetPartial
	// targetPartialList is a list's items' metadata alone
	// (as=PartialObjectMetadataList).
	targetPartialList
)

// targetKinds maps the as= kinds served to their targets.
var targetKinds = map[string]outputTarget{
	"Table":                     targetTable,
	"PartialObjectMetadata":     targetPartial,
	"PartialObjectMetadataList": targetPartialList,
}

// outputType is the negotiated representation of a response.
type outputType struct {
	info runtime.SerializerInfo
	// target is the transformation asked for, in the meta.k8s.io version
	// targetGV (v1 or v1beta1); targetNone for the object itself.
	target   outputTarget
	targetGV schema.GroupVersion
}

// isTable reports whether the client asked for the Table form.
func (o outputType) isTable() bool { return o.target == targetTable }

// transforms says which as= targets an endpoint serves, as
// RequestScope.AllowsMediaTypeTransform (handlers/rest.go) decides them: a
// resource serves the metadata forms in every media type and a Table in
// JSON or YAML when it has a table convertor; an error answer, discovery
// and the other non-resource documents serve none
// (negotiation.DefaultEndpointRestrictions).
type transforms struct {
	table, partial bool
}

var (
	// noTransforms is DefaultEndpointRestrictions.
	noTransforms = transforms{}
	// resourceTransforms are those of a resource's verbs.
	resourceTransforms = transforms{table: true, partial: true}
	// partialTransforms are those of an endpoint without a Table form
	// in lw-sim (the scale subresource).
	partialTransforms = transforms{partial: true}
)

// transforms are the as= targets the endpoint of req serves: a review or
// the scale subresource has no table convertor in lw-sim (installer.go
// gives one to listers and to storages that convert tables; kube-apiserver
// prints a Scale, lw-sim does not), the other resource endpoints serve all.
func (req *request) transforms() transforms {
	if req.res.review != nil || req.info.subresource == "scale" {
		return partialTransforms
	}
	return resourceTransforms
}

// negotiateOutput picks the response media type from the Accept header as
// apiserver pkg/endpoints/handlers/negotiation (NegotiateMediaTypeOptions)
// does: the first clause, in preference order, that a serializer can serve
// with all of its parameters understood and its transformation allowed by
// the endpoint (t). The candidates are the scheme's serializers, for custom
// resources too: their own serializers (JSON and YAML) serve the objects,
// the scheme's serve the meta.k8s.io forms, protobuf included, as the CR
// handler's scope negotiates over its full serializer and restricts only
// untransformed answers to its StandardSerializers.
func (s *Server) negotiateOutput(r *http.Request, t transforms) (outputType, error) {
	custom := routedCustomResource(r)
	header := r.Header.Get("Accept")
	if header == "" {
		return outputType{info: s.mediaTypesFor(r)[0]}, nil
	}
	for _, clause := range goautoneg.ParseAccept(header) {
		for _, info := range s.codecs.SupportedMediaTypes() {
			if !mediaRangeMatches(clause, info) {
				continue
			}
			out, ok := acceptParams(clause.Params, info, t)
			if !ok {
				continue
			}
			if out.target == targetNone && custom != nil {
				// Only the CR serializers encode the objects themselves.
				if out.info, ok = crSerializerFor(s.mediaTypesFor(r), info.MediaType); !ok {
					continue
				}
			}
			return out, nil
		}
	}
	return outputType{}, s.handlerNotAcceptable()
}

// crSerializerFor finds the serializer of mediaType among a custom
// resource's.
func crSerializerFor(infos []runtime.SerializerInfo, mediaType string) (runtime.SerializerInfo, bool) {
	for _, info := range infos {
		if info.MediaType == mediaType {
			return info, true
		}
	}
	return runtime.SerializerInfo{}, false
}

// handlerNotAcceptable is the 406 of the handlers' own negotiation
// (handlers/negotiation NegotiateOutputMediaType → NewNotAcceptableError),
// reached when go-restful let the Accept header through (its base type is
// produced) but no clause can be served, e.g. "application/json;as=Foo".
func (s *Server) handlerNotAcceptable() error {
	return &apierrors.StatusError{ErrStatus: metav1.Status{
		Status:  metav1.StatusFailure,
		Code:    http.StatusNotAcceptable,
		Reason:  metav1.StatusReasonNotAcceptable,
		Message: "only the following media types are accepted: " + strings.Join(s.supportedMediaTypes(), ", "),
	}}
}

// restfulNotAcceptable applies go-restful's Accept check, which runs before
// any kube-apiserver handler (go-restful jsr311.go detectRoute): a clause
// matches when its type, parameters stripped, is "*/*" or exactly one the
// route produces ("application/*" does not match). An empty header is
// "*/*". Routes of list and watch also produce the ";stream=watch" types.
// The error is the 406 serviceErrorHandler writes (pkg/server/handler.go).
func (s *Server) restfulNotAcceptable(r *http.Request, streaming bool) error {
	accept := r.Header.Get("Accept")
	if accept == "" {
		return nil
	}
	for clause := range strings.SplitSeq(accept, ",") {
		mt, _, _ := strings.Cut(clause, ";")
		mt = strings.TrimSpace(mt)
		if mt == "*/*" {
			return nil
		}
		// A clause's type has no parameters left, so only the plain
		// types can match it; the ";stream=watch" ones are named in the
		// error alone.
		for _, info := range s.codecs.SupportedMediaTypes() {
			if info.MediaType == mt {
				return nil
			}
		}
	}
	produces := s.supportedMediaTypes()
	if streaming {
		for _, info := range s.codecs.SupportedMediaTypes() {
			if info.StreamSerializer != nil {
				produces = append(produces, info.MediaType+";stream=watch")
			}
		}
	}
	return apierrors.NewGenericServerResponse(http.StatusNotAcceptable, "", schema.GroupResource{}, "",
		"406: Not Acceptable\n\nAvailable representations: "+strings.Join(produces, ", "), 0, false)
}

// mediaRangeMatches reports whether an Accept clause (possibly a wildcard)
// covers the serializer's media type.
func mediaRangeMatches(c goautoneg.Accept, info runtime.SerializerInfo) bool {
	return (c.Type == info.MediaTypeType && (c.SubType == info.MediaTypeSubType || c.SubType == "*")) ||
		(c.Type == "*" && c.SubType == "*")
}

// acceptParams applies the media-type parameters of one Accept clause as
// negotiation.acceptMediaTypeOptions does; ok is false when the clause asks
// for something this endpoint cannot produce, in which case negotiation
// moves on to the next clause. Any of as=, g= and v= asks for a
// transformation, even with the others missing or empty (then none is
// allowed).
func acceptParams(params map[string]string, info runtime.SerializerInfo, t transforms) (outputType, bool) {
	out := outputType{info: info}
	var convert schema.GroupVersionKind
	transform := false
	for k, v := range params {
		switch k {
		case "as":
			convert.Kind, transform = v, true
		case "g":
			convert.Group, transform = v, true
		case "v":
			convert.Version, transform = v, true
		case "stream":
			if v != "" && (v != "watch" || info.StreamSerializer == nil) {
				return outputType{}, false
			}
		}
	}
	if !transform {
		return out, true
	}
	out.target, out.targetGV = targetKinds[convert.Kind], convert.GroupVersion()
	return out, t.allows(out, info)
}

// allows is AllowsMediaTypeTransform for a requested target: meta.k8s.io
// v1 or v1beta1 only; a Table in JSON or YAML (protobuf has none).
func (t transforms) allows(out outputType, info runtime.SerializerInfo) bool {
	if out.targetGV != metav1.SchemeGroupVersion && out.targetGV != metav1beta1.SchemeGroupVersion {
		return false
	}
	switch out.target {
	case targetTable:
		return t.table && info.MediaTypeType == "application" && (info.MediaTypeSubType == "json" || info.MediaTypeSubType == "yaml")
	case targetPartial, targetPartialList:
		return t.partial
	}
	return false
}

// inputSerializer finds the serializer for a request Content-Type among
// those of the resource r is routed to.
func (s *Server) inputSerializer(r *http.Request, contentType string) (runtime.SerializerInfo, error) {
	mediaType, _, err := mime.ParseMediaType(contentType)
	if contentType == "" {
		mediaType, err = runtime.ContentTypeJSON, nil
	}
	if err == nil {
		for _, info := range s.mediaTypesFor(r) {
			if info.MediaType == mediaType {
				return info, nil
			}
		}
	}
	return runtime.SerializerInfo{}, unsupportedMediaType(s.supportedMediaTypes())
}

// supportedMediaTypes lists the request body types the server decodes.
func (s *Server) supportedMediaTypes() []string {
	var out []string
	for _, info := range s.codecs.SupportedMediaTypes() {
		out = append(out, info.MediaType)
	}
	return out
}

// unsupportedMediaType is a handler's 415 for an undecodable body type
// (apiserver pkg/endpoints/handlers/negotiation/errors.go
// errUnsupportedMediaType: no details).
func unsupportedMediaType(accepted []string) error {
	return &apierrors.StatusError{ErrStatus: metav1.Status{
		Status:  metav1.StatusFailure,
		Code:    http.StatusUnsupportedMediaType,
		Reason:  metav1.StatusReasonUnsupportedMediaType,
		Message: "the body of the request was in an unknown format - accepted media types include: " + strings.Join(accepted, ", "),
	}}
}

// encode serialises obj with the negotiated serializer into a buffer, so a
// failure never leaves a partial response behind. obj must have its
// apiVersion and kind set: the raw serializers (unlike a versioning codec)
// never write to the object, which lets handlers encode shared store objects
// concurrently. A selfEncoder (a LIST page) encodes itself.
func encode(info runtime.SerializerInfo, obj runtime.Object) ([]byte, error) {
	if se, ok := obj.(selfEncoder); ok {
		return se.encodeBody(info)
	}
	var buf bytes.Buffer
	if err := info.Serializer.Encode(obj, &buf); err != nil {
		return nil, fmt.Errorf("encode %T as %s: %w", obj, info.MediaType, err)
	}
	return buf.Bytes(), nil
}
