package fakeapiserver

import (
	"strconv"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// authzBenchBindings is how many bindings of other users the policy holds
// besides the bootstrap one: half ClusterRoleBindings, half RoleBindings
// in the namespace the requests name.
const authzBenchBindings = 100

// startAuthzBench starts a server in mode with the bootstrap policy and
// authzBenchBindings bindings of other users, plus the bench user's own
// RoleBinding, created last (so RBAC visits every other binding first),
// granting get on configmaps.
func startAuthzBench(b *testing.B, mode AuthorizationMode) *Server {
	b.Helper()
	srv := Start(b, WithTLS(), WithToken("bench"), WithAuthorization(mode))
	ctx := b.Context()
	rbac := srv.Clientset().RbacV1()
	rule := []rbacv1.PolicyRule{{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"configmaps"}}}
	if _, err := rbac.Roles("default").Create(ctx, &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "reader"}, Rules: rule}, metav1.CreateOptions{}); err != nil {
		b.Fatal(err)
	}
	ref := rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "view"}
	for i := range authzBenchBindings {
		name := "other-" + strconv.Itoa(i)
		subjects := []rbacv1.Subject{{Kind: "User", APIGroup: rbacv1.GroupName, Name: name}, {Kind: "Group", APIGroup: rbacv1.GroupName, Name: name}}
		var err error
		if i%2 == 0 {
			_, err = rbac.ClusterRoleBindings().Create(ctx, &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: name}, RoleRef: ref, Subjects: subjects}, metav1.CreateOptions{})
		} else {
			_, err = rbac.RoleBindings("default").Create(ctx, &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: name}, RoleRef: ref, Subjects: subjects}, metav1.CreateOptions{})
		}
		if err != nil {
			b.Fatal(err)
		}
	}
	own := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "zz-bench"}, RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "reader"},
		Subjects: []rbacv1.Subject{{Kind: "User", APIGroup: rbacv1.GroupName, Name: "bench-user"}}}
	if _, err := rbac.RoleBindings("default").Create(ctx, own, metav1.CreateOptions{}); err != nil {
		b.Fatal(err)
	}
	if _, err := srv.Clientset().CoreV1().ConfigMaps("default").Create(ctx, configMap("default", "cm", "v", nil), metav1.CreateOptions{}); err != nil {
		b.Fatal(err)
	}
	return srv
}

// BenchmarkAuthorizationGet measures a GET of one ConfigMap through
// client-go per iteration, by the admin (system:masters: allowed without
// reading the policy) and by a user the admin impersonates, whose only
// grant is the last of authzBenchBindings+1 bindings, in AlwaysAllow and
// RBAC mode: the difference is what RBAC costs a request.
func BenchmarkAuthorizationGet(b *testing.B) {
	for _, mode := range []AuthorizationMode{AuthorizationAlwaysAllow, AuthorizationRBAC} {
		for _, who := range []string{"admin", "user"} {
			b.Run(string(mode)+"/"+who, func(b *testing.B) {
				srv := startAuthzBench(b, mode)
				cfg := srv.RESTConfig()
				if who == "user" {
					cfg.Impersonate = rest.ImpersonationConfig{UserName: "bench-user"}
				}
				cms := kubernetes.NewForConfigOrDie(cfg).CoreV1().ConfigMaps("default")
				for b.Loop() {
					if _, err := cms.Get(b.Context(), "cm", metav1.GetOptions{}); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "requests/s")
			})
		}
	}
}

// BenchmarkRBACAuthorize measures the RBAC decision alone (no HTTP) for
// the bench user's GET, allowed by the last binding, and for a denied
// request, which visits every binding.
func BenchmarkRBACAuthorize(b *testing.B) {
	srv := startAuthzBench(b, AuthorizationRBAC)
	u := &user.DefaultInfo{Name: "bench-user", Groups: []string{user.AllAuthenticated}}
	for name, verb := range map[string]string{"allowed": "get", "denied": "delete"} {
		b.Run(name, func(b *testing.B) {
			attrs := authorizer.AttributesRecord{User: u, Verb: verb, Namespace: "default", Resource: "configmaps", Name: "cm", APIVersion: "v1", ResourceRequest: true}
			for b.Loop() {
				srv.authz.Authorize(b.Context(), attrs)
			}
		})
	}
}
