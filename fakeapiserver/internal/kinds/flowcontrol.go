package kinds

import "github.com/lw-sim/lw-sim/fakeapiserver/internal/defaults"

// flowcontrolKinds: kubernetes pkg/registry/flowcontrol/{flowschema,
// prioritylevelconfiguration}/strategy.go: generation, and status
// strategies that reset all of metadata. Defaults: internal/defaults
// flowcontrol.go; printers: internal/tables printers_misc.go. The
// bootstrap configuration and the Dangling conditions are the server's
// (apf_config.go, apf_status.go).
var flowcontrolKinds = []kind{
	{gk("flowcontrol.apiserver.k8s.io", "FlowSchema"), Strategy{
		Default:          typed(defaults.FlowSchema),
		TracksGeneration: true, ResetFields: ResetFields{StatusResetsMetadata: true},
	}},
	{gk("flowcontrol.apiserver.k8s.io", "PriorityLevelConfiguration"), Strategy{
		Default:          typed(defaults.PriorityLevelConfiguration),
		TracksGeneration: true, ResetFields: ResetFields{StatusResetsMetadata: true},
	}},
}
