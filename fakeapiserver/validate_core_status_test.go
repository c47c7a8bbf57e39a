package fakeapiserver

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1apply "k8s.io/client-go/applyconfigurations/core/v1"
	"k8s.io/utils/ptr"
)

// TestValidationStatusService: what a load-balancer controller writes
// through client-go: an IP alone is stored with ipMode VIP, by update or
// apply; a hostname that is an IP is refused.
func TestValidationStatusService(t *testing.T) {
	t.Parallel()
	srv := Start(t)
	svcs := clientsetFor(t, srv).CoreV1().Services("default")
	ctx := t.Context()
	svc, err := svcs.Create(ctx, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "lb"}, Spec: corev1.ServiceSpec{
		Type: corev1.ServiceTypeLoadBalancer, Ports: []corev1.ServicePort{{Port: 80}}}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("Create(service) = %v", err)
	}
	svc.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{Hostname: "10.0.0.1"}}
	_, err = svcs.UpdateStatus(ctx, svc, metav1.UpdateOptions{})
	wantInvalid(t, "UpdateStatus(hostname 10.0.0.1)", err, "Service", "lb",
		`Service "lb" is invalid: status.loadBalancer.ingress[0].hostname: Invalid value: "10.0.0.1": must be a DNS name, not an IP address`,
		metav1.StatusCause{Type: "FieldValueInvalid", Message: `Invalid value: "10.0.0.1": must be a DNS name, not an IP address`, Field: "status.loadBalancer.ingress[0].hostname"})

	svc.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: "10.0.0.1"}}
	if svc, err = svcs.UpdateStatus(ctx, svc, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("UpdateStatus(ip) = %v", err)
	}
	vip := ptr.To(corev1.LoadBalancerIPModeVIP)
	if want := []corev1.LoadBalancerIngress{{IP: "10.0.0.1", IPMode: vip}}; !cmp.Equal(want, svc.Status.LoadBalancer.Ingress) {
		t.Errorf("after UpdateStatus: ingress = %v, want %v", svc.Status.LoadBalancer.Ingress, want)
	}

	apply := corev1apply.Service("lb", "default").WithStatus(corev1apply.ServiceStatus().WithLoadBalancer(
		corev1apply.LoadBalancerStatus().WithIngress(corev1apply.LoadBalancerIngress().WithIP("10.0.0.2"))))
	if svc, err = svcs.ApplyStatus(ctx, apply, metav1.ApplyOptions{FieldManager: "lb-controller", Force: true}); err != nil {
		t.Fatalf("ApplyStatus(ip) = %v", err)
	}
	if want := []corev1.LoadBalancerIngress{{IP: "10.0.0.2", IPMode: vip}}; !cmp.Equal(want, svc.Status.LoadBalancer.Ingress) {
		t.Errorf("after ApplyStatus: ingress = %v, want %v", svc.Status.LoadBalancer.Ingress, want)
	}
}

// TestValidationStatusNode: a node status written with a capacity alone
// gets it as allocatable; several bad entries of one map come sorted by
// resource name (kube-apiserver's order is random).
func TestValidationStatusNode(t *testing.T) {
	t.Parallel()
	srv := Start(t)
	nodes := clientsetFor(t, srv).CoreV1().Nodes()
	ctx := t.Context()
	n, err := nodes.Create(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("Create(node) = %v", err)
	}
	n.Status.Capacity = corev1.ResourceList{corev1.ResourcePods: resource.MustParse("110"), corev1.ResourceCPU: resource.MustParse("4")}
	if n, err = nodes.UpdateStatus(ctx, n, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("UpdateStatus(capacity) = %v", err)
	}
	if diff := cmp.Diff(n.Status.Capacity, n.Status.Allocatable); diff != "" {
		t.Errorf("allocatable is not the capacity (-capacity +allocatable):\n%s", diff)
	}

	n.Status.Allocatable = corev1.ResourceList{corev1.ResourcePods: resource.MustParse("1500m"), corev1.ResourceCPU: resource.MustParse("-1")}
	_, err = nodes.UpdateStatus(ctx, n, metav1.UpdateOptions{})
	wantInvalid(t, "UpdateStatus(allocatable cpu -1, pods 1500m)", err, "Node", "n",
		`Node "n" is invalid: [status.allocatable.cpu: Invalid value: "-1": must be greater than or equal to 0, status.allocatable.pods: Invalid value: "1500m": must be an integer]`,
		metav1.StatusCause{Type: "FieldValueInvalid", Message: `Invalid value: "-1": must be greater than or equal to 0`, Field: "status.allocatable.cpu"},
		metav1.StatusCause{Type: "FieldValueInvalid", Message: `Invalid value: "1500m": must be an integer`, Field: "status.allocatable.pods"})
}

// TestValidationStatusPVC: a claim's resize status is refused for a
// resource other than storage; healthStatus (CSIVolumeHealth, off) is
// dropped from a valid write.
func TestValidationStatusPVC(t *testing.T) {
	t.Parallel()
	srv := Start(t)
	pvcs := clientsetFor(t, srv).CoreV1().PersistentVolumeClaims("default")
	ctx := t.Context()
	c, err := pvcs.Create(ctx, &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: "c"}, Spec: corev1.PersistentVolumeClaimSpec{
		AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
		Resources:   corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}},
	}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("Create(claim) = %v", err)
	}
	c.Status.AllocatedResources = corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("1Gi")}
	_, err = pvcs.UpdateStatus(ctx, c, metav1.UpdateOptions{})
	wantInvalid(t, "UpdateStatus(memory allocated)", err, "PersistentVolumeClaim", "c",
		`PersistentVolumeClaim "c" is invalid: status.allocatedResources: Unsupported value: "memory": supported values: "storage"`,
		metav1.StatusCause{Type: "FieldValueNotSupported", Message: `Unsupported value: "memory": supported values: "storage"`, Field: "status.allocatedResources"})

	c.Status.AllocatedResources = corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("2Gi")}
	c.Status.HealthStatus = &corev1.VolumeHealthStatus{}
	if c, err = pvcs.UpdateStatus(ctx, c, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("UpdateStatus(storage allocated) = %v", err)
	}
	if c.Status.HealthStatus != nil || c.Status.AllocatedResources.Storage().String() != "2Gi" {
		t.Errorf("after UpdateStatus: healthStatus %v, allocatedResources %v; want none, storage 2Gi", c.Status.HealthStatus, c.Status.AllocatedResources)
	}
}
