package fakeapiserver

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"time"

	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/lw-sim/lw-sim/fakeapiserver/store"
)

// A FlowSchema's Dangling condition, as kube-apiserver's APF config
// controller maintains it (apiserver pkg/util/flowcontrol/apf_controller.go
// presyncFlowSchemaStatus, written by apply): True with reason NotFound
// when the priority level it references does not exist, else False with
// reason Found, applied to the status subresource under its own field
// manager (force) soon after any FlowSchema or priority level changes.

const (
	// apfConsumerManager is the field manager of the condition
	// (apf_filter.go ConfigConsumerAsFieldManager).
	apfConsumerManager = "api-priority-and-fairness-config-consumer-v1"
	// apfStatusRetry is how soon a failed condition write is tried again
	// (the controller requeues with backoff).
	apfStatusRetry = time.Second
)

// reconcileFlowSchemaStatus brings every FlowSchema's Dangling condition
// in line with the priority levels that exist. It runs when either
// resource is written; a failed write makes it due again after
// apfStatusRetry.
func (s *Server) reconcileFlowSchemaStatus(ctx context.Context, now time.Time) time.Time {
	fsRes, ok := s.resources.lookup(flowSchemasGVR)
	plRes, okPL := s.resources.lookup(priorityLevelsGVR)
	if !ok || !okPL {
		return time.Time{}
	}
	levels := map[string]bool{}
	pls, err := s.store.List(plRes.storageKey, store.ListOptions{})
	if err != nil {
		return now.Add(apfStatusRetry)
	}
	for _, obj := range pls.Items {
		levels[mustAccessor(obj).GetName()] = true
	}
	fss, err := s.store.List(fsRes.storageKey, store.ListOptions{})
	if err != nil {
		return now.Add(apfStatusRetry)
	}
	var retry time.Time
	for _, obj := range fss.Items {
		fs, ok := obj.(*flowcontrolv1.FlowSchema)
		if !ok {
			continue
		}
		want := danglingCondition(fs.Spec.PriorityLevelConfiguration.Name, levels[fs.Spec.PriorityLevelConfiguration.Name], now)
		if cur := findDangling(fs); cur != nil && cur.Status == want.Status && cur.Reason == want.Reason && cur.Message == want.Message {
			continue
		}
		if err := s.writeDangling(ctx, fsRes, fs, want); err != nil && !apierrors.IsNotFound(err) {
			s.cfg.Logger.Warn("fakeapiserver: APF config controller", "flowschema", fs.Name, "err", err)
			retry = now.Add(apfStatusRetry)
		}
	}
	return retry
}

// danglingCondition is the Dangling condition of a FlowSchema referencing
// the priority level plName, which exists or not, set at now.
func danglingCondition(plName string, exists bool, now time.Time) flowcontrolv1.FlowSchemaCondition {
	c := flowcontrolv1.FlowSchemaCondition{Type: flowcontrolv1.FlowSchemaConditionDangling, LastTransitionTime: metav1.NewTime(now)}
	if exists {
		c.Status, c.Reason = flowcontrolv1.ConditionFalse, "Found"
		c.Message = fmt.Sprintf("This FlowSchema references the PriorityLevelConfiguration object named %q and it exists", plName)
		return c
	}
	c.Status, c.Reason = flowcontrolv1.ConditionTrue, "NotFound"
	c.Message = fmt.Sprintf("This FlowSchema references the PriorityLevelConfiguration object named %q but there is no such object", plName)
	return c
}

// findDangling returns fs's Dangling condition, or nil.
func findDangling(fs *flowcontrolv1.FlowSchema) *flowcontrolv1.FlowSchemaCondition {
	for i := range fs.Status.Conditions {
		if fs.Status.Conditions[i].Type == flowcontrolv1.FlowSchemaConditionDangling {
			return &fs.Status.Conditions[i]
		}
	}
	return nil
}

// writeDangling writes the condition c to fs. A FlowSchema with no status
// yet and no status managedFields entry (every new one) gets the result
// of the apply written directly: the condition, and the consumer's Apply
// entry appended to managedFields in the field manager's order
// (sortEncodedManagedFields) — what the apply would store, without its
// cost (structured merge: a new server applies eleven). Any other goes
// through the apply.
func (s *Server) writeDangling(ctx context.Context, res *resourceInfo, fs *flowcontrolv1.FlowSchema, c flowcontrolv1.FlowSchemaCondition) error {
	if len(fs.Status.Conditions) > 0 || slices.ContainsFunc(fs.ManagedFields, func(e metav1.ManagedFieldsEntry) bool { return e.Subresource == "status" }) {
		return s.applyDangling(ctx, fs.Name, c)
	}
	next := fs.DeepCopy()
	next.Status.Conditions = []flowcontrolv1.FlowSchemaCondition{c}
	at := metav1.NewTime(c.LastTransitionTime.Time)
	next.ManagedFields = append(next.ManagedFields, metav1.ManagedFieldsEntry{
		Manager: apfConsumerManager, Operation: metav1.ManagedFieldsOperationApply,
		APIVersion: flowcontrolv1.SchemeGroupVersion.String(), Time: &at, FieldsType: "FieldsV1",
		FieldsV1: &metav1.FieldsV1{Raw: []byte(danglingFieldsV1)}, Subresource: "status",
	})
	sortManagedFields(next.ManagedFields) // managedfields.go
	rv, _ := parseResourceVersion(fs.ResourceVersion)
	_, err := s.storeUpdate(res, objectKey(res, "", fs.Name), next, rv, false)
	if isRetryable(err) {
		return nil // written meanwhile: that write wakes the controller again
	}
	return err
}

// danglingFieldsV1 is the fields the condition's apply owns.
const danglingFieldsV1 = `{"f:status":{"f:conditions":{"k:{\"type\":\"Dangling\"}":{".":{},"f:lastTransitionTime":{},"f:message":{},"f:reason":{},"f:status":{},"f:type":{}}}}}`

// applyDangling applies the condition to the FlowSchema's status as the
// controller does (apf_controller.go apply: ApplyStatus, force).
func (s *Server) applyDangling(ctx context.Context, name string, c flowcontrolv1.FlowSchemaCondition) error {
	body := map[string]any{
		"apiVersion": flowcontrolv1.SchemeGroupVersion.String(), "kind": "FlowSchema",
		"metadata": map[string]any{"name": name},
		"status":   map[string]any{"conditions": []flowcontrolv1.FlowSchemaCondition{c}},
	}
	_, err := s.loopback(ctx, loopbackRequest{
		method: http.MethodPatch, path: bootstrapObject{gvr: flowSchemasGVR}.path() + "/" + name + "/status",
		query: url.Values{"fieldManager": {apfConsumerManager}, "force": {"true"}},
		body:  body, contentType: "application/apply-patch+yaml",
	})
	return err
}
