package kinds

import "github.com/lw-sim/lw-sim/fakeapiserver/internal/defaults"

// schedulingKinds: kubernetes pkg/registry/scheduling/*/strategy.go.
// Defaults: internal/defaults simple.go (PriorityClass); printers:
// internal/tables printers_misc.go.
var schedulingKinds = []kind{
	{gk("scheduling.k8s.io", "PriorityClass"), Strategy{
		Default:       typed(defaults.PriorityClass),
		ClusterScoped: true, TracksGeneration: true, GenerationChanged: neverChanged, // 1 on create only
	}},
	{gk("scheduling.k8s.io", "PodGroup"), Strategy{ResetFields: ResetFields{StatusResetsMetadata: true}}},
	{gk("scheduling.k8s.io", "CompositePodGroup"), Strategy{ResetFields: ResetFields{StatusResetsMetadata: true}}},
}
