package fakeapiserver

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/lw-sim/lw-sim/fakeapiserver/internal/kinds"
)

// The service REST's beginCreate and beginUpdate (kubernetes
// pkg/registry/core/service/storage/storage.go and alloc.go), which run
// before the strategy and validation: clusterIP and clusterIPs in step,
// the IP family fields, a cluster IP from the service CIDR and node ports
// from 30000-32767. Only a single-stack cluster is modelled.

// serviceGroupKind is core Services, whose writes allocate.
var serviceGroupKind = schema.GroupKind{Kind: "Service"}

// allocateService runs beginCreate (a.old nil) or beginUpdate on a
// Service write (serviceWrites); the returned func, never nil, must be
// called once the write is stored or has failed.
func (s *Server) allocateService(res *resourceInfo, a allocation) (func(), error) {
	svc, ok := a.obj.(*corev1.Service)
	if !ok {
		return func() {}, nil
	}
	oldSvc, _ := a.old.(*corev1.Service)
	if oldSvc != nil {
		kinds.PatchAllocatedValues(svc, oldSvc)
	}
	kinds.NormalizeClusterIPs(svc, oldSvc)
	if oldSvc != nil {
		kinds.DropTypeDependentFields(svc, oldSvc)
	}
	txn, err := s.services.begin(s.store, res.storageKey, a.key, a.dryRun)
	if err != nil {
		return func() {}, err
	}
	err = s.services.initIPFamilyFields(svc, oldSvc)
	if err == nil {
		err = txn.allocClusterIPs(svc, oldSvc)
	}
	if err == nil {
		err = txn.allocNodePorts(svc, oldSvc)
	}
	txn.unlock()
	if err != nil {
		txn.done()
		return func() {}, err
	}
	return txn.done, nil
}

// serviceInvalid is the 422 the allocators return, naming the Service.
func serviceInvalid(svc *corev1.Service, errs ...*field.Error) error {
	return apierrors.NewInvalid(corev1.SchemeGroupVersion.WithKind("Service").GroupKind(), svc.Name, errs)
}

// initIPFamilyFields is alloc.go's initIPFamilyFields for a single-stack
// cluster: ipFamilyPolicy SingleStack (the old policy on update; a
// headless Service without selector RequireDualStack, with both
// families), ipFamilies inferred from clusterIPs or the cluster's family,
// and the errors for a family or dual-stack the cluster lacks.
func (a *serviceAllocator) initIPFamilyFields(svc, old *corev1.Service) error {
	spec := &svc.Spec
	if spec.Type == corev1.ServiceTypeExternalName {
		return nil
	}
	headlessNoSelector := spec.ClusterIP == corev1.ClusterIPNone && len(spec.Selector) == 0
	if spec.IPFamilyPolicy == nil {
		policy := corev1.IPFamilyPolicySingleStack
		switch {
		case old != nil && old.Spec.IPFamilyPolicy != nil:
			policy = *old.Spec.IPFamilyPolicy
		case headlessNoSelector:
			policy = corev1.IPFamilyPolicyRequireDualStack
		}
		spec.IPFamilyPolicy = &policy
	}
	if errs := kinds.ValidateClusterIPsFields(svc, old); len(errs) > 0 {
		return serviceInvalid(svc, errs...)
	}
	policyPath := field.NewPath("spec", "ipFamilyPolicy")
	var errs []*field.Error
	if *spec.IPFamilyPolicy == corev1.IPFamilyPolicySingleStack {
		if len(spec.ClusterIPs) == 2 {
			errs = append(errs, field.Invalid(policyPath, spec.IPFamilyPolicy, "must be 'RequireDualStack' or 'PreferDualStack' when multiple cluster IPs are specified"))
		}
		if len(spec.IPFamilies) == 2 {
			errs = append(errs, field.Invalid(policyPath, spec.IPFamilyPolicy, "must be 'RequireDualStack' or 'PreferDualStack' when multiple IP families are specified"))
		}
	}
	for i, ip := range spec.ClusterIPs {
		if ip == corev1.ClusterIPNone {
			break
		}
		if i < len(spec.IPFamilies) {
			continue
		}
		if fam := kinds.FamilyOf(ip); fam != a.family() {
			errs = append(errs, field.Invalid(field.NewPath("spec", "clusterIPs").Index(i), spec.ClusterIPs, fmt.Sprintf("%s is not configured on this cluster", fam)))
		} else {
			spec.IPFamilies = append(spec.IPFamilies, fam)
		}
	}
	if len(errs) > 0 {
		return serviceInvalid(svc, errs...)
	}
	if headlessNoSelector {
		// A headless Service without selector may name families the
		// cluster lacks: it never gets an IP.
		if len(spec.IPFamilies) == 0 {
			spec.IPFamilies = []corev1.IPFamily{a.family()}
		}
		if len(spec.IPFamilies) < 2 && *spec.IPFamilyPolicy != corev1.IPFamilyPolicySingleStack {
			spec.IPFamilies = append(spec.IPFamilies, otherFamily(spec.IPFamilies[0]))
		}
		return nil
	}
	if *spec.IPFamilyPolicy == corev1.IPFamilyPolicyRequireDualStack {
		errs = append(errs, field.Invalid(policyPath, spec.IPFamilyPolicy, "this cluster is not configured for dual-stack services"))
	}
	for i, fam := range spec.IPFamilies {
		if fam != a.family() {
			errs = append(errs, field.Invalid(field.NewPath("spec", "ipFamilies").Index(i), fam, "not configured on this cluster"))
		}
	}
	if len(errs) > 0 {
		return serviceInvalid(svc, errs...)
	}
	if len(spec.IPFamilies) == 0 {
		spec.IPFamilies = []corev1.IPFamily{a.family()}
	}
	return nil
}

// allocClusterIPs is allocClusterIPs (and updateClusterIPs' case of an
// ExternalName Service changing type): a cluster IP for each family, the
// requested one or a free one. ExternalName and headless Services get none.
func (t *serviceTxn) allocClusterIPs(svc, old *corev1.Service) error {
	spec := &svc.Spec
	if spec.Type == corev1.ServiceTypeExternalName {
		return nil
	}
	if old != nil && old.Spec.Type != corev1.ServiceTypeExternalName {
		// Same family, same IP: validation refuses a changed one.
		return nil
	}
	if len(spec.ClusterIPs) > 0 && spec.ClusterIPs[0] == corev1.ClusterIPNone {
		return nil
	}
	for i := range spec.IPFamilies {
		if i >= len(spec.ClusterIPs) {
			spec.ClusterIPs = append(spec.ClusterIPs, "")
		}
		requested := spec.ClusterIPs[i]
		ip, err := t.allocateIP(requested)
		switch {
		case err == errRangeFull:
			return apierrors.NewInternalError(fmt.Errorf("failed to allocate a serviceIP for Service %q: %w", svc.Name, err))
		case err != nil && requested == "":
			return serviceInvalid(svc, field.Invalid(field.NewPath("spec", "clusterIPs"), spec.ClusterIPs, fmt.Sprintf("failed to allocate IP: %v", err)))
		case err != nil:
			return serviceInvalid(svc, field.Invalid(field.NewPath("spec", "clusterIPs"), spec.ClusterIPs, fmt.Sprintf("failed to allocate IP %v: %v", requested, err)))
		}
		spec.ClusterIPs[i] = ip
		if i == 0 {
			spec.ClusterIP = ip
		}
	}
	return nil
}

// allocNodePorts is initNodePorts / updateNodePorts and the health check
// node port: a NodePort Service, or a LoadBalancer one allocating node
// ports, gets one per port number (ports sharing a number share it); a
// requested port the Service did not already hold must be free and in
// range.
func (t *serviceTxn) allocNodePorts(svc, old *corev1.Service) error {
	spec := &svc.Spec
	held := map[int32]bool{}
	if old != nil {
		for _, p := range old.Spec.Ports {
			held[p.NodePort] = p.NodePort != 0
		}
	}
	if spec.Type == corev1.ServiceTypeNodePort || spec.Type == corev1.ServiceTypeLoadBalancer {
		byPort := map[int32]int32{}
		for i := range spec.Ports {
			sp := &spec.Ports[i]
			if sp.NodePort == 0 && !kinds.ShouldAllocateNodePorts(svc) {
				continue
			}
			if np, ok := byPort[sp.Port]; ok && sp.NodePort == 0 {
				sp.NodePort = np
				continue
			}
			requested := sp.NodePort
			if requested == 0 {
				requested = findRequestedNodePort(sp.Port, spec.Ports)
			}
			if requested != 0 && (held[requested] || byPort[sp.Port] == requested) {
				sp.NodePort, byPort[sp.Port] = requested, requested
				continue
			}
			np, err := t.allocatePort(requested)
			switch {
			case err != nil && requested != 0:
				return serviceInvalid(svc, field.Invalid(field.NewPath("spec", "ports").Index(i).Child("nodePort"), requested, err.Error()))
			case err != nil:
				return apierrors.NewInternalError(fmt.Errorf("failed to allocate a nodePort: %w", err))
			}
			sp.NodePort = np
			if _, ok := byPort[sp.Port]; !ok {
				byPort[sp.Port] = np
			}
		}
	}
	return t.allocHealthCheckNodePort(svc, old)
}

// allocHealthCheckNodePort gives a LoadBalancer Service with
// externalTrafficPolicy Local its healthCheckNodePort when it starts
// needing one.
func (t *serviceTxn) allocHealthCheckNodePort(svc, old *corev1.Service) error {
	if !kinds.NeedsHealthCheck(svc) || (old != nil && kinds.NeedsHealthCheck(old)) {
		return nil
	}
	requested := svc.Spec.HealthCheckNodePort
	np, err := t.allocatePort(requested)
	switch {
	case err != nil && requested != 0:
		return apierrors.NewInternalError(fmt.Errorf("failed to allocate requested HealthCheck NodePort %v: %v", requested, err))
	case err != nil:
		return apierrors.NewInternalError(fmt.Errorf("failed to allocate a HealthCheck NodePort %v: %v", np, err))
	}
	svc.Spec.HealthCheckNodePort = np
	return nil
}

// findRequestedNodePort is the nodePort another port with the same number
// asks for, or 0.
func findRequestedNodePort(port int32, ports []corev1.ServicePort) int32 {
	for _, p := range ports {
		if p.Port == port && p.NodePort != 0 {
			return p.NodePort
		}
	}
	return 0
}

// otherFamily is the family that is not fam.
func otherFamily(fam corev1.IPFamily) corev1.IPFamily {
	if fam == corev1.IPv4Protocol {
		return corev1.IPv6Protocol
	}
	return corev1.IPv4Protocol
}
