package conformance

// Cases for MutatingAdmissionPolicy as kube-apiserver applies it
// (apiserver pkg/admission/plugin/policy/mutating: dispatcher.go,
// patch/): ApplyConfiguration and JSONPatch mutations, variables, params,
// failures and reinvocation. Like the validating cases
// (admission_policy_cases.go), each waits until its policies are in
// effect, here through a probe policy that labels a dry-run probe.

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

const mapPath = "/apis/admissionregistration.k8s.io/v1/mutatingadmissionpolicies"
const mapbPath = "/apis/admissionregistration.k8s.io/v1/mutatingadmissionpolicybindings"

// mutatingPolicyCases are the MutatingAdmissionPolicy cases, in the
// order [Cases] runs them.
func mutatingPolicyCases() []Case {
	return []Case{
		{Name: "MutatingPolicyApplyConfiguration", Run: runMutatingPolicyApplyConfiguration},
		{Name: "MutatingPolicyJSONPatch", Run: runMutatingPolicyJSONPatch},
		{Name: "MutatingPolicyParamsAndFailure", Run: runMutatingPolicyParamsAndFailure},
		{Name: "MutatingPolicyReinvocation", Run: runMutatingPolicyReinvocation},
		{Name: "MutatingPolicyManagedFields", Run: runMutatingPolicyManagedFields},
	}
}

// installMutatingPolicies creates each MutatingAdmissionPolicy of specs
// ("map-<ns>-<i>", matchConstraints defaulting to creates of configmaps,
// reinvocationPolicy to Never) with one binding of the case's namespace
// leaving the probes out (paramRefs[i], if any), deletes them when the
// test ends, and waits until they are in effect: a probe policy, created
// last, labels a dry-run probe ConfigMap "lwsim-probed" once the source
// compiled it. It returns the policies' names.
func installMutatingPolicies(ctx context.Context, t *testing.T, e *env, paramRefs []object, specs ...object) []string {
	t.Helper()
	nsSelector := object{"matchLabels": object{"kubernetes.io/metadata.name": e.ns}}
	var names []string
	for i, spec := range specs {
		name := fmt.Sprintf("map-%s-%d", e.ns, i)
		names = append(names, name)
		if spec["matchConstraints"] == nil {
			spec["matchConstraints"] = configMapConstraints("CREATE")
		}
		if spec["reinvocationPolicy"] == nil {
			spec["reinvocationPolicy"] = "Never"
		}
		createPolicyObject(ctx, t, e, mapPath, object{
			"apiVersion": "admissionregistration.k8s.io/v1", "kind": "MutatingAdmissionPolicy",
			"metadata": object{"name": name}, "spec": spec,
		})
		bspec := object{"policyName": name, "matchResources": object{
			"namespaceSelector": nsSelector,
			"objectSelector":    object{"matchExpressions": []object{{"key": probeLabel, "operator": "DoesNotExist"}}},
		}}
		if i < len(paramRefs) && paramRefs[i] != nil {
			bspec["paramRef"] = paramRefs[i]
		}
		createPolicyObject(ctx, t, e, mapbPath, object{
			"apiVersion": "admissionregistration.k8s.io/v1", "kind": "MutatingAdmissionPolicyBinding",
			"metadata": object{"name": name}, "spec": bspec,
		})
	}
	probe := "probe-" + e.ns
	createPolicyObject(ctx, t, e, mapPath, object{
		"apiVersion": "admissionregistration.k8s.io/v1", "kind": "MutatingAdmissionPolicy",
		"metadata": object{"name": probe}, "spec": object{
			"matchConstraints": configMapConstraints("CREATE"), "reinvocationPolicy": "Never",
			"mutations": []object{{"patchType": "ApplyConfiguration", "applyConfiguration": object{
				"expression": `Object{metadata: Object.metadata{labels: {"lwsim-probed": "yes"}}}`}}},
		},
	})
	createPolicyObject(ctx, t, e, mapbPath, object{
		"apiVersion": "admissionregistration.k8s.io/v1", "kind": "MutatingAdmissionPolicyBinding",
		"metadata": object{"name": probe}, "spec": object{"policyName": probe, "matchResources": object{
			"namespaceSelector": nsSelector, "objectSelector": object{"matchLabels": object{probeLabel: "yes"}},
		}},
	})
	deadline := time.Now().Add(time.Minute)
	for {
		r := e.c.do(ctx, t, request{Method: http.MethodPost, Path: e.cms(), Query: q("dryRun", "All"),
			Body: cm("probe", map[string]string{probeLabel: "yes"}, "v")})
		if r.Code == http.StatusCreated && labelsOf(decoded(t, r))["lwsim-probed"] == "yes" {
			return names
		}
		if time.Now().After(deadline) {
			t.Fatalf("mutating admission policy not in effect after a minute: the probe got %d %s", r.Code, r.Body)
		}
		select {
		case <-ctx.Done():
			t.Fatalf("waiting for the mutating admission policy: %v", ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// labelsOf returns the labels of a decoded object.
func labelsOf(o object) map[string]any {
	md, _ := o["metadata"].(map[string]any)
	labels, _ := md["labels"].(map[string]any)
	return labels
}

// dataOf returns the data of a decoded ConfigMap.
func dataOf(o object) map[string]any {
	d, _ := o["data"].(map[string]any)
	return d
}

// runMutatingPolicyApplyConfiguration: an ApplyConfiguration mutation is
// merged into the created object (a label added, a data key set), and
// the stored object is the mutated one.
func runMutatingPolicyApplyConfiguration(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	installMutatingPolicies(ctx, t, e, nil, object{
		"mutations": []object{{"patchType": "ApplyConfiguration", "applyConfiguration": object{
			"expression": `Object{metadata: Object.metadata{labels: {"mutated": "yes"}}, data: {"k": object.data.k + "-applied", "extra": "1"}}`}}},
	})
	r := e.c.do(ctx, t, request{Method: http.MethodPost, Path: e.cms(), Body: cm("a", map[string]string{"own": "x"}, "v")})
	r.mustCode(t, http.StatusCreated, "create")
	got := decoded(t, r)
	want := []any{map[string]any{"mutated": "yes", "own": "x"}, map[string]any{"k": "v-applied", "extra": "1"}}
	if diff := cmp.Diff(want, []any{labelsOf(got), dataOf(got)}); diff != "" {
		t.Errorf("created object's labels and data (-want +got):\n%s", diff)
	}
	stored := decoded(t, e.c.do(ctx, t, request{Path: e.cms() + "/a"}))
	if diff := cmp.Diff(want, []any{labelsOf(stored), dataOf(stored)}); diff != "" {
		t.Errorf("stored object's labels and data (-want +got):\n%s", diff)
	}
}

// runMutatingPolicyJSONPatch: JSONPatch mutations apply in order, with
// the policy's variables.
func runMutatingPolicyJSONPatch(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	installMutatingPolicies(ctx, t, e, nil, object{
		"variables": []object{{"name": "suffix", "expression": `"-" + object.metadata.name`}},
		"mutations": []object{
			{"patchType": "JSONPatch", "jsonPatch": object{"expression": `[JSONPatch{op: "add", path: "/data/patched", value: "p" + variables.suffix}]`}},
			{"patchType": "JSONPatch", "jsonPatch": object{"expression": `[JSONPatch{op: "replace", path: "/data/k", value: object.data.patched + "!"}]`}},
		},
	})
	r := e.c.do(ctx, t, request{Method: http.MethodPost, Path: e.cms(), Body: cm("a", nil, "v")})
	r.mustCode(t, http.StatusCreated, "create")
	if diff := cmp.Diff(map[string]any{"k": "p-a!", "patched": "p-a"}, dataOf(decoded(t, r))); diff != "" {
		t.Errorf("created object's data (-want +got):\n%s", diff)
	}
}

// runMutatingPolicyParamsAndFailure: a mutation reads the binding's
// param; an expression that fails refuses the write under failurePolicy
// Fail: 403 with reason Invalid and "policy '<policy>' with binding
// '<binding>' denied request: <error>" (mutating/dispatcher.go), without
// the `configmaps "b" is forbidden` prefix a validating policy's has.
func runMutatingPolicyParamsAndFailure(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	e.c.do(ctx, t, request{Method: http.MethodPost, Path: e.cms(), Body: cm("params", map[string]string{probeLabel: "no"}, "from-param")}).mustCode(t, http.StatusCreated, "create the param")
	names := installMutatingPolicies(ctx, t, e, []object{{"name": "params", "namespace": e.ns, "parameterNotFoundAction": "Deny"}}, object{
		"paramKind": object{"apiVersion": "v1", "kind": "ConfigMap"},
		"mutations": []object{{"patchType": "ApplyConfiguration", "applyConfiguration": object{
			"expression": `Object{data: {"fromParam": params.data.k}}`}}},
	}, object{
		"matchConditions": []object{{"name": "broken", "expression": `has(object.metadata.labels) && "broken" in object.metadata.labels`}},
		"mutations":       []object{{"patchType": "JSONPatch", "jsonPatch": object{"expression": `[JSONPatch{op: "add", path: "/data/x", value: object.data.missing}]`}}},
	})
	r := e.c.do(ctx, t, request{Method: http.MethodPost, Path: e.cms(), Body: cm("a", nil, "v")})
	r.mustCode(t, http.StatusCreated, "create")
	if diff := cmp.Diff(map[string]any{"k": "v", "fromParam": "from-param"}, dataOf(decoded(t, r))); diff != "" {
		t.Errorf("created object's data (-want +got):\n%s", diff)
	}
	r = e.c.do(ctx, t, request{Method: http.MethodPost, Path: e.cms(), Body: cm("b", map[string]string{"broken": "yes"}, "v")})
	msg := fmt.Sprintf(`policy '%s' with binding '%s' denied request: expression '[JSONPatch{op: "add", path: "/data/x", value: object.data.missing}]' resulted in error: no such key: missing`, names[1], names[1])
	checkStatus(t, "create with a failing mutation", r, wantStatus(http.StatusForbidden, metav1.StatusReasonInvalid, msg,
		&metav1.StatusDetails{Name: "b", Kind: "configmaps", Causes: []metav1.StatusCause{{Message: msg}}}))
}

// runMutatingPolicyReinvocation: with reinvocationPolicy IfNeeded, a
// policy runs again after a later policy changed the object, and sees
// that change.
func runMutatingPolicyReinvocation(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	installMutatingPolicies(ctx, t, e, nil, object{
		"reinvocationPolicy": "IfNeeded",
		"mutations": []object{{"patchType": "JSONPatch", "jsonPatch": object{
			"expression": `[JSONPatch{op: "add", path: "/data/seen", value: has(object.data.b) ? "b" : "none"}]`}}},
	}, object{
		"reinvocationPolicy": "IfNeeded",
		"mutations": []object{{"patchType": "JSONPatch", "jsonPatch": object{
			"expression": `[JSONPatch{op: "add", path: "/data/b", value: has(object.data.seen) ? object.data.seen : "first"}]`}}},
	})
	r := e.c.do(ctx, t, request{Method: http.MethodPost, Path: e.cms(), Body: cm("a", nil, "v")})
	r.mustCode(t, http.StatusCreated, "create")
	data := dataOf(decoded(t, r))
	if data["seen"] != "b" {
		t.Errorf("data.seen = %v, want b (the first policy reinvoked after the second added b); data %v", data["seen"], data)
	}
}

// runMutatingPolicyManagedFields: a policy's mutations are not tracked in
// managedFields (the entry is the writer's, made before admission), and
// managedFields a mutation leaves undecodable are reset to that entry
// with kube-apiserver's warning.
func runMutatingPolicyManagedFields(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	installMutatingPolicies(ctx, t, e, nil, object{
		"mutations": []object{
			{"patchType": "ApplyConfiguration", "applyConfiguration": object{
				"expression": `Object{metadata: Object.metadata{labels: {"mutated": "yes"}}}`}},
			{"patchType": "JSONPatch", "jsonPatch": object{
				"expression": `object.metadata.name == "invalid" ? [JSONPatch{op: "replace", path: "/metadata/managedFields/0/fieldsType", value: "FieldsV2"}] : []`}},
		},
	})
	tester := v1Entry(t, "tester", "Update", `{"f:data":{".":{},"f:k":{}},"f:metadata":{"f:labels":{".":{},"f:own":{}}}}`)
	for _, tc := range []struct {
		name     string
		warnings []string
	}{
		{name: "valid"},
		{name: "invalid", warnings: []string{`299 - ".metadata.managedFields was in an invalid state after admission; this could be caused by an outdated mutating admission controller; please fix your requests: invalid fieldsType \"FieldsV2\" in managed fields entry 0"`}},
	} {
		r := e.c.do(ctx, t, request{Method: http.MethodPost, Path: e.cms(), Query: q("fieldManager", "tester"),
			Body: cm(tc.name, map[string]string{"own": "x"}, "v")})
		r.mustCode(t, http.StatusCreated, "create "+tc.name)
		if diff := cmp.Diff(tc.warnings, r.Header.Values("Warning"), cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("create %s: Warning headers (-want +got):\n%s", tc.name, diff)
		}
		created := decoded(t, r)
		if diff := cmp.Diff(map[string]any{"mutated": "yes", "own": "x"}, labelsOf(created)); diff != "" {
			t.Errorf("create %s: labels (-want +got):\n%s", tc.name, diff)
		}
		checkManaged(t, "created "+tc.name, created, tester)
	}
}
