package kinds

// autoscalingKinds: kubernetes pkg/registry/autoscaling/
// horizontalpodautoscaler/strategy.go (generation with HPAGeneration, beta
// and on since 1.37). Defaults: internal/defaults autoscaling.go;
// validation: internal/validation hpa_status.go; printer: internal/tables
// printers_autoscaling.go.
var autoscalingKinds = []kind{
	{gk("autoscaling", "HorizontalPodAutoscaler"), Strategy{TracksGeneration: true}},
}
