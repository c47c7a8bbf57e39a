package fakeapiserver

import (
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metainternalversionscheme "k8s.io/apimachinery/pkg/apis/meta/internalversion/scheme"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/lw-sim/lw-sim/internal/kubewire"
)

const (
	// yamlStrictShortPrefix and yamlStrictLongPrefix open the YAML strict
	// decoding errors that kube-apiserver splits into one warning per line
	// (handlers/rest.go shortPrefix, longPrefix).
	yamlStrictShortPrefix = "yaml: unmarshal errors:\n"
	yamlStrictLongPrefix  = "error converting YAML to JSON: yaml: unmarshal errors:\n"
	// legacySchemeName is how kube-apiserver's scheme names itself in "no
	// kind is registered" errors: runtime.NewScheme records its call site,
	// k8s.io/kubernetes/pkg/api/legacyscheme/scheme.go line 30, as
	// naming.GetNameFromCallsite trims it for a release build.
	legacySchemeName = "k8s.io/kubernetes/pkg/api/legacyscheme/scheme.go:30"
)

// schemeNameInError finds the scheme name a decoding error quotes.
var schemeNameInError = regexp.MustCompile(` in scheme "[^"]*"`)

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

// decodeOptions decodes the query into CreateOptions, UpdateOptions,
// PatchOptions or DeleteOptions as the handlers do (400 on failure).
func decodeOptions(r *http.Request, into runtime.Object) error {
	if err := metainternalversionscheme.ParameterCodec.DecodeParameters(kubewire.QueryOf(r), metav1.SchemeGroupVersion, into); err != nil {
		return apierrors.NewBadRequest(err.Error())
	}
	return nil
}

// createOptions decodes and validates CreateOptions (handlers/create.go)
// and returns the field validation directive.
func createOptions(r *http.Request) (string, error) {
	opts := &metav1.CreateOptions{}
	if err := decodeOptions(r, opts); err != nil {
		return "", err
	}
	if errs := metav1validation.ValidateCreateOptions(opts); len(errs) > 0 {
		return "", apierrors.NewInvalid(schema.GroupKind{Group: metav1.GroupName, Kind: "CreateOptions"}, "", errs)
	}
	return fieldValidationDirective(opts.FieldValidation), nil
}

// updateOptions decodes and validates UpdateOptions (handlers/update.go)
// and returns the field validation directive.
func updateOptions(r *http.Request) (string, error) {
	opts := &metav1.UpdateOptions{}
	if err := decodeOptions(r, opts); err != nil {
		return "", err
	}
	if errs := metav1validation.ValidateUpdateOptions(opts); len(errs) > 0 {
		return "", apierrors.NewInvalid(schema.GroupKind{Group: metav1.GroupName, Kind: "UpdateOptions"}, "", errs)
	}
	return fieldValidationDirective(opts.FieldValidation), nil
}

// validatePatchOptions is metav1 validation's ValidatePatchOptions.
func validatePatchOptions(opts *metav1.PatchOptions, patchType types.PatchType) field.ErrorList {
	return metav1validation.ValidatePatchOptions(opts, patchType)
}

// fieldValidationDirective defaults the directive to Warn
// (handlers/rest.go fieldValidation).
func fieldValidationDirective(v string) string {
	if v == "" {
		return metav1.FieldValidationWarn
	}
	return v
}

// decodeObject decodes a create or update body into an object of res as
// handlers/create.go and update.go do: 415 for an unknown Content-Type,
// the strict decoder under Strict and Warn (Warn turns strict errors into
// Warning headers), 400 with transformDecodeError's wording for anything
// undecodable or of another kind, and 400 for a kind of the right group in
// another version (AcceptsGroupVersion).
func (s *Server) decodeObject(req *request, body []byte, directive string) (runtime.Object, error) {
	info, err := s.inputSerializer(req.r, req.r.Header.Get("Content-Type"))
	if err != nil {
		return nil, err
	}
	if err := s.checkYAMLBody(info.MediaType, body); err != nil { // write_limits_yaml.go
		return nil, err
	}
	dec := info.Serializer
	if directive != metav1.FieldValidationIgnore && info.StrictSerializer != nil {
		dec = info.StrictSerializer
	}
	obj, gvk, err := dec.Decode(body, &req.res.Kind, req.res.newObject())
	if err != nil {
		strictErr, isStrict := runtime.AsStrictDecodingError(err)
		if !isStrict || obj == nil || directive != metav1.FieldValidationWarn {
			return nil, transformDecodeError(req.res, err, gvk, body)
		}
		addWarnings(req.w, strictErr.Errors())
	}
	if gvk != nil && *gvk != req.res.Kind {
		return nil, wrongKind(req.res, *gvk, body)
	}
	obj.GetObjectKind().SetGroupVersionKind(req.res.Kind)
	return obj, nil
}

// addWarnings sends each strict-decoding problem as a "299 -" Warning
// header, deduplicated, with YAML error lists split per line, as
// handlers/rest.go addStrictDecodingWarnings and the warning recorder
// (endpoints/filters/warning.go) do; client-go hands them to its
// WarningHandler.
func addWarnings(w http.ResponseWriter, errs []error) {
	seen := map[string]bool{}
	for _, e := range errs {
		for _, text := range splitYAMLWarnings(e.Error()) {
			if text == "" || seen[text] {
				continue
			}
			seen[text] = true
			if h, err := utilnet.NewWarningHeader(299, "-", text); err == nil {
				w.Header().Add("Warning", h)
			}
		}
	}
}

// splitYAMLWarnings is handlers/rest.go parseYAMLWarnings.
func splitYAMLWarnings(msg string) []string {
	rest, ok := strings.CutPrefix(msg, yamlStrictShortPrefix)
	if !ok {
		if rest, ok = strings.CutPrefix(msg, yamlStrictLongPrefix); !ok {
			return []string{msg}
		}
	}
	lines := strings.Split(rest, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSpace(l)
	}
	return lines
}

// wrongKind is the error of a body whose kind or apiVersion the resource
// does not serve. A kind of the resource's group in another registered
// version decodes and converts, then fails create.go's AcceptsGroupVersion
// check; anything else fails converting into the resource's internal type.
func wrongKind(res *resourceInfo, got schema.GroupVersionKind, body []byte) error {
	if got.GroupKind() == res.Kind.GroupKind() {
		return apierrors.NewBadRequest(fmt.Sprintf("the API version in the data (%s) does not match the expected API version (%s)", got.GroupVersion(), res.Kind.GroupVersion()))
	}
	return transformDecodeError(res, conversionError(res, got), &got, body)
}

// conversionError is the scheme's error converting a decoded object of
// kind got into res's internal type, which has no conversion from another
// kind: "converting (v1.Pod) to (core.ConfigMap): unknown conversion".
func conversionError(res *resourceInfo, got schema.GroupVersionKind) error {
	return fmt.Errorf("converting (%s.%s) to (%s.%s): unknown conversion", versionPackage(got.GroupVersion()), got.Kind, internalPackage(res.Kind.Group), res.Kind.Kind)
}

// transformDecodeError words a decoding failure as handlers/rest.go does;
// the scheme name quoted by "no kind is registered" errors is the real
// server's.
func transformDecodeError(res *resourceInfo, err error, gvk *schema.GroupVersionKind, body []byte) error {
	msg := schemeNameInError.ReplaceAllLiteralString(err.Error(), ` in scheme "`+legacySchemeName+`"`)
	if gvk != nil && gvk.Kind != "" {
		return apierrors.NewBadRequest(fmt.Sprintf("%s in version %q cannot be handled as a %s: %s", gvk.Kind, gvk.Version, res.Kind.Kind, msg))
	}
	return apierrors.NewBadRequest(fmt.Sprintf("the object provided is unrecognized (must be of type %s): %s (%s)", res.Kind.Kind, msg, summarizeData(body, 30)))
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
