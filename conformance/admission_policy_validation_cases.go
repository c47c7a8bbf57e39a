package conformance

// Cases for kube-apiserver's validation of the admission policy objects
// themselves (kubernetes pkg/apis/admissionregistration/validation, run by
// the registry strategies of pkg/registry/admissionregistration): required
// fields, CEL expressions that do not compile (syntax errors, undeclared
// references, the wrong result type), and a ValidatingAdmissionPolicyBinding's
// validationActions. Each is refused with 422 Invalid and the field errors
// in upstream's order; nothing is stored.

import (
	"context"
	"net/http"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
)

// admissionPolicyValidationCases are the cases of this file, in the order
// [Cases] runs them.
func admissionPolicyValidationCases() []Case {
	return []Case{
		{Name: "PolicyObjectValidation", Run: runPolicyObjectValidation},
		{Name: "PolicyObjectValidationCEL", Run: runPolicyObjectValidationCEL},
		{Name: "PolicyBindingValidationActions", Run: runPolicyBindingValidationActions},
		{Name: "MutatingPolicyObjectValidation", Run: runMutatingPolicyObjectValidation},
	}
}

// Cause types of field errors, as the Status carries them.
const (
	causeRequired     = metav1.CauseTypeFieldValueRequired
	causeInvalid      = metav1.CauseTypeFieldValueInvalid
	causeNotSupported = metav1.CauseTypeFieldValueNotSupported
	causeDuplicate    = metav1.CauseTypeFieldValueDuplicate
)

const admissionGroup = "admissionregistration.k8s.io"

// policyObject is an admissionregistration.k8s.io/v1 object of kind named
// name with spec.
func policyObject(kind, name string, spec object) object {
	return object{"apiVersion": admissionGroup + "/v1", "kind": kind, "metadata": object{"name": name}, "spec": spec}
}

// createRefused posts body to path and checks the 422 of kind with causes.
func createRefused(ctx context.Context, t *testing.T, e *env, what, path string, body object, kind string, causes ...metav1.StatusCause) {
	t.Helper()
	r := e.c.do(ctx, t, request{Method: http.MethodPost, Path: path, Body: body})
	if r.Code == http.StatusCreated {
		t.Cleanup(func() {
			e.c.do(context.Background(), t, request{Method: http.MethodDelete, Path: path + "/" + nameOf(body)})
		})
	}
	checkStatus(t, what, r, invalid(kind, admissionGroup, nameOf(body), causes...))
}

// runPolicyObjectValidation: a ValidatingAdmissionPolicy needs
// matchConstraints with resource rules and validations or
// auditAnnotations; its rules and paramKind are checked, and an update
// is validated as a create is.
func runPolicyObjectValidation(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	name := "vapv-" + e.ns
	const atLeastOne = "Required value: validations or auditAnnotations must contain at least one item"
	createRefused(ctx, t, e, "empty spec", vapPath, policyObject("ValidatingAdmissionPolicy", name, object{}), "ValidatingAdmissionPolicy",
		cause(causeRequired, "spec.matchConstraints", "Required value"),
		cause(causeRequired, "spec.validations", atLeastOne),
		cause(causeRequired, "spec.auditAnnotations", atLeastOne))

	createRefused(ctx, t, e, "bad rules and paramKind", vapPath, policyObject("ValidatingAdmissionPolicy", name, object{
		"failurePolicy": "Sometimes",
		"paramKind":     object{"apiVersion": "a/b/c", "kind": "Config Map"},
		"matchConstraints": object{"matchPolicy": "Fuzzy", "resourceRules": []object{
			{"operations": []string{"CREATE", "*"}, "apiGroups": []string{""}, "apiVersions": []string{"v1"}, "resources": []string{"*/*", "pods"}, "scope": "Everywhere"},
			{"operations": []string{"PATCH"}, "apiGroups": []string{}, "apiVersions": []string{}, "resources": []string{}},
		}},
		"validations": []object{{"expression": "true"}},
	}), "ValidatingAdmissionPolicy",
		cause(causeNotSupported, "spec.failurePolicy", `Unsupported value: "Sometimes": supported values: "Fail", "Ignore"`),
		cause(causeInvalid, "spec.paramKind.apiVersion", `Invalid value: "a/b/c": unexpected GroupVersion string: a/b/c`),
		cause(causeInvalid, "spec.paramKind.kind", `Invalid value: "Config Map": may have mixed case, but should otherwise match: `+validation.IsDNS1035Label("config map")[0]),
		cause(causeNotSupported, "spec.matchConstraints.matchPolicy", `Unsupported value: "Fuzzy": supported values: "Equivalent", "Exact"`),
		cause(causeInvalid, "spec.matchConstraints.resourceRules[0].operations", `Invalid value: ["CREATE","*"]: if '*' is present, must not specify other operations`),
		cause(causeInvalid, "spec.matchConstraints.resourceRules[0].resources", `Invalid value: ["*/*","pods"]: if '*/*' is present, must not specify other resources`),
		cause(causeNotSupported, "spec.matchConstraints.resourceRules[0].scope", `Unsupported value: "Everywhere": supported values: "*", "Cluster", "Namespaced"`),
		cause(causeNotSupported, "spec.matchConstraints.resourceRules[1].operations[0]", `Unsupported value: "PATCH": supported values: "*", "CONNECT", "CREATE", "DELETE", "UPDATE"`),
		cause(causeRequired, "spec.matchConstraints.resourceRules[1].apiGroups", "Required value"),
		cause(causeRequired, "spec.matchConstraints.resourceRules[1].apiVersions", "Required value"),
		cause(causeRequired, "spec.matchConstraints.resourceRules[1].resources", "Required value"))

	valid := policyObject("ValidatingAdmissionPolicy", name, object{
		"matchConstraints": configMapConstraints(),
		"validations":      []object{{"expression": "true"}},
	})
	createPolicyObject(ctx, t, e, vapPath, valid)
	patch := object{"spec": object{"validations": []object{{"expression": "object.metadata.name ==", "message": "two\nlines"}}}}
	r := e.c.do(ctx, t, request{Method: http.MethodPatch, Path: vapPath + "/" + name, Body: patch, ContentType: "application/merge-patch+json"})
	checkStatus(t, "update with a bad expression", r, invalid("ValidatingAdmissionPolicy", admissionGroup, name,
		cause(causeInvalid, "spec.validations[0].expression", "Invalid value: \"object.metadata.name ==\": compilation failed: ERROR: <input>:1:24: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | object.metadata.name ==\n | .......................^"),
		cause(causeInvalid, "spec.validations[0].message", `Invalid value: "two\nlines": must not contain line breaks`)))
	createRefused(ctx, t, e, "reserved name suffix", vapPath, policyObject("ValidatingAdmissionPolicy", "p.static.k8s.io", object{
		"matchConstraints": configMapConstraints(),
		"validations":      []object{{"expression": "true"}},
	}), "ValidatingAdmissionPolicy",
		invalidValue("metadata.name", "p.static.k8s.io", `names ending with ".static.k8s.io" are reserved for static manifest-based configurations and cannot be managed via the API`))
}

// runPolicyObjectValidationCEL: every expression of a
// ValidatingAdmissionPolicy must compile in its environment: params only
// with a paramKind, variables only those declared before, the result type
// each field wants.
func runPolicyObjectValidationCEL(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	name := "vapc-" + e.ns
	createRefused(ctx, t, e, "uncompilable expressions", vapPath, policyObject("ValidatingAdmissionPolicy", name, object{
		"matchConstraints": configMapConstraints(),
		"matchConditions": []object{
			{"name": "uses-params", "expression": "params.x == 1"},
			{"name": "uses-params", "expression": "'a'"},
			{"name": "Bad Name!", "expression": " "},
		},
		"variables": []object{
			{"name": "ok", "expression": "object.metadata.name"},
			{"name": "1st", "expression": "variables.later"},
			{"name": "later", "expression": "variables.ok + unknown"},
		},
		"validations": []object{
			{"expression": "1"},
			{"expression": "variables.ok == 'x'", "messageExpression": "object.metadata.name +"},
			{"expression": "true", "messageExpression": "1", "reason": "Teapot"},
		},
		"auditAnnotations": []object{
			{"key": "k", "valueExpression": "1"},
			{"key": "k", "valueExpression": "'v'"},
		},
	}), "ValidatingAdmissionPolicy",
		cause(causeInvalid, "spec.matchConditions[0].expression", "Invalid value: \"params.x == 1\": compilation failed: ERROR: <input>:1:1: undeclared reference to 'params' (in container '')\n | params.x == 1\n | ^"),
		cause(causeInvalid, "spec.matchConditions[1].expression", `Invalid value: "'a'": must evaluate to bool but got string`),
		cause(causeDuplicate, "spec.matchConditions[1].name", `Duplicate value: "uses-params"`),
		cause(causeRequired, "spec.matchConditions[2].expression", "Required value"),
		cause(causeInvalid, "spec.matchConditions[2].name", `Invalid value: "Bad Name!": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`),
		cause(causeInvalid, "spec.variables[1].name", `Invalid value: "1st": must be a valid CEL identifier`),
		cause(causeInvalid, "spec.variables[1].expression", "Invalid value: \"variables.later\": compilation failed: ERROR: <input>:1:10: undefined field 'later'\n | variables.later\n | .........^"),
		cause(causeInvalid, "spec.variables[2].expression", "Invalid value: \"variables.ok + unknown\": compilation failed: ERROR: <input>:1:16: undeclared reference to 'unknown' (in container '')\n | variables.ok + unknown\n | ...............^"),
		cause(causeInvalid, "spec.validations[0].expression", `Invalid value: "1": must evaluate to bool but got int`),
		cause(causeInvalid, "spec.validations[1].messageExpression", "Invalid value: \"object.metadata.name +\": compilation failed: ERROR: <input>:1:23: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | object.metadata.name +\n | ......................^"),
		cause(causeInvalid, "spec.validations[2].messageExpression", `Invalid value: "1": must evaluate to string but got int`),
		cause(causeNotSupported, "spec.validations[2].reason", `Unsupported value: "Teapot": supported values: "Forbidden", "Invalid", "RequestEntityTooLarge"`),
		cause(causeInvalid, "spec.auditAnnotations[0].valueExpression", `Invalid value: "1": must evaluate to one of [string null_type] but got int`),
		cause(causeDuplicate, "spec.auditAnnotations[1].key", `Duplicate value: "k"`))
}

// runPolicyBindingValidationActions: a binding's validationActions are
// required, known, unique and not both Deny and Warn; its policyName and
// paramRef are checked.
func runPolicyBindingValidationActions(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	name := "vapbv-" + e.ns
	binding := func(actions []string, extra object) object {
		spec := object{"policyName": "some-policy"}
		if actions != nil {
			spec["validationActions"] = actions
		}
		for k, v := range extra {
			spec[k] = v
		}
		return policyObject("ValidatingAdmissionPolicyBinding", name, spec)
	}
	const kind = "ValidatingAdmissionPolicyBinding"
	createRefused(ctx, t, e, "Deny and Warn", vapbPath, binding([]string{"Deny", "Warn"}, nil), kind,
		cause(causeInvalid, "spec.validationActions", `Invalid value: ["Deny","Warn"]: must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)`))
	createRefused(ctx, t, e, "duplicate and unknown", vapbPath, binding([]string{"Audit", "Audit", "Block"}, nil), kind,
		cause(causeDuplicate, "spec.validationActions[1]", `Duplicate value: "Audit"`),
		cause(causeNotSupported, "spec.validationActions[2]", `Unsupported value: "Block": supported values: "Audit", "Deny", "Warn"`))
	createRefused(ctx, t, e, "no actions, no policy, bad paramRef", vapbPath, policyObject(kind, name, object{
		"paramRef": object{"name": "a", "selector": object{}, "parameterNotFoundAction": "Ignore"},
	}), kind,
		cause(causeForbidden, "spec.paramRef.name", "Forbidden: name and selector are mutually exclusive"),
		cause(causeForbidden, "spec.paramRef.selector", "Forbidden: name and selector are mutually exclusive"),
		cause(causeNotSupported, "spec.paramRef.parameterNotFoundAction", `Unsupported value: "Ignore": supported values: "Deny", "Allow"`),
		cause(causeRequired, "spec.policyName", "Required value"),
		cause(causeRequired, "spec.validationActions", "Required value"))
	createRefused(ctx, t, e, "empty paramRef", vapbPath, binding([]string{"Deny"}, object{"paramRef": object{}}), kind,
		cause(causeRequired, "spec.paramRef", "Required value: one of name or selector must be specified"),
		cause(causeRequired, "spec.paramRef.parameterNotFoundAction", "Required value"))
}

// runMutatingPolicyObjectValidation: a MutatingAdmissionPolicy needs
// mutations and a reinvocationPolicy, each mutation the expression of its
// patchType (compiling, with the patch types declared), and no DELETE in
// its rules; its binding is checked as a validating one.
func runMutatingPolicyObjectValidation(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	name := "mapv-" + e.ns
	const kind = "MutatingAdmissionPolicy"
	createRefused(ctx, t, e, "empty spec", mapPath, policyObject(kind, name, object{}), kind,
		cause(causeRequired, "spec.matchConstraints", "Required value"),
		cause(causeRequired, "spec.mutations", "Required value: mutations must contain at least one item"),
		cause(causeRequired, "spec.reinvocationPolicy", "Required value"))
	createRefused(ctx, t, e, "bad mutations", mapPath, policyObject(kind, name, object{
		"matchConstraints":   configMapConstraints("CREATE", "DELETE"),
		"reinvocationPolicy": "Always",
		"mutations": []object{
			{"patchType": "ApplyConfiguration", "applyConfiguration": object{"expression": "Object{spec: unknown}"}},
			{"patchType": "JSONPatch", "jsonPatch": object{"expression": "[JSONPatch{op: 'add', path: '/x', value: 1}]"}, "applyConfiguration": object{"expression": "Object{}"}},
			{"patchType": "JSONPatch", "jsonPatch": object{"expression": "object.metadata.name"}},
			{"patchType": "StrategicMerge"},
			{"patchType": "ApplyConfiguration"},
		},
	}), kind,
		cause(causeNotSupported, "spec.matchConstraints.resourceRules.operations", `Unsupported value: "DELETE": supported values: "*", "CONNECT", "CREATE", "UPDATE"`),
		cause(causeInvalid, "spec.mutations[0].applyConfiguration.expression", "Invalid value: \"Object{spec: unknown}\": compilation failed: ERROR: <input>:1:14: undeclared reference to 'unknown' (in container '')\n | Object{spec: unknown}\n | .............^"),
		cause(causeInvalid, "spec.mutations[1].applyConfiguration", `Invalid value: "{applyConfiguration}": must not be specified when patchType is JSONPatch`),
		cause(causeInvalid, "spec.mutations[2].jsonPatch.expression", `Invalid value: "object.metadata.name": must evaluate to list(JSONPatch) but got dyn`),
		cause(causeNotSupported, "spec.mutations[3].patchType", `Unsupported value: "StrategicMerge": supported values: "ApplyConfiguration", "JSONPatch"`),
		cause(causeRequired, "spec.mutations[4].applyConfiguration", "Required value: must be specified when patchType is ApplyConfiguration"),
		cause(causeNotSupported, "spec.reinvocationPolicy", `Unsupported value: "Always": supported values: "IfNeeded", "Never"`))
	createRefused(ctx, t, e, "binding without a policy", mapbPath, policyObject("MutatingAdmissionPolicyBinding", name, object{
		"matchResources": object{"resourceRules": []object{{"operations": []string{"DELETE"}, "apiGroups": []string{""}, "apiVersions": []string{"v1"}, "resources": []string{"configmaps"}}}},
	}), "MutatingAdmissionPolicyBinding",
		cause(causeRequired, "spec.policyName", "Required value"),
		cause(causeNotSupported, "spec.matchResources.resourceRules.operations", `Unsupported value: "DELETE": supported values: "*", "CONNECT", "CREATE", "UPDATE"`))
}
