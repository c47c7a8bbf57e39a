package conformance

import (
	"context"
	"fmt"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
)

// impersonationCases are the cases of this file, in the order [Cases] runs them.
func impersonationCases() []Case {
	return []Case{
		{Name: "Impersonation", Run: runImpersonation},
	}
}

// runImpersonation: Impersonate-User, -Group, -Uid and -Extra-* as
// kube-apiserver's constrained impersonation filter answers them, for a
// service account acting through its token: without rights the first
// mode's denial (impersonate-on:<mode>:<verb> on the request); a group
// without a user, 400; with legacy "impersonate" rights on users, groups,
// uids and userextras, the request is made as the impersonated user (in
// system:authenticated), who is then authorized as themselves.
func runImpersonation(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	sa := "imp-" + randomSuffix()
	e.createServiceAccount(ctx, sa)
	token := tokenOf(e.requestToken(ctx, sa, object{}))
	requestor := fmt.Sprintf("system:serviceaccount:%s:%s", e.ns, sa)
	as := func(imp rest.ImpersonationConfig) *client {
		return withCredentials(t, target, func(c *rest.Config) { c.BearerToken, c.Impersonate = token, imp })
	}
	checkStatus(t, "impersonate a user without rights", as(rest.ImpersonationConfig{UserName: "frank"}).do(ctx, t, request{Path: nsPath(e.ns, "pods")}),
		forbidden(fmt.Sprintf(`pods is forbidden: User %q cannot impersonate-on:user-info:list resource "pods" in API group "" in the namespace %q`, requestor, e.ns), &metav1.StatusDetails{Kind: "pods"}))
	checkStatus(t, "impersonate a node without rights", as(rest.ImpersonationConfig{UserName: "system:node:n"}).do(ctx, t, request{Path: "/api/v1/nodes/n"}),
		forbidden(fmt.Sprintf(`nodes "n" is forbidden: User %q cannot impersonate-on:arbitrary-node:get resource "nodes" in API group "" at the cluster scope`, requestor), &metav1.StatusDetails{Kind: "nodes", Name: "n"}))
	checkStatus(t, "impersonate a group alone", withToken(t, target, token).doWithHeader(ctx, t, request{Path: "/version"}, "Impersonate-Group", "g"),
		badRequest(`requested &user.DefaultInfo{Name:"", UID:"", Groups:[]string{"g"}, Extra:map[string][]string(nil)} without impersonating a user name`))

	role := "conformance-impersonator-" + randomSuffix()
	e.createClusterObject(ctx, rbacAPI+"/clusterroles", role, object{
		"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole", "metadata": object{"name": role},
		"rules": []object{
			{"verbs": strs("impersonate"), "apiGroups": strs(""), "resources": strs("users", "groups")},
			{"verbs": strs("impersonate"), "apiGroups": strs("authentication.k8s.io"), "resources": strs("uids", "userextras/scopes")},
		},
	})
	e.createClusterObject(ctx, rbacAPI+"/clusterrolebindings", role, binding("ClusterRoleBinding", role, "ClusterRole", role, []object{saSubject(e.ns, sa)}))
	frank := as(rest.ImpersonationConfig{UserName: "frank", UID: "frank-uid", Groups: strs("team"), Extra: map[string][]string{"scopes": strs("a", "b")}})
	var u object
	until(ctx, hasCode(http.StatusCreated), func() response { r, got := whoami(ctx, t, frank); u = got; return r })
	want := object{"username": "frank", "uid": "frank-uid", "groups": []any{"team", "system:authenticated"}, "extra": object{"scopes": []any{"a", "b"}}}
	if diff := cmp.Diff(want, u); diff != "" {
		t.Errorf("whoami as frank mismatch (-want +got):\n%s", diff)
	}
	checkStatus(t, "list pods as frank", frank.do(ctx, t, request{Path: nsPath(e.ns, "pods")}),
		forbidden(fmt.Sprintf(`pods is forbidden: User "frank" cannot list resource "pods" in API group "" in the namespace %q`, e.ns), &metav1.StatusDetails{Kind: "pods"}))
	// system:anonymous is impersonated in system:unauthenticated, which
	// the bootstrap policy lets create no SelfSubjectReview.
	r, _ := whoami(ctx, t, as(rest.ImpersonationConfig{UserName: "system:anonymous"}))
	checkStatus(t, "whoami as system:anonymous", r, forbidden(
		`selfsubjectreviews.authentication.k8s.io is forbidden: User "system:anonymous" cannot create resource "selfsubjectreviews" in API group "authentication.k8s.io" at the cluster scope`,
		&metav1.StatusDetails{Group: "authentication.k8s.io", Kind: "selfsubjectreviews"}))
	// Legacy mode worked last for this requestor, so it is tried first:
	// its denial, impersonate on serviceaccounts, is the one reported.
	checkStatus(t, "impersonate a service account", as(rest.ImpersonationConfig{UserName: "system:serviceaccount:" + e.ns + ":other"}).do(ctx, t, request{Path: "/version"}),
		forbidden(fmt.Sprintf(`serviceaccounts "other" is forbidden: User %q cannot impersonate resource "serviceaccounts" in API group "" in the namespace %q`, requestor, e.ns),
			&metav1.StatusDetails{Kind: "serviceaccounts", Name: "other"}))
	checkStatus(t, "impersonate another extra", as(rest.ImpersonationConfig{UserName: "frank", Extra: map[string][]string{"other": strs("x")}}).do(ctx, t, request{Path: "/version"}),
		forbidden(fmt.Sprintf(`userextras.authentication.k8s.io "x" is forbidden: User %q cannot impersonate resource "userextras/other" in API group "authentication.k8s.io" at the cluster scope`, requestor),
			&metav1.StatusDetails{Group: "authentication.k8s.io", Kind: "userextras", Name: "x"}))
	if r := as(rest.ImpersonationConfig{UserName: "frank"}).do(ctx, t, request{Path: "/version"}); r.Code != http.StatusOK {
		t.Errorf("GET /version as frank: HTTP %d, want 200; body %s", r.Code, r.Body)
	}
}
