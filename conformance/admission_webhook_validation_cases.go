package conformance

// Cases for kube-apiserver's validation of the webhook configurations
// themselves (kubernetes pkg/apis/admissionregistration/validation
// ValidateValidatingWebhookConfiguration, ValidateMutatingWebhookConfiguration
// and their Update forms, run by the registry strategies of
// pkg/registry/admissionregistration): webhook names, clientConfig,
// rules, policies, sideEffects, admissionReviewVersions, timeouts,
// selectors, matchConditions (CEL) and the reinvocationPolicy. Each is
// refused with 422 Invalid and the field errors in upstream's order;
// nothing is stored. The one configuration a case stores matches no
// request of the other cases.

import (
	"context"
	"fmt"
	"net/http"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// admissionWebhookValidationCases are the cases of this file, in the
// order [Cases] runs them.
func admissionWebhookValidationCases() []Case {
	return []Case{
		{Name: "WebhookConfigValidation", Run: runWebhookConfigValidation},
		{Name: "WebhookConfigValidationClient", Run: runWebhookConfigValidationClient},
		{Name: "WebhookConfigValidationCEL", Run: runWebhookConfigValidationCEL},
		{Name: "WebhookConfigValidationUpdate", Run: runWebhookConfigValidationUpdate},
	}
}

const (
	vwcPath = "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations"
	mwcPath = "/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations"
	// causeTooMany is the cause type of a field.TooMany.
	causeTooMany metav1.CauseType = "FieldValueTooMany"
)

// webhookConfigObject is an admissionregistration.k8s.io/v1 webhook
// configuration of kind named name with webhooks.
func webhookConfigObject(kind, name string, webhooks ...object) object {
	return object{"apiVersion": admissionGroup + "/v1", "kind": kind, "metadata": object{"name": name}, "webhooks": webhooks}
}

// inertWebhook is a valid webhook named name that no request of any case
// matches: a made-up resource of a made-up group, in the case's
// namespace only.
func inertWebhook(e *env, name string) object {
	return object{
		"name":                    name,
		"clientConfig":            object{"url": "https://127.0.0.1:1/never"},
		"rules":                   []object{{"operations": []string{"CREATE"}, "apiGroups": []string{"inert.lwsim.test"}, "apiVersions": []string{"v1"}, "resources": []string{"nothings"}}},
		"namespaceSelector":       object{"matchLabels": object{"kubernetes.io/metadata.name": e.ns}},
		"sideEffects":             "None",
		"admissionReviewVersions": []string{"v1"},
	}
}

// withFields returns a copy of w with the fields of extra set.
func withFields(w object, extra object) object {
	out := object{}
	for k, v := range w {
		out[k] = v
	}
	for k, v := range extra {
		out[k] = v
	}
	return out
}

// runWebhookConfigValidation: a webhook's name is fully qualified and
// unique; its rules, failurePolicy, matchPolicy and timeout are checked;
// sideEffects, a clientConfig and admissionReviewVersions are required;
// a mutating webhook's reinvocationPolicy is Never or IfNeeded.
func runWebhookConfigValidation(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	name := "vwcv-" + e.ns
	const kind = "ValidatingWebhookConfiguration"
	createRefused(ctx, t, e, "everything wrong", vwcPath, webhookConfigObject(kind, name, object{
		"name":         "nodots",
		"clientConfig": object{},
		"rules": []object{
			{"operations": []string{"CREATE", "*"}, "apiGroups": []string{"", "*"}, "apiVersions": []string{"v1"}, "resources": []string{"*/*", "pods"}, "scope": "Everywhere"},
			{"operations": []string{"PATCH"}, "apiGroups": []string{}, "apiVersions": []string{""}, "resources": []string{"", "x/*", "x/y"}},
		},
		"failurePolicy":  "Sometimes",
		"matchPolicy":    "Fuzzy",
		"timeoutSeconds": 31,
	}), kind,
		invalidValue("webhooks[0].name", "nodots", "should be a domain with at least three segments separated by dots"),
		cause(causeInvalid, "webhooks[0].rules[0].operations", `Invalid value: ["CREATE","*"]: if '*' is present, must not specify other operations`),
		cause(causeInvalid, "webhooks[0].rules[0].apiGroups", `Invalid value: ["","*"]: if '*' is present, must not specify other API groups`),
		cause(causeInvalid, "webhooks[0].rules[0].resources", `Invalid value: ["*/*","pods"]: if '*/*' is present, must not specify other resources`),
		cause(causeNotSupported, "webhooks[0].rules[0].scope", `Unsupported value: "Everywhere": supported values: "*", "Cluster", "Namespaced"`),
		cause(causeNotSupported, "webhooks[0].rules[1].operations[0]", `Unsupported value: "PATCH": supported values: "*", "CONNECT", "CREATE", "DELETE", "UPDATE"`),
		cause(causeRequired, "webhooks[0].rules[1].apiGroups", "Required value"),
		cause(causeRequired, "webhooks[0].rules[1].apiVersions[0]", "Required value"),
		cause(causeRequired, "webhooks[0].rules[1].resources[0]", "Required value"),
		invalidValue("webhooks[0].rules[1].resources[2]", "x/y", "if 'x/*' is present, must not specify x/y"),
		cause(causeNotSupported, "webhooks[0].failurePolicy", `Unsupported value: "Sometimes": supported values: "Fail", "Ignore"`),
		cause(causeNotSupported, "webhooks[0].matchPolicy", `Unsupported value: "Fuzzy": supported values: "Equivalent", "Exact"`),
		cause(causeRequired, "webhooks[0].sideEffects", "Required value: must specify one of None, NoneOnDryRun"),
		cause(causeInvalid, "webhooks[0].timeoutSeconds", "Invalid value: 31: the timeout value must be between 1 and 30 seconds"),
		cause(causeRequired, "webhooks[0].clientConfig", "Required value: exactly one of url or service is required"),
		cause(causeRequired, "webhooks[0].admissionReviewVersions", "Required value: must specify one of v1, v1beta1"))

	ok := inertWebhook(e, "a.vwcv.lwsim.test")
	createRefused(ctx, t, e, "duplicate names, side effects, versions", vwcPath, webhookConfigObject(kind, name,
		ok,
		withFields(ok, object{"sideEffects": "Some", "timeoutSeconds": 0, "admissionReviewVersions": []string{"v2", "v2", "Not_A_Label"}}),
		withFields(ok, object{"name": ""}),
	), kind,
		cause(causeNotSupported, "webhooks[1].sideEffects", `Unsupported value: "Some": supported values: "None", "NoneOnDryRun"`),
		cause(causeInvalid, "webhooks[1].timeoutSeconds", "Invalid value: 0: the timeout value must be between 1 and 30 seconds"),
		cause(causeInvalid, "webhooks[1].admissionReviewVersions[1]", `Invalid value: "v2": duplicate version`),
		invalidValue("webhooks[1].admissionReviewVersions[2]", "Not_A_Label", "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"),
		cause(causeInvalid, "webhooks[1].admissionReviewVersions", `Invalid value: ["v2","v2","Not_A_Label"]: must include at least one of v1, v1beta1`),
		cause(causeDuplicate, "webhooks[1].name", `Duplicate value: "a.vwcv.lwsim.test"`),
		cause(causeRequired, "webhooks[2].name", "Required value"))

	const mkind = "MutatingWebhookConfiguration"
	createRefused(ctx, t, e, "mutating reinvocationPolicy", mwcPath, webhookConfigObject(mkind, name,
		withFields(ok, object{"reinvocationPolicy": "Always", "failurePolicy": "Never"})), mkind,
		cause(causeNotSupported, "webhooks[0].failurePolicy", `Unsupported value: "Never": supported values: "Fail", "Ignore"`),
		cause(causeNotSupported, "webhooks[0].reinvocationPolicy", `Unsupported value: "Always": supported values: "IfNeeded", "Never"`))
	createRefused(ctx, t, e, "reserved name suffix", mwcPath, webhookConfigObject(mkind, "w.static.k8s.io", ok), mkind,
		invalidValue("metadata.name", "w.static.k8s.io", `names ending with ".static.k8s.io" are reserved for static manifest-based configurations and cannot be managed via the API`))
}

// runWebhookConfigValidationClient: a url is https with a host and no
// user information, query or fragment; a service reference has a name,
// a namespace, a valid port and a path of DNS subdomains (upstream
// reports a missing namespace as service.name: it passes the two in each
// other's place); the selectors are label selectors.
func runWebhookConfigValidationClient(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	name := "vwcc-" + e.ns
	const kind = "ValidatingWebhookConfiguration"
	ok := inertWebhook(e, "a.vwcc.lwsim.test")
	createRefused(ctx, t, e, "bad url, service and selectors", vwcPath, webhookConfigObject(kind, name,
		withFields(ok, object{
			"clientConfig":      object{"url": "http://user:pw@example.com/p?q=1#frag"},
			"namespaceSelector": object{"matchExpressions": []object{{"key": "a", "operator": "Bogus"}}},
			"objectSelector":    object{"matchLabels": object{"a": "bad value!"}},
		}),
		withFields(ok, object{"name": "b.vwcc.lwsim.test", "clientConfig": object{"service": object{"name": "svc", "path": "no-slash//x", "port": 0}}}),
		withFields(ok, object{"name": "c.vwcc.lwsim.test", "clientConfig": object{"url": "https://"}}),
		withFields(ok, object{"name": "d.vwcc.lwsim.test", "clientConfig": object{"url": "https://example.com", "service": object{"name": "svc", "namespace": "ns"}}}),
		withFields(ok, object{"name": "e.vwcc.lwsim.test", "clientConfig": object{"service": object{"namespace": "ns", "path": "//"}}}),
	), kind,
		cause(causeInvalid, "webhooks[0].namespaceSelector.matchExpressions[0].operator", `Invalid value: "Bogus": not a valid selector operator`),
		invalidValue("webhooks[0].objectSelector.matchLabels", "bad value!", "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"),
		invalidValue("webhooks[0].clientConfig.url", "http", "'https' is the only allowed URL scheme; desired format: https://host[/path]"),
		invalidValue("webhooks[0].clientConfig.url", "user:pw", "user information is not permitted in the URL"),
		invalidValue("webhooks[0].clientConfig.url", "frag", "fragments are not permitted in the URL"),
		invalidValue("webhooks[0].clientConfig.url", "q=1", "query parameters are not permitted in the URL"),
		cause(causeRequired, "webhooks[1].clientConfig.service.name", "Required value"),
		cause(causeInvalid, "webhooks[1].clientConfig.service.port", "Invalid value: 0: port is not valid: must be between 1 and 65535, inclusive"),
		invalidValue("webhooks[1].clientConfig.service.path", "no-slash//x", "must start with a '/'"),
		invalidValue("webhooks[1].clientConfig.service.path", "no-slash//x", "segment[1] may not be empty"),
		invalidValue("webhooks[2].clientConfig.url", "", "host must be specified; desired format: https://host[/path]"),
		cause(causeRequired, "webhooks[3].clientConfig", "Required value: exactly one of url or service is required"),
		cause(causeRequired, "webhooks[4].clientConfig.service.namespace", "Required value"),
		invalidValue("webhooks[4].clientConfig.service.path", "//", "segment[0] may not be empty"))
}

// runWebhookConfigValidationCEL: a webhook's matchConditions have unique
// qualified names and boolean expressions that compile without params
// (a webhook has none), 64 at most.
func runWebhookConfigValidationCEL(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	name := "vwcel-" + e.ns
	ok := inertWebhook(e, "a.vwcel.lwsim.test")
	const kind = "ValidatingWebhookConfiguration"
	createRefused(ctx, t, e, "uncompilable matchConditions", vwcPath, webhookConfigObject(kind, name, withFields(ok, object{
		"matchConditions": []object{
			{"name": "uses-params", "expression": "params.x == 1"},
			{"name": "uses-params", "expression": "'a'"},
			{"name": "Bad Name!", "expression": " "},
			{"name": "syntax", "expression": "object.metadata.name =="},
			{"name": "authorizer", "expression": "authorizer.requestResource.check('get').allowed() && request.userInfo.username != ''"},
		},
	})), kind,
		cause(causeInvalid, "webhooks[0].matchConditions[0].expression", "Invalid value: \"params.x == 1\": compilation failed: ERROR: <input>:1:1: undeclared reference to 'params' (in container '')\n | params.x == 1\n | ^"),
		cause(causeInvalid, "webhooks[0].matchConditions[1].expression", `Invalid value: "'a'": must evaluate to bool but got string`),
		cause(causeDuplicate, "webhooks[0].matchConditions[1].name", `Duplicate value: "uses-params"`),
		cause(causeRequired, "webhooks[0].matchConditions[2].expression", "Required value"),
		cause(causeInvalid, "webhooks[0].matchConditions[2].name", `Invalid value: "Bad Name!": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`),
		cause(causeInvalid, "webhooks[0].matchConditions[3].expression", "Invalid value: \"object.metadata.name ==\": compilation failed: ERROR: <input>:1:24: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | object.metadata.name ==\n | .......................^"))

	many := make([]object, 65)
	for i := range many {
		many[i] = object{"name": fmt.Sprintf("c%d", i), "expression": "true"}
	}
	createRefused(ctx, t, e, "65 matchConditions", mwcPath, webhookConfigObject("MutatingWebhookConfiguration", name, withFields(ok, object{"matchConditions": many})),
		"MutatingWebhookConfiguration",
		cause(causeTooMany, "webhooks[0].matchConditions", "Too many: 65: must have at most 64 items"))
}

// runWebhookConfigValidationUpdate: an update is validated as a create
// is (a valid configuration made invalid is refused and stays as it
// was), and the reserved-suffix check is a create's only.
func runWebhookConfigValidationUpdate(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	name := "vwcu-" + e.ns
	const kind = "ValidatingWebhookConfiguration"
	ok := inertWebhook(e, "a.vwcu.lwsim.test")
	createPolicyObject(ctx, t, e, vwcPath, webhookConfigObject(kind, name, ok))
	patch := object{"webhooks": []object{withFields(ok, object{
		"timeoutSeconds":  60,
		"sideEffects":     "Unknown",
		"matchConditions": []object{{"name": "m", "expression": "object.kind"}},
	})}}
	r := e.c.do(ctx, t, request{Method: http.MethodPatch, Path: vwcPath + "/" + name, Body: patch, ContentType: "application/merge-patch+json"})
	checkStatus(t, "update with a bad timeout, sideEffects and matchCondition", r, invalid(kind, admissionGroup, name,
		cause(causeNotSupported, "webhooks[0].sideEffects", `Unsupported value: "Unknown": supported values: "None", "NoneOnDryRun"`),
		cause(causeInvalid, "webhooks[0].timeoutSeconds", "Invalid value: 60: the timeout value must be between 1 and 30 seconds"),
		cause(causeInvalid, "webhooks[0].matchConditions[0].expression", `Invalid value: "object.kind": must evaluate to bool but got dyn`)))

	const mkind = "MutatingWebhookConfiguration"
	createPolicyObject(ctx, t, e, mwcPath, webhookConfigObject(mkind, name, ok))
	patch = object{"webhooks": []object{ok, withFields(ok, object{"reinvocationPolicy": "Sometimes"})}}
	r = e.c.do(ctx, t, request{Method: http.MethodPatch, Path: mwcPath + "/" + name, Body: patch, ContentType: "application/merge-patch+json"})
	checkStatus(t, "update adding a duplicate webhook", r, invalid(mkind, admissionGroup, name,
		cause(causeNotSupported, "webhooks[1].reinvocationPolicy", `Unsupported value: "Sometimes": supported values: "IfNeeded", "Never"`),
		cause(causeDuplicate, "webhooks[1].name", `Duplicate value: "a.vwcu.lwsim.test"`)))
	r = e.c.do(ctx, t, request{Method: http.MethodGet, Path: mwcPath + "/" + name})
	r.mustCode(t, http.StatusOK, "get after the refused update")
	var got struct {
		Webhooks []object `json:"webhooks"`
	}
	r.decode(t, &got)
	if len(got.Webhooks) != 1 {
		t.Errorf("after the refused update: %d webhooks, want the 1 stored", len(got.Webhooks))
	}
}
