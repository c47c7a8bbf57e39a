package fakeapiserver

import (
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"strings"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/mergepatch"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	"k8s.io/apimachinery/pkg/util/validation/field"
	kjson "sigs.k8s.io/json"

	jsonops "github.com/lw-sim/lw-sim/internal/jsonpatch"
)

// maxJSONPatchOperations caps the operations of one JSON patch
// (handlers/patch.go, same name).
const maxJSONPatchOperations = 10000

// restfulPatchTypes are the media types kube-apiserver's PATCH route
// declares it consumes (endpoints/installer.go); go-restful answers 415
// for any other Content-Type before the handler runs.
var restfulPatchTypes = []string{
	string(types.JSONPatchType), string(types.MergePatchType),
	string(types.StrategicMergePatchType), string(types.ApplyYAMLPatchType),
}

// supportedPatchTypes are the patch media types this server applies (all
// of restfulPatchTypes, server-side apply included: write_apply.go).
var supportedPatchTypes = restfulPatchTypes

// handlePatch answers a PATCH of an object or its status in the order of
// handlers/patch.go PatchResource: patch type (415), Accept (406), then
// readPatch (413, 400/422), then the read-patch-write loop: 404 for a
// missing object, patch errors, name and namespace checks (400), and the
// write like an update (a resourceVersion in the patched object is a
// precondition: 409). 200 with the stored object; an apply is applyPatch.
func (s *Server) handlePatch(req *request) (response, error) {
	patchType, err := patchTypeOf(req.r)
	if err == nil {
		err = req.res.writeStrategy().checkPatchType(patchType) // a custom resource's 415 (customresource_hooks.go)
	}
	if err != nil {
		return response{}, err
	}
	out, err := s.negotiateOutput(req.r, req.transforms())
	if err != nil {
		return response{}, err
	}
	in, err := s.readPatch(req, patchType)
	if err != nil {
		return response{}, err
	}
	if patchType == types.ApplyYAMLPatchType {
		return s.applyPatch(req, out, in) // write_apply.go
	}
	p := patcher{s: s, req: req, patchInput: in}
	obj, err := s.updateObject(req, p.apply)
	if errors.Is(err, jsonops.ErrUpstreamPanic) {
		// kube-apiserver's json-patch panics on a test or replace op
		// without a value (or a null it compares); the panic reaches
		// net/http and the request gets no answer at all. Give none,
		// without the crash: the client sees the connection end (EOF).
		panic(http.ErrAbortHandler)
	}
	if err != nil {
		return response{}, err
	}
	return response{code: http.StatusOK, out: out, obj: obj}, nil
}

// patchInput is a PATCH's input once readPatch has checked it.
type patchInput struct {
	patchType types.PatchType
	patch     []byte
	directive string // the field validation directive
	// opts are the request's PatchOptions, decoded and validated once.
	opts *metav1.PatchOptions
}

// readPatch reads a PATCH's body (413), its PatchOptions (400, then 422)
// and checks the body's syntax for its patch type (400), in
// PatchResource's order.
func (s *Server) readPatch(req *request, patchType types.PatchType) (patchInput, error) {
	patch, err := s.readBody(req.r)
	if err != nil {
		return patchInput{}, err
	}
	opts, err := patchOptions(req.r, patchType)
	if err != nil {
		return patchInput{}, err
	}
	if err := s.checkYAMLBody(string(patchType), patch); err != nil { // write_limits_yaml.go
		return patchInput{}, err
	}
	if err := checkPatchBody(patch, patchType); err != nil {
		return patchInput{}, err
	}
	return patchInput{patchType: patchType, patch: patch, directive: fieldValidationDirective(opts.FieldValidation), opts: opts}, nil
}

// restfulConsumesPatch is go-restful's Content-Type match for the PATCH
// route: any comma-separated entry, parameters stripped, must be one of
// restfulPatchTypes; an empty header counts as application/octet-stream.
func restfulConsumesPatch(contentType string) bool {
	for entry := range strings.SplitSeq(contentType, ",") {
		mt, _, _ := strings.Cut(entry, ";")
		for _, t := range restfulPatchTypes {
			if strings.TrimSpace(mt) == t {
				return true
			}
		}
	}
	return false
}

// patchTypeOf reads the patch type from Content-Type as PatchResource does
// (parameters cut off); types go-restful let through that this server
// cannot apply get the handler's 415.
func patchTypeOf(r *http.Request) (types.PatchType, error) {
	mediaType, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err == nil {
		for _, t := range supportedPatchTypes {
			if mediaType == t {
				return types.PatchType(t), nil
			}
		}
	}
	return "", unsupportedMediaType(supportedPatchTypes)
}

// patchOptions decodes and validates PatchOptions (400, then 422 on
// PatchOptions).
func patchOptions(r *http.Request, patchType types.PatchType) (*metav1.PatchOptions, error) {
	opts := &metav1.PatchOptions{}
	if err := decodeOptions(r, opts); err != nil {
		return nil, err
	}
	if errs := validatePatchOptions(opts, patchType); len(errs) > 0 {
		return nil, apierrors.NewInvalid(schema.GroupKind{Group: metav1.GroupName, Kind: "PatchOptions"}, "", errs)
	}
	return opts, nil
}

// patcher applies one patch to successive versions of the object, as
// handlers/patch.go jsonPatcher and smpPatcher do.
type patcher struct {
	s   *Server
	req *request
	patchInput
}

// apply patches the JSON of cur and decodes the result with the field
// validation directive, then checks namespace and name (applyPatch).
func (p *patcher) apply(cur runtime.Object) (runtime.Object, error) {
	var obj runtime.Object
	var err error
	if p.patchType == types.StrategicMergePatchType {
		obj, err = p.applyStrategic(cur)
	} else {
		obj, err = p.applyJSONTo(cur)
	}
	if err != nil {
		return nil, err
	}
	obj = p.s.trackUpdate(p.req, cur, obj)
	if err := checkObjectNamespace(p.req.res, p.req.info.namespace, obj); err != nil {
		return nil, err
	}
	return obj, checkObjectName(obj, p.req.info.name)
}

// strict reports whether unknown and duplicate fields are looked for.
func (p *patcher) strict() bool { return p.directive != metav1.FieldValidationIgnore }

// jsonPatchOp is one JSON patch operation as handlers/patch.go reads it
// for strict decoding (its type jsonPatchOp, whose name a type error
// quotes).
type jsonPatchOp struct {
	Op    string `json:"op"`
	Path  string `json:"path"`
	From  string `json:"from"`
	Value any    `json:"value"`
}

// applyJSONTo is applyJSON to cur's JSON.
func (p *patcher) applyJSONTo(cur runtime.Object) (runtime.Object, error) {
	original, err := json.Marshal(cur)
	if err != nil {
		return nil, fmt.Errorf("encode current object: %w", err)
	}
	return p.applyJSON(original)
}

// applyJSON is jsonPatcher.applyJSPatch plus the decode of the result.
func (p *patcher) applyJSON(original []byte) (runtime.Object, error) {
	var strictErrs []error
	var patched []byte
	switch p.patchType {
	case types.JSONPatchType:
		if p.strict() {
			var ops []jsonPatchOp
			var err error
			if strictErrs, err = kjson.UnmarshalStrict(p.patch, &ops); err != nil {
				// A type error names the Go type, the handlers package's.
				msg := strings.ReplaceAll(err.Error(), "fakeapiserver.jsonPatchOp", "handlers.jsonPatchOp")
				return nil, apierrors.NewBadRequest("error decoding patch: " + msg)
			}
			for i, e := range strictErrs {
				strictErrs[i] = fmt.Errorf("json patch %v", e)
			}
		}
		ops, err := jsonops.DecodePatch(p.patch)
		if err != nil {
			return nil, apierrors.NewBadRequest(err.Error())
		}
		if len(ops) > maxJSONPatchOperations {
			return nil, apierrors.NewRequestEntityTooLargeError(fmt.Sprintf("The allowed maximum operations in a JSON patch is %d, got %d", maxJSONPatchOperations, len(ops)))
		}
		if patched, err = ops.ApplyWithLimit(original, jsonPatchMaxCopyBytes); err != nil {
			if errors.Is(err, jsonops.ErrUpstreamPanic) {
				return nil, err // handlePatch aborts the request
			}
			return nil, apierrors.NewGenericServerResponse(http.StatusUnprocessableEntity, "", schema.GroupResource{}, "", err.Error(), 0, false)
		}
	case types.MergePatchType:
		if p.strict() {
			var err error
			if strictErrs, err = kjson.UnmarshalStrict(p.patch, &map[string]any{}); err != nil {
				return nil, apierrors.NewBadRequest(fmt.Sprintf("error decoding patch: %v", err))
			}
		}
		var err error
		if patched, err = jsonpatch.MergePatch(original, p.patch); err != nil {
			if err == jsonpatch.ErrBadJSONPatch {
				return nil, apierrors.NewBadRequest(err.Error())
			}
			return nil, err
		}
	}
	return p.decodePatched(patched, string(patched), strictErrs)
}

// applyStrategic is smpPatcher (handlers/patch.go strategicPatchObject and
// applyPatchToObject): the patch is a JSON map merged into cur's
// unstructured map with the type's patch strategy, and the merged map is
// converted, not decoded, into the type, so a "kind" in the patch is
// ignored and type errors are the unstructured converter's.
func (p *patcher) applyStrategic(cur runtime.Object) (runtime.Object, error) {
	original, err := runtime.DefaultUnstructuredConverter.ToUnstructured(cur)
	if err != nil {
		return nil, fmt.Errorf("convert current object: %w", err)
	}
	patchMap := map[string]any{}
	var strictErrs []error
	if p.strict() {
		strictErrs, err = kjson.UnmarshalStrict(p.patch, &patchMap)
	} else {
		err = kjson.UnmarshalCaseSensitivePreserveInts(p.patch, &patchMap)
	}
	if err != nil {
		return nil, apierrors.NewBadRequest(err.Error())
	}
	patched, err := strategicpatch.StrategicMergeMapPatch(original, patchMap, p.req.res.newObject())
	if err != nil {
		return nil, interpretStrategicMergePatchError(err)
	}
	shown := fmt.Sprintf("%+v", patchMap)
	obj := p.req.res.newObject()
	if err := runtime.DefaultUnstructuredConverter.FromUnstructuredWithValidation(patched, obj, p.strict()); err != nil {
		strictErr, isStrict := runtime.AsStrictDecodingError(err)
		if !isStrict {
			return nil, patchInvalid(shown, err.Error()) // non-strict errors trump the patch's own strict ones
		}
		strictErrs = append(strictErrs, strictErr.Errors()...)
	}
	if err := p.strictErrors(shown, strictErrs); err != nil {
		return nil, err
	}
	obj.GetObjectKind().SetGroupVersionKind(p.req.res.Kind)
	p.req.res.applyDefaults(obj)
	return obj, nil
}

// strictErrors turns the strict-decoding problems of a patch into the 422
// on the field "patch", or under the Warn directive into warnings.
func (p *patcher) strictErrors(shown string, strictErrs []error) error {
	if len(strictErrs) == 0 {
		return nil
	}
	if p.directive != metav1.FieldValidationWarn {
		return patchInvalid(shown, runtime.NewStrictDecodingError(strictErrs).Error())
	}
	addWarnings(p.req.w, strictErrs)
	return nil
}

// decodePatched decodes the patched document; strict-decoding problems
// (from the patch itself or the result) are warnings under Warn and a 422
// on the field "patch" otherwise, whose value is shown (the patched JSON
// for JSON and merge patches, the patch map for strategic ones).
func (p *patcher) decodePatched(patched []byte, shown string, strictErrs []error) (runtime.Object, error) {
	info, _ := p.s.inputSerializer(p.req.r, runtime.ContentTypeJSON)
	dec := info.Serializer
	if p.strict() {
		dec = info.StrictSerializer
	}
	obj, gvk, err := dec.Decode(patched, &p.req.res.Kind, p.req.res.newObject())
	if err != nil {
		strictErr, isStrict := runtime.AsStrictDecodingError(err)
		if !isStrict {
			return nil, patchInvalid(shown, err.Error())
		}
		strictErrs = append(strictErrs, strictErr.Errors()...)
	}
	if gvk != nil && *gvk != p.req.res.Kind {
		// A patch that changed kind or apiVersion decodes into another
		// type, which does not convert into the resource's
		// (handlers/patch.go applyPatchToObject's DecodeInto). The fake
		// refuses another version of the same kind too, where
		// kube-apiserver converts it (even for the kinds
		// builtin_conversion.go converts: see DIVERGENCES.md).
		return nil, patchInvalid(shown, conversionError(p.req.res, *gvk).Error())
	}
	if err := p.strictErrors(shown, strictErrs); err != nil {
		return nil, err
	}
	obj.GetObjectKind().SetGroupVersionKind(p.req.res.Kind)
	p.req.res.applyDefaults(obj)
	return obj, nil
}

// patchInvalid is the 422 of a patch whose result does not decode.
func patchInvalid(value, detail string) error {
	return apierrors.NewInvalid(schema.GroupKind{}, "", field.ErrorList{field.Invalid(field.NewPath("patch"), value, detail)})
}

// interpretStrategicMergePatchError maps strategic-merge errors as
// handlers/patch.go does.
func interpretStrategicMergePatchError(err error) error {
	switch err {
	case mergepatch.ErrBadJSONDoc, mergepatch.ErrBadPatchFormatForPrimitiveList, mergepatch.ErrBadPatchFormatForRetainKeys,
		mergepatch.ErrBadPatchFormatForSetElementOrderList, mergepatch.ErrUnsupportedStrategicMergePatchFormat:
		return apierrors.NewBadRequest(err.Error())
	case mergepatch.ErrNoListOfLists, mergepatch.ErrPatchContentNotMatchRetainKeys:
		return apierrors.NewGenericServerResponse(http.StatusUnprocessableEntity, "", schema.GroupResource{}, "", err.Error(), 0, false)
	default:
		return err
	}
}
