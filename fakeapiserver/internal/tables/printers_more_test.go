package tables

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	certificatesv1 "k8s.io/api/certificates/v1"
	certificatesv1beta1 "k8s.io/api/certificates/v1beta1"
	apiv1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	eventsv1 "k8s.io/api/events/v1"
	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	networkingv1 "k8s.io/api/networking/v1"
	resourcev1 "k8s.io/api/resource/v1"
	storagev1 "k8s.io/api/storage/v1"
	storagemigrationv1 "k8s.io/api/storagemigration/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"
)

// moreColumnPins are the columns of the printers of
// printers_{autoscaling,certificates,storage,volumes,core_more,networking,admission,events,misc}.go,
// copied verbatim from kubernetes v1.37.2 pkg/printers/internalversion/printers.go
// AddHandlers (resourceapi is resource/v1 there); TestTableColumnDefinitions
// checks them with the others.
var moreColumnPins = map[schema.GroupKind][]metav1.TableColumnDefinition{
	{Kind: "Endpoints"}: {
		{Name: "Name", Type: "string", Format: "name", Description: metav1.ObjectMeta{}.SwaggerDoc()["name"]},
		{Name: "Endpoints", Type: "string", Description: apiv1.Endpoints{}.SwaggerDoc()["subsets"]},
		{Name: "Age", Type: "string", Description: metav1.ObjectMeta{}.SwaggerDoc()["creationTimestamp"]},
	},
	{Kind: "PodTemplate"}: {
		{Name: "Name", Type: "string", Format: "name", Description: metav1.ObjectMeta{}.SwaggerDoc()["name"]},
		{Name: "Containers", Type: "string", Description: "Names of each container in the template."},
		{Name: "Images", Type: "string", Description: "Images referenced by each container in the template."},
		{Name: "Pod Labels", Type: "string", Description: "The labels for the pod template."},
	},
	{Kind: "ResourceQuota"}: {
		{Name: "Name", Type: "string", Format: "name", Description: metav1.ObjectMeta{}.SwaggerDoc()["name"]},
		{Name: "Request", Type: "string", Description: "Request represents a minimum amount of cpu/memory that a container may consume."},
		{Name: "Limit", Type: "string", Description: "Limits control the maximum amount of cpu/memory that a container may use independent of contention on the node."},
		{Name: "Age", Type: "string", Description: metav1.ObjectMeta{}.SwaggerDoc()["creationTimestamp"]},
	},
	{Kind: "ComponentStatus"}: {
		{Name: "Name", Type: "string", Format: "name", Description: metav1.ObjectMeta{}.SwaggerDoc()["name"]},
		{Name: "Status", Type: "string", Description: "Status of the component conditions"},
		{Name: "Message", Type: "string", Description: "Message of the component conditions"},
		{Name: "Error", Type: "string", Description: "Error of the component conditions"},
	},
	{Kind: "PersistentVolume"}: {
		{Name: "Name", Type: "string", Format: "name", Description: metav1.ObjectMeta{}.SwaggerDoc()["name"]},
		{Name: "Capacity", Type: "string", Description: apiv1.PersistentVolumeSpec{}.SwaggerDoc()["capacity"]},
		{Name: "Access Modes", Type: "string", Description: apiv1.PersistentVolumeSpec{}.SwaggerDoc()["accessModes"]},
		{Name: "Reclaim Policy", Type: "string", Description: apiv1.PersistentVolumeSpec{}.SwaggerDoc()["persistentVolumeReclaimPolicy"]},
		{Name: "Status", Type: "string", Description: apiv1.PersistentVolumeStatus{}.SwaggerDoc()["phase"]},
		{Name: "Claim", Type: "string", Description: apiv1.PersistentVolumeSpec{}.SwaggerDoc()["claimRef"]},
		{Name: "StorageClass", Type: "string", Description: "StorageClass of the pv"},
		{Name: "VolumeAttributesClass", Type: "string", Description: "VolumeAttributesClass of the pv"},
		{Name: "Reason", Type: "string", Description: apiv1.PersistentVolumeStatus{}.SwaggerDoc()["reason"]},
		{Name: "Age", Type: "string", Description: metav1.ObjectMeta{}.SwaggerDoc()["creationTimestamp"]},
		{Name: "VolumeMode", Type: "string", Priority: 1, Description: apiv1.PersistentVolumeSpec{}.SwaggerDoc()["volumeMode"]},
	},
	{Kind: "PersistentVolumeClaim"}: {
		{Name: "Name", Type: "string", Format: "name", Description: metav1.ObjectMeta{}.SwaggerDoc()["name"]},
		{Name: "Status", Type: "string", Description: apiv1.PersistentVolumeClaimStatus{}.SwaggerDoc()["phase"]},
		{Name: "Volume", Type: "string", Description: apiv1.PersistentVolumeClaimSpec{}.SwaggerDoc()["volumeName"]},
		{Name: "Capacity", Type: "string", Description: apiv1.PersistentVolumeClaimStatus{}.SwaggerDoc()["capacity"]},
		{Name: "Access Modes", Type: "string", Description: apiv1.PersistentVolumeClaimStatus{}.SwaggerDoc()["accessModes"]},
		{Name: "StorageClass", Type: "string", Description: "StorageClass of the pvc"},
		{Name: "VolumeAttributesClass", Type: "string", Description: "VolumeAttributesClass of the pvc"},
		{Name: "Age", Type: "string", Description: metav1.ObjectMeta{}.SwaggerDoc()["creationTimestamp"]},
		{Name: "VolumeMode", Type: "string", Priority: 1, Description: apiv1.PersistentVolumeClaimSpec{}.SwaggerDoc()["volumeMode"]},
	},
	{Group: "events.k8s.io", Kind: "Event"}: {
		{Name: "Last Seen", Type: "string", Description: apiv1.Event{}.SwaggerDoc()["lastTimestamp"]},
		{Name: "Type", Type: "string", Description: apiv1.Event{}.SwaggerDoc()["type"]},
		{Name: "Reason", Type: "string", Description: apiv1.Event{}.SwaggerDoc()["reason"]},
		{Name: "Object", Type: "string", Description: apiv1.Event{}.SwaggerDoc()["involvedObject"]},
		{Name: "Subobject", Type: "string", Priority: 1, Description: apiv1.Event{}.InvolvedObject.SwaggerDoc()["fieldPath"]},
		{Name: "Source", Type: "string", Priority: 1, Description: apiv1.Event{}.SwaggerDoc()["source"]},
		{Name: "Message", Type: "string", Description: apiv1.Event{}.SwaggerDoc()["message"]},
		{Name: "First Seen", Type: "string", Priority: 1, Description: apiv1.Event{}.SwaggerDoc()["firstTimestamp"]},
		{Name: "Count", Type: "string", Priority: 1, Description: apiv1.Event{}.SwaggerDoc()["count"]},
		{Name: "Name", Type: "string", Priority: 1, Format: "name", Description: metav1.ObjectMeta{}.SwaggerDoc()["name"]},
	},
	{Group: "apps", Kind: "ControllerRevision"}: {
		{Name: "Name", Type: "string", Format: "name", Description: metav1.ObjectMeta{}.SwaggerDoc()["name"]},
		{Name: "Controller", Type: "string", Description: "Controller of the object"},
		{Name: "Revision", Type: "string", Description: appsv1.ControllerRevision{}.SwaggerDoc()["revision"]},
		{Name: "Age", Type: "string", Description: metav1.ObjectMeta{}.SwaggerDoc()["creationTimestamp"]},
	},
	{Group: "autoscaling", Kind: "HorizontalPodAutoscaler"}: {
		{Name: "Name", Type: "string", Format: "name", Description: metav1.ObjectMeta{}.SwaggerDoc()["name"]},
		{Name: "Reference", Type: "string", Description: autoscalingv2.HorizontalPodAutoscalerSpec{}.SwaggerDoc()["scaleTargetRef"]},
		{Name: "Targets", Type: "string", Description: autoscalingv2.HorizontalPodAutoscalerSpec{}.SwaggerDoc()["metrics"]},
		{Name: "MinPods", Type: "string", Description: autoscalingv2.HorizontalPodAutoscalerSpec{}.SwaggerDoc()["minReplicas"]},
		{Name: "MaxPods", Type: "string", Description: autoscalingv2.HorizontalPodAutoscalerSpec{}.SwaggerDoc()["maxReplicas"]},
		{Name: "Replicas", Type: "string", Description: autoscalingv2.HorizontalPodAutoscalerStatus{}.SwaggerDoc()["currentReplicas"]},
		{Name: "Age", Type: "string", Description: metav1.ObjectMeta{}.SwaggerDoc()["creationTimestamp"]},
	},
	{Group: "certificates.k8s.io", Kind: "CertificateSigningRequest"}: {
		{Name: "Name", Type: "string", Format: "name", Description: metav1.ObjectMeta{}.SwaggerDoc()["name"]},
		{Name: "Age", Type: "string", Description: metav1.ObjectMeta{}.SwaggerDoc()["creationTimestamp"]},
		{Name: "SignerName", Type: "string", Description: certificatesv1beta1.CertificateSigningRequestSpec{}.SwaggerDoc()["signerName"]},
		{Name: "Requestor", Type: "string", Description: certificatesv1beta1.CertificateSigningRequestSpec{}.SwaggerDoc()["request"]},
		{Name: "RequestedDuration", Type: "string", Description: certificatesv1beta1.CertificateSigningRequestSpec{}.SwaggerDoc()["expirationSeconds"]},
		{Name: "Condition", Type: "string", Description: certificatesv1beta1.CertificateSigningRequestStatus{}.SwaggerDoc()["conditions"]},
	},
	{Group: "certificates.k8s.io", Kind: "ClusterTrustBundle"}: {
		{Name: "Name", Type: "string", Format: "name", Description: metav1.ObjectMeta{}.SwaggerDoc()["name"]},
		{Name: "SignerName", Type: "string", Description: certificatesv1.ClusterTrustBundleSpec{}.SwaggerDoc()["signerName"]},
	},
	{Group: "certificates.k8s.io", Kind: "PodCertificateRequest"}: {
		{Name: "Name", Type: "string", Format: "name", Description: metav1.ObjectMeta{}.SwaggerDoc()["name"]},
		{Name: "PodName", Type: "string", Description: certificatesv1.PodCertificateRequestSpec{}.SwaggerDoc()["podName"]},
		{Name: "ServiceAccountName", Type: "string", Description: certificatesv1.PodCertificateRequestSpec{}.SwaggerDoc()["serviceAccountName"]},
		{Name: "NodeName", Type: "string", Description: certificatesv1.PodCertificateRequestSpec{}.SwaggerDoc()["nodeName"]},
		{Name: "SignerName", Type: "string", Description: certificatesv1.PodCertificateRequestSpec{}.SwaggerDoc()["signerName"]},
		{Name: "State", Type: "string", Description: "Is the request Pending, Issued, Denied, or Failed?"},
		{Name: "UnverifiedUserAnnotations", Type: "string", Description: certificatesv1.PodCertificateRequestSpec{}.SwaggerDoc()["unverifiedUserAnnotations"]},
	},
	{Group: "discovery.k8s.io", Kind: "EndpointSlice"}: {
		{Name: "Name", Type: "string", Format: "name", Description: metav1.ObjectMeta{}.SwaggerDoc()["name"]},
		{Name: "AddressType", Type: "string", Description: discoveryv1.EndpointSlice{}.SwaggerDoc()["addressType"]},
		{Name: "Ports", Type: "string", Description: discoveryv1.EndpointSlice{}.SwaggerDoc()["ports"]},
		{Name: "Endpoints", Type: "string", Description: discoveryv1.EndpointSlice{}.SwaggerDoc()["endpoints"]},
		{Name: "Age", Type: "string", Description: metav1.ObjectMeta{}.SwaggerDoc()["creationTimestamp"]},
	},
	{Group: "networking.k8s.io", Kind: "NetworkPolicy"}: {
		{Name: "Name", Type: "string", Format: "name", Description: metav1.ObjectMeta{}.SwaggerDoc()["name"]},
		{Name: "Pod-Selector", Type: "string", Description: networkingv1.NetworkPolicySpec{}.SwaggerDoc()["podSelector"]},
		{Name: "Age", Type: "string", Description: metav1.ObjectMeta{}.SwaggerDoc()["creationTimestamp"]},
	},
	{Group: "networking.k8s.io", Kind: "ServiceCIDR"}: {
		{Name: "Name", Type: "string", Format: "name", Description: metav1.ObjectMeta{}.SwaggerDoc()["name"]},
		{Name: "CIDRs", Type: "string", Description: networkingv1.ServiceCIDRSpec{}.SwaggerDoc()["cidrs"]},
		{Name: "Age", Type: "string", Description: metav1.ObjectMeta{}.SwaggerDoc()["creationTimestamp"]},
	},
	{Group: "networking.k8s.io", Kind: "IPAddress"}: {
		{Name: "Name", Type: "string", Format: "name", Description: metav1.ObjectMeta{}.SwaggerDoc()["name"]},
		{Name: "ParentRef", Type: "string", Description: networkingv1.IPAddressSpec{}.SwaggerDoc()["parentRef"]},
	},
	{Group: "storage.k8s.io", Kind: "StorageClass"}: {
		{Name: "Name", Type: "string", Format: "name", Description: metav1.ObjectMeta{}.SwaggerDoc()["name"]},
		{Name: "Provisioner", Type: "string", Description: storagev1.StorageClass{}.SwaggerDoc()["provisioner"]},
		{Name: "ReclaimPolicy", Type: "string", Description: storagev1.StorageClass{}.SwaggerDoc()["reclaimPolicy"]},
		{Name: "VolumeBindingMode", Type: "string", Description: storagev1.StorageClass{}.SwaggerDoc()["volumeBindingMode"]},
		{Name: "AllowVolumeExpansion", Type: "string", Description: storagev1.StorageClass{}.SwaggerDoc()["allowVolumeExpansion"]},
		{Name: "Age", Type: "string", Description: metav1.ObjectMeta{}.SwaggerDoc()["creationTimestamp"]},
	},
	{Group: "storage.k8s.io", Kind: "VolumeAttributesClass"}: {
		{Name: "Name", Type: "string", Format: "name", Description: metav1.ObjectMeta{}.SwaggerDoc()["name"]},
		{Name: "DriverName", Type: "string", Description: storagev1.VolumeAttributesClass{}.SwaggerDoc()["driverName"]},
		{Name: "Age", Type: "string", Description: metav1.ObjectMeta{}.SwaggerDoc()["creationTimestamp"]},
	},
	{Group: "storage.k8s.io", Kind: "CSIDriver"}: {
		{Name: "Name", Type: "string", Format: "name", Description: metav1.ObjectMeta{}.SwaggerDoc()["name"]},
		{Name: "AttachRequired", Type: "boolean", Description: storagev1.CSIDriverSpec{}.SwaggerDoc()["attachRequired"]},
		{Name: "PodInfoOnMount", Type: "boolean", Description: storagev1.CSIDriverSpec{}.SwaggerDoc()["podInfoOnMount"]},
		{Name: "StorageCapacity", Type: "boolean", Description: storagev1.CSIDriverSpec{}.SwaggerDoc()["storageCapacity"]},
		{Name: "TokenRequests", Type: "string", Description: storagev1.CSIDriverSpec{}.SwaggerDoc()["tokenRequests"]},
		{Name: "RequiresRepublish", Type: "boolean", Description: storagev1.CSIDriverSpec{}.SwaggerDoc()["requiresRepublish"]},
		{Name: "Modes", Type: "string", Description: storagev1.CSIDriverSpec{}.SwaggerDoc()["volumeLifecycleModes"]},
		{Name: "Age", Type: "string", Description: metav1.ObjectMeta{}.SwaggerDoc()["creationTimestamp"]},
	},
	{Group: "storage.k8s.io", Kind: "CSINode"}: {
		{Name: "Name", Type: "string", Format: "name", Description: metav1.ObjectMeta{}.SwaggerDoc()["name"]},
		{Name: "Drivers", Type: "integer", Description: "Drivers indicates the number of CSI drivers registered on the node"},
		{Name: "Age", Type: "string", Description: metav1.ObjectMeta{}.SwaggerDoc()["creationTimestamp"]},
	},
	{Group: "storage.k8s.io", Kind: "VolumeAttachment"}: {
		{Name: "Name", Type: "string", Format: "name", Description: metav1.ObjectMeta{}.SwaggerDoc()["name"]},
		{Name: "Attacher", Type: "string", Format: "name", Description: storagev1.VolumeAttachmentSpec{}.SwaggerDoc()["attacher"]},
		{Name: "PV", Type: "string", Description: storagev1.VolumeAttachmentSource{}.SwaggerDoc()["persistentVolumeName"]},
		{Name: "Node", Type: "string", Description: storagev1.VolumeAttachmentSpec{}.SwaggerDoc()["nodeName"]},
		{Name: "Attached", Type: "boolean", Description: storagev1.VolumeAttachmentStatus{}.SwaggerDoc()["attached"]},
		{Name: "Age", Type: "string", Description: metav1.ObjectMeta{}.SwaggerDoc()["creationTimestamp"]},
	},
	{Group: "admissionregistration.k8s.io", Kind: "MutatingWebhookConfiguration"}: {
		{Name: "Name", Type: "string", Format: "name", Description: metav1.ObjectMeta{}.SwaggerDoc()["name"]},
		{Name: "Webhooks", Type: "integer", Description: "Webhooks indicates the number of webhooks registered in this configuration"},
		{Name: "Age", Type: "string", Description: metav1.ObjectMeta{}.SwaggerDoc()["creationTimestamp"]},
	},
	{Group: "admissionregistration.k8s.io", Kind: "ValidatingWebhookConfiguration"}: {
		{Name: "Name", Type: "string", Format: "name", Description: metav1.ObjectMeta{}.SwaggerDoc()["name"]},
		{Name: "Webhooks", Type: "integer", Description: "Webhooks indicates the number of webhooks registered in this configuration"},
		{Name: "Age", Type: "string", Description: metav1.ObjectMeta{}.SwaggerDoc()["creationTimestamp"]},
	},
	{Group: "admissionregistration.k8s.io", Kind: "ValidatingAdmissionPolicy"}: {
		{Name: "Name", Type: "string", Format: "name", Description: metav1.ObjectMeta{}.SwaggerDoc()["name"]},
		{Name: "Validations", Type: "integer", Description: "Validations indicates the number of validation rules defined in this configuration"},
		{Name: "ParamKind", Type: "string", Description: "ParamKind specifies the kind of resources used to parameterize this policy"},
		{Name: "Age", Type: "string", Description: metav1.ObjectMeta{}.SwaggerDoc()["creationTimestamp"]},
	},
	{Group: "admissionregistration.k8s.io", Kind: "ValidatingAdmissionPolicyBinding"}: {
		{Name: "Name", Type: "string", Format: "name", Description: metav1.ObjectMeta{}.SwaggerDoc()["name"]},
		{Name: "PolicyName", Type: "string", Description: "PolicyName indicates the policy definition which the policy binding binded to"},
		{Name: "ParamRef", Type: "string", Description: "ParamRef indicates the param resource which sets the configuration param"},
		{Name: "Age", Type: "string", Description: metav1.ObjectMeta{}.SwaggerDoc()["creationTimestamp"]},
	},
	{Group: "admissionregistration.k8s.io", Kind: "MutatingAdmissionPolicy"}: {
		{Name: "Name", Type: "string", Format: "name", Description: metav1.ObjectMeta{}.SwaggerDoc()["name"]},
		{Name: "Mutations", Type: "integer", Description: "Mutation indicates the number of mutations rules defined in this configuration"},
		{Name: "ParamKind", Type: "string", Description: "ParamKind specifies the kind of resources used to parameterize this policy"},
		{Name: "Age", Type: "string", Description: metav1.ObjectMeta{}.SwaggerDoc()["creationTimestamp"]},
	},
	{Group: "admissionregistration.k8s.io", Kind: "MutatingAdmissionPolicyBinding"}: {
		{Name: "Name", Type: "string", Format: "name", Description: metav1.ObjectMeta{}.SwaggerDoc()["name"]},
		{Name: "PolicyName", Type: "string", Description: "PolicyName indicates the policy definition which the policy binding binded to"},
		{Name: "ParamRef", Type: "string", Description: "ParamRef indicates the param resource which sets the configuration param"},
		{Name: "Age", Type: "string", Description: metav1.ObjectMeta{}.SwaggerDoc()["creationTimestamp"]},
	},
	{Group: "flowcontrol.apiserver.k8s.io", Kind: "FlowSchema"}: {
		{Name: "Name", Type: "string", Format: "name", Description: metav1.ObjectMeta{}.SwaggerDoc()["name"]},
		{Name: "PriorityLevel", Type: "string", Description: flowcontrolv1.PriorityLevelConfigurationReference{}.SwaggerDoc()["name"]},
		{Name: "MatchingPrecedence", Type: "string", Description: flowcontrolv1.FlowSchemaSpec{}.SwaggerDoc()["matchingPrecedence"]},
		{Name: "DistinguisherMethod", Type: "string", Description: flowcontrolv1.FlowSchemaSpec{}.SwaggerDoc()["distinguisherMethod"]},
		{Name: "Age", Type: "string", Description: metav1.ObjectMeta{}.SwaggerDoc()["creationTimestamp"]},
		{Name: "MissingPL", Type: "string", Description: "references a broken or non-existent PriorityLevelConfiguration"},
	},
	{Group: "flowcontrol.apiserver.k8s.io", Kind: "PriorityLevelConfiguration"}: {
		{Name: "Name", Type: "string", Format: "name", Description: metav1.ObjectMeta{}.SwaggerDoc()["name"]},
		{Name: "Type", Type: "string", Description: flowcontrolv1.PriorityLevelConfigurationSpec{}.SwaggerDoc()["type"]},
		{Name: "NominalConcurrencyShares", Type: "string", Description: flowcontrolv1.LimitedPriorityLevelConfiguration{}.SwaggerDoc()["nominalConcurrencyShares"]},
		{Name: "Queues", Type: "string", Description: flowcontrolv1.QueuingConfiguration{}.SwaggerDoc()["queues"]},
		{Name: "HandSize", Type: "string", Description: flowcontrolv1.QueuingConfiguration{}.SwaggerDoc()["handSize"]},
		{Name: "QueueLengthLimit", Type: "string", Description: flowcontrolv1.QueuingConfiguration{}.SwaggerDoc()["queueLengthLimit"]},
		{Name: "Age", Type: "string", Description: metav1.ObjectMeta{}.SwaggerDoc()["creationTimestamp"]},
	},
	{Group: "resource.k8s.io", Kind: "DeviceClass"}: {
		{Name: "Name", Type: "string", Format: "name", Description: metav1.ObjectMeta{}.SwaggerDoc()["name"]},
		{Name: "Age", Type: "string", Description: metav1.ObjectMeta{}.SwaggerDoc()["creationTimestamp"]},
	},
	{Group: "resource.k8s.io", Kind: "ResourceClaim"}: {
		{Name: "Name", Type: "string", Format: "name", Description: metav1.ObjectMeta{}.SwaggerDoc()["name"]},
		{Name: "State", Type: "string", Description: "A summary of the current state (allocated, pending, reserved, etc.)."},
		{Name: "Age", Type: "string", Description: metav1.ObjectMeta{}.SwaggerDoc()["creationTimestamp"]},
	},
	{Group: "resource.k8s.io", Kind: "ResourceClaimTemplate"}: {
		{Name: "Name", Type: "string", Format: "name", Description: metav1.ObjectMeta{}.SwaggerDoc()["name"]},
		{Name: "Age", Type: "string", Description: metav1.ObjectMeta{}.SwaggerDoc()["creationTimestamp"]},
	},
	{Group: "resource.k8s.io", Kind: "ResourceSlice"}: {
		{Name: "Name", Type: "string", Format: "name", Description: metav1.ObjectMeta{}.SwaggerDoc()["name"]},
		{Name: "Node", Type: "string", Description: resourcev1.ResourceSliceSpec{}.SwaggerDoc()["nodeName"]},
		{Name: "Driver", Type: "string", Description: resourcev1.ResourceSliceSpec{}.SwaggerDoc()["driver"]},
		{Name: "Pool", Type: "string", Description: resourcev1.ResourcePool{}.SwaggerDoc()["name"]},
		{Name: "Age", Type: "string", Description: metav1.ObjectMeta{}.SwaggerDoc()["creationTimestamp"]},
	},
	{Group: "resource.k8s.io", Kind: "DeviceTaintRule"}: {
		{Name: "Name", Type: "string", Format: "name", Description: metav1.ObjectMeta{}.SwaggerDoc()["name"]},
		{Name: "Key", Type: "string", Description: resourcev1.DeviceTaint{}.SwaggerDoc()["key"]},
		{Name: "Value", Type: "string", Description: resourcev1.DeviceTaint{}.SwaggerDoc()["value"]},
		{Name: "Effect", Type: "string", Description: resourcev1.DeviceTaint{}.SwaggerDoc()["effect"]},
		{Name: "TimeAdded", Type: "string", Description: resourcev1.DeviceTaint{}.SwaggerDoc()["timeAdded"]},
		{Name: "Age", Type: "string", Description: metav1.ObjectMeta{}.SwaggerDoc()["creationTimestamp"]},
	},
	{Group: "storagemigration.k8s.io", Kind: "StorageVersionMigration"}: {
		{Name: "Name", Type: "string", Description: metav1.ObjectMeta{}.SwaggerDoc()["name"]},
		{Name: "Resource", Type: "string", Description: "GroupResource to migrate"},
		{Name: "Status", Type: "string", Description: "Status of the migration"},
	},
}

// TestTableMoreKindsCells covers the branches of the printers added for
// the kinds beyond the workloads that the conformance cases (which need a
// real server to agree with) do not reach: terminal and deleted states,
// truncation, and values only controllers set.
func TestTableMoreKindsCells(t *testing.T) {
	created := tableAgo(5 * time.Hour)
	deleted := tableAgo(time.Minute)
	om := func(name string) metav1.ObjectMeta {
		return metav1.ObjectMeta{Name: name, Namespace: "default", CreationTimestamp: created}
	}
	q := resource.MustParse
	tests := []struct {
		name string
		gk   schema.GroupKind
		obj  runtime.Object
		want []any
	}{{
		name: "csr denied, failed and issued, without a signer or duration",
		gk:   schema.GroupKind{Group: "certificates.k8s.io", Kind: "CertificateSigningRequest"},
		obj: &certificatesv1.CertificateSigningRequest{ObjectMeta: om("csr"), Spec: certificatesv1.CertificateSigningRequestSpec{Username: "alice"},
			Status: certificatesv1.CertificateSigningRequestStatus{Certificate: []byte("x"), Conditions: []certificatesv1.CertificateSigningRequestCondition{
				{Type: certificatesv1.CertificateApproved}, {Type: certificatesv1.CertificateDenied}, {Type: certificatesv1.CertificateFailed}}}},
		want: []any{"csr", "5h", "<none>", "alice", "<none>", "Denied,Failed,Issued"},
	}, {
		name: "hpa v2 metrics of every type, past two",
		gk:   schema.GroupKind{Group: "autoscaling", Kind: "HorizontalPodAutoscaler"},
		obj: &autoscalingv2.HorizontalPodAutoscaler{ObjectMeta: om("h"), Spec: autoscalingv2.HorizontalPodAutoscalerSpec{
			ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{Kind: "StatefulSet", Name: "db"}, MaxReplicas: 5,
			Metrics: []autoscalingv2.MetricSpec{
				{Type: autoscalingv2.ExternalMetricSourceType, External: &autoscalingv2.ExternalMetricSource{Target: autoscalingv2.MetricTarget{AverageValue: ptr.To(q("2"))}}},
				{Type: autoscalingv2.ContainerResourceMetricSourceType, ContainerResource: &autoscalingv2.ContainerResourceMetricSource{Name: "cpu"}},
				{Type: autoscalingv2.ObjectMetricSourceType, Object: &autoscalingv2.ObjectMetricSource{Target: autoscalingv2.MetricTarget{Value: ptr.To(q("1"))}}},
			}},
			Status: autoscalingv2.HorizontalPodAutoscalerStatus{CurrentMetrics: []autoscalingv2.MetricStatus{
				{External: &autoscalingv2.ExternalMetricStatus{Current: autoscalingv2.MetricValueStatus{AverageValue: ptr.To(q("3"))}}},
				{ContainerResource: &autoscalingv2.ContainerResourceMetricStatus{Current: autoscalingv2.MetricValueStatus{AverageUtilization: ptr.To[int32](40)}}},
			}}},
		want: []any{"h", "StatefulSet/db", "3/2 (avg), cpu: 40%/<auto> + 1 more...", "1", int64(5), int64(0), "5h"},
	}, {
		name: "hpa v2 metric without its source",
		gk:   schema.GroupKind{Group: "autoscaling", Kind: "HorizontalPodAutoscaler"},
		obj: &autoscalingv2.HorizontalPodAutoscaler{ObjectMeta: om("h"), Spec: autoscalingv2.HorizontalPodAutoscalerSpec{
			MinReplicas: ptr.To[int32](2), Metrics: []autoscalingv2.MetricSpec{{Type: autoscalingv2.PodsMetricSourceType}}}},
		want: []any{"h", "/", "<unknown type>", "2", int64(0), int64(0), "5h"},
	}, {
		name: "hpa v1 explicit target without a current value",
		gk:   schema.GroupKind{Group: "autoscaling", Kind: "HorizontalPodAutoscaler"},
		obj: &autoscalingv1.HorizontalPodAutoscaler{ObjectMeta: om("h"), Spec: autoscalingv1.HorizontalPodAutoscalerSpec{
			ScaleTargetRef: autoscalingv1.CrossVersionObjectReference{Kind: "Deployment", Name: "d"}, MinReplicas: ptr.To[int32](3),
			MaxReplicas: 9, TargetCPUUtilizationPercentage: ptr.To[int32](70)}, Status: autoscalingv1.HorizontalPodAutoscalerStatus{CurrentReplicas: 4}},
		want: []any{"h", "Deployment/d", "cpu: <unknown>/70%", "3", int64(9), int64(4), "5h"},
	}, {
		name: "deleted persistent volume with the beta class annotation",
		gk:   schema.GroupKind{Kind: "PersistentVolume"},
		obj: &apiv1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: "pv", CreationTimestamp: created, DeletionTimestamp: &deleted,
			Annotations: map[string]string{betaStorageClassAnnotation: "beta"}},
			Spec: apiv1.PersistentVolumeSpec{StorageClassName: "ga", PersistentVolumeReclaimPolicy: apiv1.PersistentVolumeReclaimDelete,
				AccessModes: []apiv1.PersistentVolumeAccessMode{apiv1.ReadWriteOncePod, apiv1.ReadWriteOncePod}, VolumeAttributesClassName: ptr.To("gold")},
			Status: apiv1.PersistentVolumeStatus{Phase: apiv1.VolumeFailed, Reason: "Broken"}},
		want: []any{"pv", "0", "RWOP", "Delete", "Terminating", "", "beta", "gold", "Broken", "5h", "Filesystem"},
	}, {
		name: "deleted claim without a volume hides its status capacity",
		gk:   schema.GroupKind{Kind: "PersistentVolumeClaim"},
		obj: &apiv1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: "c", CreationTimestamp: created, DeletionTimestamp: &deleted},
			Status: apiv1.PersistentVolumeClaimStatus{Phase: apiv1.ClaimLost, Capacity: apiv1.ResourceList{apiv1.ResourceStorage: q("1Gi")}}},
		want: []any{"c", "Terminating", "", "", "", "", "<unset>", "5h", "Filesystem"},
	}, {
		name: "headless endpoints",
		gk:   schema.GroupKind{Kind: "Endpoints"},
		obj:  &apiv1.Endpoints{ObjectMeta: om("e"), Subsets: []apiv1.EndpointSubset{{Addresses: []apiv1.EndpointAddress{{IP: "1.1.1.1"}, {IP: "2.2.2.2"}}}}},
		want: []any{"e", "1.1.1.1,2.2.2.2", "5h"},
	}, {
		name: "endpoint slice port without a number or name, many ports",
		gk:   schema.GroupKind{Group: "discovery.k8s.io", Kind: "EndpointSlice"},
		obj: &discoveryv1.EndpointSlice{ObjectMeta: om("s"), AddressType: discoveryv1.AddressTypeFQDN,
			Ports: []discoveryv1.EndpointPort{{}, {Port: ptr.To[int32](1)}, {Name: ptr.To("n")}, {Port: ptr.To[int32](2)}}},
		want: []any{"s", "FQDN", "*,1,n + 1 more...", "<unset>", "5h"},
	}, {
		name: "exempt priority level",
		gk:   schema.GroupKind{Group: "flowcontrol.apiserver.k8s.io", Kind: "PriorityLevelConfiguration"},
		obj: &flowcontrolv1.PriorityLevelConfiguration{ObjectMeta: om("exempt"),
			Spec: flowcontrolv1.PriorityLevelConfigurationSpec{Type: flowcontrolv1.PriorityLevelEnablementExempt}},
		want: []any{"exempt", "Exempt", "<none>", "<none>", "<none>", "<none>", "5h"},
	}, {
		name: "flow schema with its dangling condition",
		gk:   schema.GroupKind{Group: "flowcontrol.apiserver.k8s.io", Kind: "FlowSchema"},
		obj: &flowcontrolv1.FlowSchema{ObjectMeta: om("fs"), Spec: flowcontrolv1.FlowSchemaSpec{MatchingPrecedence: 7,
			PriorityLevelConfiguration: flowcontrolv1.PriorityLevelConfigurationReference{Name: "pl"}},
			Status: flowcontrolv1.FlowSchemaStatus{Conditions: []flowcontrolv1.FlowSchemaCondition{{Type: flowcontrolv1.FlowSchemaConditionDangling, Status: flowcontrolv1.ConditionTrue}}}},
		want: []any{"fs", "pl", int64(7), "<none>", "5h", "True"},
	}, {
		name: "allocated and reserved claim",
		gk:   schema.GroupKind{Group: "resource.k8s.io", Kind: "ResourceClaim"},
		obj: &resourcev1.ResourceClaim{ObjectMeta: om("rc"), Status: resourcev1.ResourceClaimStatus{Allocation: &resourcev1.AllocationResult{},
			ReservedFor: []resourcev1.ResourceClaimConsumerReference{{Name: "p"}}}},
		want: []any{"rc", "allocated,reserved", "5h"},
	}, {
		name: "deleted unallocated claim",
		gk:   schema.GroupKind{Group: "resource.k8s.io", Kind: "ResourceClaim"},
		obj:  &resourcev1.ResourceClaim{ObjectMeta: metav1.ObjectMeta{Name: "rc", CreationTimestamp: created, DeletionTimestamp: &deleted}},
		want: []any{"rc", "deleted", "5h"},
	}, {
		name: "revision controlled by a core kind",
		gk:   schema.GroupKind{Group: "apps", Kind: "ControllerRevision"},
		obj: &appsv1.ControllerRevision{ObjectMeta: metav1.ObjectMeta{Name: "r", CreationTimestamp: created,
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "Pod", Name: "p", Controller: ptr.To(true)}}}, Revision: 2},
		want: []any{"r", "pod/p", int64(2), "5h"},
	}, {
		name: "events.k8s.io series event",
		gk:   schema.GroupKind{Group: "events.k8s.io", Kind: "Event"},
		obj: &eventsv1.Event{ObjectMeta: om("ev"), EventTime: metav1.NewMicroTime(created.Time), Type: "Warning", Reason: "Failed",
			Regarding: apiv1.ObjectReference{Kind: "Node"}, Note: "x", DeprecatedSource: apiv1.EventSource{Component: "kubelet", Host: "n1"},
			Series: &eventsv1.EventSeries{Count: 4, LastObservedTime: metav1.NewMicroTime(tableNow.Add(-time.Minute))}},
		want: []any{"60s", "Warning", "Failed", "node", "", "kubelet, n1", "x", "5h", int64(4), "ev"},
	}, {
		name: "succeeded storage version migration",
		gk:   schema.GroupKind{Group: "storagemigration.k8s.io", Kind: "StorageVersionMigration"},
		obj: &storagemigrationv1.StorageVersionMigration{ObjectMeta: om("m"),
			Spec: storagemigrationv1.StorageVersionMigrationSpec{Resource: metav1.GroupResource{Resource: "secrets"}},
			Status: storagemigrationv1.StorageVersionMigrationStatus{Conditions: []metav1.Condition{
				{Type: string(storagemigrationv1.MigrationRunning), Status: metav1.ConditionFalse},
				{Type: string(storagemigrationv1.MigrationSucceeded), Status: metav1.ConditionTrue}}}},
		want: []any{"m", "secrets", "Succeeded"},
	}, {
		name: "issued pod certificate request, wide annotations",
		gk:   schema.GroupKind{Group: "certificates.k8s.io", Kind: "PodCertificateRequest"},
		obj: &certificatesv1.PodCertificateRequest{ObjectMeta: om("pcr"), Spec: certificatesv1.PodCertificateRequestSpec{
			PodName: "p", ServiceAccountName: "sa", NodeName: "n1", SignerName: "example.com/s", UnverifiedUserAnnotations: map[string]string{"b": "2", "a": "1"}},
			Status: certificatesv1.PodCertificateRequestStatus{Conditions: []metav1.Condition{{Type: "Issued", Status: metav1.ConditionTrue}}}},
		want: []any{"pcr", "p", "sa", "n1", "example.com/s", "Issued", "a=1,b=2"},
	}, {
		name: "ip address without a parent",
		gk:   schema.GroupKind{Group: "networking.k8s.io", Kind: "IPAddress"},
		obj:  &networkingv1.IPAddress{ObjectMeta: metav1.ObjectMeta{Name: "10.0.0.1", CreationTimestamp: created}},
		want: []any{"10.0.0.1", "<none>", "5h"},
	}, {
		name: "component status",
		gk:   schema.GroupKind{Kind: "ComponentStatus"},
		obj: &apiv1.ComponentStatus{ObjectMeta: metav1.ObjectMeta{Name: "etcd-0"}, Conditions: []apiv1.ComponentCondition{
			{Type: apiv1.ComponentHealthy, Status: apiv1.ConditionFalse, Message: "m", Error: "e"}}},
		want: []any{"etcd-0", "Unhealthy", "m", "e"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := printers[tt.gk]
			row, ok := p.row(tt.obj, tableNow)
			if !ok {
				t.Fatalf("printer of %v refused %T", tt.gk, tt.obj)
			}
			if diff := cmp.Diff(tt.want, row.Cells); diff != "" {
				t.Errorf("row cells of %v mismatch (-want +got):\n%s", tt.gk, diff)
			}
			// IPAddress has an age cell without a column, as kube-apiserver's.
			if len(row.Cells) != len(p.columns) && tt.gk.Kind != "IPAddress" {
				t.Errorf("len(cells) = %d, want one per column (%d)", len(row.Cells), len(p.columns))
			}
		})
	}
}

// TestTableStorageClassDefault: a list marks the newest class annotated
// as default (the first by name on a tie), a single object is never
// marked, as printStorageClassList and printStorageClass differ.
func TestTableStorageClassDefault(t *testing.T) {
	class := func(name string, created time.Duration, isDefault string) *storagev1.StorageClass {
		return &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: name, CreationTimestamp: tableAgo(created),
			Annotations: map[string]string{"storageclass.kubernetes.io/is-default-class": isDefault}}, Provisioner: "p"}
	}
	res := tableResource(storagev1.SchemeGroupVersion.WithKind("StorageClass"), "storageclasses")
	names := func(objs []runtime.Object, list bool) []any {
		t.Helper()
		table, err := Convert(res, objs, Options{Now: tableNow, List: list})
		if err != nil {
			t.Fatalf("Convert: %v", err)
		}
		var out []any
		for _, r := range table.Rows {
			out = append(out, r.Cells[0])
		}
		return out
	}
	objs := []runtime.Object{class("old", time.Hour, "true"), class("b", time.Minute, "true"), class("a", time.Minute, "true"),
		class("newest-off", time.Second, "false")}
	if diff := cmp.Diff([]any{"old", "b", "a (default)", "newest-off"}, names(objs, true)); diff != "" {
		t.Errorf("list names mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]any{"a"}, names(objs[2:3], false)); diff != "" {
		t.Errorf("single object name mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]any{"old (default)"}, names(objs[:1], true)); diff != "" {
		t.Errorf("list of one name mismatch (-want +got):\n%s", diff)
	}
}
