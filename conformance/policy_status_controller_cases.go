package conformance

// Cases for kube-controller-manager's ValidatingAdmissionPolicy status
// controller (pkg/controller/validatingadmissionpolicystatus), run with it
// on: the fake's own (fakeapiserver controller_policy_status.go) against
// the real one realapiserver runs beside its kube-apiserver for the case.

import (
	"context"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// policyStatusController is kube-controller-manager's name of the
// controller (fakeapiserver.ControllerValidatingAdmissionPolicyStatus).
const policyStatusController = "validatingadmissionpolicy-status-controller"

// policyStatusControllerCases are the cases of this file, in the order
// [Cases] runs them.
func policyStatusControllerCases() []Case {
	return []Case{
		{Name: "PolicyStatusTypeChecking", Run: runPolicyStatusTypeChecking, Controllers: []string{policyStatusController}},
		{Name: "PolicyStatusTypeCheckingCRD", Run: runPolicyStatusTypeCheckingCRD, Controllers: []string{policyStatusController}},
	}
}

// runPolicyStatusTypeChecking: a policy's status gets observedGeneration
// and typeChecking.expressionWarnings: one per ill-typed expression
// (validations, messageExpressions), naming the kind it was checked
// against, with CEL's error; no typeChecking left for a well-typed
// policy (the empty apply removes it); an update
// (generation 2) is checked again. The status is applied by the field
// manager "validatingadmissionpolicy-status".
func runPolicyStatusTypeChecking(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	name := "typed-" + e.ns
	path := vapPath + "/" + name
	rules := object{"resourceRules": []object{{"operations": []string{"CREATE"}, "apiGroups": []string{"apps"},
		"apiVersions": []string{"v1"}, "resources": []string{"deployments"}}}}
	createPolicyObject(ctx, t, e, vapPath, object{
		"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicy",
		"metadata": object{"name": name}, "spec": object{
			"matchConstraints": rules,
			"validations": []object{
				{"expression": "object.spec.replicas > '1'"},
				{"expression": "object.spec.replicas > 1", "messageExpression": "'got ' + object.spec.replicas"},
				{"expression": "object.metadata.name.startsWith('a')"},
			},
		},
	})
	await := func(gen int64) object {
		t.Helper()
		var p object
		if !eventually(ctx, gcWait, func() bool {
			p = e.getOK(ctx, path)
			st, _ := p["status"].(map[string]any)
			og, _ := st["observedGeneration"].(float64)
			return int64(og) == gen
		}) {
			t.Fatalf("no status.observedGeneration %d within %v: %v", gen, gcWait, p["status"])
		}
		return p
	}
	p := await(1)
	want := object{
		"observedGeneration": float64(1),
		"typeChecking": map[string]any{"expressionWarnings": []any{
			map[string]any{"fieldRef": "spec.validations[0].expression", "warning": "apps/v1, Kind=Deployment: ERROR: <input>:1:22: found no matching overload for '_>_' applied to '(int, string)'\n | object.spec.replicas > '1'\n | .....................^\n"},
			map[string]any{"fieldRef": "spec.validations[1].messageExpression", "warning": "apps/v1, Kind=Deployment: ERROR: <input>:1:8: found no matching overload for '_+_' applied to '(string, int)'\n | 'got ' + object.spec.replicas\n | .......^\n"},
		}},
	}
	if diff := cmp.Diff(want, p["status"]); diff != "" {
		t.Errorf("status (-want +got):\n%s", diff)
	}
	var managers []any
	mfs, _ := metaOf(p)["managedFields"].([]any)
	for _, m := range mfs {
		mf := m.(map[string]any)
		managers = append(managers, []any{mf["manager"], mf["operation"], mf["subresource"]})
	}
	if diff := cmp.Diff([]any{[]any{"validatingadmissionpolicy-status", "Apply", "status"}, []any{"Go-http-client", "Update", nil}}, managers); diff != "" {
		t.Errorf("managedFields (-want +got):\n%s", diff)
	}

	r := e.c.do(ctx, t, request{Method: http.MethodPatch, Path: path, ContentType: "application/merge-patch+json",
		Body: object{"spec": object{"validations": []object{{"expression": "object.spec.replicas > 1"}}}}})
	r.mustCode(t, http.StatusOK, "fix the policy")
	p = await(2)
	want = object{"observedGeneration": float64(2)}
	if diff := cmp.Diff(want, p["status"]); diff != "" {
		t.Errorf("status after the fix (-want +got):\n%s", diff)
	}
}

// runPolicyStatusTypeCheckingCRD: a policy on a custom resource is
// type-checked against the CRD's schema as /openapi/v3 publishes it
// (Kubernetes' e2e "should type check a CRD"): an ill-typed comparison and
// a field the schema lacks get a warning each, naming the CRD's kind; a
// well-typed expression none. The case waits for the CRD's group-version
// in /openapi/v3 before it creates the policy, as the e2e spec does (the
// real server publishes it a moment after Established).
func runPolicyStatusTypeCheckingCRD(ctx context.Context, t *testing.T, target Target) {
	ce := setupCRD(ctx, t, target)
	gvPath := "apis/" + ce.group + "/v1"
	if !eventually(ctx, establishTimeout, func() bool {
		var root struct {
			Paths map[string]struct {
				ServerRelativeURL string `json:"serverRelativeURL"`
			} `json:"paths"`
		}
		var doc struct {
			Components struct {
				Schemas map[string]any `json:"schemas"`
			} `json:"components"`
		}
		return ce.getJSON(ctx, "/openapi/v3", &root) && root.Paths[gvPath].ServerRelativeURL != "" &&
			ce.getJSON(ctx, root.Paths[gvPath].ServerRelativeURL, &doc) && doc.Components.Schemas[openAPIWidgetKey(ce.group)] != nil
	}) {
		t.Fatalf("%s not in /openapi/v3 within %v", gvPath, establishTimeout)
	}
	name := "typed-crd-" + ce.ns
	path := vapPath + "/" + name
	createPolicyObject(ctx, t, ce.env, vapPath, object{
		"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicy",
		"metadata": object{"name": name}, "spec": object{
			"matchConstraints": object{"resourceRules": []object{{"operations": []string{"CREATE", "UPDATE"},
				"apiGroups": []string{ce.group}, "apiVersions": []string{"v1"}, "resources": []string{"widgets"}}}},
			"validations": []object{
				{"expression": "object.spec.replicas > '1'"},
				{"expression": "object.spec.maxRetries < 10"},
				{"expression": "object.spec.color == 'red' && object.spec.size <= 10"},
			},
		},
	})
	var p object
	if !eventually(ctx, gcWait, func() bool {
		p = ce.getOK(ctx, path)
		st, _ := p["status"].(map[string]any)
		og, _ := st["observedGeneration"].(float64)
		return og == 1
	}) {
		t.Fatalf("no status.observedGeneration 1 within %v: %v", gcWait, p["status"])
	}
	kind := ce.group + "/v1, Kind=Widget: "
	want := object{
		"observedGeneration": float64(1),
		"typeChecking": map[string]any{"expressionWarnings": []any{
			map[string]any{"fieldRef": "spec.validations[0].expression", "warning": kind + "ERROR: <input>:1:22: found no matching overload for '_>_' applied to '(int, string)'\n | object.spec.replicas > '1'\n | .....................^\n"},
			map[string]any{"fieldRef": "spec.validations[1].expression", "warning": kind + "ERROR: <input>:1:12: undefined field 'maxRetries'\n | object.spec.maxRetries < 10\n | ...........^\n"},
		}},
	}
	if diff := cmp.Diff(want, p["status"]); diff != "" {
		t.Errorf("status (-want +got):\n%s", diff)
	}
}
