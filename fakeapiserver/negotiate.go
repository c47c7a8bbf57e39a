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
// answers for an Accept header it cannot serve [spec §2.3, observed].
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
	accepted := s.codecs.SupportedMediaTypes()
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
	return outputType{}, apierrors.NewGenericServerResponse(http.StatusNotAcceptable, "", schema.GroupResource{}, "", notAcceptableMessage, 0, false)
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

// decodeBody decodes a request body by its Content-Type into a typed object.
// strict selects the strict decoder (unknown and duplicate fields are
// errors). Unknown content types get 415 with kube-apiserver's message.
func (s *Server) decodeBody(r *http.Request, body []byte, strict bool) (runtime.Object, *schema.GroupVersionKind, error) {
	info, err := s.inputSerializer(r.Header.Get("Content-Type"))
	if err != nil {
		return nil, nil, err
	}
	dec := info.Serializer
	if strict && info.StrictSerializer != nil {
		dec = info.StrictSerializer
	}
	obj, gvk, err := dec.Decode(body, nil, nil)
	return obj, gvk, err
}

// inputSerializer finds the serializer for a request Content-Type.
func (s *Server) inputSerializer(contentType string) (runtime.SerializerInfo, error) {
	mediaType, _, err := mime.ParseMediaType(contentType)
	if contentType == "" {
		mediaType, err = runtime.ContentTypeJSON, nil
	}
	if err == nil {
		for _, info := range s.codecs.SupportedMediaTypes() {
			if info.MediaType == mediaType {
				return info, nil
			}
		}
	}
	return runtime.SerializerInfo{}, unsupportedMediaType(contentType, s.supportedMediaTypes())
}

// supportedMediaTypes lists the request body types the server decodes.
func (s *Server) supportedMediaTypes() []string {
	var out []string
	for _, info := range s.codecs.SupportedMediaTypes() {
		out = append(out, info.MediaType)
	}
	return out
}

// unsupportedMediaType is kube-apiserver's 415 for an undecodable body type
// (apiserver pkg/endpoints/handlers/negotiation/errors.go).
func unsupportedMediaType(contentType string, accepted []string) error {
	return apierrors.NewGenericServerResponse(http.StatusUnsupportedMediaType, "", schema.GroupResource{}, "",
		fmt.Sprintf("the body of the request was in an unknown format - accepted media types include: %v", strings.Join(accepted, ", ")), 0, false)
}

// encode serialises obj with the negotiated serializer into a buffer, so a
// failure never leaves a partial response behind. obj must have its
// apiVersion and kind set: the raw serializers (unlike a versioning codec)
// never write to the object, which lets handlers encode shared store objects
// concurrently.
func encode(info runtime.SerializerInfo, obj runtime.Object) ([]byte, error) {
	var buf bytes.Buffer
	if err := info.Serializer.Encode(obj, &buf); err != nil {
		return nil, fmt.Errorf("encode %T as %s: %w", obj, info.MediaType, err)
	}
	return buf.Bytes(), nil
}
