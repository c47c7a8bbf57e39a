package defaults

import (
	corev1 "k8s.io/api/core/v1"
)

// Node is SetObjectDefaults_Node and the core/v1 conversion of the pod
// CIDRs (nodePodCIDRs).
func Node(n *corev1.Node) {
	nodePodCIDRs(&n.Spec)
	nodeStatus(n)
}

// nodePodCIDRs is the round trip of a node spec through kube-apiserver's
// internal type (Convert_v1_NodeSpec_To_core_NodeSpec and back): a
// podCIDR that differs from podCIDRs[0], or comes alone, becomes the only
// pod CIDR; podCIDR is then podCIDRs[0]. An IPAM controller writing the
// legacy field alone, or a test reading it, sees both agree.
func nodePodCIDRs(spec *corev1.NodeSpec) {
	if spec.PodCIDR != "" && (len(spec.PodCIDRs) == 0 || spec.PodCIDRs[0] != spec.PodCIDR) {
		spec.PodCIDRs = []string{spec.PodCIDR}
	}
	if len(spec.PodCIDRs) > 0 {
		spec.PodCIDR = spec.PodCIDRs[0]
	}
}

// nodeStatus is SetObjectDefaults_Node: a status with a capacity and no
// allocatable gets the capacity as allocatable (SetDefaults_NodeStatus),
// then both lists are rounded up to milli-units (SetDefaults_ResourceList).
func nodeStatus(node *corev1.Node) {
	s := &node.Status
	if s.Allocatable == nil && s.Capacity != nil {
		s.Allocatable = s.Capacity.DeepCopy()
	}
	roundUpToMilli(s.Capacity)
	roundUpToMilli(s.Allocatable)
}
