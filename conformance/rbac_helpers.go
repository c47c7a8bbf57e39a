package conformance

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/rest"
)

// Helpers of the authentication and authorization cases: clients acting
// as other users (impersonated by the admin, or with their own
// credentials) and RBAC objects made by the admin.

const rbacAPI = "/apis/rbac.authorization.k8s.io/v1"

// clientWith is a client for target with its admin config edited by edit.
func clientWith(t testing.TB, target Target, edit func(*rest.Config)) *client {
	t.Helper()
	cfg := target.RESTConfig()
	cfg.ContentType = "application/json"
	edit(cfg)
	hc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		t.Fatalf("HTTPClientFor(%s): %v", target.Name(), err)
	}
	return &client{target: target, base: baseURL(cfg), http: hc}
}

// asUser is a client the admin impersonates user (in groups) through:
// the server sees that user, in system:authenticated.
func asUser(t testing.TB, target Target, user string, groups ...string) *client {
	t.Helper()
	return clientWith(t, target, func(c *rest.Config) {
		c.Impersonate = rest.ImpersonationConfig{UserName: user, Groups: groups}
	})
}

// withCredentials is a client with no admin credentials (TLS trust kept),
// authenticating with edit's.
func withCredentials(t testing.TB, target Target, edit func(*rest.Config)) *client {
	t.Helper()
	return clientWith(t, target, func(c *rest.Config) {
		*c = *rest.AnonymousClientConfig(c)
		c.ContentType = "application/json"
		edit(c)
	})
}

// uniqueUser is a user name no other case uses (letters only: see maskRVs).
func uniqueUser(base string) string { return base + "-" + randomSuffix() }

// rule is a PolicyRule in JSON.
func rule(verbs, groups, resources []string) object {
	return object{"verbs": verbs, "apiGroups": groups, "resources": resources}
}

// strs is a string list.
func strs(s ...string) []string { return s }

// userSubject, groupSubject and saSubject are binding subjects.
func userSubject(name string) object {
	return object{"kind": "User", "apiGroup": "rbac.authorization.k8s.io", "name": name}
}

func groupSubject(name string) object {
	return object{"kind": "Group", "apiGroup": "rbac.authorization.k8s.io", "name": name}
}

func saSubject(ns, name string) object {
	return object{"kind": "ServiceAccount", "namespace": ns, "name": name}
}

// createRole creates a Role in the case's namespace.
func (e *env) createRole(ctx context.Context, name string, rules ...object) {
	e.t.Helper()
	e.mustCreate(ctx, rbacAPI+"/namespaces/"+e.ns+"/roles", object{
		"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role", "metadata": object{"name": name}, "rules": rules,
	})
}

// bindRole creates a RoleBinding in the case's namespace of the Role or
// ClusterRole (kind) named role to subjects.
func (e *env) bindRole(ctx context.Context, name, kind, role string, subjects ...object) {
	e.t.Helper()
	e.mustCreate(ctx, rbacAPI+"/namespaces/"+e.ns+"/rolebindings", binding("RoleBinding", name, kind, role, subjects))
}

// binding is a RoleBinding or ClusterRoleBinding body.
func binding(kind, name, roleKind, role string, subjects []object) object {
	return object{
		"apiVersion": "rbac.authorization.k8s.io/v1", "kind": kind, "metadata": object{"name": name},
		"roleRef":  object{"apiGroup": "rbac.authorization.k8s.io", "kind": roleKind, "name": role},
		"subjects": subjects,
	}
}

// createClusterObject creates a cluster-scoped object (a ClusterRole or
// ClusterRoleBinding) under collection and deletes it when the test ends.
func (e *env) createClusterObject(ctx context.Context, collection, name string, body object) {
	e.t.Helper()
	e.mustCreate(ctx, collection, body)
	target := e.c.target
	e.t.Cleanup(func() {
		c := clientWith(e.t, target, func(*rest.Config) {})
		c.do(context.Background(), e.t, request{Method: http.MethodDelete, Path: collection + "/" + name})
	})
}

// mustCreate POSTs body to path and fails the test unless it is created.
func (e *env) mustCreate(ctx context.Context, path string, body object) object {
	e.t.Helper()
	r := e.c.do(ctx, e.t, request{Method: http.MethodPost, Path: path, Body: body})
	r.mustCode(e.t, http.StatusCreated, "create "+path)
	var o object
	r.decode(e.t, &o)
	return o
}

// until repeats do until ok accepts its answer or the case's context ends,
// and returns the last answer. The real server's authorizer and token
// authenticator read the policy and the bound objects from informer
// caches, which learn of a write a moment after it is made: a case waits
// for a binding to take effect before it relies on it.
func until(ctx context.Context, ok func(response) bool, do func() response) response {
	for {
		r := do()
		if ok(r) {
			return r
		}
		select {
		case <-ctx.Done():
			return r
		case <-time.After(rbacPollInterval):
		}
	}
}

// rbacPollInterval is how often until asks again.
const rbacPollInterval = 50 * time.Millisecond

// hasCode accepts an answer with code.
func hasCode(code int) func(response) bool {
	return func(r response) bool { return r.Code == code }
}

// mentions accepts an answer whose body contains every one of parts.
func mentions(parts ...string) func(response) bool {
	return func(r response) bool {
		for _, p := range parts {
			if !strings.Contains(string(r.Body), p) {
				return false
			}
		}
		return true
	}
}
