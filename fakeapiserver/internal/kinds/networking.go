package kinds

// networkingKinds: kubernetes pkg/registry/networking/*/strategy.go and
// discovery/endpointslice. Defaults: internal/defaults simple.go;
// printers: internal/tables printers_networking.go.
var networkingKinds = []kind{
	{gk("networking.k8s.io", "IngressClass"), Strategy{ClusterScoped: true}},
	{gk("networking.k8s.io", "ServiceCIDR"), Strategy{ResetFields: ResetFields{StatusResetsMetadata: true}}},
}
