package defaults

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// PodTemplateObject defaults a core/v1 PodTemplate: its template's pod
// spec, as a workload's.
func PodTemplateObject(t *corev1.PodTemplate) { templateSpec(&t.Template.Spec) }

// HorizontalPodAutoscaler defaults an autoscaling/v1 or v2 HorizontalPodAutoscaler, each
// version by its own rules.
func HorizontalPodAutoscaler(obj runtime.Object) {
	typed(hpaV1)(obj)
	typed(hpaV2)(obj)
}

// typed adapts the defaulter of one Go type to any object: a body of
// another type is left alone.
func typed[T runtime.Object](f func(T)) func(runtime.Object) {
	return func(obj runtime.Object) {
		if o, ok := obj.(T); ok {
			f(o)
		}
	}
}

// Namespace is SetDefaults_Namespace: the kubernetes.io/metadata.name
// label carries the name (validated like any label: a name of 64
// characters fails twice, as on kube-apiserver).
func Namespace(ns *corev1.Namespace) {
	if ns.Name == "" {
		return
	}
	if ns.Labels == nil {
		ns.Labels = map[string]string{}
	}
	ns.Labels[corev1.LabelMetadataName] = ns.Name
}
