package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// rbacReviewsCases are the cases of this file, in the order [Cases] runs them.
func rbacReviewsCases() []Case {
	return []Case{
		{Name: "RBACAccessReviews", Run: runRBACAccessReviews},
		{Name: "RBACSelfSubjectRules", Run: runRBACSelfSubjectRules},
	}
}

// accessReview POSTs a review of kind with spec to path and returns its
// status.
func accessReview(ctx context.Context, t *testing.T, c *client, path, kind string, spec object) object {
	t.Helper()
	r := c.do(ctx, t, request{Method: http.MethodPost, Path: path, Body: reviewBody("authorization.k8s.io", kind, spec)})
	r.mustCode(t, http.StatusCreated, "create "+kind)
	var got object
	r.decode(t, &got)
	st, _ := got["status"].(map[string]any)
	return st
}

// awaitAllowed waits until the authorizer allows c's user verb on
// resource in ns (see until).
func awaitAllowed(ctx context.Context, t *testing.T, c *client, ns, verb, resource string) {
	t.Helper()
	awaitGroupAllowed(ctx, t, c, ns, verb, "", resource)
}

// awaitGroupAllowed is awaitAllowed for a resource of group; ns "" asks
// for every namespace.
func awaitGroupAllowed(ctx context.Context, t *testing.T, c *client, ns, verb, group, resource string) {
	t.Helper()
	until(ctx, mentions(`"allowed":true`), func() response {
		return c.do(ctx, t, request{Method: http.MethodPost, Path: "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews",
			Body: reviewBody("authorization.k8s.io", "SelfSubjectAccessReview", object{"resourceAttributes": object{"namespace": ns, "verb": verb, "group": group, "resource": resource}})})
	})
}

// runRBACAccessReviews: SelfSubjectAccessReview (kubectl auth can-i) and
// SubjectAccessReview answer from the authorizer: denied with no reason,
// allowed with RBAC's reason naming the binding, role and subject, a
// system:masters subject allowed by the privileged group authorizer with
// none; a label selector that does not parse is an evaluation error.
func runRBACAccessReviews(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	user := uniqueUser("dave")
	e.createRole(ctx, "pod-reader", rule(strs("get", "list"), strs(""), strs("pods")))
	e.bindRole(ctx, "readers", "Role", "pod-reader", userSubject(user))
	c := asUser(t, target, user)
	awaitAllowed(ctx, t, c, e.ns, "list", "pods")
	const ssar = "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews"
	const sar = "/apis/authorization.k8s.io/v1/subjectaccessreviews"
	allowedBy := fmt.Sprintf(`RBAC: allowed by RoleBinding "readers/%s" of Role "pod-reader" to User %q`, e.ns, user)
	podAttrs := func(verb string) object {
		return object{"resourceAttributes": object{"namespace": e.ns, "verb": verb, "resource": "pods"}}
	}
	for _, tc := range []struct {
		what       string
		c          *client
		path, kind string
		spec       object
		want       object
	}{
		{"can-i list pods", c, ssar, "SelfSubjectAccessReview", podAttrs("list"), object{"allowed": true, "reason": allowedBy}},
		{"can-i delete pods", c, ssar, "SelfSubjectAccessReview", podAttrs("delete"), object{"allowed": false}},
		{"can-i get /api", c, ssar, "SelfSubjectAccessReview", object{"nonResourceAttributes": object{"path": "/api", "verb": "get"}},
			object{"allowed": true, "reason": `RBAC: allowed by ClusterRoleBinding "system:discovery" of ClusterRole "system:discovery" to Group "system:authenticated"`}},
		{"can-i get /metrics", c, ssar, "SelfSubjectAccessReview", object{"nonResourceAttributes": object{"path": "/metrics", "verb": "get"}}, object{"allowed": false}},
		{"can-i with a bad label selector", c, ssar, "SelfSubjectAccessReview",
			object{"resourceAttributes": object{"namespace": e.ns, "verb": "list", "resource": "pods", "labelSelector": object{"rawSelector": "a in (b"}}},
			object{"allowed": true, "reason": allowedBy, "evaluationError": "spec.resourceAttributes.labelSelector ignored due to parse error"}},
		{"review of the user", e.c, sar, "SubjectAccessReview", object{"user": user, "resourceAttributes": object{"namespace": e.ns, "verb": "get", "resource": "pods"}},
			object{"allowed": true, "reason": allowedBy}},
		{"review of the user elsewhere", e.c, sar, "SubjectAccessReview", object{"user": user, "resourceAttributes": object{"namespace": "default", "verb": "get", "resource": "pods"}},
			object{"allowed": false}},
		{"review of a master", e.c, sar, "SubjectAccessReview", object{"user": "root", "groups": strs("system:masters"), "resourceAttributes": object{"verb": "delete", "resource": "nodes"}},
			object{"allowed": true}},
		{"review of a group", e.c, sar, "SubjectAccessReview", object{"groups": strs("system:unauthenticated"), "nonResourceAttributes": object{"path": "/version", "verb": "get"}},
			object{"allowed": true, "reason": `RBAC: allowed by ClusterRoleBinding "system:public-info-viewer" of ClusterRole "system:public-info-viewer" to Group "system:unauthenticated"`}},
	} {
		got := accessReview(ctx, t, tc.c, tc.path, tc.kind, tc.spec)
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s: status mismatch (-want +got):\n%s", tc.what, diff)
		}
	}
}

// runRBACSelfSubjectRules: kubectl auth can-i --list: the rules RBAC lists
// for a user in a namespace, those of the bootstrap roles every
// authenticated user is bound to and those of the user's own role, and in
// another namespace the bootstrap ones alone.
func runRBACSelfSubjectRules(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	user := uniqueUser("erin")
	e.createRole(ctx, "mixed",
		rule(strs("get", "watch"), strs("", "apps"), strs("pods", "deployments/scale")),
		object{"verbs": strs("update"), "apiGroups": strs(""), "resources": strs("configmaps"), "resourceNames": strs("one", "two")},
	)
	e.bindRole(ctx, "mixed", "Role", "mixed", userSubject(user))
	c := asUser(t, target, user)
	awaitAllowed(ctx, t, c, e.ns, "get", "pods")
	bootstrapResource := []any{
		object{"verbs": []any{"create"}, "apiGroups": []any{"authorization.k8s.io"}, "resources": []any{"selfsubjectaccessreviews", "selfsubjectrulesreviews"}},
		object{"verbs": []any{"create"}, "apiGroups": []any{"authentication.k8s.io"}, "resources": []any{"selfsubjectreviews"}},
	}
	bootstrapNonResource := []any{
		object{"verbs": []any{"get"}, "nonResourceURLs": []any{"/api", "/api/*", "/apis", "/apis/*", "/healthz", "/livez", "/openapi", "/openapi/*", "/readyz", "/version", "/version/"}},
		object{"verbs": []any{"get"}, "nonResourceURLs": []any{"/healthz", "/livez", "/readyz", "/version", "/version/"}},
	}
	own := []any{
		object{"verbs": []any{"get", "watch"}, "apiGroups": []any{"", "apps"}, "resources": []any{"pods", "deployments/scale"}},
		object{"verbs": []any{"update"}, "apiGroups": []any{""}, "resources": []any{"configmaps"}, "resourceNames": []any{"one", "two"}},
	}
	byJSON := cmpopts.SortSlices(func(a, b any) bool {
		ja, _ := json.Marshal(a)
		jb, _ := json.Marshal(b)
		return string(ja) < string(jb)
	})
	for _, tc := range []struct {
		ns        string
		resources []any
	}{
		{e.ns, append(append([]any{}, bootstrapResource...), own...)},
		{"default", bootstrapResource},
	} {
		r := c.do(ctx, t, request{Method: http.MethodPost, Path: "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews",
			Body: reviewBody("authorization.k8s.io", "SelfSubjectRulesReview", object{"namespace": tc.ns})})
		r.mustCode(t, http.StatusCreated, "create SelfSubjectRulesReview")
		var got object
		r.decode(t, &got)
		want := object{"resourceRules": tc.resources, "nonResourceRules": bootstrapNonResource, "incomplete": false}
		// RBAC lists the bindings in its informer cache's order, which
		// varies: compare the rules as sets.
		if diff := cmp.Diff(want, got["status"], byJSON); diff != "" {
			t.Errorf("SelfSubjectRulesReview in %s: status mismatch (-want +got):\n%s", tc.ns, diff)
		}
	}
}
