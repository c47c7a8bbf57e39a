package conformance

// Cases for what the registry strategies of the admission configuration
// kinds check besides their validation (kubernetes
// pkg/registry/admissionregistration/*/authz.go and strategy.go): the
// author of a policy must be able to read its paramKind, the author of a
// binding the params its paramRef names; and a webhook configuration whose
// rules name a resource admission webhooks never see is stored with a
// warning.

import (
	"context"
	"fmt"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// admissionConfigAuthzCases are the cases of this file, in the order
// [Cases] runs them.
func admissionConfigAuthzCases() []Case {
	return []Case{
		{Name: "PolicyParamAuthorization", Run: runPolicyParamAuthorization},
		{Name: "WebhookConfigurationExcludedRuleWarnings", Run: runWebhookConfigurationExcludedRuleWarnings},
	}
}

// runPolicyParamAuthorization: a user who may write policies and bindings
// but not read ConfigMaps is refused (422, Forbidden on spec.paramKind) a
// policy whose paramKind is ConfigMap, and one whose paramKind no server
// serves; a binding whose paramRef names a ConfigMap (Forbidden on
// spec.paramRef: "get"), selects them ("list"), or binds a missing policy
// (the widened check's message), or binds a policy whose paramKind is not
// served (another). The mutating binding's message swaps the
// verb and the user, as upstream's does. An update that keeps the
// paramKind passes without the permission; once the user may get and list
// ConfigMaps everywhere, the same writes pass. An update to another
// paramKind is checked again.
func runPolicyParamAuthorization(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	user := uniqueUser("pat")
	role := "policy-writer-" + e.ns
	e.createClusterObject(ctx, rbacAPI+"/clusterroles", role, object{
		"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole", "metadata": object{"name": role},
		"rules": []object{rule(strs("create", "update", "patch", "get", "delete"), strs(admissionGroup),
			strs("validatingadmissionpolicies", "validatingadmissionpolicybindings", "mutatingadmissionpolicies", "mutatingadmissionpolicybindings"))},
	})
	e.createClusterObject(ctx, rbacAPI+"/clusterrolebindings", role, binding("ClusterRoleBinding", role, "ClusterRole", role, []object{userSubject(user)}))
	c := asUser(t, target, user)
	awaitGroupAllowed(ctx, t, c, "", "create", admissionGroup, "validatingadmissionpolicybindings")

	who := fmt.Sprintf("&{%s  [system:authenticated] map[]}", user)
	name := "vapauthz-" + e.ns
	policy := func(kind, apiVersion string) object {
		spec := object{
			"matchConstraints": configMapConstraints("CREATE"),
			"validations":      []object{{"expression": "true"}},
		}
		if kind != "" {
			spec["paramKind"] = object{"apiVersion": apiVersion, "kind": kind}
		}
		return policyObject("ValidatingAdmissionPolicy", name, spec)
	}
	const vap, vapb = "ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding"
	refused := func(what, path string, body object, kind, field, msg string) {
		t.Helper()
		r := c.do(ctx, t, request{Method: http.MethodPost, Path: path, Body: body})
		if r.Code == http.StatusCreated {
			t.Cleanup(func() {
				e.c.do(context.Background(), t, request{Method: http.MethodDelete, Path: path + "/" + nameOf(body)})
			})
		}
		checkStatus(t, what, r, invalid(kind, admissionGroup, nameOf(body), cause(causeForbidden, field, "Forbidden: "+msg)))
	}
	refused("policy with a ConfigMap paramKind", vapPath, policy("ConfigMap", "v1"), vap, "spec.paramKind",
		fmt.Sprintf(`user %s must have "get" permission on all objects of the referenced paramKind (kind=ConfigMap, apiVersion=v1)`, who))
	refused("policy with an unserved paramKind", vapPath, policy("Nope", "nope.example.com/v1"), vap, "spec.paramKind",
		fmt.Sprintf(`user %s must have "get" permission on all objects of the referenced paramKind (kind=Nope, apiVersion=nope.example.com/v1)`, who))

	// The admin's policy, which the user then updates and binds.
	e.createClusterObject(ctx, vapPath, name, policy("ConfigMap", "v1"))
	if r := c.do(ctx, t, request{Method: http.MethodPatch, Path: vapPath + "/" + name, ContentType: "application/merge-patch+json",
		Body: object{"metadata": object{"labels": object{"touched": "yes"}}}}); r.Code != http.StatusOK {
		t.Errorf("update that keeps the paramKind: HTTP %d, want 200; body %s", r.Code, r.Body)
	}
	r := c.do(ctx, t, request{Method: http.MethodPatch, Path: vapPath + "/" + name, ContentType: "application/merge-patch+json",
		Body: object{"spec": object{"paramKind": object{"apiVersion": "v1", "kind": "Secret"}}}})
	checkStatus(t, "update to a Secret paramKind", r, invalid(vap, admissionGroup, name, cause(causeForbidden, "spec.paramKind",
		fmt.Sprintf(`Forbidden: user %s must have "get" permission on all objects of the referenced paramKind (kind=Secret, apiVersion=v1)`, who))))
	bindingTo := func(policyName string, ref object) object {
		return policyObject(vapb, name, object{"policyName": policyName, "validationActions": strs("Deny"), "paramRef": ref})
	}
	named := object{"name": "params", "namespace": e.ns, "parameterNotFoundAction": "Deny"}
	selecting := object{"selector": object{"matchLabels": object{"a": "b"}}, "parameterNotFoundAction": "Deny"}
	refused("binding naming a ConfigMap", vapbPath, bindingTo(name, named), vapb, "spec.paramRef",
		fmt.Sprintf(`user %s does not have "get" permission on the object referenced by paramRef`, who))
	refused("binding selecting ConfigMaps", vapbPath, bindingTo(name, selecting), vapb, "spec.paramRef",
		fmt.Sprintf(`user %s does not have "list" permission on the object referenced by paramRef`, who))
	missing := "missing-" + e.ns
	refused("binding of a missing policy", vapbPath, bindingTo(missing, named), vapb, "spec.paramRef",
		fmt.Sprintf(`unable to get policy %s to determine minimum required permissions and user %s does not have "get" permission for all groups, versions and resources`, missing, who))
	unserved := "unserved-" + e.ns
	e.createClusterObject(ctx, vapPath, unserved, policyObject("ValidatingAdmissionPolicy", unserved, object{
		"paramKind":        object{"apiVersion": "nope.example.com/v1", "kind": "Nope"},
		"matchConstraints": configMapConstraints("CREATE"),
		"validations":      []object{{"expression": "true"}},
	}))
	refused("binding of a policy whose paramKind is not served", vapbPath, bindingTo(unserved, named), vapb, "spec.paramRef",
		fmt.Sprintf(`unable to resolve paramKind &{nope.example.com/v1 Nope} to determine minimum required permissions and user %s does not have "get" permission for all groups, versions and resources`, who))

	mname := "mapauthz-" + e.ns
	e.createClusterObject(ctx, mapPath, mname, policyObject("MutatingAdmissionPolicy", mname, object{
		"paramKind":          object{"apiVersion": "v1", "kind": "ConfigMap"},
		"matchConstraints":   configMapConstraints("CREATE"),
		"reinvocationPolicy": "Never",
		"mutations": []object{{"patchType": "JSONPatch",
			"jsonPatch": object{"expression": `[JSONPatch{op: "test", path: "/metadata/name", value: object.metadata.name}]`}}},
	}))
	refused("mutating binding naming a ConfigMap", mapbPath,
		policyObject("MutatingAdmissionPolicyBinding", mname, object{"policyName": mname, "paramRef": named}),
		"MutatingAdmissionPolicyBinding", "spec.paramRef",
		fmt.Sprintf(`user get does not have "%s" permission on the object referenced by paramRef`, who))

	// With the permission, the same writes pass.
	e.createClusterObject(ctx, rbacAPI+"/clusterroles", role+"-read", object{
		"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole", "metadata": object{"name": role + "-read"},
		"rules": []object{rule(strs("get", "list"), strs(""), strs("configmaps"))},
	})
	e.createClusterObject(ctx, rbacAPI+"/clusterrolebindings", role+"-read", binding("ClusterRoleBinding", role+"-read", "ClusterRole", role+"-read", []object{userSubject(user)}))
	awaitGroupAllowed(ctx, t, c, "", "list", "", "configmaps")
	for _, w := range []struct{ path, what string }{
		{vapbPath, "binding naming a ConfigMap"},
	} {
		r := c.do(ctx, t, request{Method: http.MethodPost, Path: w.path, Body: bindingTo(name, named)})
		if r.Code != http.StatusCreated {
			t.Errorf("%s with the permission: HTTP %d, want 201; body %s", w.what, r.Code, r.Body)
			continue
		}
		t.Cleanup(func() { e.c.do(context.Background(), t, request{Method: http.MethodDelete, Path: w.path + "/" + name}) })
	}
}

// runWebhookConfigurationExcludedRuleWarnings: a validating or mutating
// webhook configuration whose rules name the reviews (which no admission
// webhook sees) is stored with one warning per rule and review, in the
// rule's order and once each; a rule with a "*" group or resource, or
// naming none of them, gets none. An update warns again. No rule matches
// anything another case writes.
func runWebhookConfigurationExcludedRuleWarnings(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	hook := func(name string, rules ...object) object {
		return object{
			"name": name, "sideEffects": "None", "admissionReviewVersions": strs("v1"), "failurePolicy": "Ignore",
			"clientConfig": object{"url": "https://127.0.0.1:1/never"},
			"rules":        rules,
		}
	}
	ruleFor := func(groups, resources []string) object {
		return object{"operations": strs("CREATE"), "apiGroups": groups, "apiVersions": strs("v1"), "resources": resources}
	}
	webhooks := []object{
		hook("a.example.com",
			ruleFor(strs("authorization.k8s.io"), strs("subjectaccessreviews", "selfsubjectaccessreviews", "subjectaccessreviews")),
			ruleFor(strs("*"), strs("tokenreviews")),
			ruleFor(strs("example.com"), strs("widgets"))),
		hook("b.example.com",
			ruleFor(strs("authentication.k8s.io", "authorization.k8s.io"), strs("tokenreviews", "selfsubjectrulesreviews"))),
	}
	want := []string{
		`299 - "webhooks[0].rules[0]: subjectaccessreviews.authorization.k8s.io is excluded from admission webhooks; this rule will have no effect"`,
		`299 - "webhooks[0].rules[0]: selfsubjectaccessreviews.authorization.k8s.io is excluded from admission webhooks; this rule will have no effect"`,
		`299 - "webhooks[1].rules[0]: tokenreviews.authentication.k8s.io is excluded from admission webhooks; this rule will have no effect"`,
		`299 - "webhooks[1].rules[0]: selfsubjectrulesreviews.authorization.k8s.io is excluded from admission webhooks; this rule will have no effect"`,
	}
	for _, kind := range []string{"ValidatingWebhookConfiguration", "MutatingWebhookConfiguration"} {
		path := "/apis/" + admissionGroup + "/v1/" + map[string]string{
			"ValidatingWebhookConfiguration": "validatingwebhookconfigurations",
			"MutatingWebhookConfiguration":   "mutatingwebhookconfigurations",
		}[kind]
		name := "excluded-" + e.ns
		body := object{"apiVersion": admissionGroup + "/v1", "kind": kind, "metadata": object{"name": name}, "webhooks": webhooks}
		r := e.c.do(ctx, t, request{Method: http.MethodPost, Path: path, Body: body})
		if r.Code != http.StatusCreated {
			t.Fatalf("create %s: HTTP %d, want 201; body %s", kind, r.Code, r.Body)
		}
		t.Cleanup(func() { e.c.do(context.Background(), t, request{Method: http.MethodDelete, Path: path + "/" + name}) })
		if diff := cmp.Diff(want, r.Header.Values("Warning")); diff != "" {
			t.Errorf("create %s: warnings (-want +got):\n%s", kind, diff)
		}
		r = e.c.do(ctx, t, request{Method: http.MethodPatch, Path: path + "/" + name, ContentType: "application/merge-patch+json",
			Body: object{"metadata": object{"labels": object{"touched": "yes"}}}})
		if r.Code != http.StatusOK {
			t.Fatalf("patch %s: HTTP %d, want 200; body %s", kind, r.Code, r.Body)
		}
		if diff := cmp.Diff(want, r.Header.Values("Warning")); diff != "" {
			t.Errorf("patch %s: warnings (-want +got):\n%s", kind, diff)
		}
		clean := object{"apiVersion": admissionGroup + "/v1", "kind": kind, "metadata": object{"name": name + "-clean"},
			"webhooks": []object{hook("c.example.com", ruleFor(strs("example.com"), strs("*")), ruleFor(strs("*"), strs("subjectaccessreviews")))}}
		r = e.c.do(ctx, t, request{Method: http.MethodPost, Path: path, Body: clean})
		if r.Code != http.StatusCreated {
			t.Fatalf("create clean %s: HTTP %d, want 201; body %s", kind, r.Code, r.Body)
		}
		t.Cleanup(func() {
			e.c.do(context.Background(), t, request{Method: http.MethodDelete, Path: path + "/" + name + "-clean"})
		})
		if w := r.Header.Values("Warning"); len(w) != 0 {
			t.Errorf("create %s with wildcard rules: warnings %q, want none", kind, w)
		}
	}
}
