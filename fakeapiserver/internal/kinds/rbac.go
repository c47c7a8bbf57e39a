package kinds

// rbacKinds: kubernetes pkg/registry/rbac/*/strategy.go. Defaults:
// internal/defaults simple.go (binding subjects' apiGroup); validation:
// internal/validation meta.go (path-segment names); printers:
// internal/tables printers_groups.go. The escalation checks of their
// storages are the server's (rbac_escalation.go): they need the writer's
// permissions.
var rbacKinds = []kind{
	{gk("rbac.authorization.k8s.io", "Role"), Strategy{}},
	{gk("rbac.authorization.k8s.io", "ClusterRole"), Strategy{ClusterScoped: true}},
	{gk("rbac.authorization.k8s.io", "RoleBinding"), Strategy{}},
	{gk("rbac.authorization.k8s.io", "ClusterRoleBinding"), Strategy{ClusterScoped: true}},
}
