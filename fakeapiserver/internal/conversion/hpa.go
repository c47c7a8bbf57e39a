package conversion

import (
	"encoding/json"
	"fmt"
	"maps"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// The annotations autoscaling/v1 keeps what it cannot express in
// (pkg/apis/autoscaling/annotations.go). Every conversion into the
// internal type drops them (DropRoundTripHorizontalPodAutoscalerAnnotations),
// and only the conversion to v1 writes them, from the object's own fields.
const (
	// HPAMetricsAnnotation holds the v1 MetricSpecs of every metric but a
	// CPU utilization target.
	HPAMetricsAnnotation = "autoscaling.alpha.kubernetes.io/metrics"
	// HPACurrentMetricsAnnotation holds every current metric as v1
	// MetricStatuses.
	HPACurrentMetricsAnnotation = "autoscaling.alpha.kubernetes.io/current-metrics"
	// HPAConditionsAnnotation holds the conditions as v1 conditions.
	HPAConditionsAnnotation = "autoscaling.alpha.kubernetes.io/conditions"
	// HPABehaviorAnnotation holds the behavior in the internal type's
	// JSON form (Go field names: it has no json tags).
	HPABehaviorAnnotation = "autoscaling.alpha.kubernetes.io/behavior"
	// The tolerance annotations are v2beta2's; they are dropped as the
	// others are.
	hpaScaleDownToleranceAnnotation = "autoscaling.alpha.kubernetes.io/scale-down-tolerance"
	hpaScaleUpToleranceAnnotation   = "autoscaling.alpha.kubernetes.io/scale-up-tolerance"
)

// defaultCPUUtilization is autoscaling.DefaultCPUUtilization, the target
// the v1 conversion gives an HPA with no metric at all.
const defaultCPUUtilization = 80

var (
	hpaV1TypeMeta = autoscalingv1.SchemeGroupVersion.WithKind("HorizontalPodAutoscaler")
	hpaV2TypeMeta = autoscalingv2.SchemeGroupVersion.WithKind("HorizontalPodAutoscaler")
)

// dropHPARoundTripAnnotations is DropRoundTripHorizontalPodAutoscalerAnnotations:
// in without the round-trip annotations, copied only when it had one.
func dropHPARoundTripAnnotations(in map[string]string) (map[string]string, bool) {
	for _, k := range []string{HPAMetricsAnnotation, HPABehaviorAnnotation, hpaScaleDownToleranceAnnotation,
		hpaScaleUpToleranceAnnotation, HPACurrentMetricsAnnotation, HPAConditionsAnnotation} {
		if _, ok := in[k]; ok {
			out := maps.Clone(in)
			for _, k := range []string{HPAMetricsAnnotation, HPABehaviorAnnotation, hpaScaleDownToleranceAnnotation,
				hpaScaleUpToleranceAnnotation, HPACurrentMetricsAnnotation, HPAConditionsAnnotation} {
				delete(out, k)
			}
			return out, true
		}
	}
	return in, false
}

// HPAV2ToV2 is a v2 object through the internal type and back
// (Convert_v2_HorizontalPodAutoscaler_To_autoscaling_HorizontalPodAutoscaler
// and back): a deep copy without the round-trip annotations, which a v2
// write never stores.
func HPAV2ToV2(in *autoscalingv2.HorizontalPodAutoscaler) *autoscalingv2.HorizontalPodAutoscaler {
	out := in.DeepCopy()
	out.Annotations, _ = dropHPARoundTripAnnotations(out.Annotations)
	out.SetGroupVersionKind(hpaV2TypeMeta)
	return out
}

// HPAV1ToV2 converts a v1 HorizontalPodAutoscaler to v2 as
// Convert_v1_HorizontalPodAutoscaler_To_autoscaling_HorizontalPodAutoscaler
// then the internal type's conversion to v2 do: the CPU target and
// utilization become Resource metrics, the metrics, current metrics,
// behavior and conditions annotations (when they parse) are read back
// into their fields, an HPA with no metric gets the 80% CPU target, and
// the round-trip annotations are dropped. in is not modified; the result
// shares nothing with it.
func HPAV1ToV2(in *autoscalingv1.HorizontalPodAutoscaler) (*autoscalingv2.HorizontalPodAutoscaler, error) {
	in = in.DeepCopy()
	out := &autoscalingv2.HorizontalPodAutoscaler{ObjectMeta: in.ObjectMeta}
	out.SetGroupVersionKind(hpaV2TypeMeta)
	// Convert_v1_HorizontalPodAutoscalerSpec_To_autoscaling_HorizontalPodAutoscalerSpec
	out.Spec.ScaleTargetRef = autoscalingv2.CrossVersionObjectReference(in.Spec.ScaleTargetRef)
	out.Spec.MinReplicas = in.Spec.MinReplicas
	out.Spec.MaxReplicas = in.Spec.MaxReplicas
	if in.Spec.TargetCPUUtilizationPercentage != nil {
		out.Spec.Metrics = []autoscalingv2.MetricSpec{cpuUtilizationSpec(*in.Spec.TargetCPUUtilizationPercentage)}
	}
	// Convert_v1_HorizontalPodAutoscalerStatus_To_autoscaling_HorizontalPodAutoscalerStatus
	out.Status.ObservedGeneration = in.Status.ObservedGeneration
	out.Status.LastScaleTime = in.Status.LastScaleTime
	out.Status.CurrentReplicas = in.Status.CurrentReplicas
	out.Status.DesiredReplicas = in.Status.DesiredReplicas
	if in.Status.CurrentCPUUtilizationPercentage != nil {
		u := *in.Status.CurrentCPUUtilizationPercentage
		out.Status.CurrentMetrics = []autoscalingv2.MetricStatus{{
			Type:     autoscalingv2.ResourceMetricSourceType,
			Resource: &autoscalingv2.ResourceMetricStatus{Name: corev1.ResourceCPU, Current: autoscalingv2.MetricValueStatus{AverageUtilization: &u}},
		}}
	}

	if enc, ok := out.Annotations[HPAMetricsAnnotation]; ok {
		var other []autoscalingv1.MetricSpec
		if err := json.Unmarshal([]byte(enc), &other); err == nil {
			// The spec's conversion may have made one CPU metric: it goes last.
			metrics := make([]autoscalingv2.MetricSpec, len(other)+len(out.Spec.Metrics))
			for i := range other {
				metrics[i] = metricSpecV1ToV2(&other[i])
			}
			if out.Spec.Metrics != nil {
				metrics[len(other)] = out.Spec.Metrics[0]
			}
			out.Spec.Metrics = metrics
		}
	}
	if enc, ok := out.Annotations[HPABehaviorAnnotation]; ok {
		var b internalHPABehavior
		if err := json.Unmarshal([]byte(enc), &b); err == nil && b != (internalHPABehavior{}) {
			out.Spec.Behavior = b.toV2()
		}
	}
	if enc, ok := out.Annotations[HPACurrentMetricsAnnotation]; ok {
		var current []autoscalingv1.MetricStatus
		if err := json.Unmarshal([]byte(enc), &current); err == nil {
			out.Status.CurrentMetrics = make([]autoscalingv2.MetricStatus, len(current))
			for i := range current {
				out.Status.CurrentMetrics[i] = metricStatusV1ToV2(&current[i])
			}
		}
	}
	if len(out.Spec.Metrics) == 0 {
		out.Spec.Metrics = []autoscalingv2.MetricSpec{cpuUtilizationSpec(defaultCPUUtilization)}
	}
	if enc, ok := out.Annotations[HPAConditionsAnnotation]; ok {
		var conds []autoscalingv1.HorizontalPodAutoscalerCondition
		if err := json.Unmarshal([]byte(enc), &conds); err == nil {
			out.Status.Conditions = make([]autoscalingv2.HorizontalPodAutoscalerCondition, len(conds))
			for i, c := range conds {
				out.Status.Conditions[i] = autoscalingv2.HorizontalPodAutoscalerCondition{
					Type: autoscalingv2.HorizontalPodAutoscalerConditionType(c.Type), Status: c.Status,
					LastTransitionTime: c.LastTransitionTime, Reason: c.Reason, Message: c.Message,
				}
			}
		}
	}
	out.Annotations, _ = dropHPARoundTripAnnotations(out.Annotations)
	return out, nil
}

// HPAV2ToV1 converts a v2 HorizontalPodAutoscaler to v1 as the internal
// type's conversions from v2 and to v1
// (Convert_autoscaling_HorizontalPodAutoscaler_To_v1_HorizontalPodAutoscaler)
// do: the first CPU utilization target becomes
// targetCPUUtilizationPercentage, the last CPU current utilization
// currentCPUUtilizationPercentage, and every other metric, every current
// metric, the behavior and the conditions are written to annotations
// (after any round-trip annotations the object carried were dropped). in
// is not modified; the result shares nothing with it. The error is a
// marshalling one, which the types here cannot produce.
func HPAV2ToV1(in *autoscalingv2.HorizontalPodAutoscaler) (*autoscalingv1.HorizontalPodAutoscaler, error) {
	in = in.DeepCopy()
	in.Annotations, _ = dropHPARoundTripAnnotations(in.Annotations) // v2 -> internal
	out := &autoscalingv1.HorizontalPodAutoscaler{ObjectMeta: in.ObjectMeta}
	out.SetGroupVersionKind(hpaV1TypeMeta)
	// Convert_autoscaling_HorizontalPodAutoscalerSpec_To_v1_HorizontalPodAutoscalerSpec
	out.Spec.ScaleTargetRef = autoscalingv1.CrossVersionObjectReference(in.Spec.ScaleTargetRef)
	out.Spec.MinReplicas = in.Spec.MinReplicas
	out.Spec.MaxReplicas = in.Spec.MaxReplicas
	for _, m := range in.Spec.Metrics {
		if isCPUUtilizationSpec(&m) {
			u := *m.Resource.Target.AverageUtilization
			out.Spec.TargetCPUUtilizationPercentage = &u
			break
		}
	}
	// Convert_autoscaling_HorizontalPodAutoscalerStatus_To_v1_HorizontalPodAutoscalerStatus
	out.Status.ObservedGeneration = in.Status.ObservedGeneration
	out.Status.LastScaleTime = in.Status.LastScaleTime
	out.Status.CurrentReplicas = in.Status.CurrentReplicas
	out.Status.DesiredReplicas = in.Status.DesiredReplicas
	for _, m := range in.Status.CurrentMetrics {
		if m.Type == autoscalingv2.ResourceMetricSourceType && m.Resource != nil && m.Resource.Name == corev1.ResourceCPU && m.Resource.Current.AverageUtilization != nil {
			u := *m.Resource.Current.AverageUtilization
			out.Status.CurrentCPUUtilizationPercentage = &u
		}
	}

	annotations, _ := dropHPARoundTripAnnotations(out.Annotations)
	set := func(key string, v any) error {
		b, err := json.Marshal(v)
		if err != nil {
			return fmt.Errorf("conversion: HorizontalPodAutoscaler annotation %s: %w", key, err)
		}
		annotations = maps.Clone(annotations)
		if annotations == nil {
			annotations = map[string]string{}
		}
		annotations[key] = string(b)
		return nil
	}
	other := make([]autoscalingv1.MetricSpec, 0, len(in.Spec.Metrics))
	for i := range in.Spec.Metrics {
		if isCPUUtilizationSpec(&in.Spec.Metrics[i]) {
			continue
		}
		other = append(other, metricSpecV2ToV1(&in.Spec.Metrics[i]))
	}
	current := make([]autoscalingv1.MetricStatus, len(in.Status.CurrentMetrics))
	for i := range in.Status.CurrentMetrics {
		current[i] = metricStatusV2ToV1(&in.Status.CurrentMetrics[i])
	}
	conds := make([]autoscalingv1.HorizontalPodAutoscalerCondition, len(in.Status.Conditions))
	for i, c := range in.Status.Conditions {
		conds[i] = autoscalingv1.HorizontalPodAutoscalerCondition{
			Type: autoscalingv1.HorizontalPodAutoscalerConditionType(c.Type), Status: c.Status,
			LastTransitionTime: c.LastTransitionTime, Reason: c.Reason, Message: c.Message,
		}
	}
	if len(other) > 0 {
		if err := set(HPAMetricsAnnotation, other); err != nil {
			return nil, err
		}
	}
	if len(in.Status.CurrentMetrics) > 0 {
		if err := set(HPACurrentMetricsAnnotation, current); err != nil {
			return nil, err
		}
	}
	if in.Spec.Behavior != nil {
		if err := set(HPABehaviorAnnotation, internalBehaviorOf(in.Spec.Behavior)); err != nil {
			return nil, err
		}
	}
	if len(in.Status.Conditions) > 0 {
		if err := set(HPAConditionsAnnotation, conds); err != nil {
			return nil, err
		}
	}
	out.Annotations = annotations
	return out, nil
}

// isCPUUtilizationSpec reports whether m is a CPU utilization target, the
// metric v1 holds in targetCPUUtilizationPercentage.
func isCPUUtilizationSpec(m *autoscalingv2.MetricSpec) bool {
	return m.Type == autoscalingv2.ResourceMetricSourceType && m.Resource != nil && m.Resource.Name == corev1.ResourceCPU && m.Resource.Target.AverageUtilization != nil
}

// cpuUtilizationSpec is a CPU utilization target of percent.
func cpuUtilizationSpec(percent int32) autoscalingv2.MetricSpec {
	return autoscalingv2.MetricSpec{
		Type: autoscalingv2.ResourceMetricSourceType,
		Resource: &autoscalingv2.ResourceMetricSource{Name: corev1.ResourceCPU, Target: autoscalingv2.MetricTarget{
			Type: autoscalingv2.UtilizationMetricType, AverageUtilization: &percent,
		}},
	}
}

// metricSpecV1ToV2 is Convert_v1_MetricSpec_To_autoscaling_MetricSpec.
func metricSpecV1ToV2(in *autoscalingv1.MetricSpec) autoscalingv2.MetricSpec {
	out := autoscalingv2.MetricSpec{Type: autoscalingv2.MetricSourceType(in.Type)}
	if o := in.Object; o != nil {
		t := autoscalingv2.MetricTarget{Type: autoscalingv2.ValueMetricType, AverageValue: o.AverageValue}
		if o.AverageValue == nil {
			t.Value = ptrTo(o.TargetValue)
		} else {
			t.Type = autoscalingv2.AverageValueMetricType
			// Only a non-zero targetValue is kept for averageValue metrics.
			if !o.TargetValue.IsZero() {
				t.Value = ptrTo(o.TargetValue)
			}
		}
		out.Object = &autoscalingv2.ObjectMetricSource{
			DescribedObject: autoscalingv2.CrossVersionObjectReference(o.Target),
			Target:          t,
			Metric:          autoscalingv2.MetricIdentifier{Name: o.MetricName, Selector: o.Selector},
		}
	}
	if p := in.Pods; p != nil {
		out.Pods = &autoscalingv2.PodsMetricSource{
			Metric: autoscalingv2.MetricIdentifier{Name: p.MetricName, Selector: p.Selector},
			Target: autoscalingv2.MetricTarget{Type: autoscalingv2.AverageValueMetricType, AverageValue: ptrTo(p.TargetAverageValue)},
		}
	}
	if r := in.Resource; r != nil {
		out.Resource = &autoscalingv2.ResourceMetricSource{Name: r.Name, Target: utilizationTarget(r.TargetAverageUtilization, r.TargetAverageValue)}
	}
	if c := in.ContainerResource; c != nil {
		out.ContainerResource = &autoscalingv2.ContainerResourceMetricSource{
			Name: c.Name, Container: c.Container, Target: utilizationTarget(c.TargetAverageUtilization, c.TargetAverageValue),
		}
	}
	if e := in.External; e != nil {
		t := autoscalingv2.MetricTarget{Type: autoscalingv2.ValueMetricType, Value: e.TargetValue, AverageValue: e.TargetAverageValue}
		if e.TargetValue == nil {
			t.Type = autoscalingv2.AverageValueMetricType
		}
		out.External = &autoscalingv2.ExternalMetricSource{
			Metric: autoscalingv2.MetricIdentifier{Name: e.MetricName, Selector: e.MetricSelector},
			Target: t,
		}
	}
	return out
}

// utilizationTarget is a (container) resource metric's target from v1:
// Utilization when a utilization is set, else AverageValue.
func utilizationTarget(utilization *int32, averageValue *resource.Quantity) autoscalingv2.MetricTarget {
	t := autoscalingv2.MetricTarget{Type: autoscalingv2.UtilizationMetricType, AverageValue: averageValue, AverageUtilization: utilization}
	if utilization == nil {
		t.Type = autoscalingv2.AverageValueMetricType
	}
	return t
}

// metricSpecV2ToV1 is Convert_autoscaling_MetricSpec_To_v1_MetricSpec.
func metricSpecV2ToV1(in *autoscalingv2.MetricSpec) autoscalingv1.MetricSpec {
	out := autoscalingv1.MetricSpec{Type: autoscalingv1.MetricSourceType(in.Type)}
	if o := in.Object; o != nil {
		out.Object = &autoscalingv1.ObjectMetricSource{
			Target:       autoscalingv1.CrossVersionObjectReference(o.DescribedObject),
			MetricName:   o.Metric.Name,
			Selector:     o.Metric.Selector,
			AverageValue: o.Target.AverageValue,
		}
		if o.Target.Value != nil {
			out.Object.TargetValue = *o.Target.Value
		}
	}
	if p := in.Pods; p != nil {
		out.Pods = &autoscalingv1.PodsMetricSource{MetricName: p.Metric.Name, Selector: p.Metric.Selector}
		if p.Target.AverageValue != nil {
			out.Pods.TargetAverageValue = *p.Target.AverageValue
		}
	}
	if r := in.Resource; r != nil {
		out.Resource = &autoscalingv1.ResourceMetricSource{
			Name: r.Name, TargetAverageUtilization: r.Target.AverageUtilization, TargetAverageValue: r.Target.AverageValue,
		}
	}
	if c := in.ContainerResource; c != nil {
		out.ContainerResource = &autoscalingv1.ContainerResourceMetricSource{
			Name: c.Name, Container: c.Container, TargetAverageUtilization: c.Target.AverageUtilization, TargetAverageValue: c.Target.AverageValue,
		}
	}
	if e := in.External; e != nil {
		out.External = &autoscalingv1.ExternalMetricSource{
			MetricName: e.Metric.Name, MetricSelector: e.Metric.Selector, TargetValue: e.Target.Value, TargetAverageValue: e.Target.AverageValue,
		}
	}
	return out
}

// metricStatusV1ToV2 is Convert_v1_MetricStatus_To_autoscaling_MetricStatus.
func metricStatusV1ToV2(in *autoscalingv1.MetricStatus) autoscalingv2.MetricStatus {
	out := autoscalingv2.MetricStatus{Type: autoscalingv2.MetricSourceType(in.Type)}
	if o := in.Object; o != nil {
		out.Object = &autoscalingv2.ObjectMetricStatus{
			Current:         autoscalingv2.MetricValueStatus{Value: ptrTo(o.CurrentValue), AverageValue: o.AverageValue},
			DescribedObject: autoscalingv2.CrossVersionObjectReference(o.Target),
			Metric:          autoscalingv2.MetricIdentifier{Name: o.MetricName, Selector: o.Selector},
		}
	}
	if p := in.Pods; p != nil {
		out.Pods = &autoscalingv2.PodsMetricStatus{
			Current: autoscalingv2.MetricValueStatus{AverageValue: ptrTo(p.CurrentAverageValue)},
			Metric:  autoscalingv2.MetricIdentifier{Name: p.MetricName, Selector: p.Selector},
		}
	}
	if r := in.Resource; r != nil {
		out.Resource = &autoscalingv2.ResourceMetricStatus{
			Name:    r.Name,
			Current: autoscalingv2.MetricValueStatus{AverageValue: ptrTo(r.CurrentAverageValue), AverageUtilization: r.CurrentAverageUtilization},
		}
	}
	if c := in.ContainerResource; c != nil {
		out.ContainerResource = &autoscalingv2.ContainerResourceMetricStatus{
			Name: c.Name, Container: c.Container,
			Current: autoscalingv2.MetricValueStatus{AverageValue: ptrTo(c.CurrentAverageValue), AverageUtilization: c.CurrentAverageUtilization},
		}
	}
	if e := in.External; e != nil {
		out.External = &autoscalingv2.ExternalMetricStatus{
			Current: autoscalingv2.MetricValueStatus{Value: ptrTo(e.CurrentValue), AverageValue: e.CurrentAverageValue},
			Metric:  autoscalingv2.MetricIdentifier{Name: e.MetricName, Selector: e.MetricSelector},
		}
	}
	return out
}

// metricStatusV2ToV1 is Convert_autoscaling_MetricStatus_To_v1_MetricStatus.
func metricStatusV2ToV1(in *autoscalingv2.MetricStatus) autoscalingv1.MetricStatus {
	out := autoscalingv1.MetricStatus{Type: autoscalingv1.MetricSourceType(in.Type)}
	if o := in.Object; o != nil {
		out.Object = &autoscalingv1.ObjectMetricStatus{
			Target:     autoscalingv1.CrossVersionObjectReference(o.DescribedObject),
			MetricName: o.Metric.Name,
			Selector:   o.Metric.Selector,
		}
		if o.Current.Value != nil {
			out.Object.CurrentValue = *o.Current.Value
		}
		if o.Current.AverageValue != nil {
			out.Object.AverageValue = ptrTo(*o.Current.AverageValue)
		}
	}
	if p := in.Pods; p != nil {
		out.Pods = &autoscalingv1.PodsMetricStatus{MetricName: p.Metric.Name, Selector: p.Metric.Selector}
		if p.Current.AverageValue != nil {
			out.Pods.CurrentAverageValue = *p.Current.AverageValue
		}
	}
	if r := in.Resource; r != nil {
		out.Resource = &autoscalingv1.ResourceMetricStatus{Name: r.Name, CurrentAverageUtilization: r.Current.AverageUtilization}
		if r.Current.AverageValue != nil {
			out.Resource.CurrentAverageValue = *r.Current.AverageValue
		}
	}
	if c := in.ContainerResource; c != nil {
		out.ContainerResource = &autoscalingv1.ContainerResourceMetricStatus{Name: c.Name, Container: c.Container, CurrentAverageUtilization: c.Current.AverageUtilization}
		if c.Current.AverageValue != nil {
			out.ContainerResource.CurrentAverageValue = *c.Current.AverageValue
		}
	}
	if e := in.External; e != nil {
		out.External = &autoscalingv1.ExternalMetricStatus{MetricName: e.Metric.Name, MetricSelector: e.Metric.Selector, CurrentAverageValue: e.Current.AverageValue}
		if e.Current.Value != nil {
			out.External.CurrentValue = *e.Current.Value
		}
	}
	return out
}

// internalHPABehavior mirrors autoscaling.HorizontalPodAutoscalerBehavior,
// the internal type the behavior annotation is the JSON of: no json tags,
// so its members are the Go field names and every field is written
// (nil as null).
type internalHPABehavior struct {
	ScaleUp   *internalHPAScalingRules
	ScaleDown *internalHPAScalingRules
}

// internalHPAScalingRules mirrors autoscaling.HPAScalingRules.
type internalHPAScalingRules struct {
	StabilizationWindowSeconds *int32
	SelectPolicy               *string
	Policies                   []internalHPAScalingPolicy
	Tolerance                  *resource.Quantity
}

// internalHPAScalingPolicy mirrors autoscaling.HPAScalingPolicy.
type internalHPAScalingPolicy struct {
	Type          string
	Value         int32
	PeriodSeconds int32
}

func internalBehaviorOf(b *autoscalingv2.HorizontalPodAutoscalerBehavior) internalHPABehavior {
	return internalHPABehavior{ScaleUp: internalRulesOf(b.ScaleUp), ScaleDown: internalRulesOf(b.ScaleDown)}
}

func internalRulesOf(r *autoscalingv2.HPAScalingRules) *internalHPAScalingRules {
	if r == nil {
		return nil
	}
	out := &internalHPAScalingRules{StabilizationWindowSeconds: r.StabilizationWindowSeconds, Tolerance: r.Tolerance}
	if r.SelectPolicy != nil {
		out.SelectPolicy = ptrTo(string(*r.SelectPolicy))
	}
	if r.Policies != nil {
		out.Policies = make([]internalHPAScalingPolicy, len(r.Policies))
		for i, p := range r.Policies {
			out.Policies[i] = internalHPAScalingPolicy{Type: string(p.Type), Value: p.Value, PeriodSeconds: p.PeriodSeconds}
		}
	}
	return out
}

func (b internalHPABehavior) toV2() *autoscalingv2.HorizontalPodAutoscalerBehavior {
	return &autoscalingv2.HorizontalPodAutoscalerBehavior{ScaleUp: b.ScaleUp.toV2(), ScaleDown: b.ScaleDown.toV2()}
}

func (r *internalHPAScalingRules) toV2() *autoscalingv2.HPAScalingRules {
	if r == nil {
		return nil
	}
	out := &autoscalingv2.HPAScalingRules{StabilizationWindowSeconds: r.StabilizationWindowSeconds, Tolerance: r.Tolerance}
	if r.SelectPolicy != nil {
		out.SelectPolicy = ptrTo(autoscalingv2.ScalingPolicySelect(*r.SelectPolicy))
	}
	if r.Policies != nil {
		out.Policies = make([]autoscalingv2.HPAScalingPolicy, len(r.Policies))
		for i, p := range r.Policies {
			out.Policies[i] = autoscalingv2.HPAScalingPolicy{Type: autoscalingv2.HPAScalingPolicyType(p.Type), Value: p.Value, PeriodSeconds: p.PeriodSeconds}
		}
	}
	return out
}

func ptrTo[T any](v T) *T { return &v }
