package kinds

// storageKinds: kubernetes pkg/registry/storage/*/strategy.go. Defaults:
// internal/defaults simple.go (StorageClass, CSIDriver); printers:
// internal/tables printers_storage.go.
var storageKinds = []kind{
	{gk("storage.k8s.io", "StorageClass"), Strategy{ClusterScoped: true}},
	{gk("storage.k8s.io", "CSIDriver"), Strategy{ClusterScoped: true}},
	{gk("storage.k8s.io", "CSINode"), Strategy{ClusterScoped: true, ResetFields: ResetFields{StatusResetsMetadata: true}}},
	{gk("storage.k8s.io", "VolumeAttachment"), Strategy{ClusterScoped: true, ResetFields: ResetFields{StatusResetsMetadata: true}}},
}
