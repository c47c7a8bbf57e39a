package fakeapiserver

import (
	"sync"

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
// lag). The bindings, which every decision walks, are listed once per
// write to them (memo), as an informer's cache holds them; roles are
// looked up by key.
type storeRBAC struct {
	st                                          *store.Store
	clusterRoles, clusterBindings, roles, binds string // storage keys

	clusterBindingsMemo memo[[]*rbacv1.ClusterRoleBinding]
	bindsMemo           memo[map[string][]*rbacv1.RoleBinding] // by namespace
}

var _ rbacSource = (*storeRBAC)(nil)

func (s *storeRBAC) clusterRoleBindings() []*rbacv1.ClusterRoleBinding {
	return s.clusterBindingsMemo.get(s.st, s.clusterBindings, func() []*rbacv1.ClusterRoleBinding {
		return listTyped[*rbacv1.ClusterRoleBinding](s.st, s.clusterBindings, "")
	})
}

func (s *storeRBAC) roleBindings(namespace string) []*rbacv1.RoleBinding {
	return s.bindsMemo.get(s.st, s.binds, func() map[string][]*rbacv1.RoleBinding {
		byNS := map[string][]*rbacv1.RoleBinding{}
		for _, b := range listTyped[*rbacv1.RoleBinding](s.st, s.binds, "") {
			byNS[b.Namespace] = append(byNS[b.Namespace], b)
		}
		return byNS
	})[namespace]
}

// memo holds a value computed from one resource of the store until the
// store's next write to that resource. Values are shared and never
// modified.
type memo[T any] struct {
	// mu guards the fields below.
	mu sync.Mutex
	// stale is closed at the next write to the resource after value was
	// computed; nil before the first computation.
	stale <-chan struct{}
	value T
}

// get returns the memoised value, computing it with compute when a write
// to resource came since (or never before). The channel is taken before
// the value is computed, so a write in between only makes the next call
// compute again.
func (m *memo[T]) get(st *store.Store, resource string, compute func() T) T {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.stale != nil {
		select {
		case <-m.stale:
		default:
			return m.value
		}
	}
	// Changes after the current RV lists nothing; its channel is what
	// counts.
	_, stale, err := st.Changes(resource, st.CurrentRV())
	if err != nil {
		m.stale = nil
		return compute()
	}
	m.stale, m.value = stale, compute()
	return m.value
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
