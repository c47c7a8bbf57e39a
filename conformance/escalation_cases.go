package conformance

import (
	"context"
	"fmt"
	"net/http"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// escalationCases are the cases of this file, in the order [Cases] runs them.
func escalationCases() []Case {
	return []Case{
		{Name: "RBACEscalation", Run: runRBACEscalation},
	}
}

// runRBACEscalation: the RBAC registry's escalation prevention for a user
// who may write roles and bindings but neither "escalate" nor "bind": a
// role with rules they do not hold is 403 listing what they lack
// (compacted, sorted), on create, dry run and update alike; a change to
// garbage-collection fields alone passes; a binding to a role they do not
// hold is 403, and to a missing ClusterRole the 404 of the request's own
// resource.
func runRBACEscalation(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	user := uniqueUser("grace")
	e.createRole(ctx, "writer",
		rule(strs("create", "update", "patch"), strs("rbac.authorization.k8s.io"), strs("roles", "rolebindings")),
		rule(strs("get"), strs(""), strs("pods")),
	)
	e.bindRole(ctx, "writer", "Role", "writer", userSubject(user))
	e.createRole(ctx, "big", rule(strs("list"), strs(""), strs("secrets")))
	c := asUser(t, target, user)
	awaitAllowed(ctx, t, c, e.ns, "get", "pods")
	roles := rbacAPI + "/namespaces/" + e.ns + "/roles"
	bindings := rbacAPI + "/namespaces/" + e.ns + "/rolebindings"
	roleBody := func(name string, rules ...object) object {
		return object{"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role", "metadata": object{"name": name}, "rules": rules}
	}
	lacking := func(resource, name, missing string) statusShape {
		return forbidden(fmt.Sprintf("%s.rbac.authorization.k8s.io %q is forbidden: user %q (groups=[\"system:authenticated\"]) is attempting to grant RBAC permissions not currently held:\n%s", resource, name, user, missing),
			&metav1.StatusDetails{Name: name, Group: "rbac.authorization.k8s.io", Kind: resource})
	}
	more := roleBody("more",
		rule(strs("get", "list"), strs(""), strs("pods", "secrets")),
		object{"verbs": strs("get"), "apiGroups": strs("apps"), "resources": strs("deployments"), "resourceNames": strs("a", "b")})
	wantMore := lacking("roles", "more", `{APIGroups:[""], Resources:["pods"], Verbs:["list"]}`+"\n"+
		`{APIGroups:[""], Resources:["secrets"], Verbs:["get" "list"]}`+"\n"+
		`{APIGroups:["apps"], Resources:["deployments"], ResourceNames:["a"], Verbs:["get"]}`+"\n"+
		`{APIGroups:["apps"], Resources:["deployments"], ResourceNames:["b"], Verbs:["get"]}`)
	checkStatus(t, "create a role with more", c.do(ctx, t, request{Method: http.MethodPost, Path: roles, Body: more}), wantMore)
	checkStatus(t, "dry-run create a role with more", c.do(ctx, t, request{Method: http.MethodPost, Path: roles, Query: q("dryRun", "All"), Body: more}), wantMore)
	if r := c.do(ctx, t, request{Method: http.MethodPost, Path: roles, Body: roleBody("less", rule(strs("get"), strs(""), strs("pods")))}); r.Code != http.StatusCreated {
		t.Fatalf("create a role with what the user holds: HTTP %d, want 201; body %s", r.Code, r.Body)
	}
	checkStatus(t, "patch the role to more", c.do(ctx, t, request{Method: http.MethodPatch, Path: roles + "/less", ContentType: "application/merge-patch+json",
		Body: object{"rules": []object{rule(strs("get", "delete"), strs(""), strs("pods"))}}}),
		lacking("roles", "less", `{APIGroups:[""], Resources:["pods"], Verbs:["delete"]}`))
	if r := c.do(ctx, t, request{Method: http.MethodPatch, Path: roles + "/big", ContentType: "application/merge-patch+json",
		Body: object{"metadata": object{"finalizers": strs("example.com/keep")}}}); r.Code != http.StatusOK {
		t.Errorf("patch only the finalizers of a role with more: HTTP %d, want 200; body %s", r.Code, r.Body)
	}
	checkStatus(t, "patch a label of a role with more", c.do(ctx, t, request{Method: http.MethodPatch, Path: roles + "/big", ContentType: "application/merge-patch+json",
		Body: object{"metadata": object{"labels": object{"a": "b"}}}}),
		lacking("roles", "big", `{APIGroups:[""], Resources:["secrets"], Verbs:["list"]}`))

	bind := func(name, kind, role string) request {
		return request{Method: http.MethodPost, Path: bindings, Body: binding("RoleBinding", name, kind, role, []object{userSubject("someone")})}
	}
	checkStatus(t, "bind cluster-admin", c.do(ctx, t, bind("admin", "ClusterRole", "cluster-admin")),
		lacking("rolebindings", "admin", `{APIGroups:["*"], Resources:["*"], Verbs:["*"]}`+"\n"+`{NonResourceURLs:["*"], Verbs:["*"]}`))
	checkStatus(t, "bind a role with more", c.do(ctx, t, bind("big", "Role", "big")),
		lacking("rolebindings", "big", `{APIGroups:[""], Resources:["secrets"], Verbs:["list"]}`))
	missing := "ghost-" + randomSuffix()
	checkStatus(t, "bind a missing ClusterRole", c.do(ctx, t, bind("ghost", "ClusterRole", missing)),
		wantStatus(http.StatusNotFound, metav1.StatusReasonNotFound, fmt.Sprintf(`rolebindings.rbac.authorization.k8s.io %q not found`, missing),
			&metav1.StatusDetails{Name: missing, Group: "rbac.authorization.k8s.io", Kind: "rolebindings"}))
	if r := c.do(ctx, t, bind("less", "Role", "less")); r.Code != http.StatusCreated {
		t.Errorf("bind a role the user holds: HTTP %d, want 201; body %s", r.Code, r.Body)
	}

	// A binding to a role that does not exist makes RBAC's resolution of
	// the user's own rules fail; the error says so.
	e.bindRole(ctx, "dangling", "Role", missing, userSubject(user))
	checkStatus(t, "create a role with more, with a dangling binding", c.do(ctx, t, request{Method: http.MethodPost, Path: roles, Body: roleBody("more", rule(strs("list"), strs(""), strs("secrets")))}),
		lacking("roles", "more", `{APIGroups:[""], Resources:["secrets"], Verbs:["list"]}`+fmt.Sprintf(`; resolution errors: [roles.rbac.authorization.k8s.io %q not found]`, missing)))
}
