package kinds

import (
	"github.com/lw-sim/lw-sim/fakeapiserver/internal/defaults"
	"github.com/lw-sim/lw-sim/fakeapiserver/internal/validation"
)

// serviceKinds: kubernetes pkg/registry/core/service/strategy.go and
// endpoint/strategy.go. Defaults: internal/defaults service.go, simple.go;
// validation: internal/validation core.go, service_status.go; printers:
// internal/tables printers_core.go. A Service's cluster IP and node ports
// are allocated by the server before validation and released after the
// write (service_prepare.go, service_alloc.go: what is in use is read from
// the stored Services).
var serviceKinds = []kind{
	{gk("", "Service"), Strategy{
		Default:        typed(defaults.Service),
		Validate:       validation.TypedCreate(validation.Service),
		ValidateStatus: validation.TypedPair(validation.ServiceStatus),
		ShortNames:     []string{"svc"},
	}},
	{gk("", "Endpoints"), Strategy{
		Default:    typed(defaults.Endpoints),
		ShortNames: []string{"ep"},
	}},
}
