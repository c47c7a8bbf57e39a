package fakeapiserver

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/lw-sim/lw-sim/fakeapiserver/internal/defaults"
)

// applyDefaults runs the resource's defaulter, if any, on a decoded body,
// as kube-apiserver's decoder does for every create, update and patch.
// The built-in kinds' defaulters are in internal/defaults; this is the
// server's glue, since a [Resource] may override them.
func (r *resourceInfo) applyDefaults(obj runtime.Object) {
	if r.Default != nil {
		r.Default(obj)
	}
}

// DefaultPod applies the core/v1 defaults of a pod that clients see in
// List and Watch results and match with field selectors, ported from
// kubernetes pkg/apis/core/v1/defaults.go (SetDefaults_Pod,
// SetDefaults_PodSpec, SetDefaults_Container, SetDefaults_Probe) and the
// generated defaulters (container port protocol, fieldRef apiVersion).
// Volume, service and host-network port defaults are not ported. It is
// the [Resource].Default of core/v1 Pod.
func DefaultPod(pod *corev1.Pod) { defaults.Pod(pod) }
