package defaults

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"
)

// templateSpec is the generated defaulting of the pod spec inside a pod
// template (kubernetes pkg/apis/{apps,batch,core}/v1/zz_generated.defaults.go,
// identical for every kind that embeds a PodTemplateSpec):
// SetDefaults_PodSpec, each volume's defaults, each container's
// (SetDefaults_Container and its nested defaults) and the rounding of the
// pod's overhead and resources. Unlike a pod (SetDefaults_Pod), a template
// does not copy limits into requests, gets no enableServiceLinks and no
// HTTP probe protocol.
func templateSpec(spec *corev1.PodSpec) {
	defaultPodSpec(spec)
	for i := range spec.Volumes {
		defaultVolume(&spec.Volumes[i])
	}
	for i := range spec.InitContainers {
		templateContainer(&spec.InitContainers[i])
	}
	for i := range spec.Containers {
		templateContainer(&spec.Containers[i])
	}
	for i := range spec.EphemeralContainers {
		templateContainer((*corev1.Container)(&spec.EphemeralContainers[i].EphemeralContainerCommon))
	}
	roundUpToMilli(spec.Overhead)
	if spec.Resources != nil {
		roundUpToMilli(spec.Resources.Limits)
		roundUpToMilli(spec.Resources.Requests)
	}
}

// templateContainer is the generated defaulting of one container of a
// template or pod: SetDefaults_Container, port protocols, probes, env
// field references (defaultContainer),
// plus an env file key's optional false, a gRPC probe's service "",
// lifecycle HTTP handlers and resource quantities rounded up to milli.
func templateContainer(c *corev1.Container) {
	defaultContainer(c)
	for i := range c.Env {
		if ref := c.Env[i].ValueFrom; ref != nil && ref.FileKeyRef != nil && ref.FileKeyRef.Optional == nil {
			ref.FileKeyRef.Optional = ptr.To(false)
		}
	}
	roundUpToMilli(c.Resources.Limits)
	roundUpToMilli(c.Resources.Requests)
	for _, p := range []*corev1.Probe{c.LivenessProbe, c.ReadinessProbe, c.StartupProbe} {
		if p != nil && p.GRPC != nil && p.GRPC.Service == nil {
			p.GRPC.Service = ptr.To("")
		}
	}
	if l := c.Lifecycle; l != nil {
		for _, h := range []*corev1.LifecycleHandler{l.PostStart, l.PreStop} {
			if h != nil && h.HTTPGet != nil {
				defaultHTTPGet(h.HTTPGet)
			}
		}
	}
}

// defaultHTTPGet is SetDefaults_HTTPGetAction.
func defaultHTTPGet(h *corev1.HTTPGetAction) {
	if h.Path == "" {
		h.Path = "/"
	}
	if h.Scheme == "" {
		h.Scheme = corev1.URISchemeHTTP
	}
}

// defaultVolume is SetDefaults_Volume (an empty source is an emptyDir; an
// image volume's pull policy as a container's, ImageVolume being GA) and
// the generated defaults of each volume source.
func defaultVolume(v *corev1.Volume) {
	if ptr.AllPtrFieldsNil(&v.VolumeSource) {
		v.VolumeSource = corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}
	}
	src := &v.VolumeSource
	if img := src.Image; img != nil && img.PullPolicy == "" {
		img.PullPolicy = corev1.PullIfNotPresent
		if imageTag(img.Reference) == "latest" {
			img.PullPolicy = corev1.PullAlways
		}
	}
	if hp := src.HostPath; hp != nil && hp.Type == nil {
		hp.Type = ptr.To(corev1.HostPathUnset)
	}
	if s := src.Secret; s != nil && s.DefaultMode == nil {
		s.DefaultMode = ptr.To(corev1.SecretVolumeSourceDefaultMode)
	}
	if cm := src.ConfigMap; cm != nil && cm.DefaultMode == nil {
		cm.DefaultMode = ptr.To(corev1.ConfigMapVolumeSourceDefaultMode)
	}
	if d := src.DownwardAPI; d != nil {
		if d.DefaultMode == nil {
			d.DefaultMode = ptr.To(corev1.DownwardAPIVolumeSourceDefaultMode)
		}
		defaultDownwardAPIItems(d.Items)
	}
	if p := src.Projected; p != nil {
		defaultProjected(p)
	}
	defaultLegacyVolume(src)
	if e := src.Ephemeral; e != nil && e.VolumeClaimTemplate != nil {
		claimSpec(&e.VolumeClaimTemplate.Spec)
	}
}

// defaultDownwardAPIItems is SetDefaults_ObjectFieldSelector on each
// item's field reference.
func defaultDownwardAPIItems(items []corev1.DownwardAPIVolumeFile) {
	for i := range items {
		if ref := items[i].FieldRef; ref != nil && ref.APIVersion == "" {
			ref.APIVersion = "v1"
		}
	}
}

// defaultProjected is SetDefaults_ProjectedVolumeSource and the defaults
// of its sources (field references, a token's expiry of one hour).
func defaultProjected(p *corev1.ProjectedVolumeSource) {
	if p.DefaultMode == nil {
		p.DefaultMode = ptr.To(corev1.ProjectedVolumeSourceDefaultMode)
	}
	for i := range p.Sources {
		s := &p.Sources[i]
		if s.DownwardAPI != nil {
			defaultDownwardAPIItems(s.DownwardAPI.Items)
		}
		if t := s.ServiceAccountToken; t != nil && t.ExpirationSeconds == nil {
			t.ExpirationSeconds = ptr.To(int64(3600))
		}
	}
}

// defaultLegacyVolume is the generated (+default) defaults of the in-tree
// iSCSI, RBD, Azure disk and ScaleIO sources.
func defaultLegacyVolume(src *corev1.VolumeSource) {
	if s := src.ISCSI; s != nil && s.ISCSIInterface == "" {
		s.ISCSIInterface = "default"
	}
	if s := src.RBD; s != nil {
		if s.RBDPool == "" {
			s.RBDPool = "rbd"
		}
		if s.RadosUser == "" {
			s.RadosUser = "admin"
		}
		if s.Keyring == "" {
			s.Keyring = "/etc/ceph/keyring"
		}
	}
	if s := src.AzureDisk; s != nil {
		if s.CachingMode == nil {
			s.CachingMode = ptr.To(corev1.AzureDataDiskCachingReadWrite)
		}
		if s.FSType == nil {
			s.FSType = ptr.To("ext4")
		}
		if s.ReadOnly == nil {
			s.ReadOnly = ptr.To(false)
		}
		if s.Kind == nil {
			s.Kind = ptr.To(corev1.AzureSharedBlobDisk)
		}
	}
	if s := src.ScaleIO; s != nil {
		if s.StorageMode == "" {
			s.StorageMode = "ThinProvisioned"
		}
		if s.FSType == "" {
			s.FSType = "xfs"
		}
	}
}
