package defaults

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// TestServiceIngressIPMode: an ingress IP without an ipMode gets VIP on a
// LoadBalancer Service only; a hostname, a set ipMode and other Service
// types are left alone.
func TestServiceIngressIPMode(t *testing.T) {
	t.Parallel()
	proxy := corev1.LoadBalancerIPModeProxy
	vip := corev1.LoadBalancerIPModeVIP
	ingress := func() []corev1.LoadBalancerIngress {
		return []corev1.LoadBalancerIngress{{IP: "10.0.0.1"}, {Hostname: "lb.example.com"}, {IP: "10.0.0.2", IPMode: &proxy}}
	}
	for typ, want := range map[corev1.ServiceType][]corev1.LoadBalancerIngress{
		corev1.ServiceTypeLoadBalancer: {{IP: "10.0.0.1", IPMode: &vip}, {Hostname: "lb.example.com"}, {IP: "10.0.0.2", IPMode: &proxy}},
		corev1.ServiceTypeClusterIP:    ingress(),
		"":                             ingress(),
	} {
		svc := &corev1.Service{Spec: corev1.ServiceSpec{Type: typ}, Status: corev1.ServiceStatus{LoadBalancer: corev1.LoadBalancerStatus{Ingress: ingress()}}}
		Service(svc)
		if diff := cmp.Diff(want, svc.Status.LoadBalancer.Ingress); diff != "" {
			t.Errorf("type %q: ingress (-want +got):\n%s", typ, diff)
		}
	}
}

// TestNodeStatusResources: allocatable defaults to a copy of the
// capacity, and both round up to milli-units; a set allocatable stays.
func TestNodeStatusResources(t *testing.T) {
	t.Parallel()
	node := &corev1.Node{Status: corev1.NodeStatus{Capacity: corev1.ResourceList{"cpu": resource.MustParse("1500u")}}}
	Node(node)
	for name, list := range map[string]corev1.ResourceList{"capacity": node.Status.Capacity, "allocatable": node.Status.Allocatable} {
		if got := list.Cpu().String(); got != "2m" {
			t.Errorf("%s cpu = %s, want 2m", name, got)
		}
	}
	node.Status.Allocatable = corev1.ResourceList{"cpu": resource.MustParse("1")}
	Node(node)
	if got := node.Status.Allocatable.Cpu().String(); got != "1" {
		t.Errorf("a set allocatable cpu = %s, want 1 kept", got)
	}
}
