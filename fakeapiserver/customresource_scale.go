package fakeapiserver

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apiserver/pkg/admission"

	jsonops "github.com/lw-sim/lw-sim/internal/jsonpatch"
)

// The scale subresource of a custom resource (apiextensions-apiserver
// pkg/registry/customresource/etcd.go ScaleREST): an autoscaling/v1 Scale
// read from the CRD's specReplicasPath, statusReplicasPath and
// labelSelectorPath; a write sets specReplicasPath in the object and goes
// through the resource's update (validation, generation, RV precondition).

// invalidSpecReplicas marks a Scale whose object has no replicas yet
// (ScaleREST's sentinel, the smallest int32).
const invalidSpecReplicas = -2147483648

// customScaleVerbs are the reads and writes of a custom resource's Scale
// by verb, for handleScale (subresource_scale.go).
var customScaleVerbs = map[string]scaleFunc{
	"get":    (*Server).getCustomScale,
	"update": (*Server).updateCustomScale,
	"patch":  (*Server).patchCustomScale,
}

// getCustomScale reads the object and its Scale.
func (s *Server) getCustomScale(req *request) (*autoscalingv1.Scale, error) {
	obj, err := s.getObject(req)
	if err != nil {
		return nil, err
	}
	scale, found, err := req.res.custom.scaleOf(obj)
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, apierrors.NewInternalError(fmt.Errorf("the spec replicas field %q does not exist", req.res.custom.scale.SpecReplicasPath))
	}
	return scale, nil
}

// updateCustomScale decodes a Scale body (the scheme's types: it is not a custom
// resource) and writes its replicas.
func (s *Server) updateCustomScale(req *request) (*autoscalingv1.Scale, error) {
	body, err := s.readBody(req.r)
	if err != nil {
		return nil, err
	}
	info, err := s.inputSerializer(nil, req.r.Header.Get("Content-Type"))
	if err != nil {
		return nil, err
	}
	if err := s.checkYAMLBody(info.MediaType, body); err != nil { // write_limits_yaml.go
		return nil, err
	}
	want := &autoscalingv1.Scale{}
	gvk := autoscalingv1.SchemeGroupVersion.WithKind("Scale")
	if _, _, err := info.Serializer.Decode(body, &gvk, want); err != nil {
		return nil, apierrors.NewBadRequest(err.Error())
	}
	if err := checkName(want.Name, req.info.name); err != nil {
		return nil, err
	}
	return s.writeCustomScale(req, func(*autoscalingv1.Scale) (*autoscalingv1.Scale, error) { return want, nil })
}

// patchCustomScale applies a JSON or merge patch to the current Scale, which
// must exist (the patch handler reads it with ScaleREST.Get first).
func (s *Server) patchCustomScale(req *request) (*autoscalingv1.Scale, error) {
	patchType, err := patchTypeOf(req.r)
	if err == nil {
		err = customPatchType(patchType)
	}
	if err == nil && patchType == types.ApplyYAMLPatchType {
		// Server-side apply of a custom resource's Scale is not served.
		err = unsupportedMediaType(customPatchTypes[:2])
	}
	if err != nil {
		return nil, err
	}
	if _, err := s.getCustomScale(req); err != nil {
		return nil, err
	}
	patch, err := s.readBody(req.r)
	if err != nil {
		return nil, err
	}
	return s.writeCustomScale(req, func(cur *autoscalingv1.Scale) (*autoscalingv1.Scale, error) {
		original, err := json.Marshal(cur)
		if err != nil {
			return nil, fmt.Errorf("encode scale: %w", err)
		}
		var patched []byte
		if patchType == types.JSONPatchType {
			ops, err := jsonops.DecodePatch(patch)
			if err != nil {
				return nil, apierrors.NewBadRequest(err.Error())
			}
			if patched, err = ops.ApplyWithLimit(original, jsonPatchMaxCopyBytes); err != nil {
				return nil, apierrors.NewGenericServerResponse(http.StatusUnprocessableEntity, "", emptyGR, "", err.Error(), 0, false)
			}
		} else if patched, err = jsonpatch.MergePatch(original, patch); err != nil {
			return nil, apierrors.NewBadRequest(err.Error())
		}
		out := &autoscalingv1.Scale{}
		if err := json.Unmarshal(patched, out); err != nil {
			return nil, patchInvalid(string(patched), err.Error())
		}
		return out, nil
	})
}

// writeCustomScale updates the object from the Scale change computes, as
// scaleUpdatedObjectInfo.UpdatedObject does, and returns the new Scale.
func (s *Server) writeCustomScale(req *request, change func(cur *autoscalingv1.Scale) (*autoscalingv1.Scale, error)) (*autoscalingv1.Scale, error) {
	cr := req.res.custom
	obj, err := s.updateObject(req, func(cur runtime.Object) (runtime.Object, error) {
		u, ok := cur.DeepCopyObject().(*unstructured.Unstructured)
		if !ok {
			return nil, fmt.Errorf("fakeapiserver: %T stored as a custom resource", cur)
		}
		old, found, err := cr.scaleOf(u)
		if err != nil {
			return nil, err
		}
		if !found {
			old.Spec.Replicas = invalidSpecReplicas
		}
		scale, err := change(old)
		if err != nil {
			return nil, err
		}
		if err := s.admitMutating(subresourceAdmission(req), admission.Update, scale, old); err != nil {
			return nil, err
		}
		if scale.Spec.Replicas == invalidSpecReplicas {
			return nil, apierrors.NewBadRequest(fmt.Sprintf("the spec replicas field %q cannot be empty", cr.scale.SpecReplicasPath))
		}
		if err := unstructured.SetNestedField(u.Object, int64(scale.Spec.Replicas), crReplicasPath(cr.scale.SpecReplicasPath)...); err != nil {
			return nil, err
		}
		// A resourceVersion in the Scale is a precondition; none makes the
		// write unconditional.
		u.SetResourceVersion(scale.ResourceVersion)
		return u, nil
	})
	if err != nil {
		return nil, err
	}
	scale, _, err := cr.scaleOf(obj)
	if err != nil {
		return nil, apierrors.NewBadRequest(err.Error())
	}
	return scale, nil
}

// scaleOf is ScaleREST's scaleFromCustomResource; found reports whether
// the object has spec replicas.
func (cr *customResource) scaleOf(obj runtime.Object) (*autoscalingv1.Scale, bool, error) {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return nil, false, fmt.Errorf("fakeapiserver: %T stored as a custom resource", obj)
	}
	spec, found, err := unstructured.NestedInt64(u.Object, crReplicasPath(cr.scale.SpecReplicasPath)...)
	if err != nil {
		return nil, false, err
	}
	status, _, err := unstructured.NestedInt64(u.Object, crReplicasPath(cr.scale.StatusReplicasPath)...)
	if err != nil {
		return nil, false, err
	}
	var selector string
	if p := cr.scale.LabelSelectorPath; p != nil && *p != "" {
		if selector, _, err = unstructured.NestedString(u.Object, crReplicasPath(*p)...); err != nil {
			return nil, false, err
		}
	}
	return &autoscalingv1.Scale{
		TypeMeta: metav1.TypeMeta{APIVersion: "autoscaling/v1", Kind: "Scale"},
		ObjectMeta: metav1.ObjectMeta{
			Name: u.GetName(), Namespace: u.GetNamespace(), UID: u.GetUID(),
			ResourceVersion: u.GetResourceVersion(), CreationTimestamp: u.GetCreationTimestamp(),
		},
		Spec:   autoscalingv1.ScaleSpec{Replicas: int32(spec)},
		Status: autoscalingv1.ScaleStatus{Replicas: int32(status), Selector: selector},
	}, found, nil
}

// crReplicasPath splits a CRD's ".spec.replicas" into its fields.
func crReplicasPath(p string) []string { return strings.Split(strings.TrimPrefix(p, "."), ".") }
