package kinds

import (
	"github.com/lw-sim/lw-sim/fakeapiserver/internal/defaults"
	"github.com/lw-sim/lw-sim/fakeapiserver/internal/validation"
)

// rbacKinds: kubernetes pkg/registry/rbac/*/strategy.go. Defaults:
// internal/defaults simple.go (binding subjects' apiGroup); validation:
// internal/validation meta.go (path-segment names); printers:
// internal/tables printers_groups.go. The escalation checks of their
// storages are the server's (rbac_escalation.go): they need the writer's
// permissions.
var rbacKinds = []kind{
	{gk("rbac.authorization.k8s.io", "Role"), Strategy{
		Validate: validation.RBACObject,
	}},
	{gk("rbac.authorization.k8s.io", "ClusterRole"), Strategy{
		Validate:      validation.RBACObject,
		ClusterScoped: true,
	}},
	{gk("rbac.authorization.k8s.io", "RoleBinding"), Strategy{
		Default:  typed(defaults.RoleBinding),
		Validate: validation.RBACObject,
	}},
	{gk("rbac.authorization.k8s.io", "ClusterRoleBinding"), Strategy{
		Default:       typed(defaults.ClusterRoleBinding),
		Validate:      validation.RBACObject,
		ClusterScoped: true,
	}},
}
