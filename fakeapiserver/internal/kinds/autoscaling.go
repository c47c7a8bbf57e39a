package kinds

import (
	"github.com/lw-sim/lw-sim/fakeapiserver/internal/defaults"
	"github.com/lw-sim/lw-sim/fakeapiserver/internal/validation"
)

// autoscalingKinds: kubernetes pkg/registry/autoscaling/
// horizontalpodautoscaler/strategy.go (generation with HPAGeneration, beta
// and on since 1.37). Defaults: internal/defaults autoscaling.go;
// validation: internal/validation hpa_status.go; printer: internal/tables
// printers_autoscaling.go.
var autoscalingKinds = []kind{
	{gk("autoscaling", "HorizontalPodAutoscaler"), Strategy{
		Default:          defaults.HorizontalPodAutoscaler,
		ValidateStatus:   validation.HPAStatus,
		TracksGeneration: true,
	}},
}
