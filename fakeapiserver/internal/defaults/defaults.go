package defaults

import (
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
)

// For returns the defaulter of the built-in kind gk, which fills a decoded
// body in place; nil when the kind has none worth reproducing.
func For(gk schema.GroupKind) func(runtime.Object) {
	return builtin[gk]
}

// builtin are the defaulters of the built-in kinds that matter to
// List and Watch users; client-go's scheme carries none.
var builtin = map[schema.GroupKind]func(runtime.Object){
	{Kind: "Namespace"}:             typed(defaultNamespace),
	{Kind: "Pod"}:                   typed(Pod),
	{Kind: "Service"}:               typed(service),
	{Kind: "Node"}:                  typed(node),
	{Kind: "PersistentVolumeClaim"}: typed(persistentVolumeClaim),
	{Kind: "PersistentVolume"}:      typed(persistentVolume),
	// apiextensions v1's generated defaulters (conversion strategy None,
	// served and storage flags, ...).
	{Group: "apiextensions.k8s.io", Kind: "CustomResourceDefinition"}: typed(apiextensionsv1.SetObjectDefaults_CustomResourceDefinition),
	{Group: "apps", Kind: "Deployment"}:                               typed(deployment),
	{Group: "apps", Kind: "ReplicaSet"}:                               typed(replicaSet),
	{Group: "apps", Kind: "StatefulSet"}:                              typed(statefulSet),
	{Group: "apps", Kind: "DaemonSet"}:                                typed(daemonSet),
	{Group: "batch", Kind: "Job"}:                                     typed(job),
	{Group: "batch", Kind: "CronJob"}:                                 typed(cronJob),
	{Kind: "ReplicationController"}:                                   typed(replicationController),
	{Kind: "PodTemplate"}:                                             typed(func(t *corev1.PodTemplate) { templateSpec(&t.Template.Spec) }),
	// The kinds with a few scalar defaults each (simple.go, flowcontrol.go,
	// admission.go, autoscaling.go).
	{Kind: "Secret"}:     typed(secret),
	{Kind: "Endpoints"}:  typed(endpoints),
	{Kind: "LimitRange"}: typed(limitRange),
	{Group: "discovery.k8s.io", Kind: "EndpointSlice"}:                                typed(endpointSlice),
	{Group: "networking.k8s.io", Kind: "NetworkPolicy"}:                               typed(networkPolicy),
	{Group: "networking.k8s.io", Kind: "IngressClass"}:                                typed(ingressClass),
	{Group: "rbac.authorization.k8s.io", Kind: "RoleBinding"}:                         typed(roleBinding),
	{Group: "rbac.authorization.k8s.io", Kind: "ClusterRoleBinding"}:                  typed(clusterRoleBinding),
	{Group: "storage.k8s.io", Kind: "StorageClass"}:                                   typed(storageClass),
	{Group: "storage.k8s.io", Kind: "CSIDriver"}:                                      typed(csiDriver),
	{Group: "scheduling.k8s.io", Kind: "PriorityClass"}:                               typed(priorityClass),
	{Group: "flowcontrol.apiserver.k8s.io", Kind: "FlowSchema"}:                       typed(flowSchema),
	{Group: "flowcontrol.apiserver.k8s.io", Kind: "PriorityLevelConfiguration"}:       typed(priorityLevel),
	{Group: "admissionregistration.k8s.io", Kind: "ValidatingWebhookConfiguration"}:   typed(validatingWebhooks),
	{Group: "admissionregistration.k8s.io", Kind: "MutatingWebhookConfiguration"}:     typed(mutatingWebhooks),
	{Group: "admissionregistration.k8s.io", Kind: "ValidatingAdmissionPolicy"}:        typed(validatingAdmissionPolicy),
	{Group: "admissionregistration.k8s.io", Kind: "ValidatingAdmissionPolicyBinding"}: typed(validatingAdmissionPolicyBinding),
	{Group: "admissionregistration.k8s.io", Kind: "MutatingAdmissionPolicy"}:          typed(mutatingAdmissionPolicy),
	{Group: "admissionregistration.k8s.io", Kind: "MutatingAdmissionPolicyBinding"}:   typed(mutatingAdmissionPolicyBinding),
	{Group: "resource.k8s.io", Kind: "ResourceClaim"}:                                 typed(resourceClaim),
	{Group: "resource.k8s.io", Kind: "ResourceClaimTemplate"}:                         typed(resourceClaimTemplate),
	{Group: "autoscaling", Kind: "HorizontalPodAutoscaler"}:                           hpa,
	// kube-aggregator's generated defaulter (a service reference's port
	// 443).
	{Group: "apiregistration.k8s.io", Kind: "APIService"}: typed(apiregistrationv1.SetObjectDefaults_APIService),
}

// hpa defaults an autoscaling/v1 or v2 HorizontalPodAutoscaler, each
// version by its own rules.
func hpa(obj runtime.Object) {
	typed(hpaV1)(obj)
	typed(hpaV2)(obj)
}

// typed adapts the defaulter of one Go type to a [For] entry: a body of
// another type (an older group-version's, decoded to its own struct) is
// left alone, as it has no defaulter here.
func typed[T runtime.Object](f func(T)) func(runtime.Object) {
	return func(obj runtime.Object) {
		if o, ok := obj.(T); ok {
			f(o)
		}
	}
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
