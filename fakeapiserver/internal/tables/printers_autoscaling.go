package tables

import (
	"fmt"
	"strings"
	"time"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/lw-sim/lw-sim/fakeapiserver/internal/conversion"
)

// HorizontalPodAutoscaler printing (printers.go printHorizontalPodAutoscaler
// and formatHPAMetrics). kube-apiserver prints the internal type, so an
// autoscaling/v1 object is printed as its conversion to the v2 form
// (pkg/apis/autoscaling/v1/conversion.go) would be.

// hpaDefaultCPUUtilization is the CPU target an HPA without metrics gets
// (autoscaling.DefaultCPUUtilization): v2 defaulting stores it, v1
// conversion adds it.
const hpaDefaultCPUUtilization = 80

func horizontalPodAutoscalerColumns() []metav1.TableColumnDefinition {
	spec, status := autoscalingv2.HorizontalPodAutoscalerSpec{}.SwaggerDoc(), autoscalingv2.HorizontalPodAutoscalerStatus{}.SwaggerDoc()
	return []metav1.TableColumnDefinition{
		nameColumn,
		column("Reference", "string", spec["scaleTargetRef"]),
		column("Targets", "string", spec["metrics"]),
		column("MinPods", "string", spec["minReplicas"]),
		column("MaxPods", "string", spec["maxReplicas"]),
		column("Replicas", "string", status["currentReplicas"]),
		ageColumn,
	}
}

// horizontalPodAutoscalerPrinter prints both served versions, which share
// the GroupKind.
func horizontalPodAutoscalerPrinter() printer {
	v2, v1 := printerOf(horizontalPodAutoscalerColumns(), printHorizontalPodAutoscaler), printerOf(horizontalPodAutoscalerColumns(), printHorizontalPodAutoscalerV1)
	return printer{columns: v2.columns, row: func(obj runtime.Object, now time.Time) (metav1.TableRow, bool) {
		if row, ok := v2.row(obj, now); ok {
			return row, true
		}
		return v1.row(obj, now)
	}}
}

func printHorizontalPodAutoscaler(hpa *autoscalingv2.HorizontalPodAutoscaler, now time.Time) metav1.TableRow {
	metrics := hpa.Spec.Metrics
	if len(metrics) == 0 {
		// v2 SetDefaults_HorizontalPodAutoscaler: CPU at 80%.
		metrics = []autoscalingv2.MetricSpec{cpuUtilizationMetric(hpaDefaultCPUUtilization)}
	}
	return hpaRow(hpa.ObjectMeta, hpa.Spec.ScaleTargetRef.Kind, hpa.Spec.ScaleTargetRef.Name, hpa.Spec.MinReplicas,
		hpa.Spec.MaxReplicas, hpa.Status.CurrentReplicas, formatHPAMetrics(metrics, hpa.Status.CurrentMetrics), now)
}

// printHorizontalPodAutoscalerV1 prints the object's conversion to v2
// (internal/conversion, the internal type kube-apiserver prints): its CPU
// target and utilization, and the metrics kept in the
// autoscaling.alpha.kubernetes.io annotations.
func printHorizontalPodAutoscalerV1(hpa *autoscalingv1.HorizontalPodAutoscaler, now time.Time) metav1.TableRow {
	v2, err := conversion.HPAV1ToV2(hpa)
	if err != nil {
		v2 = &autoscalingv2.HorizontalPodAutoscaler{ObjectMeta: hpa.ObjectMeta}
	}
	return printHorizontalPodAutoscaler(v2, now)
}

func cpuUtilizationMetric(percent int32) autoscalingv2.MetricSpec {
	return autoscalingv2.MetricSpec{Type: autoscalingv2.ResourceMetricSourceType, Resource: &autoscalingv2.ResourceMetricSource{
		Name: corev1.ResourceCPU, Target: autoscalingv2.MetricTarget{Type: autoscalingv2.UtilizationMetricType, AverageUtilization: &percent},
	}}
}

// hpaRow is the row of either version; minReplicas defaults to 1 in both.
func hpaRow(m metav1.ObjectMeta, kind, name string, minReplicas *int32, maxReplicas, current int32, metrics string, now time.Time) metav1.TableRow {
	return cells(m.Name, kind+"/"+name, metrics, fmt.Sprintf("%d", ptrOr(minReplicas, 1)), int64(maxReplicas), int64(current),
		age(m.CreationTimestamp.Time, now))
}

// formatHPAMetrics shows up to two metrics as current/target.
func formatHPAMetrics(specs []autoscalingv2.MetricSpec, statuses []autoscalingv2.MetricStatus) string {
	const maxShown = 2
	list := make([]string, 0, len(specs))
	for i, spec := range specs {
		var st *autoscalingv2.MetricStatus
		if i < len(statuses) {
			st = &statuses[i]
		}
		list = append(list, formatHPAMetric(spec, st))
	}
	if len(list) > maxShown {
		return fmt.Sprintf("%s + %d more...", strings.Join(list[:maxShown], ", "), len(list)-maxShown)
	}
	return strings.Join(list, ", ")
}

// formatHPAMetric is one metric of formatHPAMetrics; st is the status at
// the same index, if any.
func formatHPAMetric(spec autoscalingv2.MetricSpec, st *autoscalingv2.MetricStatus) string {
	const unknown = "<unknown>"
	current := unknown
	// A source missing for its type (validation rejects it) falls through
	// to <unknown type> rather than a nil dereference.
	switch {
	case spec.Type == autoscalingv2.ExternalMetricSourceType && spec.External != nil:
		if avg := spec.External.Target.AverageValue; avg != nil {
			if st != nil && st.External != nil && st.External.Current.AverageValue != nil {
				current = st.External.Current.AverageValue.String()
			}
			return fmt.Sprintf("%s/%s (avg)", current, avg.String())
		}
		if st != nil && st.External != nil {
			current = st.External.Current.Value.String()
		}
		return fmt.Sprintf("%s/%s", current, spec.External.Target.Value.String())
	case spec.Type == autoscalingv2.PodsMetricSourceType && spec.Pods != nil:
		if st != nil && st.Pods != nil {
			current = st.Pods.Current.AverageValue.String()
		}
		return fmt.Sprintf("%s/%s", current, spec.Pods.Target.AverageValue.String())
	case spec.Type == autoscalingv2.ObjectMetricSourceType && spec.Object != nil:
		if avg := spec.Object.Target.AverageValue; avg != nil {
			if st != nil && st.Object != nil && st.Object.Current.AverageValue != nil {
				current = st.Object.Current.AverageValue.String()
			}
			return fmt.Sprintf("%s/%s (avg)", current, avg.String())
		}
		if st != nil && st.Object != nil {
			current = st.Object.Current.Value.String()
		}
		return fmt.Sprintf("%s/%s", current, spec.Object.Target.Value.String())
	case spec.Type == autoscalingv2.ResourceMetricSourceType && spec.Resource != nil:
		var cur *autoscalingv2.MetricValueStatus
		if st != nil && st.Resource != nil {
			cur = &st.Resource.Current
		}
		return formatResourceMetric(string(spec.Resource.Name), spec.Resource.Target, cur)
	case spec.Type == autoscalingv2.ContainerResourceMetricSourceType && spec.ContainerResource != nil:
		var cur *autoscalingv2.MetricValueStatus
		if st != nil && st.ContainerResource != nil {
			cur = &st.ContainerResource.Current
		}
		return formatResourceMetric(string(spec.ContainerResource.Name), spec.ContainerResource.Target, cur)
	}
	return "<unknown type>"
}

// formatResourceMetric is a (container) resource metric: an average value,
// or a utilization in percent (<auto> without a target).
func formatResourceMetric(name string, target autoscalingv2.MetricTarget, cur *autoscalingv2.MetricValueStatus) string {
	current := "<unknown>"
	if target.AverageValue != nil {
		if cur != nil {
			current = cur.AverageValue.String()
		}
		return fmt.Sprintf("%s: %s/%s", name, current, target.AverageValue.String())
	}
	if cur != nil && cur.AverageUtilization != nil {
		current = fmt.Sprintf("%d%%", *cur.AverageUtilization)
	}
	t := "<auto>"
	if target.AverageUtilization != nil {
		t = fmt.Sprintf("%d%%", *target.AverageUtilization)
	}
	return fmt.Sprintf("%s: %s/%s", name, current, t)
}
