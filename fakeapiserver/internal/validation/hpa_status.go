package validation

import (
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// HPAStatus is autoscaling validation's
// ValidateHorizontalPodAutoscalerStatusUpdate, which kube-apiserver runs
// on the internal type both autoscaling/v1 and autoscaling/v2 convert to:
// the metadata update, each condition's observedGeneration, then
// currentReplicas and desiredReplicas, none negative. The current metrics
// and status.observedGeneration are not checked: the declarative rules on
// currentMetrics (describedObject kind and name required) are alpha, so
// shadowed in v1.37.
//
// An autoscaling/v1 object carries its conditions in an annotation, which
// lw-sim does not convert (a status write keeps the stored metadata), so
// only its counters are checked.
func HPAStatus(obj, old runtime.Object) field.ErrorList {
	errs := MetaUpdate(obj, old)
	switch hpa := obj.(type) {
	case *autoscalingv2.HorizontalPodAutoscaler:
		for i, c := range hpa.Status.Conditions {
			if c.ObservedGeneration != nil {
				errs = append(errs, nonNegative(statusPath.Child("conditions").Index(i), namedCount{"observedGeneration", *c.ObservedGeneration})...)
			}
		}
		errs = append(errs, nonNegative(statusPath, count("currentReplicas", hpa.Status.CurrentReplicas),
			count("desiredReplicas", hpa.Status.DesiredReplicas))...)
	case *autoscalingv1.HorizontalPodAutoscaler:
		errs = append(errs, nonNegative(statusPath, count("currentReplicas", hpa.Status.CurrentReplicas),
			count("desiredReplicas", hpa.Status.DesiredReplicas))...)
	}
	return errs
}
