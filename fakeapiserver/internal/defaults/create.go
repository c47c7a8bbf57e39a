package defaults

import (
	corev1 "k8s.io/api/core/v1"
)

const (
	// defaultTolerationSeconds is the DefaultTolerationSeconds admission
	// plugin's default for the not-ready and unreachable taints
	// (kubernetes plugin/pkg/admission/defaulttolerationseconds).
	defaultTolerationSeconds = 300
	// defaultServiceAccount is what the ServiceAccount admission plugin
	// fills into a pod without one.
	defaultServiceAccount = "default"
)

// PodForCreate is what a new pod gets besides its decoder defaults: the
// default admission plugins (admitPodCreate) and its QoS class
// (podStrategy.PrepareForCreate).
func PodForCreate(pod *corev1.Pod) {
	admitPodCreate(pod)
	pod.Status.QOSClass = podQOSClass(pod)
}

// NodeForCreate is nodeStrategy.PrepareForCreate (dropDisabledFields: the
// removed dynamic kubelet config, in spec and status, is never stored)
// and the TaintNodesByCondition admission plugin (addNotReadyTaint); the
// status written is kept.
func NodeForCreate(node *corev1.Node) {
	node.Spec.ConfigSource = nil
	node.Status.Config = nil
	addNotReadyTaint(node)
}

// admitPodCreate applies, to a new pod, the mutating admission plugins of
// a default kube-apiserver whose effect is trivial to reproduce: Priority
// (priority 0 and preemptionPolicy PreemptLowerPriority when no class is
// named), ServiceAccount (serviceAccountName "default"; the token volume is
// not added and a missing account is not rejected) and
// DefaultTolerationSeconds (NoExecute tolerations of 300 s for the
// not-ready and unreachable taints).
func admitPodCreate(pod *corev1.Pod) {
	spec := &pod.Spec
	if spec.PriorityClassName == "" && spec.Priority == nil {
		zero := int32(0)
		spec.Priority = &zero
	}
	if spec.PreemptionPolicy == nil {
		p := corev1.PreemptLowerPriority
		spec.PreemptionPolicy = &p
	}
	if spec.ServiceAccountName == "" {
		spec.ServiceAccountName = defaultServiceAccount
		spec.DeprecatedServiceAccount = defaultServiceAccount
	}
	for _, key := range []string{corev1.TaintNodeNotReady, corev1.TaintNodeUnreachable} {
		if !toleratesNoExecute(spec.Tolerations, key) {
			secs := int64(defaultTolerationSeconds)
			spec.Tolerations = append(spec.Tolerations, corev1.Toleration{
				Key: key, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: &secs,
			})
		}
	}
}

// toleratesNoExecute reports whether a toleration for key with effect
// NoExecute (or any effect) exists, as the plugin checks.
func toleratesNoExecute(ts []corev1.Toleration, key string) bool {
	for _, t := range ts {
		if (t.Key == key || (t.Key == "" && t.Operator == corev1.TolerationOpExists)) &&
			(t.Effect == "" || t.Effect == corev1.TaintEffectNoExecute) {
			return true
		}
	}
	return false
}

// podQOSClass is a simplified qos.GetPodQOS over the defaulted containers:
// BestEffort without any request or limit, Guaranteed when every container
// limits cpu and memory with requests equal to limits, else Burstable.
func podQOSClass(pod *corev1.Pod) corev1.PodQOSClass {
	hasResources, guaranteed := false, true
	for _, cs := range [][]corev1.Container{pod.Spec.InitContainers, pod.Spec.Containers} {
		for _, c := range cs {
			if len(c.Resources.Requests) > 0 || len(c.Resources.Limits) > 0 {
				hasResources = true
			}
			for _, name := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
				l, okL := c.Resources.Limits[name]
				r, okR := c.Resources.Requests[name]
				if !okL || (okR && r.Cmp(l) != 0) {
					guaranteed = false
				}
			}
		}
	}
	switch {
	case !hasResources:
		return corev1.PodQOSBestEffort
	case guaranteed:
		return corev1.PodQOSGuaranteed
	}
	return corev1.PodQOSBurstable
}

// NamespaceForCreate is the namespace strategy's PrepareForCreate
// (kubernetes pkg/registry/core/namespace/strategy.go): phase Active and
// the "kubernetes" finalizer in spec.
func NamespaceForCreate(ns *corev1.Namespace) {
	ns.Status = corev1.NamespaceStatus{Phase: corev1.NamespaceActive}
	for _, f := range ns.Spec.Finalizers {
		if f == corev1.FinalizerKubernetes {
			return
		}
	}
	ns.Spec.Finalizers = append(ns.Spec.Finalizers, corev1.FinalizerKubernetes)
}

// addNotReadyTaint is the TaintNodesByCondition admission plugin, on by
// default, on a node's create (kubernetes plugin/pkg/admission/nodetaint):
// a node starts with the not-ready NoSchedule taint, which the node
// lifecycle controller (absent here) removes once the node is Ready, so
// nothing is scheduled onto a node before it is known to be ready.
func addNotReadyTaint(node *corev1.Node) {
	for _, t := range node.Spec.Taints {
		if t.Key == corev1.TaintNodeNotReady && t.Effect == corev1.TaintEffectNoSchedule {
			return
		}
	}
	node.Spec.Taints = append(node.Spec.Taints, corev1.Taint{Key: corev1.TaintNodeNotReady, Effect: corev1.TaintEffectNoSchedule})
}
