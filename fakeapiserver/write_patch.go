package fakeapiserver

import (
	"encoding/json"
	"fmt"
	"mime"
	"net/http"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
)

// supportedPatchTypes are the patch media types served; server-side apply
// (application/apply-patch+yaml) is not.
var supportedPatchTypes = []string{string(types.JSONPatchType), string(types.MergePatchType), string(types.StrategicMergePatchType)}

// servePatch answers a PATCH of an object or its status: the patch is
// applied to the current object's JSON with apimachinery's implementations,
// then written like an update (a resourceVersion in the patch is a
// precondition).
func (s *Server) servePatch(req *request) {
	out, err := s.negotiateOutput(req.r, false)
	if err != nil {
		s.writeError(req.w, req.r, err)
		return
	}
	patchType, err := patchTypeOf(req.r)
	if err != nil {
		s.writeError(req.w, req.r, err)
		return
	}
	patch, err := s.readBody(req.r)
	if err != nil {
		s.writeError(req.w, req.r, err)
		return
	}
	obj, err := s.updateObject(req, func(cur runtime.Object) (runtime.Object, error) {
		return s.applyPatch(req, cur, patchType, patch)
	})
	if err != nil {
		s.writeError(req.w, req.r, err)
		return
	}
	s.respond(req.w, out, http.StatusOK, obj)
}

// patchTypeOf reads the patch type from Content-Type (415 otherwise).
func patchTypeOf(r *http.Request) (types.PatchType, error) {
	mediaType, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err == nil {
		for _, t := range supportedPatchTypes {
			if mediaType == t {
				return types.PatchType(t), nil
			}
		}
	}
	return "", unsupportedMediaType(r.Header.Get("Content-Type"), supportedPatchTypes)
}

// applyPatch patches the JSON of cur and decodes the result as a body of
// the resource (so field validation applies as for an update).
func (s *Server) applyPatch(req *request, cur runtime.Object, patchType types.PatchType, patch []byte) (runtime.Object, error) {
	original, err := json.Marshal(cur)
	if err != nil {
		return nil, fmt.Errorf("encode current object: %w", err)
	}
	var patched []byte
	switch patchType {
	case types.JSONPatchType:
		var p jsonpatch.Patch
		if p, err = jsonpatch.DecodePatch(patch); err == nil {
			patched, err = p.Apply(original)
		}
	case types.MergePatchType:
		patched, err = jsonpatch.MergePatch(original, patch)
	case types.StrategicMergePatchType:
		patched, err = strategicpatch.StrategicMergePatch(original, patch, req.res.newObject())
	}
	if err != nil {
		return nil, apierrors.NewBadRequest(err.Error())
	}
	obj, err := s.decodePatched(req, patched)
	if err != nil {
		return nil, err
	}
	if err := checkObjectName(obj, req.info.name); err != nil {
		return nil, err
	}
	return obj, checkObjectNamespace(req.res, req.info.namespace, obj)
}

// decodePatched decodes a patched JSON document with the request's field
// validation.
func (s *Server) decodePatched(req *request, data []byte) (runtime.Object, error) {
	jsonReq := *req
	r := req.r.Clone(req.r.Context())
	r.Header.Set("Content-Type", runtime.ContentTypeJSON)
	jsonReq.r = r
	return s.decodeObject(&jsonReq, data)
}
