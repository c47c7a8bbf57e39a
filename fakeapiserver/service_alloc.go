package fakeapiserver

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"net/netip"
	"slices"
	"sync"

	corev1 "k8s.io/api/core/v1"

	"github.com/lw-sim/lw-sim/fakeapiserver/store"
)

const (
	// nodePortBase and nodePortSize are kube-apiserver's default
	// --service-node-port-range, 30000-32767 (pkg/kubeapiserver/options
	// DefaultServiceNodePortRange).
	nodePortBase = 30000
	nodePortSize = 2768
	// dryRunNodePort is the first port a dry-run create reports for a
	// nodePort it would allocate (portallocator operation.go AllocateNext:
	// 32768+1, then one more per port).
	dryRunNodePort = 32769
)

// DefaultServiceClusterIPRange is the service CIDR when
// [Config.ServiceClusterIPRange] is unset: the one kube-apiserver's test
// server, lw-sim's reference, is started with (cmd/kube-apiserver/app/
// testing/testserver.go; a bare kube-apiserver defaults to 10.0.0.0/24).
var DefaultServiceClusterIPRange = netip.MustParsePrefix("10.0.0.0/16")

// The allocators' errors (pkg/registry/core/service/ipallocator and
// portallocator); clients see them inside a 422's message.
var (
	errIPMismatchedNetwork = errors.New("the provided network does not match the current range")
	errIPAllocated         = errors.New("provided IP is already allocated")
	errRangeFull           = errors.New("range is full")
	errPortAllocated       = errors.New("provided port is already allocated")
	errPortNotInRange      = fmt.Errorf("provided port is not in the valid range. The range of valid ports is %d-%d", nodePortBase, nodePortBase+nodePortSize-1)
)

// serviceAllocator hands out cluster IPs from the service CIDR and node
// ports from 30000-32767, one per [Server]. What is in use is read from
// the stored Services on every allocation, so a delete, a type change or a
// seeded Service frees or takes addresses with nothing to keep in step;
// only writes in flight, between their allocation and the store, are
// held here (pending), so two concurrent creates never get one address.
type serviceAllocator struct {
	cidr netip.Prefix

	// mu guards the pending reservations and serialises allocations.
	mu           sync.Mutex
	pendingIPs   map[netip.Addr]int
	pendingPorts map[int32]int
}

// newServiceAllocator returns the allocator of the CIDR (masked).
func newServiceAllocator(cidr netip.Prefix) *serviceAllocator {
	return &serviceAllocator{cidr: cidr.Masked(), pendingIPs: map[netip.Addr]int{}, pendingPorts: map[int32]int{}}
}

// family is the IP family of the CIDR, the only one configured.
func (a *serviceAllocator) family() corev1.IPFamily {
	if a.cidr.Addr().Is6() {
		return corev1.IPv6Protocol
	}
	return corev1.IPv4Protocol
}

// inUse is what the stored Services, except the one at skipKey, hold,
// plus the pending reservations.
type inUse struct {
	ips   map[netip.Addr]bool
	ports map[int32]bool
}

// serviceTxn is one write's allocations: what it reserved is pending
// until done is called, once the write is stored or has failed.
type serviceTxn struct {
	a      *serviceAllocator
	used   inUse
	dryRun bool
	ips    []netip.Addr
	ports  []int32
	// dryPorts are the ports a dry run pretends to allocate.
	dryPorts []int32
}

// begin locks the allocator and reads what is in use; the caller must
// call txn.unlock once it has allocated.
func (a *serviceAllocator) begin(st *store.Store, resource, skipKey string, dryRun bool) (*serviceTxn, error) {
	a.mu.Lock()
	used := inUse{ips: map[netip.Addr]bool{}, ports: map[int32]bool{}}
	for ip := range a.pendingIPs {
		used.ips[ip] = true
	}
	for p := range a.pendingPorts {
		used.ports[p] = true
	}
	page, err := st.List(resource, store.ListOptions{})
	if err != nil {
		a.mu.Unlock()
		return nil, fmt.Errorf("list services: %w", err)
	}
	for i, obj := range page.Items {
		svc, ok := obj.(*corev1.Service)
		if !ok || page.Keys[i] == skipKey {
			continue
		}
		markInUse(used, svc)
	}
	return &serviceTxn{a: a, used: used, dryRun: dryRun}, nil
}

// markInUse adds a stored Service's cluster IPs and node ports to used.
func markInUse(used inUse, svc *corev1.Service) {
	if svc.Spec.Type != corev1.ServiceTypeExternalName {
		for _, s := range svc.Spec.ClusterIPs {
			if ip, err := netip.ParseAddr(s); err == nil {
				used.ips[ip] = true
			}
		}
	}
	for _, p := range svc.Spec.Ports {
		if p.NodePort != 0 {
			used.ports[p.NodePort] = true
		}
	}
	if svc.Spec.HealthCheckNodePort != 0 {
		used.ports[svc.Spec.HealthCheckNodePort] = true
	}
}

// unlock ends the allocation phase; the reservations stay pending.
func (t *serviceTxn) unlock() { t.a.mu.Unlock() }

// done releases the pending reservations, once the write is stored (the
// store then holds them) or has failed.
func (t *serviceTxn) done() {
	t.a.mu.Lock()
	defer t.a.mu.Unlock()
	for _, ip := range t.ips {
		if t.a.pendingIPs[ip]--; t.a.pendingIPs[ip] <= 0 {
			delete(t.a.pendingIPs, ip)
		}
	}
	for _, p := range t.ports {
		if t.a.pendingPorts[p]--; t.a.pendingPorts[p] <= 0 {
			delete(t.a.pendingPorts, p)
		}
	}
}

// allocatable reports whether ip may be a cluster IP: inside the CIDR and,
// for IPv4, neither its network nor its broadcast address
// (servicecidr.PrefixContainsIP; the network address of IPv6 too).
func (a *serviceAllocator) allocatable(ip netip.Addr) bool {
	ip = ip.Unmap()
	if !a.cidr.Contains(ip) || ip == a.cidr.Addr() {
		return false
	}
	return !ip.Is4() || ip != lastAddr(a.cidr)
}

// allocateIP reserves the requested cluster IP, or a free one if ip is "".
// A dry run reserves nothing: it checks a requested IP's range only and
// reports the CIDR's network address for a new one, as the dry-run
// allocator does (ipallocator.go).
func (t *serviceTxn) allocateIP(requested string) (string, error) {
	if requested == "" {
		if t.dryRun {
			return t.a.cidr.Addr().String(), nil
		}
		ip, ok := t.a.nextIP(t.used)
		if !ok {
			return "", errRangeFull
		}
		t.reserveIP(ip)
		return ip.String(), nil
	}
	ip, err := netip.ParseAddr(requested)
	if err != nil || !t.a.allocatable(ip) {
		return "", errIPMismatchedNetwork
	}
	if t.dryRun {
		return requested, nil
	}
	if t.used.ips[ip] {
		return "", errIPAllocated
	}
	t.reserveIP(ip)
	return requested, nil
}

func (t *serviceTxn) reserveIP(ip netip.Addr) {
	t.used.ips[ip] = true
	t.ips = append(t.ips, ip)
	t.a.pendingIPs[ip]++
}

// nextIP picks a free address as ipallocator does: from a random start in
// the upper part of the range, then in its lower part (the first
// rangeOffset addresses, kept for static choices).
func (a *serviceAllocator) nextIP(used inUse) (netip.Addr, bool) {
	size := rangeSize(a.cidr)
	offset := ipRangeOffset(size)
	first := a.cidr.Addr().Next()
	for _, band := range [][2]uint64{{offset, size}, {0, offset}} {
		n := band[1] - band[0]
		if n == 0 {
			continue
		}
		start := rand.Uint64N(n)
		for i := range n {
			ip := addrAdd(first, band[0]+(start+i)%n)
			if !used.ips[ip] {
				return ip, true
			}
		}
	}
	return netip.Addr{}, false
}

// allocatePort reserves the requested node port, or a free one if port is
// 0. A dry run checks a requested port against what is in use and reports
// 32769, 32770, ... for new ones (portallocator operation.go).
func (t *serviceTxn) allocatePort(requested int32) (int32, error) {
	if t.dryRun {
		if requested != 0 {
			if requested < nodePortBase || requested >= nodePortBase+nodePortSize {
				return 0, errPortNotInRange
			}
			if t.used.ports[requested] {
				return 0, errPortAllocated
			}
			t.used.ports[requested] = true
			t.dryPorts = append(t.dryPorts, requested)
			return requested, nil
		}
		p := int32(dryRunNodePort)
		if len(t.dryPorts) > 0 {
			p = slices.Max(t.dryPorts) + 1
		}
		t.dryPorts = append(t.dryPorts, p)
		return p, nil
	}
	if requested != 0 {
		if requested < nodePortBase || requested >= nodePortBase+nodePortSize {
			return 0, errPortNotInRange
		}
		if t.used.ports[requested] {
			return 0, errPortAllocated
		}
		t.reservePort(requested)
		return requested, nil
	}
	p, ok := nextPort(t.used)
	if !ok {
		return 0, errRangeFull
	}
	t.reservePort(p)
	return p, nil
}

func (t *serviceTxn) reservePort(p int32) {
	t.used.ports[p] = true
	t.ports = append(t.ports, p)
	t.a.pendingPorts[p]++
}

// nextPort picks a free node port as portallocator does: a random start in
// the upper part of the range, then its lower part (the first 86 ports,
// calculateRangeOffset's min(max(16, size/32), 128)).
func nextPort(used inUse) (int32, bool) {
	offset := int32(min(max(16, nodePortSize/32), 128))
	for _, band := range [][2]int32{{offset, nodePortSize}, {0, offset}} {
		n := band[1] - band[0]
		start := rand.Int32N(n)
		for i := range n {
			p := nodePortBase + band[0] + (start+i)%n
			if !used.ports[p] {
				return p, true
			}
		}
	}
	return 0, false
}

// rangeSize is the number of assignable addresses of cidr: all but the
// network address (and the broadcast address for IPv4), capped at 2^32.
func rangeSize(cidr netip.Prefix) uint64 {
	bits := cidr.Addr().BitLen() - cidr.Bits()
	size := uint64(1) << min(bits, 32)
	if cidr.Addr().Is4() {
		return max(size, 2) - 2
	}
	return size - 1
}

// ipRangeOffset is ipallocator's calculateRangeOffset: min(max(16,
// size/16), 256), or 0 for ranges of 16 addresses or fewer.
func ipRangeOffset(size uint64) uint64 {
	if size < 16 {
		return 0
	}
	return min(max(16, size/16), 256, size)
}

// addrAdd is ip + n.
func addrAdd(ip netip.Addr, n uint64) netip.Addr {
	b := ip.As16()
	carry := n
	for i := 15; i >= 0 && carry > 0; i-- {
		sum := uint64(b[i]) + carry&0xff
		b[i] = byte(sum)
		carry = carry>>8 + sum>>8
	}
	out := netip.AddrFrom16(b)
	if ip.Is4() {
		return out.Unmap()
	}
	return out
}

// lastAddr is the highest address of cidr.
func lastAddr(cidr netip.Prefix) netip.Addr {
	b := cidr.Masked().Addr().AsSlice()
	for i := cidr.Bits(); i < len(b)*8; i++ {
		b[i/8] |= 0x80 >> (i % 8)
	}
	ip, _ := netip.AddrFromSlice(b)
	return ip
}
