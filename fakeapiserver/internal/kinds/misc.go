package kinds

// miscKinds are single kinds of groups with nothing else to say:
// node.k8s.io RuntimeClass (cluster-scoped), policy PodDisruptionBudget
// (kubernetes pkg/registry/policy/poddisruptionbudget/strategy.go:
// generation 1 on create, bumped by a spec change), and the status
// strategies of internal.apiserver.k8s.io StorageVersion and
// storagemigration.k8s.io StorageVersionMigration, which reset all of
// metadata.
var miscKinds = []kind{
	{gk("policy", "PodDisruptionBudget"), Strategy{TracksGeneration: true}},
	{gk("node.k8s.io", "RuntimeClass"), Strategy{ClusterScoped: true}},
	{gk("internal.apiserver.k8s.io", "StorageVersion"), Strategy{ResetFields: ResetFields{StatusResetsMetadata: true}}},
	{gk("storagemigration.k8s.io", "StorageVersionMigration"), Strategy{ResetFields: ResetFields{StatusResetsMetadata: true}}},
}
