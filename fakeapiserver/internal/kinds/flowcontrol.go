package kinds

// flowcontrolKinds: kubernetes pkg/registry/flowcontrol/{flowschema,
// prioritylevelconfiguration}/strategy.go: generation, and status
// strategies that reset all of metadata. Defaults: internal/defaults
// flowcontrol.go; printers: internal/tables printers_misc.go. The
// bootstrap configuration and the Dangling conditions are the server's
// (apf_config.go, apf_status.go).
var flowcontrolKinds = []kind{
	{gk("flowcontrol.apiserver.k8s.io", "FlowSchema"), Strategy{TracksGeneration: true, ResetFields: ResetFields{StatusResetsMetadata: true}}},
	{gk("flowcontrol.apiserver.k8s.io", "PriorityLevelConfiguration"), Strategy{TracksGeneration: true, ResetFields: ResetFields{StatusResetsMetadata: true}}},
}
