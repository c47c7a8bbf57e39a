package fakeapiserver

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// The Service default/kubernetes, through which pods reach the API
// server, as kube-apiserver's bootstrap controller creates it (kubernetes
// pkg/controlplane/controller/kubernetesservice/controller.go
// CreateOrUpdateMasterServiceIfNeeded): port "https" 443 to the server's
// secure port, the first address of the service CIDR, labels
// provider=kubernetes and component=apiserver, no selector. Its endpoints
// are the endpoint reconciler's, which the reference server runs with
// --endpoint-reconciler-type=none: there is no Endpoints or EndpointSlice
// "kubernetes" (observed), and lw-sim writes none either.

const (
	// kubernetesServiceName is the Service's name in namespace default.
	kubernetesServiceName = "kubernetes"
	// kubernetesServicePort is its port, named kubernetesServicePortName.
	kubernetesServicePort     = 443
	kubernetesServicePortName = "https"
	// defaultSecurePort is kube-apiserver's --secure-port default: the
	// Service's target port until Serve knows the listener's.
	defaultSecurePort = 6443
	// kubernetesServiceInterval is how often the bootstrap controller
	// creates the Service if it is missing (controlplane/instance.go
	// DefaultEndpointReconcilerInterval).
	kubernetesServiceInterval = 10 * time.Second
)

// servicesGVR is the core services resource.
var servicesGVR = schema.GroupVersionResource{Version: "v1", Resource: "services"}

// kubernetesServiceObjects is the Service as the bootstrap controller
// creates it, targeting the port Serve listens on (defaultSecurePort
// before it does).
func (s *Server) kubernetesServiceObjects() []bootstrapObject {
	single := corev1.IPFamilyPolicySingleStack
	svc := &corev1.Service{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Service"},
		ObjectMeta: metav1.ObjectMeta{Name: kubernetesServiceName, Namespace: metav1.NamespaceDefault,
			Labels: map[string]string{"provider": "kubernetes", "component": "apiserver"}},
		Spec: corev1.ServiceSpec{
			Ports: []corev1.ServicePort{{Protocol: corev1.ProtocolTCP, Port: kubernetesServicePort, Name: kubernetesServicePortName,
				TargetPort: intstr.FromInt32(s.securePort())}},
			ClusterIP:       firstServiceIP(s.cfg.ServiceClusterIPRange).String(),
			IPFamilyPolicy:  &single,
			SessionAffinity: corev1.ServiceAffinityNone,
			Type:            corev1.ServiceTypeClusterIP,
		},
	}
	return []bootstrapObject{{gvr: servicesGVR, namespace: metav1.NamespaceDefault, name: kubernetesServiceName, body: svc}}
}

// firstServiceIP is the Service's cluster IP, the service CIDR's first
// address (the controller's ServiceIP, ServiceIPRange's index 1).
func firstServiceIP(cidr netip.Prefix) netip.Addr {
	return cidr.Masked().Addr().Next()
}

// securePort is the port the Service targets: the TCP port Serve last
// listened on, else defaultSecurePort.
func (s *Server) securePort() int32 {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.servePort != 0 {
		return s.servePort
	}
	return defaultSecurePort
}

// retargetKubernetesService records the port Serve listens on (if ln is
// TCP) and points the Service there if it still targets another port: New
// created it before the port was known, where kube-apiserver creates it
// once it serves. It runs before Serve accepts a connection, so clients
// only ever see the listener's port (one MODIFIED event apart).
func (s *Server) retargetKubernetesService(ln net.Listener) error {
	addr, ok := ln.Addr().(*net.TCPAddr)
	if !ok || addr.Port <= 0 || addr.Port > 65535 {
		return nil
	}
	port := int32(addr.Port)
	s.mu.Lock()
	s.servePort = port
	s.mu.Unlock()
	res, ok := s.resources.lookup(servicesGVR)
	if !ok {
		return nil
	}
	cur, err := s.store.Get(res.storageKey, objectKey(res, metav1.NamespaceDefault, kubernetesServiceName), 0)
	if err != nil {
		return nil // deleted: the controller recreates it with the port
	}
	svc, ok := cur.(*corev1.Service)
	if !ok || len(svc.Spec.Ports) != 1 || svc.Spec.Ports[0].TargetPort.IntValue() == int(port) ||
		svc.Spec.Ports[0].TargetPort.IntValue() != defaultSecurePort {
		return nil // already there, or changed by someone else
	}
	next := svc.DeepCopy()
	next.TypeMeta = metav1.TypeMeta{APIVersion: "v1", Kind: "Service"}
	next.Spec.Ports[0].TargetPort = intstr.FromInt32(port)
	path := bootstrapObject{gvr: servicesGVR, namespace: metav1.NamespaceDefault}.path() + "/" + kubernetesServiceName
	if _, err := s.loopback(context.Background(), loopbackRequest{method: http.MethodPut, path: path, body: next}); err != nil {
		return fmt.Errorf("fakeapiserver: point Service default/kubernetes at port %d: %w", port, err)
	}
	return nil
}
