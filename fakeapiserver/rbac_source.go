package fakeapiserver

import (
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/lw-sim/lw-sim/fakeapiserver/store"
)

// rbacSource is where the RBAC authorizer reads the policy: the
// resolver's getters and listers of kubernetes
// pkg/registry/rbac/validation/rule.go (RoleGetter, RoleBindingLister,
// ClusterRoleGetter, ClusterRoleBindingLister). Bindings come in key
// order (namespace, then name); the real server's informer cache yields
// them in map order, which only changes the order of resolution errors in
// a denial's reason.
type rbacSource interface {
	clusterRoleBindings() []*rbacv1.ClusterRoleBinding
	roleBindings(namespace string) []*rbacv1.RoleBinding
	// clusterRole and role fail with the lister's NotFound, which names
	// the singular resource (`clusterrole.rbac.authorization.k8s.io "x"
	// not found`), as the authorizer's reason quotes it.
	clusterRole(name string) (*rbacv1.ClusterRole, error)
	role(namespace, name string) (*rbacv1.Role, error)
}

// listerNotFound is a client-go lister's NotFound: the singular resource
// name (listers/rbac/v1, rbacv1.Resource("role")).
func listerNotFound(resource, name string) error {
	return apierrors.NewNotFound(schema.GroupResource{Group: rbacv1.GroupName, Resource: resource}, name)
}

// storeRBAC reads the policy from the server's store, at the latest
// resourceVersion: what a write has stored, the next request sees (the
// real server's informers lag by a watch event; no test can rely on that
// lag).
type storeRBAC struct {
	st                                          *store.Store
	clusterRoles, clusterBindings, roles, binds string // storage keys
}

var _ rbacSource = (*storeRBAC)(nil)

func (s *storeRBAC) clusterRoleBindings() []*rbacv1.ClusterRoleBinding {
	return listTyped[*rbacv1.ClusterRoleBinding](s.st, s.clusterBindings, "")
}

func (s *storeRBAC) roleBindings(namespace string) []*rbacv1.RoleBinding {
	return listTyped[*rbacv1.RoleBinding](s.st, s.binds, namespace+"/")
}

func (s *storeRBAC) clusterRole(name string) (*rbacv1.ClusterRole, error) {
	if o, err := s.st.Get(s.clusterRoles, name, 0); err == nil {
		if r, ok := o.(*rbacv1.ClusterRole); ok {
			return r, nil
		}
	}
	return nil, listerNotFound("clusterrole", name)
}

func (s *storeRBAC) role(namespace, name string) (*rbacv1.Role, error) {
	if o, err := s.st.Get(s.roles, namespace+"/"+name, 0); err == nil {
		if r, ok := o.(*rbacv1.Role); ok {
			return r, nil
		}
	}
	return nil, listerNotFound("role", name)
}

// listTyped lists the objects of type T under prefix; a read error (none
// at the latest resourceVersion) lists nothing.
func listTyped[T any](st *store.Store, resource, prefix string) []T {
	res, err := st.List(resource, store.ListOptions{Prefix: prefix})
	if err != nil {
		return nil
	}
	out := make([]T, 0, len(res.Items))
	for _, o := range res.Items {
		if t, ok := o.(T); ok {
			out = append(out, t)
		}
	}
	return out
}

// staticRBAC is the captured bootstrap policy itself, for a server that
// does not serve rbac.authorization.k8s.io/v1 and so stores none: its
// anonymous callers still get exactly what the bootstrap policy gives them.
type staticRBAC struct{ p *bootstrapPolicy }

var _ rbacSource = staticRBAC{}

func (s staticRBAC) clusterRoleBindings() []*rbacv1.ClusterRoleBinding {
	return s.p.ClusterRoleBindings
}

func (s staticRBAC) roleBindings(namespace string) []*rbacv1.RoleBinding {
	var out []*rbacv1.RoleBinding
	for _, b := range s.p.RoleBindings {
		if b.Namespace == namespace {
			out = append(out, b)
		}
	}
	return out
}

func (s staticRBAC) clusterRole(name string) (*rbacv1.ClusterRole, error) {
	for _, r := range s.p.ClusterRoles {
		if r.Name == name {
			return r, nil
		}
	}
	return nil, listerNotFound("clusterrole", name)
}

func (s staticRBAC) role(namespace, name string) (*rbacv1.Role, error) {
	for _, r := range s.p.Roles {
		if r.Namespace == namespace && r.Name == name {
			return r, nil
		}
	}
	return nil, listerNotFound("role", name)
}
