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
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// notAcceptableMessage is what kube-apiserver (go-restful's route matching)
// answers for an Accept header that no list or watch route produces [spec
// §2.3, observed]. Routes of the other verbs produce no stream types, so
// their message stops after the protobuf entry (see restfulNotAcceptable).
const notAcceptableMessage = "406: Not Acceptable\n\nAvailable representations: application/json, application/yaml, application/vnd.kubernetes.protobuf, application/json;stream=watch, application/vnd.kubernetes.protobuf;stream=watch"

// tableGVK is the meta.k8s.io/v1 Table that kubectl asks for with
// Accept: application/json;as=Table;v=v1;g=meta.k8s.io.
var tableGVK = metav1.SchemeGroupVersion.WithKind("Table")

// outputType is the negotiated representation of a response.
type outputType struct {
	info runtime.SerializerInfo
	// table is set when the client asked for the Table form (kubectl get).
	table bool
}

// negotiateOutput picks the response media type from the Accept header as
// apiserver pkg/endpoints/handlers/negotiation (NegotiateMediaTypeOptions)
// does: the first clause, in preference order, that a serializer can serve
// with all of its parameters understood. allowTable enables as=Table.
func (s *Server) negotiateOutput(r *http.Request, allowTable bool) (outputType, error) {
	accepted := s.mediaTypesFor(r)
	header := r.Header.Get("Accept")
	if header == "" {
		return outputType{info: accepted[0]}, nil
	}
	for _, clause := range goautoneg.ParseAccept(header) {
		for _, info := range accepted {
			if !mediaRangeMatches(clause, info) {
				continue
			}
			if out, ok := acceptParams(clause.Params, info, allowTable); ok {
				return out, nil
			}
		}
	}
	return outputType{}, s.handlerNotAcceptable()
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
	produces := s.supportedMediaTypes()
	if streaming {
		for _, info := range s.codecs.SupportedMediaTypes() {
			if info.StreamSerializer != nil {
				produces = append(produces, info.MediaType+";stream=watch")
			}
		}
	}
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
		for _, p := range produces {
			if p == mt {
				return nil
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

// acceptParams applies the media-type parameters of one Accept clause; ok is
// false when the clause asks for something this endpoint cannot produce, in
// which case negotiation moves on to the next clause.
func acceptParams(params map[string]string, info runtime.SerializerInfo, allowTable bool) (outputType, bool) {
	out := outputType{info: info}
	var convert schema.GroupVersionKind
	for k, v := range params {
		switch k {
		case "as":
			convert.Kind = v
		case "g":
			convert.Group = v
		case "v":
			convert.Version = v
		case "stream":
			if v != "" && (v != "watch" || info.StreamSerializer == nil) {
				return outputType{}, false
			}
		}
	}
	if convert.Empty() {
		return out, true
	}
	// Table is the only transformation served; protobuf Tables are not
	// (kubectl always lists a JSON Table first).
	isTable := convert.Kind == "Table" && convert.Group == metav1.GroupName && (convert.Version == "v1" || convert.Version == "v1beta1")
	if !allowTable || !isTable || info.MediaType != runtime.ContentTypeJSON {
		return outputType{}, false
	}
	out.table = true
	return out, true
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
