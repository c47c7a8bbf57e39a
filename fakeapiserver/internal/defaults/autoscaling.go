package defaults

import (
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"
)

// The HorizontalPodAutoscaler defaults (kubernetes pkg/apis/autoscaling/
// v1 and v2 defaults.go, and the v1 conversion's implicit CPU target).

// defaultCPUUtilization is the CPU target of an HPA with no metrics
// (autoscaling.DefaultCPUUtilization).
const defaultCPUUtilization = 80

// metricsAnnotation is where autoscaling/v1 keeps the metrics it cannot
// express; an HPA carrying it is not given the default CPU target here.
const metricsAnnotation = "autoscaling.alpha.kubernetes.io/metrics"

// hpaV1 is v1 SetDefaults_HorizontalPodAutoscaler (one minimum replica)
// and the CPU target the v1 conversion adds when there is no metric
// (Convert_v1_HorizontalPodAutoscaler_To_autoscaling_HorizontalPodAutoscaler).
func hpaV1(h *autoscalingv1.HorizontalPodAutoscaler) {
	if h.Spec.MinReplicas == nil {
		h.Spec.MinReplicas = ptr.To[int32](1)
	}
	if _, ok := h.Annotations[metricsAnnotation]; !ok && h.Spec.TargetCPUUtilizationPercentage == nil {
		h.Spec.TargetCPUUtilizationPercentage = ptr.To[int32](defaultCPUUtilization)
	}
}

// hpaV2 is v2 SetDefaults_HorizontalPodAutoscaler: one minimum replica, an
// 80% CPU target without metrics, and a behavior's missing rules filled
// from the default scale-up and scale-down rules.
func hpaV2(h *autoscalingv2.HorizontalPodAutoscaler) {
	if h.Spec.MinReplicas == nil {
		h.Spec.MinReplicas = ptr.To[int32](1)
	}
	if len(h.Spec.Metrics) == 0 {
		h.Spec.Metrics = []autoscalingv2.MetricSpec{{
			Type: autoscalingv2.ResourceMetricSourceType,
			Resource: &autoscalingv2.ResourceMetricSource{Name: corev1.ResourceCPU, Target: autoscalingv2.MetricTarget{
				Type: autoscalingv2.UtilizationMetricType, AverageUtilization: ptr.To[int32](defaultCPUUtilization),
			}},
		}}
	}
	if b := h.Spec.Behavior; b != nil {
		b.ScaleUp = copyScalingRules(b.ScaleUp, defaultScaleUpRules())
		b.ScaleDown = copyScalingRules(b.ScaleDown, defaultScaleDownRules())
	}
}

// defaultScaleUpRules are defaultHPAScaleUpRules: no stabilization, the
// larger of 4 pods or 100% per 15 s.
func defaultScaleUpRules() *autoscalingv2.HPAScalingRules {
	return &autoscalingv2.HPAScalingRules{
		StabilizationWindowSeconds: ptr.To[int32](0),
		SelectPolicy:               ptr.To(autoscalingv2.MaxChangePolicySelect),
		Policies: []autoscalingv2.HPAScalingPolicy{
			{Type: autoscalingv2.PodsScalingPolicy, Value: 4, PeriodSeconds: 15},
			{Type: autoscalingv2.PercentScalingPolicy, Value: 100, PeriodSeconds: 15},
		},
	}
}

// defaultScaleDownRules are defaultHPAScaleDownRules: 100% per 15 s, the
// stabilization window left to the controller's flag.
func defaultScaleDownRules() *autoscalingv2.HPAScalingRules {
	return &autoscalingv2.HPAScalingRules{
		SelectPolicy: ptr.To(autoscalingv2.MaxChangePolicySelect),
		Policies:     []autoscalingv2.HPAScalingPolicy{{Type: autoscalingv2.PercentScalingPolicy, Value: 100, PeriodSeconds: 15}},
	}
}

// copyScalingRules is copyHPAScalingRules: what from sets replaces the
// defaults in to.
func copyScalingRules(from, to *autoscalingv2.HPAScalingRules) *autoscalingv2.HPAScalingRules {
	if from == nil {
		return to
	}
	if from.SelectPolicy != nil {
		to.SelectPolicy = from.SelectPolicy
	}
	if from.StabilizationWindowSeconds != nil {
		to.StabilizationWindowSeconds = from.StabilizationWindowSeconds
	}
	if from.Policies != nil {
		to.Policies = from.Policies
	}
	if from.Tolerance != nil {
		to.Tolerance = from.Tolerance
	}
	return to
}
