package fakeapiserver

import (
	"net/netip"
	"slices"

	corev1 "k8s.io/api/core/v1"
)

// What the service REST does to an update before allocating (kubernetes
// pkg/registry/core/service/storage/storage.go and strategy.go), so that
// re-sending a Service without its allocated values keeps them.

// patchAllocatedValues keeps the old cluster IPs, node ports (matched by
// port name) and health check node port an update leaves out, where both
// sides need them.
func patchAllocatedValues(svc, old *corev1.Service) {
	if needsClusterIP(old) && needsClusterIP(svc) {
		if svc.Spec.ClusterIP == "" {
			svc.Spec.ClusterIP = old.Spec.ClusterIP
		}
		if len(svc.Spec.ClusterIPs) == 0 && len(old.Spec.ClusterIPs) > 0 {
			svc.Spec.ClusterIPs = slices.Clone(old.Spec.ClusterIPs)
		}
	}
	if needsNodePort(old) && needsNodePort(svc) {
		used := map[int32]bool{}
		oldPorts := nodePortsOf(old)
		for _, p := range nodePortsOf(svc) {
			if slices.Contains(oldPorts, p) {
				used[p] = true
			}
		}
		byName := map[string]int32{}
		for _, p := range old.Spec.Ports {
			byName[p.Name] = p.NodePort
		}
		for i := range svc.Spec.Ports {
			p := &svc.Spec.Ports[i]
			if p.NodePort == 0 && !used[byName[p.Name]] {
				p.NodePort = byName[p.Name]
			}
		}
	}
	if needsHealthCheck(old) && needsHealthCheck(svc) && svc.Spec.HealthCheckNodePort == 0 {
		svc.Spec.HealthCheckNodePort = old.Spec.HealthCheckNodePort
	}
}

// normalizeClusterIPs keeps clusterIP and clusterIPs in step: a create
// naming only clusterIP gets clusterIPs from it; an update that drops
// clusterIPs but keeps clusterIP keeps them, one that clears clusterIP
// alone clears both, one that changes clusterIP alone changes both.
func normalizeClusterIPs(svc, old *corev1.Service) {
	spec := &svc.Spec
	if old == nil {
		if spec.ClusterIP != "" && len(spec.ClusterIPs) == 0 {
			spec.ClusterIPs = []string{spec.ClusterIP}
		}
		return
	}
	if len(old.Spec.ClusterIPs) > 0 && len(spec.ClusterIPs) == 0 && old.Spec.ClusterIP == spec.ClusterIP {
		spec.ClusterIPs = slices.Clone(old.Spec.ClusterIPs)
	}
	if old.Spec.ClusterIP != spec.ClusterIP && slices.Equal(old.Spec.ClusterIPs, spec.ClusterIPs) {
		if spec.ClusterIP == "" {
			spec.ClusterIPs = nil
		} else {
			spec.ClusterIPs = []string{spec.ClusterIP}
		}
	}
}

// dropTypeDependentFields is the strategy's: a change to ExternalName
// clears the IP fields it left as they were, a change to a type without
// node ports clears the unchanged node ports, and the health check node
// port goes when no longer needed.
func dropTypeDependentFields(svc, old *corev1.Service) {
	spec := &svc.Spec
	if needsClusterIP(old) && !needsClusterIP(svc) {
		if slices.Equal(old.Spec.ClusterIPs, spec.ClusterIPs) {
			spec.ClusterIP, spec.ClusterIPs = "", nil
		}
		if slices.Equal(old.Spec.IPFamilies, spec.IPFamilies) {
			spec.IPFamilies = nil
		}
		if (old.Spec.IPFamilyPolicy == nil) == (spec.IPFamilyPolicy == nil) &&
			(spec.IPFamilyPolicy == nil || *spec.IPFamilyPolicy == *old.Spec.IPFamilyPolicy) {
			spec.IPFamilyPolicy = nil
		}
	}
	if needsNodePort(old) && !needsNodePort(svc) && slices.Equal(nodePortsOf(old), nodePortsOf(svc)) {
		for i := range spec.Ports {
			spec.Ports[i].NodePort = 0
		}
	}
	if needsHealthCheck(old) && !needsHealthCheck(svc) && spec.HealthCheckNodePort == old.Spec.HealthCheckNodePort {
		spec.HealthCheckNodePort = 0
	}
}

// needsClusterIP: every type but ExternalName.
func needsClusterIP(svc *corev1.Service) bool { return svc.Spec.Type != corev1.ServiceTypeExternalName }

// needsNodePort: NodePort, or LoadBalancer allocating node ports.
func needsNodePort(svc *corev1.Service) bool { return shouldAllocateNodePorts(svc) }

// nodePortsOf lists the set node ports, in port order.
func nodePortsOf(svc *corev1.Service) []int32 {
	var out []int32
	for _, p := range svc.Spec.Ports {
		if p.NodePort != 0 {
			out = append(out, p.NodePort)
		}
	}
	return out
}

// parseIP parses an IP as the API accepts it.
func parseIP(s string) (netip.Addr, error) { return netip.ParseAddr(s) }
