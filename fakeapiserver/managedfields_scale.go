package fakeapiserver

import (
	"fmt"
	"strings"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
)

// scaleHandler converts the parent object's managedFields to the Scale's
// and back, mapping the resource's replicas path onto the Scale's
// spec.replicas, as the workloads' scale REST storage does
// (e.g. registry/apps/deployment/storage scaleUpdatedObjectInfo).
func scaleHandler(res *resourceInfo, cur runtime.Object) *managedfields.ScaleHandler {
	path := strings.Split(strings.TrimPrefix(res.Scale.SpecReplicasPath, "."), ".")
	elems := make([]any, len(path))
	for i, p := range path {
		elems[i] = p
	}
	gv := res.Kind.GroupVersion()
	mappings := managedfields.ResourcePathMappings{gv.String(): fieldpath.MakePathOrDie(elems...)}
	return managedfields.NewScaleHandler(mustAccessor(cur).GetManagedFields(), gv, mappings)
}

// scaleWithManagedFields is the Scale of cur carrying the parent's
// managedFields converted to the Scale's, the live object the scale field
// manager compares a write with.
func scaleWithManagedFields(res *resourceInfo, cur runtime.Object, h *managedfields.ScaleHandler) (*autoscalingv1.Scale, error) {
	old, err := scaleOf(res, cur)
	if err != nil {
		return nil, err
	}
	if old.ManagedFields, err = h.ToSubresource(); err != nil {
		return nil, fmt.Errorf("convert managedFields to the scale subresource: %w", err)
	}
	return old, nil
}

// trackScale records a PUT or PATCH of the scale subresource in next, the
// parent object about to be stored: the manager's change from the current
// Scale to scale, under subresource "scale", owning the replicas path. An
// apply already recorded its entries on scale (applyScale). Without a scale
// field manager nothing is recorded.
func (s *Server) trackScale(req *request, cur runtime.Object, scale *autoscalingv1.Scale, next runtime.Object) error {
	fm, err := req.res.managers()
	if err != nil || fm.scale == nil {
		return nil
	}
	h := scaleHandler(req.res, cur)
	entries := scale.ManagedFields
	if !isApplyRequest(req) {
		old, err := scaleWithManagedFields(req.res, cur, h)
		if err != nil {
			return err
		}
		tracked := s.track(fm.scale, managerName(req), old, scale.DeepCopy())
		entries = mustAccessor(tracked).GetManagedFields()
	}
	parent, err := h.ToParent(entries)
	if err != nil {
		return fmt.Errorf("convert managedFields from the scale subresource: %w", err)
	}
	mustAccessor(next).SetManagedFields(parent)
	return nil
}

// isApplyRequest reports whether req is a server-side apply.
func isApplyRequest(req *request) bool {
	pt, err := patchTypeOf(req.r)
	return req.r.Method == "PATCH" && err == nil && pt == types.ApplyYAMLPatchType
}

// applyScale is a server-side apply to the scale subresource: the
// configuration merges into the current Scale with the scale field manager
// (409 on conflicts, as for any apply), and writeScale stores its replicas.
func (s *Server) applyScale(req *request, in patchInput) (*autoscalingv1.Scale, error) {
	fm, err := req.res.managers()
	if err != nil {
		return nil, err
	}
	if fm.scale == nil {
		return nil, fmt.Errorf("fakeapiserver: %s has no scale field manager", req.res.Kind)
	}
	a := newApplier(s, scaleRequest(req), in)
	a.fm = fm.scale
	return s.writeScale(req, func(cur runtime.Object) (*autoscalingv1.Scale, error) {
		old, err := scaleWithManagedFields(req.res, cur, scaleHandler(req.res, cur))
		if err != nil {
			return nil, err
		}
		obj, err := a.apply(old)
		if err != nil {
			return nil, err
		}
		scale, ok := obj.(*autoscalingv1.Scale)
		if !ok {
			return nil, apierrors.NewBadRequest(fmt.Sprintf("expected input object type to be Scale, but %T", obj))
		}
		return scale, nil
	})
}
