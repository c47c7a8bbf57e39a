package fakeapiserver

import (
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// readBody reads a request body up to the configured limit; a larger body
// is 413 with kube-apiserver's message (handlers/rest.go limitedReadBody).
func (s *Server) readBody(r *http.Request) ([]byte, error) {
	defer r.Body.Close()
	limit := s.cfg.MaxRequestBodyBytes
	lr := &io.LimitedReader{R: r.Body, N: limit + 1}
	data, err := io.ReadAll(lr)
	if err != nil {
		return nil, fmt.Errorf("read request body: %w", err)
	}
	if lr.N <= 0 {
		return nil, apierrors.NewRequestEntityTooLargeError(fmt.Sprintf("limit is %d", limit))
	}
	return data, nil
}

// decodeObject decodes a create or update body into an object of res,
// applying ?fieldValidation= as handlers/create.go does: Strict rejects
// unknown and duplicate fields, Warn (the default) turns them into Warning
// headers, Ignore drops them. Errors are the real 400s
// (handlers/rest.go transformDecodeError).
func (s *Server) decodeObject(req *request, body []byte) (runtime.Object, error) {
	directive := fieldValidation(req.r)
	info, err := s.inputSerializer(req.r.Header.Get("Content-Type"))
	if err != nil {
		return nil, err
	}
	dec := info.Serializer
	if directive != metav1.FieldValidationIgnore && info.StrictSerializer != nil {
		dec = info.StrictSerializer
	}
	obj, gvk, err := dec.Decode(body, &req.res.Kind, req.res.newObject())
	if err != nil {
		strictErr, isStrict := runtime.AsStrictDecodingError(err)
		switch {
		case isStrict && obj != nil && directive == metav1.FieldValidationWarn:
			addWarnings(req.w, strictErr.Errors())
		default:
			return nil, transformDecodeError(req.res, err, gvk, body)
		}
	}
	if gvk != nil && *gvk != req.res.Kind {
		return nil, wrongKind(req.res, *gvk, body)
	}
	obj.GetObjectKind().SetGroupVersionKind(req.res.Kind)
	return obj, nil
}

// fieldValidation reads the directive, defaulting to Warn (handlers/rest.go).
func fieldValidation(r *http.Request) string {
	if v := r.URL.Query().Get("fieldValidation"); v != "" {
		return v
	}
	return metav1.FieldValidationWarn
}

// addWarnings sends each strict-decoding problem as an RFC 7234 Warning
// header (code 299), which client-go prints.
func addWarnings(w http.ResponseWriter, errs []error) {
	for _, e := range errs {
		w.Header().Add("Warning", fmt.Sprintf("299 - %q", e.Error()))
	}
}

// wrongKind is the error of a body whose kind or apiVersion the resource
// does not serve: the real server fails converting it into the resource's
// internal type.
func wrongKind(res *resourceInfo, got schema.GroupVersionKind, body []byte) error {
	base := fmt.Errorf("converting (%s.%s) to (%s.%s): unknown conversion", versionPackage(got.GroupVersion()), got.Kind, internalPackage(res.Kind.Group), res.Kind.Kind)
	return transformDecodeError(res, base, &got, body)
}

// transformDecodeError words a decoding failure as handlers/rest.go does.
func transformDecodeError(res *resourceInfo, err error, gvk *schema.GroupVersionKind, body []byte) error {
	if gvk != nil && gvk.Kind != "" {
		return apierrors.NewBadRequest(fmt.Sprintf("%s in version %q cannot be handled as a %s: %v", gvk.Kind, gvk.Version, res.Kind.Kind, err))
	}
	return apierrors.NewBadRequest(fmt.Sprintf("the object provided is unrecognized (must be of type %s): %v (%s)", res.Kind.Kind, err, summarizeData(body, 30)))
}

// summarizeData is handlers/rest.go's summary of a bad body: the start of a
// JSON document, or hex for anything else.
func summarizeData(data []byte, maxLength int) string {
	switch {
	case len(data) == 0:
		return "<empty>"
	case data[0] == '{':
		if len(data) > maxLength {
			return string(data[:maxLength]) + " ..."
		}
		return string(data)
	default:
		if len(data) > maxLength {
			return hex.EncodeToString(data[:maxLength]) + " ..."
		}
		return hex.EncodeToString(data)
	}
}

// internalPackage is the Go package name of a group's internal types in
// kube-apiserver, as conversion errors print them (core.Pod, apps.Deployment).
func internalPackage(group string) string {
	if group == "" {
		return "core"
	}
	return strings.Split(group, ".")[0]
}

// versionPackage is the Go package name of a versioned type (v1.ConfigMap).
func versionPackage(gv schema.GroupVersion) string { return gv.Version }
