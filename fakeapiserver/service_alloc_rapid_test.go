package fakeapiserver

import (
	"context"
	"fmt"
	"net/netip"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	"pgregory.net/rapid"
)

// svcAllocCIDR is a small service CIDR: 14 assignable addresses
// (10.9.0.1-10.9.0.14), so the machine fills it.
var svcAllocCIDR = netip.MustParsePrefix("10.9.0.0/28")

// kubernetesServiceIP is svcAllocCIDR's first address, which the Service
// default/kubernetes holds (bootstrap_service.go).
const kubernetesServiceIP = "10.9.0.1"

// svcModel is what the machine knows of a stored Service.
type svcModel struct {
	typ      corev1.ServiceType
	ip       string // "" for ExternalName
	nodePort int32  // 0 unless NodePort
}

// svcAllocMachine creates, deletes and retypes Services with requested or
// allocated cluster IPs and node ports, and checks every answer against a
// model of who holds what; after each step the stored Services hold
// distinct, assignable IPs and distinct node ports.
type svcAllocMachine struct {
	cs    kubernetes.Interface
	ns    string
	model map[string]svcModel
}

func (m *svcAllocMachine) svcs() corev1client.ServiceInterface { return m.cs.CoreV1().Services(m.ns) }

// ipHeld reports whether a modelled Service, or default/kubernetes (the
// CIDR's first address), holds ip.
func (m *svcAllocMachine) ipHeld(ip string) bool {
	if ip == kubernetesServiceIP {
		return true
	}
	for _, s := range m.model {
		if s.ip == ip {
			return true
		}
	}
	return false
}

// portHeld reports whether a modelled Service holds port.
func (m *svcAllocMachine) portHeld(port int32) bool {
	for _, s := range m.model {
		if s.nodePort == port {
			return true
		}
	}
	return false
}

// ipsFull reports whether every assignable address is held: 13 by the
// modelled Services, the 14th by default/kubernetes.
func (m *svcAllocMachine) ipsFull() bool {
	n := 0
	for _, s := range m.model {
		if s.ip != "" {
			n++
		}
	}
	return n == 13
}

func (m *svcAllocMachine) Create(t *rapid.T) {
	name := rapid.SampledFrom([]string{"a", "b", "c", "d"}).Draw(t, "name")
	typ := rapid.SampledFrom([]corev1.ServiceType{corev1.ServiceTypeClusterIP, corev1.ServiceTypeNodePort, corev1.ServiceTypeExternalName}).Draw(t, "type")
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: corev1.ServiceSpec{Type: typ,
		Ports: []corev1.ServicePort{{Port: 80}}}}
	var ip string
	var port int32
	switch typ {
	case corev1.ServiceTypeExternalName:
		svc.Spec.ExternalName = "db.example.com"
	case corev1.ServiceTypeNodePort:
		port = rapid.SampledFrom([]int32{0, 0, 30000, 30001, 29999}).Draw(t, "nodePort")
		svc.Spec.Ports[0].NodePort = port
		fallthrough
	default:
		if rapid.Bool().Draw(t, "request IP") {
			ip = fmt.Sprintf("10.9.0.%d", rapid.IntRange(0, 16).Draw(t, "last byte"))
			svc.Spec.ClusterIP = ip
		}
	}
	got, err := m.svcs().Create(context.Background(), svc, metav1.CreateOptions{})
	// The service REST allocates before the name is checked, as
	// kube-apiserver's BeginCreate runs before the store.
	addr := netip.MustParseAddr(coalesce(ip, "10.9.0.1"))
	switch {
	case typ != corev1.ServiceTypeExternalName && ip != "" && (addr == svcAllocCIDR.Addr() || addr.Compare(netip.MustParseAddr("10.9.0.15")) >= 0):
		expectCode(t, "Create with IP "+ip, err, 422)
		return
	case typ != corev1.ServiceTypeExternalName && ip != "" && m.ipHeld(ip):
		expectCode(t, "Create with taken IP "+ip, err, 422)
		return
	case typ != corev1.ServiceTypeExternalName && ip == "" && m.ipsFull():
		expectCode(t, "Create with the range full", err, 500)
		return
	case port == 29999 || (port != 0 && m.portHeld(port)):
		expectCode(t, fmt.Sprintf("Create with nodePort %d", port), err, 422)
		return
	}
	if _, exists := m.model[name]; exists {
		expectCode(t, "Create existing", err, 409)
		return
	}
	expectCode(t, "Create", err, 0)
	s := svcModel{typ: typ, ip: got.Spec.ClusterIP, nodePort: got.Spec.Ports[0].NodePort}
	if (ip != "" && s.ip != ip) || (port != 0 && s.nodePort != port) {
		t.Fatalf("Create(%s) got IP %s nodePort %d, requested %s %d", name, s.ip, s.nodePort, ip, port)
	}
	m.model[name] = s
}

func (m *svcAllocMachine) Delete(t *rapid.T) {
	name := rapid.SampledFrom([]string{"a", "b", "c", "d"}).Draw(t, "name")
	err := m.svcs().Delete(context.Background(), name, metav1.DeleteOptions{})
	if _, exists := m.model[name]; !exists {
		expectCode(t, "Delete missing", err, 404)
		return
	}
	expectCode(t, "Delete", err, 0)
	delete(m.model, name)
}

func (m *svcAllocMachine) Retype(t *rapid.T) {
	name := rapid.SampledFrom([]string{"a", "b", "c", "d"}).Draw(t, "name")
	typ := rapid.SampledFrom([]corev1.ServiceType{corev1.ServiceTypeClusterIP, corev1.ServiceTypeNodePort, corev1.ServiceTypeExternalName}).Draw(t, "type")
	patch := fmt.Sprintf(`{"spec":{"type":%q,"externalName":null}}`, typ)
	if typ == corev1.ServiceTypeExternalName {
		patch = `{"spec":{"type":"ExternalName","externalName":"db.example.com"}}`
	}
	got, err := m.svcs().Patch(context.Background(), name, types.MergePatchType, []byte(patch), metav1.PatchOptions{})
	old, exists := m.model[name]
	switch {
	case !exists:
		expectCode(t, "Retype missing", err, 404)
		return
	case old.typ == corev1.ServiceTypeExternalName && typ != old.typ && m.ipsFull():
		expectCode(t, "Retype with the range full", err, 500)
		return
	}
	expectCode(t, "Retype", err, 0)
	s := svcModel{typ: typ, ip: got.Spec.ClusterIP, nodePort: got.Spec.Ports[0].NodePort}
	if typ != corev1.ServiceTypeExternalName && old.ip != "" && s.ip != old.ip {
		t.Fatalf("Retype(%s, %s) changed the IP %s to %s", name, typ, old.ip, s.ip)
	}
	if (typ == corev1.ServiceTypeNodePort) != (s.nodePort != 0) || (typ == corev1.ServiceTypeExternalName) != (s.ip == "") {
		t.Fatalf("Retype(%s, %s) = IP %q nodePort %d", name, typ, s.ip, s.nodePort)
	}
	if old.nodePort != 0 && s.nodePort != 0 && s.nodePort != old.nodePort {
		t.Fatalf("Retype(%s, %s) changed the nodePort %d to %d", name, typ, old.nodePort, s.nodePort)
	}
	m.model[name] = s
}

// Check: the stored Services are the model, with distinct assignable IPs
// and distinct node ports in range.
func (m *svcAllocMachine) Check(t *rapid.T) {
	list, err := m.svcs().List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatalf("List: %v", err)
	}
	ips, ports := map[string]bool{}, map[int32]bool{}
	for _, s := range list.Items {
		want := m.model[s.Name]
		got := svcModel{typ: s.Spec.Type, ip: s.Spec.ClusterIP, nodePort: s.Spec.Ports[0].NodePort}
		if got != want {
			t.Fatalf("stored %s = %+v, model %+v", s.Name, got, want)
		}
		if got.ip != "" {
			addr := netip.MustParseAddr(got.ip)
			if ips[got.ip] || !svcAllocCIDR.Contains(addr) || addr == svcAllocCIDR.Addr() || got.ip == "10.9.0.15" {
				t.Fatalf("%s holds IP %s: taken twice or not assignable", s.Name, got.ip)
			}
			ips[got.ip] = true
		}
		if got.nodePort != 0 {
			if ports[got.nodePort] || got.nodePort < 30000 || got.nodePort > 32767 {
				t.Fatalf("%s holds nodePort %d: taken twice or out of range", s.Name, got.nodePort)
			}
			ports[got.nodePort] = true
		}
	}
	if len(list.Items) != len(m.model) {
		t.Fatalf("%d services stored, model has %d", len(list.Items), len(m.model))
	}
}

func coalesce(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// TestServiceAllocRapid runs svcAllocMachine on a server whose service
// CIDR is Config.ServiceClusterIPRange; each run has its own namespace
// and starts with no Service anywhere, since addresses are server-wide.
func TestServiceAllocRapid(t *testing.T) {
	t.Parallel()
	srv := Start(t, WithConfig(func(c *Config) { c.ServiceClusterIPRange = svcAllocCIDR }))
	cs := clientsetFor(t, srv)
	run := 0
	rapid.Check(t, func(rt *rapid.T) {
		run++
		ns := fmt.Sprintf("svc-%d", run)
		if _, err := cs.CoreV1().Namespaces().Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
			rt.Fatalf("Create(namespace %s): %v", ns, err)
		}
		clearServices(rt, cs)
		rt.Repeat(rapid.StateMachineActions(&svcAllocMachine{cs: cs, ns: ns, model: map[string]svcModel{}}))
	})
}

// TestServiceAllocConcurrent: concurrent creates never share a cluster IP
// or node port, though each allocation reads the store before the others
// are written. The 13 fill the range with default/kubernetes.
func TestServiceAllocConcurrent(t *testing.T) {
	t.Parallel()
	srv := Start(t, WithConfig(func(c *Config) { c.ServiceClusterIPRange = svcAllocCIDR }))
	cs := clientsetFor(t, srv)
	const n = 13
	got := make([]*corev1.Service, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("s%d", i)}, Spec: corev1.ServiceSpec{
				Type: corev1.ServiceTypeNodePort, Ports: []corev1.ServicePort{{Port: 80, TargetPort: intstr.FromInt32(8080)}}}}
			s, err := cs.CoreV1().Services("default").Create(t.Context(), svc, metav1.CreateOptions{})
			if err != nil {
				t.Errorf("Create(s%d): %v", i, err)
				return
			}
			got[i] = s
		})
	}
	wg.Wait()
	ips, ports := map[string]string{}, map[int32]string{}
	for _, s := range got {
		if s == nil {
			continue
		}
		if other, ok := ips[s.Spec.ClusterIP]; ok {
			t.Errorf("%s and %s share cluster IP %s", s.Name, other, s.Spec.ClusterIP)
		}
		if other, ok := ports[s.Spec.Ports[0].NodePort]; ok {
			t.Errorf("%s and %s share nodePort %d", s.Name, other, s.Spec.Ports[0].NodePort)
		}
		ips[s.Spec.ClusterIP], ports[s.Spec.Ports[0].NodePort] = s.Name, s.Name
	}
	_, err := cs.CoreV1().Services("default").Create(t.Context(), &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "full"},
		Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 80}}}}, metav1.CreateOptions{})
	if code := statusCodeOf(err); code != 500 {
		t.Errorf("create with the range full = %v, want 500", err)
	}
}

// clearServices deletes every Service, in every namespace, but
// default/kubernetes: the server would create it again 10 s later.
func clearServices(t *rapid.T, cs kubernetes.Interface) {
	list, err := cs.CoreV1().Services("").List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatalf("List: %v", err)
	}
	for _, s := range list.Items {
		if s.Namespace == metav1.NamespaceDefault && s.Name == kubernetesServiceName {
			continue
		}
		if err := cs.CoreV1().Services(s.Namespace).Delete(context.Background(), s.Name, metav1.DeleteOptions{}); err != nil {
			t.Fatalf("Delete(%s/%s): %v", s.Namespace, s.Name, err)
		}
	}
}

// statusCodeOf is the HTTP code of an API error, 0 for none.
func statusCodeOf(err error) int32 {
	if err == nil {
		return 0
	}
	return statusCode(err)
}
