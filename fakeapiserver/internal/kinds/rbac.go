package kinds

import (
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/lw-sim/lw-sim/fakeapiserver/internal/defaults"
	"github.com/lw-sim/lw-sim/fakeapiserver/internal/validation"
)

// rbacKinds: kubernetes pkg/registry/rbac/*/strategy.go. Defaults:
// internal/defaults simple.go (binding subjects' apiGroup); validation:
// internal/validation meta.go (path-segment names); printers:
// internal/tables printers_groups.go. What each grants feeds the
// escalation checks of their storages (pkg/registry/rbac/*/policybased),
// which are the server's (rbac_escalation.go): they need the writer's
// permissions.
var rbacKinds = []kind{
	{gk("rbac.authorization.k8s.io", "Role"), Strategy{
		Validate: validation.RBACObject,
		Grants:   grants(func(r *rbacv1.Role, _ *rbacv1.Role) Grant { return Grant{Rules: r.Rules} }),
	}},
	{gk("rbac.authorization.k8s.io", "ClusterRole"), Strategy{
		Validate:      validation.RBACObject,
		ClusterScoped: true,
		Grants:        grants(clusterRoleGrant),
	}},
	{gk("rbac.authorization.k8s.io", "RoleBinding"), Strategy{
		Default:  typed(defaults.RoleBinding),
		Validate: validation.RBACObject,
		Grants:   grants(func(b *rbacv1.RoleBinding, _ *rbacv1.RoleBinding) Grant { return Grant{RoleRef: &b.RoleRef} }),
	}},
	{gk("rbac.authorization.k8s.io", "ClusterRoleBinding"), Strategy{
		Default:       typed(defaults.ClusterRoleBinding),
		Validate:      validation.RBACObject,
		ClusterScoped: true,
		Grants: grants(func(b *rbacv1.ClusterRoleBinding, _ *rbacv1.ClusterRoleBinding) Grant {
			return Grant{RoleRef: &b.RoleRef}
		}),
	}},
}

// clusterRoleGrant is a ClusterRole's rules; setting an aggregationRule,
// or changing a role that has one, needs full authority
// (clusterrole/policybased/storage.go).
func clusterRoleGrant(r, old *rbacv1.ClusterRole) Grant {
	return Grant{Rules: r.Rules, Aggregation: aggregates(r) || (old != nil && aggregates(old))}
}

// aggregates reports a ClusterRole that aggregates others.
func aggregates(r *rbacv1.ClusterRole) bool {
	return r.AggregationRule != nil && len(r.AggregationRule.ClusterRoleSelectors) > 0
}

// grants adapts a Grants hook over one Go type; old is nil on a create.
// An object of another type grants nothing.
func grants[T runtime.Object](f func(obj, old T) Grant) func(obj, old runtime.Object) Grant {
	return func(obj, old runtime.Object) Grant {
		o, ok := obj.(T)
		if !ok {
			return Grant{}
		}
		p, _ := old.(T) // the zero T (nil) when old is nil
		return f(o, p)
	}
}
