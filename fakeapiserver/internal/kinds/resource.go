package kinds

import "github.com/lw-sim/lw-sim/fakeapiserver/internal/defaults"

// resourceKinds: kubernetes pkg/registry/resource/*/strategy.go (dynamic
// resource allocation). Defaults: internal/defaults resource.go; field
// labels: internal/fieldlabels (ResourceSlice).
var resourceKinds = []kind{
	// deviceclass/strategy.go and resourceslice/strategy.go: generation 1
	// on create, bumped by a spec change.
	{gk("resource.k8s.io", "DeviceClass"), Strategy{TracksGeneration: true}},
	{gk("resource.k8s.io", "ResourceSlice"), Strategy{TracksGeneration: true}},
	{gk("resource.k8s.io", "ResourceClaim"), Strategy{
		Default:     typed(defaults.ResourceClaim),
		ResetFields: ResetFields{StatusResetsMetadata: true},
	}},
	{gk("resource.k8s.io", "DeviceTaintRule"), Strategy{ResetFields: ResetFields{StatusResetsMetadata: true}}},
	{gk("resource.k8s.io", "ResourcePoolStatusRequest"), Strategy{ResetFields: ResetFields{StatusResetsMetadata: true}}},
	{gk("resource.k8s.io", "ResourceClaimTemplate"), Strategy{Default: typed(defaults.ResourceClaimTemplate)}},
}
