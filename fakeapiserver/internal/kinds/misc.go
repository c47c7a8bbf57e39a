package kinds

// miscKinds are single kinds of groups with nothing else to say:
// node.k8s.io RuntimeClass (cluster-scoped), and the status strategies of
// internal.apiserver.k8s.io StorageVersion and storagemigration.k8s.io
// StorageVersionMigration, which reset all of metadata.
var miscKinds = []kind{
	{gk("node.k8s.io", "RuntimeClass"), Strategy{ClusterScoped: true}},
	{gk("internal.apiserver.k8s.io", "StorageVersion"), Strategy{ResetFields: ResetFields{StatusResetsMetadata: true}}},
	{gk("storagemigration.k8s.io", "StorageVersionMigration"), Strategy{ResetFields: ResetFields{StatusResetsMetadata: true}}},
}
