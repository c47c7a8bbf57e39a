package defaults

import (
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// For returns the defaulter of the built-in kind gk, which fills a decoded
// body in place; nil when the kind has none worth reproducing.
func For(gk schema.GroupKind) func(runtime.Object) {
	return builtin[gk]
}

// builtin are the defaulters of the built-in kinds that matter to
// List and Watch users; client-go's scheme carries none.
var builtin = map[schema.GroupKind]func(runtime.Object){
	{Kind: "Namespace"}: func(obj runtime.Object) {
		if ns, ok := obj.(*corev1.Namespace); ok {
			defaultNamespace(ns)
		}
	},
	{Kind: "Pod"}: func(obj runtime.Object) {
		if pod, ok := obj.(*corev1.Pod); ok {
			Pod(pod)
		}
	},
	{Kind: "Service"}: func(obj runtime.Object) {
		if svc, ok := obj.(*corev1.Service); ok {
			service(svc)
		}
	},
	{Kind: "Node"}: func(obj runtime.Object) {
		if n, ok := obj.(*corev1.Node); ok {
			node(n)
		}
	},
	{Kind: "PersistentVolumeClaim"}: func(obj runtime.Object) {
		if pvc, ok := obj.(*corev1.PersistentVolumeClaim); ok {
			persistentVolumeClaim(pvc)
		}
	},
	{Kind: "PersistentVolume"}: func(obj runtime.Object) {
		if pv, ok := obj.(*corev1.PersistentVolume); ok {
			persistentVolume(pv)
		}
	},
	// apiextensions v1's generated defaulters (conversion strategy None,
	// served and storage flags, ...).
	{Group: "apiextensions.k8s.io", Kind: "CustomResourceDefinition"}: func(obj runtime.Object) {
		if crd, ok := obj.(*apiextensionsv1.CustomResourceDefinition); ok {
			apiextensionsv1.SetObjectDefaults_CustomResourceDefinition(crd)
		}
	},
	{Group: "apps", Kind: "Deployment"}:  defaultDeployment,
	{Group: "apps", Kind: "ReplicaSet"}:  defaultReplicaSet,
	{Group: "apps", Kind: "StatefulSet"}: defaultStatefulSet,
	{Group: "apps", Kind: "DaemonSet"}:   defaultDaemonSet,
	{Group: "batch", Kind: "Job"}:        defaultJob,
	{Group: "batch", Kind: "CronJob"}:    defaultCronJob,
	{Kind: "ReplicationController"}:      defaultReplicationController,
	{Kind: "PodTemplate"}:                defaultPodTemplate,
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
