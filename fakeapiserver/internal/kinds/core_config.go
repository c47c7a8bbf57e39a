package kinds

import (
	"github.com/lw-sim/lw-sim/fakeapiserver/internal/defaults"
	"github.com/lw-sim/lw-sim/fakeapiserver/internal/validation"
)

// configKinds are the core kinds whose strategies add little to the
// generic store: kubernetes pkg/registry/core/{configmap,secret,
// serviceaccount,limitrange,resourcequota,componentstatus,event}.
// Defaults: internal/defaults simple.go (Secret type, LimitRange);
// validation: internal/validation core.go (ConfigMap, Secret), event.go; printers:
// internal/tables printers_core.go, printers_core_more.go; field labels:
// internal/fieldlabels (Secret type, Event fields). A ServiceAccount's
// token subresource is the server's (tokenrequest.go).
var configKinds = []kind{
	{gk("", "ConfigMap"), Strategy{
		Validate:   validation.TypedCreate(validation.ConfigMap),
		ShortNames: []string{"cm"},
	}},
	{gk("", "Secret"), Strategy{
		Default:  typed(defaults.Secret),
		Validate: validation.TypedCreate(validation.Secret),
	}},
	{gk("", "ServiceAccount"), Strategy{ShortNames: []string{"sa"}, Subresources: []string{"token"}}},
	{gk("", "LimitRange"), Strategy{
		Default:    typed(defaults.LimitRange),
		ShortNames: []string{"limits"},
	}},
	{gk("", "ResourceQuota"), Strategy{ShortNames: []string{"quota"}}},
	{gk("", "ComponentStatus"), Strategy{ClusterScoped: true, ShortNames: []string{"cs"}}},
	// Events take no propagation finalizer (the event strategy's
	// DefaultGarbageCollectionPolicy is Unsupported); events.k8s.io Events
	// are the same storage.
	// Their validation depends on the API written (internal/validation
	// event.go).
	{gk("", "Event"), Strategy{ShortNames: []string{"ev"}, GCPolicy: GCUnsupported, Validate: validation.CoreEvent}},
	{gk("events.k8s.io", "Event"), Strategy{GCPolicy: GCUnsupported, Validate: validation.EventsEvent}},
}
