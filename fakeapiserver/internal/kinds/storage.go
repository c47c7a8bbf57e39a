package kinds

import "github.com/lw-sim/lw-sim/fakeapiserver/internal/defaults"

// storageKinds: kubernetes pkg/registry/storage/*/strategy.go. Defaults:
// internal/defaults simple.go (StorageClass, CSIDriver); printers:
// internal/tables printers_storage.go.
var storageKinds = []kind{
	{gk("storage.k8s.io", "StorageClass"), Strategy{
		Default:       typed(defaults.StorageClass),
		ClusterScoped: true,
	}},
	{gk("storage.k8s.io", "CSIDriver"), Strategy{
		Default:       typed(defaults.CSIDriver),
		ClusterScoped: true,
	}},
	{gk("storage.k8s.io", "CSINode"), Strategy{ClusterScoped: true, ResetFields: ResetFields{StatusResetsMetadata: true}}},
	{gk("storage.k8s.io", "VolumeAttachment"), Strategy{ClusterScoped: true, ResetFields: ResetFields{StatusResetsMetadata: true}}},
}
