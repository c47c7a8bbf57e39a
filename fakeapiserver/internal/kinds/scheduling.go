package kinds

// schedulingKinds: kubernetes pkg/registry/scheduling/*/strategy.go.
// Defaults: internal/defaults simple.go (PriorityClass); printers:
// internal/tables printers_misc.go.
var schedulingKinds = []kind{
	{gk("scheduling.k8s.io", "PriorityClass"), Strategy{ClusterScoped: true}},
	{gk("scheduling.k8s.io", "PodGroup"), Strategy{ResetFields: ResetFields{StatusResetsMetadata: true}}},
	{gk("scheduling.k8s.io", "CompositePodGroup"), Strategy{ResetFields: ResetFields{StatusResetsMetadata: true}}},
}
