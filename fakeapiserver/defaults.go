package fakeapiserver

import (
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

const (
	// defaultTolerationSeconds is the DefaultTolerationSeconds admission
	// plugin's default for the not-ready and unreachable taints
	// (kubernetes plugin/pkg/admission/defaulttolerationseconds).
	defaultTolerationSeconds = 300
	// defaultServiceAccount is what the ServiceAccount admission plugin
	// fills into a pod without one.
	defaultServiceAccount = "default"
)

// applyDefaults runs the resource's defaulter, if any, on a decoded body,
// as kube-apiserver's decoder does for every create, update and patch.
func (r *resourceInfo) applyDefaults(obj runtime.Object) {
	if r.Default != nil {
		r.Default(obj)
	}
}

// builtinDefaulters are the defaulters of the built-in kinds that matter to
// List and Watch users; client-go's scheme carries none.
var builtinDefaulters = map[schema.GroupKind]func(runtime.Object){
	{Kind: "Namespace"}: func(obj runtime.Object) {
		if ns, ok := obj.(*corev1.Namespace); ok {
			defaultNamespace(ns)
		}
	},
	{Kind: "Pod"}: func(obj runtime.Object) {
		if pod, ok := obj.(*corev1.Pod); ok {
			DefaultPod(pod)
		}
	},
	// apiextensions v1's generated defaulters (conversion strategy None,
	// served and storage flags, ...).
	{Group: "apiextensions.k8s.io", Kind: "CustomResourceDefinition"}: func(obj runtime.Object) {
		if crd, ok := obj.(*apiextensionsv1.CustomResourceDefinition); ok {
			apiextensionsv1.SetObjectDefaults_CustomResourceDefinition(crd)
		}
	},
}

// DefaultPod applies the core/v1 defaults of a pod that clients see in
// List and Watch results and match with field selectors, ported from
// kubernetes pkg/apis/core/v1/defaults.go (SetDefaults_Pod,
// SetDefaults_PodSpec, SetDefaults_Container, SetDefaults_Probe) and the
// generated defaulters (container port protocol, fieldRef apiVersion).
// Volume, service and host-network port defaults are not ported.
func DefaultPod(pod *corev1.Pod) {
	spec := &pod.Spec
	if spec.TerminationGracePeriodSeconds != nil && *spec.TerminationGracePeriodSeconds < 0 {
		one := int64(1)
		spec.TerminationGracePeriodSeconds = &one
	}
	if spec.EnableServiceLinks == nil {
		v := corev1.DefaultEnableServiceLinks
		spec.EnableServiceLinks = &v
	}
	defaultPodSpec(spec)
	for _, cs := range [][]corev1.Container{spec.InitContainers, spec.Containers} {
		for i := range cs {
			defaultContainer(&cs[i], true)
		}
	}
	for i := range spec.EphemeralContainers {
		defaultContainer((*corev1.Container)(&spec.EphemeralContainers[i].EphemeralContainerCommon), false)
	}
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
// its ports, probes and env; requestsFromLimits is SetDefaults_Pod's copy
// of limits into missing requests (not for ephemeral containers).
func defaultContainer(c *corev1.Container, requestsFromLimits bool) {
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
	if requestsFromLimits && c.Resources.Limits != nil {
		if c.Resources.Requests == nil {
			c.Resources.Requests = corev1.ResourceList{}
		}
		for k, v := range c.Resources.Limits {
			if _, ok := c.Resources.Requests[k]; !ok {
				c.Resources.Requests[k] = v.DeepCopy()
			}
		}
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

// admitPodCreate applies, to a new pod, the mutating admission plugins of
// a default kube-apiserver whose effect is trivial to reproduce: Priority
// (priority 0 and preemptionPolicy PreemptLowerPriority when no class is
// named), ServiceAccount (serviceAccountName "default"; the token volume is
// not added and a missing account is not rejected) and
// DefaultTolerationSeconds (NoExecute tolerations of 300 s for the
// not-ready and unreachable taints).
func admitPodCreate(pod *corev1.Pod) {
	spec := &pod.Spec
	if spec.PriorityClassName == "" && spec.Priority == nil {
		zero := int32(0)
		spec.Priority = &zero
	}
	if spec.PreemptionPolicy == nil {
		p := corev1.PreemptLowerPriority
		spec.PreemptionPolicy = &p
	}
	if spec.ServiceAccountName == "" {
		spec.ServiceAccountName = defaultServiceAccount
		spec.DeprecatedServiceAccount = defaultServiceAccount
	}
	for _, key := range []string{corev1.TaintNodeNotReady, corev1.TaintNodeUnreachable} {
		if !toleratesNoExecute(spec.Tolerations, key) {
			secs := int64(defaultTolerationSeconds)
			spec.Tolerations = append(spec.Tolerations, corev1.Toleration{
				Key: key, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: &secs,
			})
		}
	}
}

// toleratesNoExecute reports whether a toleration for key with effect
// NoExecute (or any effect) exists, as the plugin checks.
func toleratesNoExecute(ts []corev1.Toleration, key string) bool {
	for _, t := range ts {
		if (t.Key == key || (t.Key == "" && t.Operator == corev1.TolerationOpExists)) &&
			(t.Effect == "" || t.Effect == corev1.TaintEffectNoExecute) {
			return true
		}
	}
	return false
}

// podQOSClass is a simplified qos.GetPodQOS over the defaulted containers:
// BestEffort without any request or limit, Guaranteed when every container
// limits cpu and memory with requests equal to limits, else Burstable.
func podQOSClass(pod *corev1.Pod) corev1.PodQOSClass {
	hasResources, guaranteed := false, true
	for _, cs := range [][]corev1.Container{pod.Spec.InitContainers, pod.Spec.Containers} {
		for _, c := range cs {
			if len(c.Resources.Requests) > 0 || len(c.Resources.Limits) > 0 {
				hasResources = true
			}
			for _, name := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
				l, okL := c.Resources.Limits[name]
				r, okR := c.Resources.Requests[name]
				if !okL || (okR && r.Cmp(l) != 0) {
					guaranteed = false
				}
			}
		}
	}
	switch {
	case !hasResources:
		return corev1.PodQOSBestEffort
	case guaranteed:
		return corev1.PodQOSGuaranteed
	}
	return corev1.PodQOSBurstable
}

// prepareNamespaceForCreate is the namespace strategy's PrepareForCreate
// (kubernetes pkg/registry/core/namespace/strategy.go): phase Active and
// the "kubernetes" finalizer in spec.
func prepareNamespaceForCreate(ns *corev1.Namespace) {
	ns.Status = corev1.NamespaceStatus{Phase: corev1.NamespaceActive}
	for _, f := range ns.Spec.Finalizers {
		if f == corev1.FinalizerKubernetes {
			return
		}
	}
	ns.Spec.Finalizers = append(ns.Spec.Finalizers, corev1.FinalizerKubernetes)
}

// defaultNamespace is SetDefaults_Namespace: the kubernetes.io/metadata.name
// label carries the name (validated like any label: a name of 64
// characters fails twice, as on kube-apiserver).
func defaultNamespace(ns *corev1.Namespace) {
	if ns.Name == "" {
		return
	}
	if ns.Labels == nil {
		ns.Labels = map[string]string{}
	}
	ns.Labels[corev1.LabelMetadataName] = ns.Name
}
