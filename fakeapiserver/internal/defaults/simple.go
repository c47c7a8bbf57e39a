package defaults

import (
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/utils/ptr"
)

// The decoder defaults of kinds with a handful of scalar rules each
// (kubernetes pkg/apis/<group>/v1/defaults.go and the generated
// SetObjectDefaults_<Kind> that walk to them).

// Secret is core/v1 SetDefaults_Secret (a Secret without a type is
// Opaque) and what the v1-to-internal conversion does to stringData
// (conversion.go Convert_v1_Secret_To_core_Secret): it overwrites data's
// keys, and is gone, the internal type has no such field, so it is never
// stored nor returned.
func Secret(s *corev1.Secret) {
	if s.Type == "" {
		s.Type = corev1.SecretTypeOpaque
	}
	if len(s.StringData) > 0 && s.Data == nil {
		s.Data = make(map[string][]byte, len(s.StringData))
	}
	for k, v := range s.StringData {
		s.Data[k] = []byte(v)
	}
	s.StringData = nil
}

// Endpoints is core/v1 SetDefaults_Endpoints: a subset port's protocol is
// TCP.
func Endpoints(ep *corev1.Endpoints) {
	for i := range ep.Subsets {
		for j := range ep.Subsets[i].Ports {
			if p := &ep.Subsets[i].Ports[j]; p.Protocol == "" {
				p.Protocol = corev1.ProtocolTCP
			}
		}
	}
}

// LimitRange is core/v1 SetDefaults_LimitRangeItem for each item: a
// Container item's default limit is its max, its default request its
// default limit, else its min.
func LimitRange(lr *corev1.LimitRange) {
	for i := range lr.Spec.Limits {
		item := &lr.Spec.Limits[i]
		if item.Type != corev1.LimitTypeContainer {
			continue
		}
		if item.Default == nil {
			item.Default = corev1.ResourceList{}
		}
		if item.DefaultRequest == nil {
			item.DefaultRequest = corev1.ResourceList{}
		}
		fillMissing(item.Default, item.Max)
		fillMissing(item.DefaultRequest, item.Default)
		fillMissing(item.DefaultRequest, item.Min)
	}
}

// fillMissing copies into dst the quantities of src it does not have.
func fillMissing(dst, src corev1.ResourceList) {
	for k, v := range src {
		if _, ok := dst[k]; !ok {
			dst[k] = v.DeepCopy()
		}
	}
}

// EndpointSlice is discovery/v1 SetDefaults_EndpointPort for each port:
// name "" and protocol TCP.
func EndpointSlice(s *discoveryv1.EndpointSlice) {
	for i := range s.Ports {
		p := &s.Ports[i]
		if p.Name == nil {
			p.Name = ptr.To("")
		}
		if p.Protocol == nil {
			p.Protocol = ptr.To(corev1.ProtocolTCP)
		}
	}
}

// NetworkPolicy is networking/v1 SetDefaults_NetworkPolicy and
// SetDefaults_NetworkPolicyPort: policy types Ingress (and Egress with
// egress rules), rule ports TCP.
func NetworkPolicy(np *networkingv1.NetworkPolicy) {
	if len(np.Spec.PolicyTypes) == 0 {
		np.Spec.PolicyTypes = []networkingv1.PolicyType{networkingv1.PolicyTypeIngress}
		if len(np.Spec.Egress) != 0 {
			np.Spec.PolicyTypes = append(np.Spec.PolicyTypes, networkingv1.PolicyTypeEgress)
		}
	}
	for i := range np.Spec.Ingress {
		networkPolicyPorts(np.Spec.Ingress[i].Ports)
	}
	for i := range np.Spec.Egress {
		networkPolicyPorts(np.Spec.Egress[i].Ports)
	}
}

func networkPolicyPorts(ports []networkingv1.NetworkPolicyPort) {
	for i := range ports {
		if ports[i].Protocol == nil {
			ports[i].Protocol = ptr.To(corev1.ProtocolTCP)
		}
	}
}

// IngressClass is networking/v1 SetDefaults_IngressClass: parameters are
// cluster-scoped.
func IngressClass(ic *networkingv1.IngressClass) {
	if p := ic.Spec.Parameters; p != nil && p.Scope == nil {
		p.Scope = ptr.To(networkingv1.IngressClassParametersReferenceScopeCluster)
	}
}

// RoleBinding is rbac/v1 SetDefaults_RoleBinding and SetDefaults_Subject:
// the role reference and User and Group subjects are of
// rbac.authorization.k8s.io.
func RoleBinding(rb *rbacv1.RoleBinding) { bindingDefaults(&rb.RoleRef, rb.Subjects) }

// ClusterRoleBinding is SetDefaults_ClusterRoleBinding, as [RoleBinding].
func ClusterRoleBinding(crb *rbacv1.ClusterRoleBinding) { bindingDefaults(&crb.RoleRef, crb.Subjects) }

func bindingDefaults(ref *rbacv1.RoleRef, subjects []rbacv1.Subject) {
	if ref.APIGroup == "" {
		ref.APIGroup = rbacv1.GroupName
	}
	for i := range subjects {
		s := &subjects[i]
		if s.APIGroup == "" && (s.Kind == rbacv1.UserKind || s.Kind == rbacv1.GroupKind) {
			s.APIGroup = rbacv1.GroupName
		}
	}
}

// StorageClass is storage/v1 SetDefaults_StorageClass: reclaim policy
// Delete, binding mode Immediate.
func StorageClass(sc *storagev1.StorageClass) {
	if sc.ReclaimPolicy == nil {
		sc.ReclaimPolicy = ptr.To(corev1.PersistentVolumeReclaimDelete)
	}
	if sc.VolumeBindingMode == nil {
		sc.VolumeBindingMode = ptr.To(storagev1.VolumeBindingImmediate)
	}
}

// CSIDriver is storage/v1 SetDefaults_CSIDriver with v1.37's default
// feature gates (SELinuxMountReadWriteOncePod and VolumeLimitScaling on:
// seLinuxMount and preventPodSchedulingIfMissing are defaulted, observed).
func CSIDriver(d *storagev1.CSIDriver) {
	s := &d.Spec
	setBool(&s.AttachRequired, true)
	setBool(&s.PodInfoOnMount, false)
	setBool(&s.StorageCapacity, false)
	if s.FSGroupPolicy == nil {
		s.FSGroupPolicy = ptr.To(storagev1.ReadWriteOnceWithFSTypeFSGroupPolicy)
	}
	if len(s.VolumeLifecycleModes) == 0 {
		s.VolumeLifecycleModes = []storagev1.VolumeLifecycleMode{storagev1.VolumeLifecyclePersistent}
	}
	setBool(&s.RequiresRepublish, false)
	setBool(&s.SELinuxMount, false)
	setBool(&s.PreventPodSchedulingIfMissing, false)
}

// setBool points *p at v unless it is set.
func setBool(p **bool, v bool) {
	if *p == nil {
		*p = ptr.To(v)
	}
}

// PriorityClass is scheduling/v1 SetDefaults_PriorityClass: lower
// priorities are preempted.
func PriorityClass(pc *schedulingv1.PriorityClass) {
	if pc.PreemptionPolicy == nil {
		pc.PreemptionPolicy = ptr.To(corev1.PreemptLowerPriority)
	}
}
