package defaults

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// Service is SetObjectDefaults_Service (kubernetes pkg/apis/core/v1
// defaults.go, SetDefaults_Service): type ClusterIP, sessionAffinity None
// (ClientIP gets a 3-hour timeout), each port protocol TCP and targetPort
// = port, externalTrafficPolicy Cluster when reachable from outside,
// internalTrafficPolicy Cluster for the types with a cluster IP,
// allocateLoadBalancerNodePorts true for LoadBalancer, and the status's
// ingress ipMode (serviceStatus). The IP family fields and cluster IPs
// are the server's allocation, not defaults (fakeapiserver
// service_alloc.go).
func Service(svc *corev1.Service) {
	spec := &svc.Spec
	if spec.SessionAffinity == "" {
		spec.SessionAffinity = corev1.ServiceAffinityNone
	}
	switch spec.SessionAffinity {
	case corev1.ServiceAffinityNone:
		spec.SessionAffinityConfig = nil
	case corev1.ServiceAffinityClientIP:
		if c := spec.SessionAffinityConfig; c == nil || c.ClientIP == nil || c.ClientIP.TimeoutSeconds == nil {
			timeout := corev1.DefaultClientIPServiceAffinitySeconds
			spec.SessionAffinityConfig = &corev1.SessionAffinityConfig{ClientIP: &corev1.ClientIPConfig{TimeoutSeconds: &timeout}}
		}
	}
	if spec.Type == "" {
		spec.Type = corev1.ServiceTypeClusterIP
	}
	for i := range spec.Ports {
		servicePort(&spec.Ports[i])
	}
	if externallyAccessible(svc) && spec.ExternalTrafficPolicy == "" {
		spec.ExternalTrafficPolicy = corev1.ServiceExternalTrafficPolicyCluster
	}
	hasClusterIP := spec.Type == corev1.ServiceTypeClusterIP || spec.Type == corev1.ServiceTypeNodePort || spec.Type == corev1.ServiceTypeLoadBalancer
	if spec.InternalTrafficPolicy == nil && hasClusterIP {
		cluster := corev1.ServiceInternalTrafficPolicyCluster
		spec.InternalTrafficPolicy = &cluster
	}
	if spec.Type == corev1.ServiceTypeLoadBalancer && spec.AllocateLoadBalancerNodePorts == nil {
		allocate := true
		spec.AllocateLoadBalancerNodePorts = &allocate
	}
	serviceStatus(svc)
}

// servicePort defaults one port: protocol TCP, and a missing targetPort
// (0 or "") is the port itself.
func servicePort(sp *corev1.ServicePort) {
	if sp.Protocol == "" {
		sp.Protocol = corev1.ProtocolTCP
	}
	if sp.TargetPort == intstr.FromInt32(0) || sp.TargetPort == intstr.FromString("") {
		sp.TargetPort = intstr.FromInt32(sp.Port)
	}
}

// externallyAccessible is service.ExternallyAccessible (pkg/api/v1/service):
// LoadBalancer, NodePort, or ClusterIP with external IPs.
func externallyAccessible(svc *corev1.Service) bool {
	switch svc.Spec.Type {
	case corev1.ServiceTypeLoadBalancer, corev1.ServiceTypeNodePort:
		return true
	case corev1.ServiceTypeClusterIP:
		return len(svc.Spec.ExternalIPs) > 0
	}
	return false
}
