package defaults

import (
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// Pod applies the core/v1 defaults of a pod (SetObjectDefaults_Pod,
// kubernetes pkg/apis/core/v1): SetDefaults_Pod's own (a negative grace
// period is 1, requests from limits, enableServiceLinks, host ports
// under host networking) and then the nested defaults a pod shares with a
// pod template (templateSpec). Pod-level requests, which
// PodLevelResourcesFixDefaulting moves to PrepareForCreate, are not
// ported; the HTTP handlers' protocol, defaulted and then dropped by the
// strategy while H2CContainerProbe is alpha and off, is never set.
func Pod(pod *corev1.Pod) {
	defaultPodStatus(&pod.Status)
	spec := &pod.Spec
	if spec.TerminationGracePeriodSeconds != nil && *spec.TerminationGracePeriodSeconds < 0 {
		one := int64(1)
		spec.TerminationGracePeriodSeconds = &one
	}
	for _, cs := range [][]corev1.Container{spec.Containers, spec.InitContainers} {
		for i := range cs {
			requestsFromLimits(&cs[i])
		}
	}
	if spec.EnableServiceLinks == nil {
		v := corev1.DefaultEnableServiceLinks
		spec.EnableServiceLinks = &v
	}
	if spec.HostNetwork {
		defaultHostNetworkPorts(spec.Containers)
		defaultHostNetworkPorts(spec.InitContainers)
	}
	templateSpec(spec)
}

// requestsFromLimits is SetDefaults_Pod's copy of a container's limits
// into its missing requests (a pod's only, not a template's).
func requestsFromLimits(c *corev1.Container) {
	if c.Resources.Limits == nil {
		return
	}
	if c.Resources.Requests == nil {
		c.Resources.Requests = corev1.ResourceList{}
	}
	for k, v := range c.Resources.Limits {
		if _, ok := c.Resources.Requests[k]; !ok {
			c.Resources.Requests[k] = v.DeepCopy()
		}
	}
}

// defaultHostNetworkPorts is defaultHostNetworkPorts: under host
// networking a container port's host port is the container port.
func defaultHostNetworkPorts(cs []corev1.Container) {
	for i := range cs {
		for j := range cs[i].Ports {
			if p := &cs[i].Ports[j]; p.HostPort == 0 {
				p.HostPort = p.ContainerPort
			}
		}
	}
}

// defaultPodStatus is SetDefaults_PodStatus: podIP and podIPs in sync,
// podIP winning when they disagree (older kubelets set only podIP).
func defaultPodStatus(s *corev1.PodStatus) {
	hasIP, hasIPs := s.PodIP != "", len(s.PodIPs) > 0
	switch {
	case hasIP && !hasIPs:
		s.PodIPs = []corev1.PodIP{{IP: s.PodIP}}
	case !hasIP && hasIPs:
		s.PodIP = s.PodIPs[0].IP
	case hasIP && hasIPs && s.PodIPs[0].IP != s.PodIP:
		s.PodIPs = []corev1.PodIP{{IP: s.PodIP}}
	}
}

// PodTemplate applies the pod-spec defaults a workload's template gets
// from kube-apiserver's decoder (templateSpec: SetDefaults_PodSpec and the
// generated defaults of volumes and containers; not SetDefaults_Pod).
func PodTemplate(t *corev1.PodTemplateSpec) {
	templateSpec(&t.Spec)
}

// defaultPodSpec is SetDefaults_PodSpec.
func defaultPodSpec(spec *corev1.PodSpec) {
	if spec.ServiceAccountName == "" {
		spec.ServiceAccountName = spec.DeprecatedServiceAccount
	}
	spec.DeprecatedServiceAccount = spec.ServiceAccountName
	if spec.DNSPolicy == "" {
		spec.DNSPolicy = corev1.DNSClusterFirst
	}
	if spec.RestartPolicy == "" {
		spec.RestartPolicy = corev1.RestartPolicyAlways
	}
	if spec.SecurityContext == nil {
		spec.SecurityContext = &corev1.PodSecurityContext{}
	}
	if spec.TerminationGracePeriodSeconds == nil {
		v := int64(corev1.DefaultTerminationGracePeriodSeconds)
		spec.TerminationGracePeriodSeconds = &v
	}
	if spec.SchedulerName == "" {
		spec.SchedulerName = corev1.DefaultSchedulerName
	}
}

// defaultContainer is SetDefaults_Container plus the generated defaults of
// its ports, probes and env.
func defaultContainer(c *corev1.Container) {
	if c.ImagePullPolicy == "" {
		c.ImagePullPolicy = corev1.PullIfNotPresent
		if imageTag(c.Image) == "latest" {
			c.ImagePullPolicy = corev1.PullAlways
		}
	}
	if c.TerminationMessagePath == "" {
		c.TerminationMessagePath = corev1.TerminationMessagePathDefault
	}
	if c.TerminationMessagePolicy == "" {
		c.TerminationMessagePolicy = corev1.TerminationMessageReadFile
	}
	for i := range c.Ports {
		if c.Ports[i].Protocol == "" {
			c.Ports[i].Protocol = corev1.ProtocolTCP
		}
	}
	for _, p := range []*corev1.Probe{c.LivenessProbe, c.ReadinessProbe, c.StartupProbe} {
		defaultProbe(p)
	}
	for i := range c.Env {
		if ref := c.Env[i].ValueFrom; ref != nil && ref.FieldRef != nil && ref.FieldRef.APIVersion == "" {
			ref.FieldRef.APIVersion = "v1"
		}
	}
}

// defaultProbe is SetDefaults_Probe plus the HTTP scheme default.
func defaultProbe(p *corev1.Probe) {
	if p == nil {
		return
	}
	if p.TimeoutSeconds == 0 {
		p.TimeoutSeconds = 1
	}
	if p.PeriodSeconds == 0 {
		p.PeriodSeconds = 10
	}
	if p.SuccessThreshold == 0 {
		p.SuccessThreshold = 1
	}
	if p.FailureThreshold == 0 {
		p.FailureThreshold = 3
	}
	if h := p.HTTPGet; h != nil {
		if h.Path == "" {
			h.Path = "/"
		}
		if h.Scheme == "" {
			h.Scheme = corev1.URISchemeHTTP
		}
	}
}

// imageTag returns the tag of an image reference as
// parsers.ParseImageName sees it: "latest" when there is neither tag nor
// digest, "" when there is only a digest.
func imageTag(image string) string {
	if strings.IndexByte(image, '@') >= 0 {
		return ""
	}
	slash := strings.LastIndexByte(image, '/')
	if colon := strings.LastIndexByte(image, ':'); colon > slash {
		return image[colon+1:]
	}
	return "latest"
}
