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
