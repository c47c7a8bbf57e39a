package fieldlabels

import (
	"strconv"

	batchv1 "k8s.io/api/batch/v1"
	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	resourcev1 "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Builtin returns kube-apiserver's field labels of a built-in kind, nil
// for a kind that registers no conversion func (the default: metadata.name
// and metadata.namespace only). The result is shared: read it only.
func Builtin(gk schema.GroupKind) *Labels { return builtin[gk] }

// builtin are the field-selector keys kube-apiserver v1.37 accepts for
// the kinds that register a field-label conversion func, with the fields
// their registry strategies expose. Keys are copied in upstream
// order from kubernetes pkg/apis/<group>/<version>/conversion.go; Fields
// from pkg/registry/<group>/<kind>/strategy.go. apps/v1 and
// coordination.k8s.io/v1 register none, so their kinds take the default.
var builtin = map[schema.GroupKind]*Labels{
	// core/v1/conversion.go addConversionFuncs; pod/strategy.go ToSelectableFields.
	{Kind: "Pod"}: {
		Keys: []string{"metadata.name", "metadata.namespace", "spec.nodeName", "spec.restartPolicy",
			"spec.schedulerName", "spec.serviceAccountName", "spec.hostNetwork", "status.phase",
			"status.podIP", "status.podIPs", "status.nominatedNodeName"},
		// "for backwards compatibility with old v1 clients which send spec.host".
		Aliases: map[string]string{"spec.host": "spec.nodeName"},
		Fields:  typedFields(podFields),
	},
	// node/strategy.go NodeToSelectableFields. Note the conversion func
	// rejects metadata.namespace, unlike the default one.
	{Kind: "Node"}: {
		Keys:   []string{"metadata.name", "spec.unschedulable"},
		Fields: typedFields(nodeFields),
	},
	// replicationcontroller/strategy.go ControllerToSelectableFields.
	{Kind: "ReplicationController"}: {
		Keys:   []string{"metadata.name", "metadata.namespace", "status.replicas"},
		Fields: typedFields(replicationControllerFields),
	},
	// core/v1 AddFieldLabelConversionsForEvent; event/strategy.go ToSelectableFields.
	{Kind: "Event"}: {
		Keys: []string{"involvedObject.kind", "involvedObject.namespace", "involvedObject.name",
			"involvedObject.uid", "involvedObject.apiVersion", "involvedObject.resourceVersion",
			"involvedObject.fieldPath", "reason", "reportingComponent", "source", "type",
			"metadata.namespace", "metadata.name"},
		Fields: typedFields(coreEventFields),
	},
	// AddFieldLabelConversionsForNamespace; namespace/strategy.go
	// NamespaceToSelectableFields, whose legacy "name" field ("a bug, but we
	// need to support it for backward compatibility") the conversion func
	// never lets a selector reach.
	{Kind: "Namespace"}: {
		Keys:   []string{"status.phase", "metadata.name"},
		Fields: typedFields(namespaceFields),
	},
	// AddFieldLabelConversionsForSecret; secret/strategy.go SelectableFields.
	{Kind: "Secret"}: {
		Keys:   []string{"type", "metadata.namespace", "metadata.name"},
		Fields: typedFields(secretFields),
	},
	// AddFieldLabelConversionsForService; service/strategy.go SelectableFields.
	{Kind: "Service"}: {
		Keys:   []string{"metadata.namespace", "metadata.name", "spec.clusterIP", "spec.type"},
		Fields: typedFields(serviceFields),
	},
	// events/v1/conversion.go AddFieldLabelConversionsForEvent: the
	// events.k8s.io names map onto the core Event's field set, which the
	// shared registry matches against.
	{Group: "events.k8s.io", Kind: "Event"}: {
		Keys: []string{"reason", "type", "metadata.namespace", "metadata.name"},
		Aliases: map[string]string{
			"regarding.kind":            "involvedObject.kind",
			"regarding.namespace":       "involvedObject.namespace",
			"regarding.name":            "involvedObject.name",
			"regarding.uid":             "involvedObject.uid",
			"regarding.apiVersion":      "involvedObject.apiVersion",
			"regarding.resourceVersion": "involvedObject.resourceVersion",
			"regarding.fieldPath":       "involvedObject.fieldPath",
			"reportingController":       "reportingComponent",
		},
		Fields: typedFields(eventsEventFields),
	},
	// batch/v1/conversion.go; job/strategy.go JobToSelectableFields.
	{Group: "batch", Kind: "Job"}: {
		Keys:   []string{"metadata.name", "metadata.namespace", "status.successful"},
		Fields: typedFields(jobFields),
	},
	// certificates/v1/conversion.go; certificates/strategy.go SelectableFields.
	{Group: "certificates.k8s.io", Kind: "CertificateSigningRequest"}: {
		Keys:   []string{"metadata.name", "spec.signerName"},
		Fields: typedFields(csrFields),
	},
	// certificates/v1/conversion.go; clustertrustbundle/storage/storage.go getAttrs.
	{Group: "certificates.k8s.io", Kind: "ClusterTrustBundle"}: {
		Keys:   []string{"metadata.name", "spec.signerName"},
		Fields: typedFields(clusterTrustBundleFields),
	},
	// certificates/v1/conversion.go; podcertificaterequest/storage/storage.go getAttrs.
	{Group: "certificates.k8s.io", Kind: "PodCertificateRequest"}: {
		Keys:   []string{"metadata.name", "spec.signerName", "spec.podName", "spec.nodeName"},
		Fields: typedFields(podCertificateRequestFields),
	},
	// resource/v1/conversion.go addConversionFuncs; resourceslice/strategy.go
	// toSelectableFields. (resource.k8s.io's drivers and the DRA kubelet
	// plugin list their slices by these.)
	{Group: "resource.k8s.io", Kind: "ResourceSlice"}: {
		Keys:   []string{"metadata.name", resourcev1.ResourceSliceSelectorNodeName, resourcev1.ResourceSliceSelectorDriver, resourcev1.ResourceSliceSelectorPoolName},
		Fields: typedFields(resourceSliceFields),
	},
}

// resourceSliceFields: a slice without spec.nodeName has "" for it.
func resourceSliceFields(slice *resourcev1.ResourceSlice) fields.Set {
	node := ""
	if slice.Spec.NodeName != nil {
		node = *slice.Spec.NodeName
	}
	return fields.Set{
		resourcev1.ResourceSliceSelectorNodeName: node,
		resourcev1.ResourceSliceSelectorDriver:   slice.Spec.Driver,
		resourcev1.ResourceSliceSelectorPoolName: slice.Spec.Pool.Name,
	}
}

func podFields(pod *corev1.Pod) fields.Set {
	return fields.Set{
		"spec.nodeName":            pod.Spec.NodeName,
		"spec.restartPolicy":       string(pod.Spec.RestartPolicy),
		"spec.schedulerName":       pod.Spec.SchedulerName,
		"spec.serviceAccountName":  pod.Spec.ServiceAccountName,
		"spec.hostNetwork":         strconv.FormatBool(pod.Spec.HostNetwork),
		"status.phase":             string(pod.Status.Phase),
		"status.podIP":             PodIP(&pod.Status),
		"status.nominatedNodeName": pod.Status.NominatedNodeName,
	}
}

// PodIP is the pod's primary IP as kube-apiserver stores it: v1 defaulting
// (pkg/apis/core/v1/defaults.go SetDefaults_PodStatus) makes podIP
// authoritative and podIPs[0] equal to it, and the strategy and printer read
// podIPs[0].
func PodIP(st *corev1.PodStatus) string {
	if st.PodIP == "" && len(st.PodIPs) > 0 {
		return st.PodIPs[0].IP
	}
	return st.PodIP
}

func nodeFields(node *corev1.Node) fields.Set {
	return fields.Set{"spec.unschedulable": strconv.FormatBool(node.Spec.Unschedulable)}
}

func replicationControllerFields(rc *corev1.ReplicationController) fields.Set {
	return fields.Set{"status.replicas": strconv.Itoa(int(rc.Status.Replicas))}
}

func coreEventFields(ev *corev1.Event) fields.Set {
	source := ev.Source.Component
	if source == "" {
		source = ev.ReportingController
	}
	return eventFieldSet(ev.InvolvedObject, ev.Reason, ev.ReportingController, source, ev.Type)
}

// eventsEventFields reads an events.k8s.io/v1 Event through the core/v1
// field names: the registry converts it to the one internal Event first
// (pkg/apis/events/v1/conversion.go: regarding → involvedObject,
// deprecatedSource → source, reportingController).
func eventsEventFields(ev *eventsv1.Event) fields.Set {
	source := ev.DeprecatedSource.Component
	if source == "" {
		source = ev.ReportingController
	}
	return eventFieldSet(ev.Regarding, ev.Reason, ev.ReportingController, source, ev.Type)
}

func eventFieldSet(ref corev1.ObjectReference, reason, reportingController, source, typ string) fields.Set {
	return fields.Set{
		"involvedObject.kind":            ref.Kind,
		"involvedObject.namespace":       ref.Namespace,
		"involvedObject.name":            ref.Name,
		"involvedObject.uid":             string(ref.UID),
		"involvedObject.apiVersion":      ref.APIVersion,
		"involvedObject.resourceVersion": ref.ResourceVersion,
		"involvedObject.fieldPath":       ref.FieldPath,
		"reason":                         reason,
		"reportingComponent":             reportingController, // the core/v1 field name
		"source":                         source,
		"type":                           typ,
	}
}

func namespaceFields(ns *corev1.Namespace) fields.Set {
	return fields.Set{"status.phase": string(ns.Status.Phase), "name": ns.Name}
}

func secretFields(secret *corev1.Secret) fields.Set {
	return fields.Set{"type": string(secret.Type)}
}

func serviceFields(svc *corev1.Service) fields.Set {
	return fields.Set{"spec.clusterIP": svc.Spec.ClusterIP, "spec.type": string(svc.Spec.Type)}
}

func jobFields(job *batchv1.Job) fields.Set {
	return fields.Set{"status.successful": strconv.Itoa(int(job.Status.Succeeded))}
}

func csrFields(csr *certificatesv1.CertificateSigningRequest) fields.Set {
	return fields.Set{"spec.signerName": csr.Spec.SignerName}
}

func clusterTrustBundleFields(b *certificatesv1.ClusterTrustBundle) fields.Set {
	return fields.Set{"spec.signerName": b.Spec.SignerName}
}

func podCertificateRequestFields(r *certificatesv1.PodCertificateRequest) fields.Set {
	return fields.Set{"spec.signerName": r.Spec.SignerName, "spec.podName": r.Spec.PodName, "spec.nodeName": string(r.Spec.NodeName)}
}
