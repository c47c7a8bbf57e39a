package conversion

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"pgregory.net/rapid"
)

// The round trips of upstream's conversions: a v2 object v1 can express
// (at most one CPU utilization target, last; targets and current values
// in the forms the v1 conversion derives their types from) comes back
// from v1 as it went, the v1 annotations carrying what v1 has no field
// for; and any object of either version reaches a fixed point after one
// trip through the other.

var quantities = []string{"0", "1", "250m", "3", "2Gi", "100Mi", "1500m"}

func genQuantity(t *rapid.T, label string, nonZero bool) resource.Quantity {
	from := quantities
	if nonZero {
		from = quantities[1:]
	}
	return resource.MustParse(rapid.SampledFrom(from).Draw(t, label))
}

func genQuantityPtr(t *rapid.T, label string) *resource.Quantity {
	if !rapid.Bool().Draw(t, label+"?") {
		return nil
	}
	q := genQuantity(t, label, false)
	return &q
}

func genSelector(t *rapid.T, label string) *metav1.LabelSelector {
	if !rapid.Bool().Draw(t, label+"?") {
		return nil
	}
	return &metav1.LabelSelector{MatchLabels: map[string]string{"app": rapid.StringMatching(`[a-z]{1,4}`).Draw(t, label)}}
}

func genIdentifier(t *rapid.T) autoscalingv2.MetricIdentifier {
	return autoscalingv2.MetricIdentifier{Name: rapid.StringMatching(`[a-z]{1,6}`).Draw(t, "metric"), Selector: genSelector(t, "selector")}
}

func genRef(t *rapid.T) autoscalingv2.CrossVersionObjectReference {
	return autoscalingv2.CrossVersionObjectReference{
		Kind: rapid.SampledFrom([]string{"Deployment", "Ingress"}).Draw(t, "kind"), Name: rapid.StringMatching(`[a-z]{1,6}`).Draw(t, "name"),
		APIVersion: rapid.SampledFrom([]string{"", "apps/v1"}).Draw(t, "apiVersion"),
	}
}

// genV1ExpressibleMetric is a metric other than a CPU utilization target,
// in the form the v1 conversion gives it.
func genV1ExpressibleMetric(t *rapid.T) autoscalingv2.MetricSpec {
	switch rapid.IntRange(0, 4).Draw(t, "metricType") {
	case 0:
		target := autoscalingv2.MetricTarget{Type: autoscalingv2.ValueMetricType, Value: ptrTo(genQuantity(t, "value", false))}
		if rapid.Bool().Draw(t, "average") {
			target = autoscalingv2.MetricTarget{Type: autoscalingv2.AverageValueMetricType, AverageValue: ptrTo(genQuantity(t, "averageValue", false))}
			if rapid.Bool().Draw(t, "withValue") {
				target.Value = ptrTo(genQuantity(t, "value", true))
			}
		}
		return autoscalingv2.MetricSpec{Type: autoscalingv2.ObjectMetricSourceType, Object: &autoscalingv2.ObjectMetricSource{
			DescribedObject: genRef(t), Target: target, Metric: genIdentifier(t),
		}}
	case 1:
		return autoscalingv2.MetricSpec{Type: autoscalingv2.PodsMetricSourceType, Pods: &autoscalingv2.PodsMetricSource{
			Metric: genIdentifier(t), Target: autoscalingv2.MetricTarget{Type: autoscalingv2.AverageValueMetricType, AverageValue: ptrTo(genQuantity(t, "averageValue", false))},
		}}
	case 2:
		if rapid.Bool().Draw(t, "memory") {
			return autoscalingv2.MetricSpec{Type: autoscalingv2.ResourceMetricSourceType, Resource: &autoscalingv2.ResourceMetricSource{
				Name: corev1.ResourceMemory, Target: genResourceTarget(t),
			}}
		}
		return autoscalingv2.MetricSpec{Type: autoscalingv2.ResourceMetricSourceType, Resource: &autoscalingv2.ResourceMetricSource{
			Name: corev1.ResourceCPU, Target: autoscalingv2.MetricTarget{Type: autoscalingv2.AverageValueMetricType, AverageValue: ptrTo(genQuantity(t, "averageValue", false))},
		}}
	case 3:
		return autoscalingv2.MetricSpec{Type: autoscalingv2.ContainerResourceMetricSourceType, ContainerResource: &autoscalingv2.ContainerResourceMetricSource{
			Name: corev1.ResourceCPU, Container: rapid.StringMatching(`[a-z]{1,5}`).Draw(t, "container"), Target: genResourceTarget(t),
		}}
	default:
		target := autoscalingv2.MetricTarget{Type: autoscalingv2.ValueMetricType, Value: ptrTo(genQuantity(t, "value", false)), AverageValue: genQuantityPtr(t, "averageValue")}
		if rapid.Bool().Draw(t, "average") {
			target = autoscalingv2.MetricTarget{Type: autoscalingv2.AverageValueMetricType, AverageValue: genQuantityPtr(t, "averageValue")}
		}
		return autoscalingv2.MetricSpec{Type: autoscalingv2.ExternalMetricSourceType, External: &autoscalingv2.ExternalMetricSource{Metric: genIdentifier(t), Target: target}}
	}
}

func genResourceTarget(t *rapid.T) autoscalingv2.MetricTarget {
	if rapid.Bool().Draw(t, "utilization") {
		return autoscalingv2.MetricTarget{Type: autoscalingv2.UtilizationMetricType, AverageUtilization: ptrTo(rapid.Int32Range(1, 100).Draw(t, "percent")), AverageValue: genQuantityPtr(t, "averageValue")}
	}
	return autoscalingv2.MetricTarget{Type: autoscalingv2.AverageValueMetricType, AverageValue: ptrTo(genQuantity(t, "averageValue", false))}
}

func genV1ExpressibleStatus(t *rapid.T) autoscalingv2.MetricStatus {
	current := func() autoscalingv2.MetricValueStatus {
		return autoscalingv2.MetricValueStatus{AverageValue: ptrTo(genQuantity(t, "current", false)), AverageUtilization: nil}
	}
	switch rapid.IntRange(0, 4).Draw(t, "statusType") {
	case 0:
		return autoscalingv2.MetricStatus{Type: autoscalingv2.ObjectMetricSourceType, Object: &autoscalingv2.ObjectMetricStatus{
			Metric: genIdentifier(t), DescribedObject: genRef(t),
			Current: autoscalingv2.MetricValueStatus{Value: ptrTo(genQuantity(t, "value", false)), AverageValue: genQuantityPtr(t, "averageValue")},
		}}
	case 1:
		return autoscalingv2.MetricStatus{Type: autoscalingv2.PodsMetricSourceType, Pods: &autoscalingv2.PodsMetricStatus{Metric: genIdentifier(t), Current: current()}}
	case 2:
		c := current()
		if rapid.Bool().Draw(t, "utilization") {
			c.AverageUtilization = ptrTo(rapid.Int32Range(0, 300).Draw(t, "percent"))
		}
		return autoscalingv2.MetricStatus{Type: autoscalingv2.ResourceMetricSourceType, Resource: &autoscalingv2.ResourceMetricStatus{
			Name: rapid.SampledFrom([]corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory}).Draw(t, "resource"), Current: c,
		}}
	case 3:
		return autoscalingv2.MetricStatus{Type: autoscalingv2.ContainerResourceMetricSourceType, ContainerResource: &autoscalingv2.ContainerResourceMetricStatus{
			Name: corev1.ResourceMemory, Container: "c", Current: current(),
		}}
	default:
		return autoscalingv2.MetricStatus{Type: autoscalingv2.ExternalMetricSourceType, External: &autoscalingv2.ExternalMetricStatus{
			Metric: genIdentifier(t), Current: autoscalingv2.MetricValueStatus{Value: ptrTo(genQuantity(t, "value", false)), AverageValue: genQuantityPtr(t, "averageValue")},
		}}
	}
}

func genRules(t *rapid.T, label string) *autoscalingv2.HPAScalingRules {
	if !rapid.Bool().Draw(t, label+"?") {
		return nil
	}
	r := &autoscalingv2.HPAScalingRules{}
	if rapid.Bool().Draw(t, label+"window") {
		r.StabilizationWindowSeconds = ptrTo(rapid.Int32Range(0, 3600).Draw(t, label+"seconds"))
	}
	if rapid.Bool().Draw(t, label+"select") {
		r.SelectPolicy = ptrTo(rapid.SampledFrom([]autoscalingv2.ScalingPolicySelect{autoscalingv2.MaxChangePolicySelect, autoscalingv2.DisabledPolicySelect}).Draw(t, label+"policy"))
	}
	for range rapid.IntRange(0, 2).Draw(t, label+"policies") {
		r.Policies = append(r.Policies, autoscalingv2.HPAScalingPolicy{
			Type: autoscalingv2.PodsScalingPolicy, Value: rapid.Int32Range(1, 10).Draw(t, "v"), PeriodSeconds: rapid.Int32Range(1, 1800).Draw(t, "p"),
		})
	}
	if rapid.Bool().Draw(t, label+"tolerance") {
		r.Tolerance = ptrTo(resource.MustParse(rapid.SampledFrom([]string{"50m", "0", "100m"}).Draw(t, label+"tol")))
	}
	return r
}

// genV1ExpressibleHPA is a v2 HPA that survives a trip through v1.
func genV1ExpressibleHPA(t *rapid.T) *autoscalingv2.HorizontalPodAutoscaler {
	h := &autoscalingv2.HorizontalPodAutoscaler{ObjectMeta: metav1.ObjectMeta{Name: "h", Namespace: "ns"}}
	h.SetGroupVersionKind(hpaV2TypeMeta)
	if rapid.Bool().Draw(t, "labels") {
		h.Labels = map[string]string{"a": "b"}
	}
	if rapid.Bool().Draw(t, "annotations") {
		h.Annotations = map[string]string{"note": rapid.StringMatching(`[a-z]{0,5}`).Draw(t, "note")}
	}
	h.Spec.ScaleTargetRef = genRef(t)
	if rapid.Bool().Draw(t, "minReplicas") {
		h.Spec.MinReplicas = ptrTo(rapid.Int32Range(1, 5).Draw(t, "min"))
	}
	h.Spec.MaxReplicas = rapid.Int32Range(1, 10).Draw(t, "max")
	for range rapid.IntRange(0, 3).Draw(t, "metrics") {
		h.Spec.Metrics = append(h.Spec.Metrics, genV1ExpressibleMetric(t))
	}
	if len(h.Spec.Metrics) == 0 || rapid.Bool().Draw(t, "cpu") {
		h.Spec.Metrics = append(h.Spec.Metrics, cpuUtilizationSpec(rapid.Int32Range(1, 100).Draw(t, "cpuTarget")))
	}
	if up, down := genRules(t, "up"), genRules(t, "down"); up != nil || down != nil {
		h.Spec.Behavior = &autoscalingv2.HorizontalPodAutoscalerBehavior{ScaleUp: up, ScaleDown: down}
	}
	h.Status.CurrentReplicas = rapid.Int32Range(0, 5).Draw(t, "current")
	h.Status.DesiredReplicas = rapid.Int32Range(0, 5).Draw(t, "desired")
	if rapid.Bool().Draw(t, "observed") {
		h.Status.ObservedGeneration = ptrTo(rapid.Int64Range(1, 9).Draw(t, "generation"))
	}
	if rapid.Bool().Draw(t, "lastScale") {
		h.Status.LastScaleTime = &metav1.Time{Time: time.Unix(rapid.Int64Range(0, 1e9).Draw(t, "scaleTime"), 0)}
	}
	for range rapid.IntRange(0, 3).Draw(t, "currentMetrics") {
		h.Status.CurrentMetrics = append(h.Status.CurrentMetrics, genV1ExpressibleStatus(t))
	}
	for i := range rapid.IntRange(0, 2).Draw(t, "conditions") {
		h.Status.Conditions = append(h.Status.Conditions, autoscalingv2.HorizontalPodAutoscalerCondition{
			Type: autoscalingv2.HorizontalPodAutoscalerConditionType(fmt.Sprint("C", i)), Status: corev1.ConditionTrue,
			LastTransitionTime: metav1.Time{Time: time.Unix(rapid.Int64Range(0, 1e9).Draw(t, "transition"), 0)},
			Reason:             rapid.StringMatching(`[A-Za-z]{0,5}`).Draw(t, "reason"), Message: rapid.String().Draw(t, "message"),
		})
	}
	return h
}

func TestHPARoundTripThroughV1(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		in := genV1ExpressibleHPA(t)
		v1, err := HPAV2ToV1(in)
		if err != nil {
			t.Fatal(err)
		}
		back, err := HPAV1ToV2(v1)
		if err != nil {
			t.Fatal(err)
		}
		if !equality.Semantic.DeepEqual(wire(in), wire(back)) {
			t.Fatalf("v2 -> v1 -> v2 (-in +back):\n%s\nv1 annotations: %v", cmp.Diff(in, back), v1.Annotations)
		}
	})
}

// genV1HPA is any v1 HPA, its annotations among them, well-formed or not.
func genV1HPA(t *rapid.T) *autoscalingv1.HorizontalPodAutoscaler {
	h := &autoscalingv1.HorizontalPodAutoscaler{ObjectMeta: metav1.ObjectMeta{Name: "h", Namespace: "ns"}}
	h.Spec.MaxReplicas = rapid.Int32Range(1, 10).Draw(t, "max")
	if rapid.Bool().Draw(t, "cpu") {
		h.Spec.TargetCPUUtilizationPercentage = ptrTo(rapid.Int32Range(1, 100).Draw(t, "cpuTarget"))
	}
	if rapid.Bool().Draw(t, "currentCPU") {
		h.Status.CurrentCPUUtilizationPercentage = ptrTo(rapid.Int32Range(0, 200).Draw(t, "currentCPU"))
	}
	from, err := HPAV2ToV1(genV1ExpressibleHPA(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{HPAMetricsAnnotation, HPACurrentMetricsAnnotation, HPABehaviorAnnotation, HPAConditionsAnnotation} {
		switch rapid.IntRange(0, 3).Draw(t, k) {
		case 1:
			if v, ok := from.Annotations[k]; ok {
				h.Annotations = setKey(h.Annotations, k, v)
			}
		case 2:
			h.Annotations = setKey(h.Annotations, k, rapid.SampledFrom([]string{"", "[]", "{}", "null", "not json", `{"ScaleUp":null}`}).Draw(t, "odd"))
		}
	}
	return h
}

func setKey(m map[string]string, k, v string) map[string]string {
	if m == nil {
		m = map[string]string{}
	}
	m[k] = v
	return m
}

// TestHPAFixedPointAfterOneTrip: a v1 object is stable after one trip
// through v2, a v2 object (here one converted from any v1 object) after
// one trip through v1. The first trip may change either: a current CPU
// utilization gains a current average value of 0 in the annotation.
func TestHPAFixedPointAfterOneTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		h := genV1HPA(t)
		x1 := v1Trip(t, h)
		if x2 := v1Trip(t, x1); !equality.Semantic.DeepEqual(wire(x1), wire(x2)) {
			t.Fatalf("v1 after a second trip (-first +second):\n%s", cmp.Diff(x1, x2))
		}
		y, err := HPAV1ToV2(h)
		if err != nil {
			t.Fatal(err)
		}
		y1 := v2Trip(t, y)
		if y2 := v2Trip(t, y1); !equality.Semantic.DeepEqual(wire(y1), wire(y2)) {
			t.Fatalf("v2 after a second trip (-first +second):\n%s", cmp.Diff(y1, y2))
		}
	})
}

func v1Trip(t *rapid.T, h *autoscalingv1.HorizontalPodAutoscaler) *autoscalingv1.HorizontalPodAutoscaler {
	v2, err := HPAV1ToV2(h)
	if err != nil {
		t.Fatal(err)
	}
	out, err := HPAV2ToV1(v2)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func v2Trip(t *rapid.T, h *autoscalingv2.HorizontalPodAutoscaler) *autoscalingv2.HorizontalPodAutoscaler {
	v1, err := HPAV2ToV1(h)
	if err != nil {
		t.Fatal(err)
	}
	out, err := HPAV1ToV2(v1)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// wire is obj as its JSON tells it: empty annotations are left out, as
// nil ones are.
func wire[T interface {
	GetAnnotations() map[string]string
	SetAnnotations(map[string]string)
}](obj T) T {
	if len(obj.GetAnnotations()) == 0 {
		obj.SetAnnotations(nil)
	}
	return obj
}

// TestHPAV1Annotations pins the annotation formats: v1 MetricSpecs and
// MetricStatuses by their json tags, the behavior by the internal type's
// Go field names with nulls.
func TestHPAV1Annotations(t *testing.T) {
	in := &autoscalingv2.HorizontalPodAutoscaler{ObjectMeta: metav1.ObjectMeta{Name: "h"}}
	in.Spec.Metrics = []autoscalingv2.MetricSpec{
		{Type: autoscalingv2.PodsMetricSourceType, Pods: &autoscalingv2.PodsMetricSource{
			Metric: autoscalingv2.MetricIdentifier{Name: "qps"}, Target: autoscalingv2.MetricTarget{Type: autoscalingv2.AverageValueMetricType, AverageValue: ptrTo(resource.MustParse("10"))},
		}},
		cpuUtilizationSpec(50),
	}
	in.Spec.Behavior = &autoscalingv2.HorizontalPodAutoscalerBehavior{ScaleDown: &autoscalingv2.HPAScalingRules{
		StabilizationWindowSeconds: ptrTo(int32(60)), Policies: []autoscalingv2.HPAScalingPolicy{{Type: autoscalingv2.PodsScalingPolicy, Value: 1, PeriodSeconds: 30}},
	}}
	out, err := HPAV2ToV1(in)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		HPAMetricsAnnotation:  `[{"type":"Pods","pods":{"metricName":"qps","targetAverageValue":"10"}}]`,
		HPABehaviorAnnotation: `{"ScaleUp":null,"ScaleDown":{"StabilizationWindowSeconds":60,"SelectPolicy":null,"Policies":[{"Type":"Pods","Value":1,"PeriodSeconds":30}],"Tolerance":null}}`,
	}
	if diff := cmp.Diff(want, out.Annotations); diff != "" {
		t.Errorf("annotations (-want +got):\n%s", diff)
	}
	if got := out.Spec.TargetCPUUtilizationPercentage; got == nil || *got != 50 {
		t.Errorf("targetCPUUtilizationPercentage = %v, want 50", got)
	}
}
