package fakeapiserver

import (
	"fmt"
	"net/http"
	"strings"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/admission"

	"github.com/lw-sim/lw-sim/fakeapiserver/internal/kinds"
)

// ScaleSubresource describes where a resource keeps what its /scale
// subresource (autoscaling/v1 Scale) reads and writes, as a
// CustomResourceDefinition's subresources.scale does. Each path is a
// dot-separated JSON path into the object (".spec.replicas"); a missing
// field reads as zero (no selector: "").
//
// Setting [Resource].Scale serves GET, PUT and PATCH on
// .../<resource>/<name>/scale: GET answers the Scale built from the object;
// PUT and PATCH (applied to that Scale) write spec.replicas back into the
// object through the resource's own update path, so its resourceVersion
// precondition (409), validation (422), dryRun, generation and the MODIFIED
// watch event are the main resource's. Deployments, ReplicaSets,
// StatefulSets and ReplicationControllers have one by default.
type ScaleSubresource struct {
	// SpecReplicasPath is the desired replica count, an integer; written
	// by PUT and PATCH. Required.
	SpecReplicasPath string
	// StatusReplicasPath is the observed replica count, an integer.
	StatusReplicasPath string
	// LabelSelectorPath locates the selector reported as status.selector:
	// a string in selector syntax (as custom resources keep it, e.g.
	// ".status.selector"), a metav1.LabelSelector object (.spec.selector of
	// apps workloads) or a map of labels (a ReplicationController's).
	LabelSelectorPath string
	// unsetReplicas is what a missing spec replicas count reads as: 1 for
	// the built-in workloads, whose defaulting sets it (a [Resource] may
	// replace the defaulter), 0 otherwise.
	unsetReplicas int64
}

// scaleSubresource is the [ScaleSubresource] of a built-in kind's
// strategy, nil for none.
func scaleSubresource(sc *kinds.Scale) *ScaleSubresource {
	if sc == nil {
		return nil
	}
	return &ScaleSubresource{SpecReplicasPath: sc.SpecReplicasPath, StatusReplicasPath: sc.StatusReplicasPath, LabelSelectorPath: sc.LabelSelectorPath, unsetReplicas: sc.UnsetReplicas}
}

// scaleFunc reads or writes the Scale of the object a request names.
type scaleFunc func(s *Server, req *request) (*autoscalingv1.Scale, error)

// builtinScaleVerbs are the reads and writes of a [ScaleSubresource] by
// verb; a custom resource has its own (customScaleVerbs).
var builtinScaleVerbs = map[string]scaleFunc{
	"get":    (*Server).getScale,
	"update": (*Server).updateScale,
	"patch":  (*Server).patchScale,
}

// handleScale answers GET, PUT and PATCH of a scale subresource: Accept
// (406), then the verb's read or write; 200 with the Scale of the object
// (after a write, of the stored object).
func (s *Server) handleScale(req *request) (response, error) {
	out, err := s.negotiateOutput(req.r, req.transforms())
	if err != nil {
		return response{}, err
	}
	op, ok := req.res.readStrategy().scaleVerbs()[req.verb]
	if !ok {
		return response{}, methodNotAllowed()
	}
	scale, err := op(s, req)
	if err != nil {
		return response{}, err
	}
	return response{code: http.StatusOK, out: out, obj: scale}, nil
}

// getScale is ScaleREST.Get: the Scale of the object, read as GET reads it.
func (s *Server) getScale(req *request) (*autoscalingv1.Scale, error) {
	obj, err := s.getObject(req)
	if err != nil {
		return nil, err
	}
	return scaleOf(req.res, obj)
}

// scaleRequest is req retargeted at the Scale kind.
func scaleRequest(req *request) *request {
	return subresourceRequest(req, scaleGVK, func() runtime.Object { return &autoscalingv1.Scale{} })
}

// updateScale is ScaleREST.Update for a PUT: the body is the new Scale.
func (s *Server) updateScale(req *request) (*autoscalingv1.Scale, error) {
	body, _, err := s.decodeUpdate(scaleRequest(req))
	if err != nil {
		return nil, err
	}
	want, ok := body.(*autoscalingv1.Scale)
	if !ok {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("expected input object type to be Scale, but %T", body))
	}
	return s.writeScale(req, func(cur runtime.Object) (*autoscalingv1.Scale, error) {
		// The body's uid is a storage precondition, checked first.
		if err := uidPrecondition(req.res, want.UID, cur); err != nil {
			return nil, err
		}
		return want.DeepCopy(), nil
	})
}

// patchScale is ScaleREST.Update for a PATCH: the patch applies to the
// Scale of the current object, checked as handlePatch checks it.
func (s *Server) patchScale(req *request) (*autoscalingv1.Scale, error) {
	patchType, err := patchTypeOf(req.r)
	if err != nil {
		return nil, err
	}
	in, err := s.readPatch(req, patchType)
	if err != nil {
		return nil, err
	}
	if patchType == types.ApplyYAMLPatchType {
		return s.applyScale(req, in) // managedfields_scale.go
	}
	p := patcher{s: s, req: scaleRequest(req), patchInput: in}
	return s.writeScale(req, func(cur runtime.Object) (*autoscalingv1.Scale, error) {
		old, err := scaleOf(req.res, cur)
		if err != nil {
			return nil, err
		}
		patched, err := p.apply(old)
		if err != nil {
			return nil, err
		}
		scale, ok := patched.(*autoscalingv1.Scale)
		if !ok {
			return nil, apierrors.NewBadRequest(fmt.Sprintf("expected input object type to be Scale, but %T", patched))
		}
		return scale, nil
	})
}

// writeScale runs the main resource's update with the replicas and the
// resourceVersion of the Scale newScale computes from the current object,
// after the Scale's validation (422 on the Scale kind) and UID
// precondition (409), and answers with the Scale of the stored object.
func (s *Server) writeScale(req *request, newScale func(cur runtime.Object) (*autoscalingv1.Scale, error)) (*autoscalingv1.Scale, error) {
	stored, err := s.updateObject(req, func(cur runtime.Object) (runtime.Object, error) {
		scale, err := newScale(cur)
		if err != nil {
			return nil, err
		}
		// The handler's admission transformer, on the Scale with the
		// current object's as the old one (scaleUpdatedObjectInfo).
		old, err := scaleOf(req.res, cur)
		if err != nil {
			return nil, err
		}
		if err := s.admitMutating(subresourceAdmission(req), admission.Update, scale, old); err != nil {
			return nil, err
		}
		m := mustAccessor(cur)
		if scale.Spec.Replicas < 0 {
			errs := apimachineryvalidation.ValidateNonnegativeField(int64(scale.Spec.Replicas), field.NewPath("spec", "replicas"))
			return nil, apierrors.NewInvalid(scaleGVK.GroupKind(), m.GetName(), errs)
		}
		if scale.UID != "" && scale.UID != m.GetUID() {
			return nil, apierrors.NewConflict(schema.GroupResource{Group: req.res.gvr.Group, Resource: req.res.gvr.Resource + "/scale"}, m.GetName(),
				fmt.Errorf("Precondition failed: UID in precondition: %v, UID in object meta: %v", scale.UID, m.GetUID()))
		}
		next, err := setSpecReplicas(req.res, cur, scale.Spec.Replicas)
		if err != nil {
			return nil, err
		}
		if err := s.trackScale(req, cur, scale, next); err != nil { // managedfields_scale.go
			return nil, err
		}
		mustAccessor(next).SetResourceVersion(scale.ResourceVersion)
		return next, nil
	})
	if err != nil {
		return nil, err
	}
	return scaleOf(req.res, stored)
}

// scaleView returns what turns an object of res into its Scale, as
// admission sees a write through the scale subresource.
func scaleView(res *resourceInfo) func(runtime.Object) (runtime.Object, error) {
	if res.custom != nil {
		return func(obj runtime.Object) (runtime.Object, error) {
			scale, _, err := res.custom.scaleOf(obj)
			return scale, err
		}
	}
	return func(obj runtime.Object) (runtime.Object, error) { return scaleOf(res, obj) }
}

// scaleOf builds the Scale of obj (scaleFromDeployment and its twins):
// the object's name, namespace, uid, resourceVersion and creation time,
// spec and status replicas, and the selector as a string.
func scaleOf(res *resourceInfo, obj runtime.Object) (*autoscalingv1.Scale, error) {
	content, err := toUnstructuredContent(obj)
	if err != nil {
		return nil, err
	}
	sc := res.Scale
	specReplicas, found, err := nestedInt(content, sc.SpecReplicasPath)
	if err != nil {
		return nil, err
	}
	if !found {
		specReplicas = sc.unsetReplicas
	}
	statusReplicas, _, err := nestedInt(content, sc.StatusReplicasPath)
	if err != nil {
		return nil, err
	}
	selector, err := selectorString(content, sc.LabelSelectorPath)
	if err != nil {
		return nil, apierrors.NewBadRequest(err.Error())
	}
	m := mustAccessor(obj)
	return &autoscalingv1.Scale{
		TypeMeta: metav1.TypeMeta{Kind: scaleGVK.Kind, APIVersion: scaleGVK.GroupVersion().String()},
		ObjectMeta: metav1.ObjectMeta{
			Name: m.GetName(), Namespace: m.GetNamespace(), UID: m.GetUID(),
			ResourceVersion: m.GetResourceVersion(), CreationTimestamp: m.GetCreationTimestamp(),
		},
		Spec:   autoscalingv1.ScaleSpec{Replicas: int32(specReplicas)},
		Status: autoscalingv1.ScaleStatus{Replicas: int32(statusReplicas), Selector: selector},
	}, nil
}

// setSpecReplicas returns a copy of obj with the replica count at the
// resource's spec replicas path.
func setSpecReplicas(res *resourceInfo, obj runtime.Object, replicas int32) (runtime.Object, error) {
	content, err := toUnstructuredContent(obj)
	if err != nil {
		return nil, err
	}
	if err := unstructured.SetNestedField(content, int64(replicas), jsonPath(res.Scale.SpecReplicasPath)...); err != nil {
		return nil, fmt.Errorf("set %s: %w", res.Scale.SpecReplicasPath, err)
	}
	if _, ok := obj.(runtime.Unstructured); ok {
		return &unstructured.Unstructured{Object: content}, nil
	}
	next := res.newObject()
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(content, next); err != nil {
		return nil, fmt.Errorf("convert %s: %w", res.Kind, err)
	}
	return next, nil
}

// toUnstructuredContent returns a JSON-like copy of obj's content.
func toUnstructuredContent(obj runtime.Object) (map[string]any, error) {
	if u, ok := obj.(runtime.Unstructured); ok {
		return runtime.DeepCopyJSON(u.UnstructuredContent()), nil
	}
	content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return nil, fmt.Errorf("convert %T: %w", obj, err)
	}
	return content, nil
}

// jsonPath splits ".spec.replicas" into its fields.
func jsonPath(p string) []string { return strings.Split(strings.TrimPrefix(p, "."), ".") }

// nestedInt reads an integer at path; found is false when it is absent.
func nestedInt(content map[string]any, path string) (int64, bool, error) {
	if path == "" {
		return 0, false, nil
	}
	v, found, err := unstructured.NestedFieldNoCopy(content, jsonPath(path)...)
	if err != nil || !found || v == nil {
		return 0, false, err
	}
	switch n := v.(type) {
	case int64:
		return n, true, nil
	case int32:
		return int64(n), true, nil
	case int:
		return int64(n), true, nil
	case float64:
		return int64(n), true, nil
	}
	return 0, false, fmt.Errorf("%s: %T is not an integer", path, v)
}

// selectorString renders the selector at path as status.selector: a
// string as it is; a map of labels, or a LabelSelector (whose values are
// maps and lists, never strings), in selector syntax.
func selectorString(content map[string]any, path string) (string, error) {
	if path == "" {
		return "", nil
	}
	v, found, err := unstructured.NestedFieldNoCopy(content, jsonPath(path)...)
	if err != nil || !found || v == nil {
		return "", err
	}
	switch sel := v.(type) {
	case string:
		return sel, nil
	case map[string]any:
		set, isSet := labelSet(sel)
		if isSet {
			return labels.SelectorFromSet(set).String(), nil
		}
		var ls metav1.LabelSelector
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(sel, &ls); err != nil {
			return "", err
		}
		s, err := metav1.LabelSelectorAsSelector(&ls)
		if err != nil {
			return "", err
		}
		return s.String(), nil
	}
	return "", fmt.Errorf("%s: %T is not a selector", path, v)
}

// labelSet reads m as a map of labels; ok is false unless every value is a
// string (an empty map is a LabelSelector, which selects everything).
func labelSet(m map[string]any) (labels.Set, bool) {
	if len(m) == 0 {
		return nil, false
	}
	set := labels.Set{}
	for k, v := range m {
		s, ok := v.(string)
		if !ok {
			return nil, false
		}
		set[k] = s
	}
	return set, true
}
