package conformance

// Cases for ValidatingAdmissionPolicy as kube-apiserver enforces it
// (apiserver pkg/admission/plugin/policy/validating: dispatcher.go,
// validator.go; generic/policy_matcher.go, policy_dispatcher.go
// CollectParams): validations with message and messageExpression,
// validationActions Deny and Warn, failurePolicy, matchConstraints and
// the binding's matchResources, matchConditions, variables, and params.
// kube-apiserver compiles a new policy or binding in the background (its
// policy source refreshes at most a second after an informer event), so
// each case waits until its policies are in effect: a probe policy and
// binding, created last, refuse a dry-run create of a probe ConfigMap
// once the source has compiled them, and with them everything created
// before (waitPolicyProbed). Each case's bindings select only its own
// namespace and leave the probes out.

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// admissionPolicyCases are the cases of this file, in the order [Cases]
// runs them.
func admissionPolicyCases() []Case {
	return []Case{
		{Name: "PolicyValidationDeny", Run: runPolicyValidationDeny},
		{Name: "PolicyValidationWarn", Run: runPolicyValidationWarn},
		{Name: "PolicyFailurePolicy", Run: runPolicyFailurePolicy},
		{Name: "PolicyMatchResources", Run: runPolicyMatchResources},
		{Name: "PolicyMatchConditionsVariables", Run: runPolicyMatchConditionsVariables},
		{Name: "PolicyParams", Run: runPolicyParams},
		{Name: "PolicyScaleSubresource", Run: runPolicyScaleSubresource},
	}
}

const vapPath = "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies"
const vapbPath = "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings"

// configMapConstraints are matchConstraints of every operation on
// configmaps.
func configMapConstraints(ops ...string) object {
	if len(ops) == 0 {
		ops = []string{"*"}
	}
	return object{"resourceRules": []object{configMapRule(ops...)}}
}

// policyBinding is a binding of a case's policy: zero fields take
// defaults (actions Deny; matchResources the case's namespace, probes
// left out).
type policyBinding struct {
	name           string // suffix of the binding's name
	actions        []string
	objectSelector object
	matchResources object // replaces the default matchResources
	paramRef       object
}

// installPolicy creates the ValidatingAdmissionPolicy "vap-<ns>" with
// spec (matchConstraints defaulting to every operation on configmaps),
// its bindings "vap-<ns>-<name>", deletes them when the test ends, and
// waits until they are in effect.
func installPolicy(ctx context.Context, t *testing.T, e *env, spec object, bindings ...policyBinding) string {
	t.Helper()
	name := "vap-" + e.ns
	if spec["matchConstraints"] == nil {
		spec["matchConstraints"] = configMapConstraints()
	}
	createPolicyObject(ctx, t, e, vapPath, object{
		"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicy",
		"metadata": object{"name": name}, "spec": spec,
	})
	for _, b := range bindings {
		actions := b.actions
		if actions == nil {
			actions = []string{"Deny"}
		}
		mr := b.matchResources
		if mr == nil {
			objSel := object{}
			for k, v := range b.objectSelector {
				objSel[k] = v
			}
			exprs, _ := objSel["matchExpressions"].([]object)
			objSel["matchExpressions"] = append(exprs, object{"key": probeLabel, "operator": "DoesNotExist"})
			mr = object{
				"namespaceSelector": object{"matchLabels": object{"kubernetes.io/metadata.name": e.ns}},
				"objectSelector":    objSel,
			}
		}
		bspec := object{"policyName": name, "validationActions": actions, "matchResources": mr}
		if b.paramRef != nil {
			bspec["paramRef"] = b.paramRef
		}
		createPolicyObject(ctx, t, e, vapbPath, object{
			"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicyBinding",
			"metadata": object{"name": name + "-" + b.name}, "spec": bspec,
		})
	}
	probe := "probe-" + e.ns
	createPolicyObject(ctx, t, e, vapPath, object{
		"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicy",
		"metadata": object{"name": probe}, "spec": object{
			"matchConstraints": configMapConstraints("CREATE"),
			"validations":      []object{{"expression": "false", "message": "probe"}},
		},
	})
	createPolicyObject(ctx, t, e, vapbPath, object{
		"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicyBinding",
		"metadata": object{"name": probe}, "spec": object{
			"policyName": probe, "validationActions": []string{"Deny"},
			"matchResources": object{
				"namespaceSelector": object{"matchLabels": object{"kubernetes.io/metadata.name": e.ns}},
				"objectSelector":    object{"matchLabels": object{probeLabel: "yes"}},
			},
		},
	})
	waitPolicyProbed(ctx, t, e, probe)
	return name
}

// createPolicyObject creates a cluster-scoped admissionregistration
// object at path and deletes it when the test ends.
func createPolicyObject(ctx context.Context, t *testing.T, e *env, path string, body object) {
	t.Helper()
	r := e.c.do(ctx, t, request{Method: http.MethodPost, Path: path, Body: body})
	r.mustCode(t, http.StatusCreated, "create "+path)
	name := nameOf(body)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), webhookCleanupTimeout)
		defer cancel()
		e.c.do(ctx, t, request{Method: http.MethodDelete, Path: path + "/" + name})
	})
}

// waitPolicyProbed retries a dry-run create of a probe ConfigMap until the
// probe policy refuses it.
func waitPolicyProbed(ctx context.Context, t *testing.T, e *env, probe string) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		r := e.c.do(ctx, t, request{Method: http.MethodPost, Path: e.cms(), Query: q("dryRun", "All"),
			Body: cm("probe", map[string]string{probeLabel: "yes"}, "v")})
		if r.Code == http.StatusUnprocessableEntity && strings.Contains(string(r.Body), "'"+probe+"'") {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("admission policy not in effect after a minute: the probe got %d %s", r.Code, r.Body)
		}
		select {
		case <-ctx.Done():
			t.Fatalf("waiting for the admission policy: %v", ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// policyDenied is the Status of a write of ConfigMap name refused by a
// policy: code and reason (Invalid, 422, unless the validation gives
// one), `configmaps "<name>" is forbidden: <message>` and the message
// again as a cause.
func policyDenied(code int32, reason metav1.StatusReason, name, message string) statusShape {
	return wantStatus(code, reason, fmt.Sprintf(`configmaps %q is forbidden: %s`, name, message),
		&metav1.StatusDetails{Name: name, Kind: "configmaps", Causes: []metav1.StatusCause{{Message: message}}})
}

// runPolicyValidationDeny: a failed validation refuses the write with
// "ValidatingAdmissionPolicy '<policy>' with binding '<binding>' denied
// request: <message>": the validation's message, its messageExpression's
// value, or "failed expression: <expression>"; its reason sets the code
// (Invalid 422 by default, Forbidden 403); DELETE sees oldObject; nothing
// is written, and what passes is.
func runPolicyValidationDeny(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	e.create(ctx, "old", map[string]string{"keep": "yes"})
	name := installPolicy(ctx, t, e, object{
		"validations": []object{
			{"expression": "request.operation == 'DELETE' || object.data.k != 'bad'", "message": "k must not be bad"},
			{"expression": "request.operation == 'DELETE' || object.data.k != 'worse'", "messageExpression": "'k is ' + object.data.k", "reason": "Forbidden"},
			{"expression": "request.operation == 'DELETE' || object.data.k != 'plain'"},
			{"expression": "request.operation != 'DELETE' || !has(oldObject.metadata.labels) || !('keep' in oldObject.metadata.labels)", "message": "kept"},
		},
	}, policyBinding{name: "deny"})
	binding := name + "-deny"
	prefix := fmt.Sprintf("ValidatingAdmissionPolicy '%s' with binding '%s' denied request: ", name, binding)
	r := e.c.do(ctx, t, request{Method: http.MethodPost, Path: e.cms(), Body: cm("a", nil, "bad")})
	checkStatus(t, "create refused by message", r, policyDenied(http.StatusUnprocessableEntity, metav1.StatusReasonInvalid, "a", prefix+"k must not be bad"))
	r = e.c.do(ctx, t, request{Method: http.MethodPost, Path: e.cms(), Body: cm("b", nil, "worse")})
	checkStatus(t, "create refused by messageExpression, reason Forbidden", r, policyDenied(http.StatusForbidden, metav1.StatusReasonForbidden, "b", prefix+"k is worse"))
	r = e.c.do(ctx, t, request{Method: http.MethodPost, Path: e.cms(), Body: cm("c", nil, "plain")})
	checkStatus(t, "create refused without a message", r, policyDenied(http.StatusUnprocessableEntity, metav1.StatusReasonInvalid, "c",
		prefix+"failed expression: request.operation == 'DELETE' || object.data.k != 'plain'"))
	r = e.c.do(ctx, t, request{Method: http.MethodDelete, Path: e.cms() + "/old"})
	checkStatus(t, "delete refused by oldObject", r, policyDenied(http.StatusUnprocessableEntity, metav1.StatusReasonInvalid, "old", prefix+"kept"))
	e.c.do(ctx, t, request{Path: e.cms() + "/a"}).mustCode(t, http.StatusNotFound, "get the refused create")
	e.c.do(ctx, t, request{Path: e.cms() + "/old"}).mustCode(t, http.StatusOK, "get the object whose delete was refused")
	e.c.do(ctx, t, request{Method: http.MethodPost, Path: e.cms(), Body: cm("good", nil, "fine")}).mustCode(t, http.StatusCreated, "create that passes")
	r = e.c.do(ctx, t, request{Method: http.MethodPut, Path: e.cms() + "/good", Body: cm("good", nil, "bad")})
	checkStatus(t, "update refused", r, policyDenied(http.StatusUnprocessableEntity, metav1.StatusReasonInvalid, "good", prefix+"k must not be bad"))
}

// runPolicyValidationWarn: validationActions Warn (here with Audit) lets
// the write through with a Warning header "Validation failed for
// ValidatingAdmissionPolicy '<policy>' with binding '<binding>':
// <message>"; Audit alone lets it through without one. (A binding with
// both Deny and Warn is refused at its create by kube-apiserver's
// validation, which the fake does not have for admission policies:
// DIVERGENCES.md.)
func runPolicyValidationWarn(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	name := installPolicy(ctx, t, e, object{
		"validations": []object{{"expression": "object.data.k != 'bad'", "message": "k must not be bad"}},
	}, policyBinding{name: "warn", actions: []string{"Warn", "Audit"}, objectSelector: object{"matchLabels": object{"action": "warn"}}},
		policyBinding{name: "audit", actions: []string{"Audit"}, objectSelector: object{"matchLabels": object{"action": "audit"}}})
	r := e.c.do(ctx, t, request{Method: http.MethodPost, Path: e.cms(), Body: cm("a", map[string]string{"action": "warn"}, "bad")})
	r.mustCode(t, http.StatusCreated, "create with a Warn binding")
	want := fmt.Sprintf(`299 - "Validation failed for ValidatingAdmissionPolicy '%s' with binding '%s': k must not be bad"`, name, name+"-warn")
	if diff := cmp.Diff([]string{want}, r.Header.Values("Warning")); diff != "" {
		t.Errorf("Warning headers (-want +got):\n%s", diff)
	}
	r = e.c.do(ctx, t, request{Method: http.MethodPost, Path: e.cms(), Body: cm("b", map[string]string{"action": "audit"}, "bad")})
	r.mustCode(t, http.StatusCreated, "create with an Audit binding")
	if got := r.Header.Values("Warning"); len(got) != 0 {
		t.Errorf("Warning headers of an Audit binding's create = %q, want none", got)
	}
}

// runPolicyFailurePolicy: an expression that fails at runtime refuses
// the write under failurePolicy Fail (the default) with the evaluation
// error as the message, and is ignored under Ignore.
func runPolicyFailurePolicy(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	spec := object{"validations": []object{{"expression": "object.data.missing == 'x'", "message": "unused"}}}
	name := installPolicy(ctx, t, e, spec, policyBinding{name: "fail"})
	r := e.c.do(ctx, t, request{Method: http.MethodPost, Path: e.cms(), Body: cm("a", nil, "v")})
	checkStatus(t, "create with a failing expression (Fail)", r, policyDenied(http.StatusUnprocessableEntity, metav1.StatusReasonInvalid, "a",
		fmt.Sprintf("ValidatingAdmissionPolicy '%s' with binding '%s' denied request: expression 'object.data.missing == 'x'' resulted in error: no such key: missing", name, name+"-fail")))

	e2 := setup(ctx, t, target)
	installPolicy(ctx, t, e2, object{"failurePolicy": "Ignore", "validations": spec["validations"]}, policyBinding{name: "ignore"})
	e2.c.do(ctx, t, request{Method: http.MethodPost, Path: e2.cms(), Body: cm("a", nil, "v")}).mustCode(t, http.StatusCreated, "create with a failing expression (Ignore)")
}

// runPolicyMatchResources: the policy's matchConstraints (operations,
// excludeResourceRules by resourceNames) and the binding's matchResources
// (object selector) decide which writes are validated.
func runPolicyMatchResources(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	name := installPolicy(ctx, t, e, object{
		"matchConstraints": object{
			"resourceRules": []object{configMapRule("CREATE")},
			"excludeResourceRules": []object{{
				"apiGroups": []string{""}, "apiVersions": []string{"v1"}, "resources": []string{"configmaps"},
				"operations": []string{"*"}, "resourceNames": []string{"excluded"},
			}},
		},
		"validations": []object{{"expression": "false", "message": "refused"}},
	}, policyBinding{name: "sel", objectSelector: object{"matchLabels": object{"check": "yes"}}})
	r := e.c.do(ctx, t, request{Method: http.MethodPost, Path: e.cms(), Body: cm("a", map[string]string{"check": "yes"}, "v")})
	checkStatus(t, "create matched", r, policyDenied(http.StatusUnprocessableEntity, metav1.StatusReasonInvalid, "a",
		fmt.Sprintf("ValidatingAdmissionPolicy '%s' with binding '%s' denied request: refused", name, name+"-sel")))
	e.c.do(ctx, t, request{Method: http.MethodPost, Path: e.cms(), Body: cm("b", nil, "v")}).mustCode(t, http.StatusCreated, "create the object selector leaves out")
	e.c.do(ctx, t, request{Method: http.MethodPost, Path: e.cms(), Body: cm("excluded", map[string]string{"check": "yes"}, "v")}).mustCode(t, http.StatusCreated, "create of an excluded name")
	e.c.do(ctx, t, request{Method: http.MethodPut, Path: e.cms() + "/excluded", Body: cm("excluded", map[string]string{"check": "yes"}, "w")}).mustCode(t, http.StatusOK, "update (not a constrained operation)")
	e.c.do(ctx, t, request{Method: http.MethodDelete, Path: e.cms() + "/b"}).mustCode(t, http.StatusOK, "delete (not a constrained operation)")
}

// runPolicyMatchConditionsVariables: a write whose matchConditions are
// not all true is not validated; variables are computed once and read as
// variables.<name>.
func runPolicyMatchConditionsVariables(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	name := installPolicy(ctx, t, e, object{
		"matchConditions": []object{{"name": "labelled", "expression": "has(object.metadata.labels) && 'check' in object.metadata.labels"}},
		"variables":       []object{{"name": "value", "expression": "object.data.k"}},
		"validations":     []object{{"expression": "variables.value.startsWith('ok')", "messageExpression": "'value ' + variables.value + ' is not ok'"}},
	}, policyBinding{name: "mc"})
	r := e.c.do(ctx, t, request{Method: http.MethodPost, Path: e.cms(), Body: cm("a", map[string]string{"check": "yes"}, "bad")})
	checkStatus(t, "create matched", r, policyDenied(http.StatusUnprocessableEntity, metav1.StatusReasonInvalid, "a",
		fmt.Sprintf("ValidatingAdmissionPolicy '%s' with binding '%s' denied request: value bad is not ok", name, name+"-mc")))
	e.c.do(ctx, t, request{Method: http.MethodPost, Path: e.cms(), Body: cm("b", map[string]string{"check": "yes"}, "ok-value")}).mustCode(t, http.StatusCreated, "create that passes")
	e.c.do(ctx, t, request{Method: http.MethodPost, Path: e.cms(), Body: cm("c", nil, "bad")}).mustCode(t, http.StatusCreated, "create the matchConditions leave out")
}

// runPolicyParams: a policy with a paramKind reads the binding's paramRef
// (by name, or by selector: each selected param validated); a missing
// param with parameterNotFoundAction Deny refuses ("failed to configure
// binding"), with Allow lets the write through. The params (here
// ServiceAccounts, their annotation k) exist before the policy, and no
// other case binds a policy with that paramKind: kube-apiserver's param
// informer starts with the first binding and lists them then, and stops
// for good once no binding names its kind (kubernetes/kubernetes#130887;
// a name is then still read from the storage, a selector reads nothing),
// so a kind other cases bind and unbind (ConfigMap) would make this case
// depend on their timing (DIVERGENCES.md).
func runPolicyParams(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	sas := nsPath(e.ns, "serviceaccounts")
	for _, p := range [][2]string{{"limits", "x"}, {"other", "y"}} {
		e.c.do(ctx, t, request{Method: http.MethodPost, Path: sas, Body: object{
			"apiVersion": "v1", "kind": "ServiceAccount",
			"metadata": object{"name": p[0], "labels": object{"role": "param"}, "annotations": object{"k": p[1]}},
		}}).mustCode(t, http.StatusCreated, "create the param "+p[0])
	}
	sel := func(ref string) object { return object{"matchLabels": object{"ref": ref}} }
	name := installPolicy(ctx, t, e, object{
		"paramKind":   object{"apiVersion": "v1", "kind": "ServiceAccount"},
		"validations": []object{{"expression": "object.data.k != params.metadata.annotations.k", "messageExpression": "'k must not be ' + params.metadata.annotations.k"}},
	}, policyBinding{name: "byname", objectSelector: sel("name"), paramRef: object{"name": "limits", "namespace": e.ns, "parameterNotFoundAction": "Deny"}},
		policyBinding{name: "selector", objectSelector: sel("selector"), paramRef: object{"selector": object{"matchLabels": object{"role": "param"}}, "parameterNotFoundAction": "Deny"}},
		policyBinding{name: "missing", objectSelector: sel("missing"), paramRef: object{"name": "absent", "parameterNotFoundAction": "Deny"}},
		policyBinding{name: "allow", objectSelector: sel("allow"), paramRef: object{"name": "absent", "parameterNotFoundAction": "Allow"}})
	prefix := func(binding string) string {
		return fmt.Sprintf("ValidatingAdmissionPolicy '%s' with binding '%s' denied request: ", name, name+"-"+binding)
	}
	r := e.c.do(ctx, t, request{Method: http.MethodPost, Path: e.cms(), Body: cm("a", map[string]string{"ref": "missing"}, "x")})
	checkStatus(t, "create without the param (Deny)", r, policyDenied(http.StatusUnprocessableEntity, metav1.StatusReasonInvalid, "a",
		prefix("missing")+"failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction"))
	e.c.do(ctx, t, request{Method: http.MethodPost, Path: e.cms(), Body: cm("b", map[string]string{"ref": "allow"}, "x")}).mustCode(t, http.StatusCreated, "create without the param (Allow)")
	r = e.c.do(ctx, t, request{Method: http.MethodPost, Path: e.cms(), Body: cm("c", map[string]string{"ref": "name"}, "x")})
	checkStatus(t, "create refused by the named param", r, policyDenied(http.StatusUnprocessableEntity, metav1.StatusReasonInvalid, "c", prefix("byname")+"k must not be x"))
	e.c.do(ctx, t, request{Method: http.MethodPost, Path: e.cms(), Body: cm("d", map[string]string{"ref": "name"}, "y")}).mustCode(t, http.StatusCreated, "create the named param allows")
	r = e.c.do(ctx, t, request{Method: http.MethodPost, Path: e.cms(), Body: cm("e", map[string]string{"ref": "selector"}, "y")})
	checkStatus(t, "create refused by a selected param", r, policyDenied(http.StatusUnprocessableEntity, metav1.StatusReasonInvalid, "e", prefix("selector")+"k must not be y"))
	e.c.do(ctx, t, request{Method: http.MethodPost, Path: e.cms(), Body: cm("f", map[string]string{"ref": "selector"}, "z")}).mustCode(t, http.StatusCreated, "create every selected param allows")
}

// runPolicyScaleSubresource: a policy whose rule names deployments/scale
// sees the autoscaling/v1 Scale written (object.spec.replicas) and the
// old one, and refuses a scale past its bound; the deployment keeps its
// replicas.
func runPolicyScaleSubresource(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	e.c.do(ctx, t, request{Method: http.MethodPost, Path: e.deployments(), Body: deployment("d", 1)}).mustCode(t, http.StatusCreated, "create deployment")
	scaleRule := object{"operations": []string{"UPDATE"}, "apiGroups": []string{"apps"}, "apiVersions": []string{"v1"}, "resources": []string{"deployments/scale"}}
	name := installPolicy(ctx, t, e, object{
		"matchConstraints": object{"resourceRules": []object{scaleRule}},
		"validations": []object{{
			"expression":        "request.kind.kind != 'Scale' || object.spec.replicas <= oldObject.spec.replicas + 2",
			"messageExpression": "object.kind + ' from ' + string(oldObject.spec.replicas) + ' to ' + string(object.spec.replicas)",
		}},
	}, policyBinding{name: "scale"})
	scale := func(n int) response {
		return e.c.do(ctx, t, request{Method: http.MethodPatch, Path: e.deployments() + "/d/scale", ContentType: "application/merge-patch+json",
			Body: object{"spec": object{"replicas": n}}})
	}
	msg := fmt.Sprintf("ValidatingAdmissionPolicy '%s' with binding '%s' denied request: Scale from 1 to 5", name, name+"-scale")
	checkStatus(t, "scale past the bound", scale(5), wantStatus(http.StatusUnprocessableEntity, metav1.StatusReasonInvalid,
		`deployments.apps "d" is forbidden: `+msg,
		&metav1.StatusDetails{Name: "d", Group: "apps", Kind: "deployments", Causes: []metav1.StatusCause{{Message: msg}}}))
	scale(3).mustCode(t, http.StatusOK, "scale within the bound")
	d := decoded(t, e.c.do(ctx, t, request{Path: e.deployments() + "/d"}))
	if got := d["spec"].(map[string]any)["replicas"]; got != float64(3) {
		t.Errorf("deployment replicas = %v, want 3", got)
	}
}
