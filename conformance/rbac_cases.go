package conformance

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// rbacCases are the cases of this file, in the order [Cases] runs them.
func rbacCases() []Case {
	return []Case{
		{Name: "RBACForbidden", Run: runRBACForbidden},
		{Name: "RBACRuleMatching", Run: runRBACRuleMatching},
		{Name: "RBACNonResource", Run: runRBACNonResource},
	}
}

// forbidden is the 403 of RBAC's denial.
func forbidden(msg string, details *metav1.StatusDetails) statusShape {
	return wantStatus(http.StatusForbidden, metav1.StatusReasonForbidden, msg, details)
}

// runRBACForbidden: a user RBAC grants nothing gets the 403 worded as
// responsewriters.ForbiddenStatusError words it for each kind of request
// (namespaced or cluster-wide, named or not, subresource, non-resource
// path); a binding to a Role or ClusterRole that does not exist adds the
// union authorizer's reason, "rbac: RBAC: " and the resolution error.
func runRBACForbidden(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	user := uniqueUser("alice")
	c := asUser(t, target, user)
	inNS := func(verb, resource, group string) string {
		return fmt.Sprintf(`User %q cannot %s resource %q in API group %q in the namespace %q`, user, verb, resource, group, e.ns)
	}
	cluster := func(verb, resource, group string) string {
		return fmt.Sprintf(`User %q cannot %s resource %q in API group %q at the cluster scope`, user, verb, resource, group)
	}
	for _, tc := range []struct {
		what    string
		req     request
		msg     string
		details *metav1.StatusDetails
	}{
		{"list pods", request{Path: nsPath(e.ns, "pods")}, "pods is forbidden: " + inNS("list", "pods", ""), &metav1.StatusDetails{Kind: "pods"}},
		{"get pod log", request{Path: nsPath(e.ns, "pods") + "/p/log"}, `pods "p" is forbidden: ` + inNS("get", "pods/log", ""), &metav1.StatusDetails{Kind: "pods", Name: "p"}},
		{"list nodes", request{Path: "/api/v1/nodes"}, "nodes is forbidden: " + cluster("list", "nodes", ""), &metav1.StatusDetails{Kind: "nodes"}},
		{"watch deployments everywhere", request{Path: "/apis/apps/v1/deployments", Query: q("watch", "1")},
			"deployments.apps is forbidden: " + cluster("watch", "deployments", "apps"), &metav1.StatusDetails{Group: "apps", Kind: "deployments"}},
		{"patch scale", request{Method: http.MethodPatch, Path: "/apis/apps/v1/namespaces/" + e.ns + "/deployments/d/scale", Body: object{}, ContentType: "application/merge-patch+json"},
			`deployments.apps "d" is forbidden: ` + inNS("patch", "deployments/scale", "apps"), &metav1.StatusDetails{Group: "apps", Kind: "deployments", Name: "d"}},
		{"delete collection", request{Method: http.MethodDelete, Path: e.cms()}, "configmaps is forbidden: " + inNS("deletecollection", "configmaps", ""), &metav1.StatusDetails{Kind: "configmaps"}},
		{"get a namespace", request{Path: "/api/v1/namespaces/" + e.ns}, fmt.Sprintf(`namespaces %q is forbidden: `, e.ns) + inNS("get", "namespaces", ""), &metav1.StatusDetails{Kind: "namespaces", Name: e.ns}},
		{"non-resource path", request{Path: "/metrics"}, fmt.Sprintf(`forbidden: User %q cannot get path "/metrics"`, user), &metav1.StatusDetails{}},
	} {
		checkStatus(t, tc.what, c.do(ctx, t, tc.req), forbidden(tc.msg, tc.details))
	}

	role := "ghost-" + randomSuffix()
	e.bindRole(ctx, "to-ghost", "Role", role, userSubject(user))
	listPods := func() response { return c.do(ctx, t, request{Path: nsPath(e.ns, "pods")}) }
	checkStatus(t, "list pods with a binding to a missing Role", until(ctx, mentions(role), listPods),
		forbidden("pods is forbidden: "+inNS("list", "pods", "")+fmt.Sprintf(`: rbac: RBAC: role.rbac.authorization.k8s.io %q not found`, role), &metav1.StatusDetails{Kind: "pods"}))

	// Two resolution errors come in the order the informer cache lists the
	// bindings, which varies on the real server: either order is its answer.
	clusterRole := "ghost-" + randomSuffix()
	e.bindRole(ctx, "to-ghost-cluster", "ClusterRole", clusterRole, userSubject(user))
	r := until(ctx, mentions(clusterRole), listPods)
	a := fmt.Sprintf(`role.rbac.authorization.k8s.io %q not found`, role)
	b := fmt.Sprintf(`clusterrole.rbac.authorization.k8s.io %q not found`, clusterRole)
	prefix := "pods is forbidden: " + inNS("list", "pods", "") + ": rbac: RBAC: "
	var st metav1.Status
	r.decode(t, &st)
	if st.Message != prefix+"["+a+", "+b+"]" && st.Message != prefix+"["+b+", "+a+"]" {
		t.Errorf("list pods with two missing roles: message %q, want %q with both errors in brackets", st.Message, prefix)
	}

	crb := "conformance-ghost-" + randomSuffix()
	e.createClusterObject(ctx, rbacAPI+"/clusterrolebindings", crb, binding("ClusterRoleBinding", crb, "ClusterRole", crb, []object{userSubject(user)}))
	checkStatus(t, "list nodes with a ClusterRoleBinding to a missing ClusterRole", until(ctx, mentions(crb), func() response { return c.do(ctx, t, request{Path: "/api/v1/nodes"}) }),
		forbidden("nodes is forbidden: "+cluster("list", "nodes", "")+fmt.Sprintf(`: rbac: RBAC: clusterrole.rbac.authorization.k8s.io %q not found`, crb), &metav1.StatusDetails{Kind: "nodes"}))
}

// runRBACRuleMatching: what a Role grants, rule by rule: verbs, resources
// with their subresources ("pods/log", "*/scale"), resourceNames (which
// also allow a list by metadata.name field selector, the name
// RequestInfo reads from it), and a group's "*" verbs. An allowed request
// reaches the handler (404 for a missing object), a denied one is 403.
func runRBACRuleMatching(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	user := uniqueUser("bob")
	e.createRole(ctx, "reader",
		rule(strs("get", "list"), strs(""), strs("pods")),
		rule(strs("get"), strs(""), strs("pods/log")),
		rule(strs("update", "patch"), strs("apps"), strs("*/scale")),
		object{"verbs": strs("get", "list"), "apiGroups": strs(""), "resources": strs("configmaps"), "resourceNames": strs("allowed")},
		rule(strs("*"), strs("batch"), strs("jobs")),
	)
	e.bindRole(ctx, "reader", "Role", "reader", userSubject(user))
	c := asUser(t, target, user)
	until(ctx, hasCode(http.StatusOK), func() response { return c.do(ctx, t, request{Path: nsPath(e.ns, "pods")}) })
	deny := func(verb, resource, group, name string) statusShape {
		msg := fmt.Sprintf(`User %q cannot %s resource %q in API group %q in the namespace %q`, user, verb, resource, group, e.ns)
		kind, _, _ := strings.Cut(resource, "/")
		qualified := kind
		if group != "" {
			qualified += "." + group
		}
		if name != "" {
			return forbidden(fmt.Sprintf("%s %q is forbidden: %s", qualified, name, msg), &metav1.StatusDetails{Group: group, Kind: kind, Name: name})
		}
		return forbidden(qualified+" is forbidden: "+msg, &metav1.StatusDetails{Group: group, Kind: kind})
	}
	patch := func(path string) request {
		return request{Method: http.MethodPatch, Path: path, Body: object{}, ContentType: "application/merge-patch+json"}
	}
	deployments := "/apis/apps/v1/namespaces/" + e.ns + "/deployments"
	for _, tc := range []struct {
		what string
		req  request
		code int
	}{
		{"list pods", request{Path: nsPath(e.ns, "pods")}, http.StatusOK},
		{"get a missing pod", request{Path: nsPath(e.ns, "pods") + "/p"}, http.StatusNotFound},
		{"patch deployment scale", patch(deployments + "/d/scale"), http.StatusNotFound},
		{"patch statefulset scale", patch("/apis/apps/v1/namespaces/" + e.ns + "/statefulsets/s/scale"), http.StatusNotFound},
		{"get the named configmap", request{Path: e.cms() + "/allowed"}, http.StatusNotFound},
		{"list by the allowed name", request{Path: e.cms(), Query: q("fieldSelector", "metadata.name=allowed")}, http.StatusOK},
		{"list jobs", request{Path: "/apis/batch/v1/namespaces/" + e.ns + "/jobs"}, http.StatusOK},
	} {
		if r := c.do(ctx, t, tc.req); r.Code != tc.code {
			t.Errorf("%s: HTTP %d, want %d (allowed); body %s", tc.what, r.Code, tc.code, r.Body)
		}
	}
	for _, tc := range []struct {
		what string
		req  request
		want statusShape
	}{
		{"watch pods", request{Path: nsPath(e.ns, "pods"), Query: q("watch", "1")}, deny("watch", "pods", "", "")},
		{"delete a pod", request{Method: http.MethodDelete, Path: nsPath(e.ns, "pods") + "/p"}, deny("delete", "pods", "", "p")},
		{"get pod status", request{Path: nsPath(e.ns, "pods") + "/p/status"}, deny("get", "pods/status", "", "p")},
		{"get deployment scale", request{Path: deployments + "/d/scale"}, deny("get", "deployments/scale", "apps", "d")},
		{"patch a deployment", patch(deployments + "/d"), deny("patch", "deployments", "apps", "d")},
		{"get another configmap", request{Path: e.cms() + "/other"}, deny("get", "configmaps", "", "other")},
		{"list configmaps", request{Path: e.cms()}, deny("list", "configmaps", "", "")},
		{"list by another name", request{Path: e.cms(), Query: q("fieldSelector", "metadata.name=other")}, deny("list", "configmaps", "", "other")},
	} {
		checkStatus(t, tc.what, c.do(ctx, t, tc.req), tc.want)
	}
}

// runRBACNonResource: a ClusterRole's nonResourceURLs, exact or with a "*"
// suffix, bound to a user by a ClusterRoleBinding; the bootstrap
// system:discovery and system:public-info-viewer roles give every
// authenticated user discovery and the health endpoints.
func runRBACNonResource(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	user := uniqueUser("carol")
	name := "conformance-nonres-" + randomSuffix()
	e.createClusterObject(ctx, rbacAPI+"/clusterroles", name, object{
		"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole", "metadata": object{"name": name},
		"rules": []object{{"verbs": strs("get"), "nonResourceURLs": strs("/healthz/*", "/metrics")}},
	})
	e.createClusterObject(ctx, rbacAPI+"/clusterrolebindings", name, binding("ClusterRoleBinding", name, "ClusterRole", name, []object{userSubject(user)}))
	c := asUser(t, target, user)
	until(ctx, hasCode(http.StatusOK), func() response { return c.do(ctx, t, request{Path: "/healthz/ping", Accept: "*/*"}) })
	for _, p := range []string{"/healthz/ping", "/healthz", "/livez", "/version", "/api", "/apis"} {
		if r := c.do(ctx, t, request{Path: p, Accept: "*/*"}); r.Code != http.StatusOK {
			t.Errorf("GET %s: HTTP %d, want 200; body %s", p, r.Code, r.Body)
		}
	}
	for _, tc := range []struct{ method, path string }{
		{http.MethodGet, "/readyz/ping"}, {http.MethodPost, "/healthz/ping"}, {http.MethodGet, "/logs"}, {http.MethodPut, "/version"},
	} {
		checkStatus(t, tc.method+" "+tc.path, c.do(ctx, t, request{Method: tc.method, Path: tc.path}),
			forbidden(fmt.Sprintf(`forbidden: User %q cannot %s path %q`, user, strings.ToLower(tc.method), tc.path), &metav1.StatusDetails{}))
	}
}
