package kinds

import "github.com/lw-sim/lw-sim/fakeapiserver/internal/defaults"

// networkingKinds: kubernetes pkg/registry/networking/*/strategy.go and
// discovery/endpointslice. Defaults: internal/defaults simple.go;
// printers: internal/tables printers_networking.go. Ingresses, network
// policies and ingress classes keep a generation: PrepareForCreate sets 1
// and PrepareForUpdate bumps it when the spec changes (ingress,
// networkpolicy and ingressclass strategy.go); an EndpointSlice's follows
// everything but its metadata, and its labels.
var networkingKinds = []kind{
	{gk("networking.k8s.io", "Ingress"), Strategy{TracksGeneration: true}},
	{gk("networking.k8s.io", "NetworkPolicy"), Strategy{
		Default:          typed(defaults.NetworkPolicy),
		TracksGeneration: true,
	}},
	{gk("networking.k8s.io", "IngressClass"), Strategy{
		Default:       typed(defaults.IngressClass),
		ClusterScoped: true, TracksGeneration: true,
	}},
	{gk("networking.k8s.io", "ServiceCIDR"), Strategy{ResetFields: ResetFields{StatusResetsMetadata: true}}},
	{gk("discovery.k8s.io", "EndpointSlice"), Strategy{
		Default:          typed(defaults.EndpointSlice),
		TracksGeneration: true, GenerationChanged: contentOrLabelsChanged,
	}},
}
