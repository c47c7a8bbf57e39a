package tables

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1beta1 "k8s.io/api/rbac/v1beta1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/duration"
)

const (
	// labelNodeRolePrefix and nodeLabelRole mark node roles
	// (printers.go findNodeRoles).
	labelNodeRolePrefix = "node-role.kubernetes.io/"
	nodeLabelRole       = "kubernetes.io/role"
	// nodeUnreachablePodReason is the reason the node lifecycle controller
	// gives pods on a lost node (kubernetes pkg/util/node.NodeUnreachablePodReason).
	nodeUnreachablePodReason = "NodeLost"
	// containerColumnsDescription and imageColumnsDescription are shared by
	// the workload printers' wide columns.
	containerColumnsDescription = "Names of each container in the template."
	imageColumnsDescription     = "Images referenced by each container in the template."
)

var (
	objectMetaDoc = metav1.ObjectMeta{}.SwaggerDoc()
	nameColumn    = metav1.TableColumnDefinition{Name: "Name", Type: "string", Format: "name", Description: objectMetaDoc["name"]}
	ageColumn     = column("Age", "string", objectMetaDoc["creationTimestamp"])

	podSuccessConditions = []metav1.TableRowCondition{{Type: metav1.RowCompleted, Status: metav1.ConditionTrue, Reason: string(corev1.PodSucceeded), Message: "The pod has completed successfully."}}
	podFailedConditions  = []metav1.TableRowCondition{{Type: metav1.RowCompleted, Status: metav1.ConditionTrue, Reason: string(corev1.PodFailed), Message: "The pod failed."}}
)

// printer is one kind's columns and the function that prints an
// object of that kind as a row, as printers.go registers them with
// TableHandler.
type printer struct {
	columns []metav1.TableColumnDefinition
	row     rowFunc
	// listRow, if set, replaces row when a list is printed: kube-apiserver
	// prints some lists with a pass over all their items first (a
	// StorageClass list marks the effective default class).
	listRow func(objs []runtime.Object) rowFunc
	// nilRows keeps Rows nil for an empty table: the default convertor
	// appends to a nil slice, the printers start from make(..., 0), and the
	// JSON shows the difference ("rows": null vs []).
	nilRows bool
}

// rowFunc prints one object as a row: Cells (one per column) and
// Conditions; ok is false for an object of another Go type.
type rowFunc func(obj runtime.Object, now time.Time) (row metav1.TableRow, ok bool)

// printers are the printers kube-apiserver installs for the kinds
// served by default, and a few more that `kubectl get all` lists.
var printers = map[schema.GroupKind]printer{
	{Kind: "Pod"}:                                                    printerOf(podColumns(), printPod),
	{Kind: "ConfigMap"}:                                              printerOf(configMapColumns(), printConfigMap),
	{Kind: "Secret"}:                                                 printerOf(secretColumns(), printSecret),
	{Kind: "Namespace"}:                                              printerOf(namespaceColumns(), printNamespace),
	{Kind: "Node"}:                                                   printerOf(nodeColumns(), printNode),
	{Kind: "Service"}:                                                printerOf(serviceColumns(), printService),
	{Kind: "Event"}:                                                  printerOf(eventColumns(), printEvent),
	{Kind: "ServiceAccount"}:                                         printerOf([]metav1.TableColumnDefinition{nameColumn, ageColumn}, printServiceAccount),
	{Kind: "ReplicationController"}:                                  printerOf(replicationControllerColumns(), printReplicationController),
	{Group: "apps", Kind: "Deployment"}:                              printerOf(deploymentColumns(), printDeployment),
	{Group: "apps", Kind: "ReplicaSet"}:                              printerOf(replicaSetColumns(), printReplicaSet),
	{Group: "apps", Kind: "StatefulSet"}:                             printerOf(statefulSetColumns(), printStatefulSet),
	{Group: "apps", Kind: "DaemonSet"}:                               printerOf(daemonSetColumns(), printDaemonSet),
	{Group: "coordination.k8s.io", Kind: "Lease"}:                    printerOf(leaseColumns(), printLease),
	{Group: "batch", Kind: "Job"}:                                    printerOf(jobColumns(), printJob),
	{Group: "batch", Kind: "CronJob"}:                                printerOf(cronJobColumns(), printCronJob),
	{Group: "networking.k8s.io", Kind: "Ingress"}:                    printerOf(ingressColumns(), printIngress),
	{Group: "networking.k8s.io", Kind: "IngressClass"}:               printerOf(ingressClassColumns(), printIngressClass),
	{Group: "policy", Kind: "PodDisruptionBudget"}:                   printerOf(podDisruptionBudgetColumns(), printPodDisruptionBudget),
	{Group: "node.k8s.io", Kind: "RuntimeClass"}:                     printerOf(runtimeClassColumns(), printRuntimeClass),
	{Group: "scheduling.k8s.io", Kind: "PriorityClass"}:              printerOf(priorityClassColumns(), printPriorityClass),
	{Group: "rbac.authorization.k8s.io", Kind: "RoleBinding"}:        printerOf(roleBindingColumns("roleBinding", rbacv1beta1.RoleBinding{}.SwaggerDoc()["roleRef"]), printRoleBinding),
	{Group: "rbac.authorization.k8s.io", Kind: "ClusterRoleBinding"}: printerOf(roleBindingColumns("clusterRoleBinding", rbacv1beta1.ClusterRoleBinding{}.SwaggerDoc()["roleRef"]), printClusterRoleBinding),

	{Kind: "Endpoints"}:             printerOf(endpointsColumns(), printEndpoints),
	{Kind: "PodTemplate"}:           printerOf(podTemplateColumns(), printPodTemplate),
	{Kind: "ResourceQuota"}:         printerOf(resourceQuotaColumns(), printResourceQuota),
	{Kind: "ComponentStatus"}:       printerOf(componentStatusColumns(), printComponentStatus),
	{Kind: "PersistentVolume"}:      printerOf(persistentVolumeColumns(), printPersistentVolume),
	{Kind: "PersistentVolumeClaim"}: printerOf(persistentVolumeClaimColumns(), printPersistentVolumeClaim),

	{Group: "events.k8s.io", Kind: "Event"}:                                           printerOf(eventColumns(), printEventsV1),
	{Group: "apps", Kind: "ControllerRevision"}:                                       printerOf(controllerRevisionColumns(), printControllerRevision),
	{Group: "autoscaling", Kind: "HorizontalPodAutoscaler"}:                           horizontalPodAutoscalerPrinter(),
	{Group: "certificates.k8s.io", Kind: "CertificateSigningRequest"}:                 printerOf(certificateSigningRequestColumns(), printCertificateSigningRequest),
	{Group: "certificates.k8s.io", Kind: "ClusterTrustBundle"}:                        printerOf(clusterTrustBundleColumns(), printClusterTrustBundle),
	{Group: "certificates.k8s.io", Kind: "PodCertificateRequest"}:                     printerOf(podCertificateRequestColumns(), printPodCertificateRequest),
	{Group: "discovery.k8s.io", Kind: "EndpointSlice"}:                                printerOf(endpointSliceColumns(), printEndpointSlice),
	{Group: "networking.k8s.io", Kind: "NetworkPolicy"}:                               printerOf(networkPolicyColumns(), printNetworkPolicy),
	{Group: "networking.k8s.io", Kind: "ServiceCIDR"}:                                 printerOf(serviceCIDRColumns(), printServiceCIDR),
	{Group: "networking.k8s.io", Kind: "IPAddress"}:                                   printerOf(ipAddressColumns(), printIPAddress),
	{Group: "storage.k8s.io", Kind: "StorageClass"}:                                   storageClassPrinter(),
	{Group: "storage.k8s.io", Kind: "VolumeAttributesClass"}:                          printerOf(volumeAttributesClassColumns(), printVolumeAttributesClass),
	{Group: "storage.k8s.io", Kind: "CSIDriver"}:                                      printerOf(csiDriverColumns(), printCSIDriver),
	{Group: "storage.k8s.io", Kind: "CSINode"}:                                        printerOf(csiNodeColumns(), printCSINode),
	{Group: "storage.k8s.io", Kind: "VolumeAttachment"}:                               printerOf(volumeAttachmentColumns(), printVolumeAttachment),
	{Group: "admissionregistration.k8s.io", Kind: "MutatingWebhookConfiguration"}:     printerOf(webhookConfigurationColumns(), printMutatingWebhookConfiguration),
	{Group: "admissionregistration.k8s.io", Kind: "ValidatingWebhookConfiguration"}:   printerOf(webhookConfigurationColumns(), printValidatingWebhookConfiguration),
	{Group: "admissionregistration.k8s.io", Kind: "ValidatingAdmissionPolicy"}:        printerOf(validatingAdmissionPolicyColumns(), printValidatingAdmissionPolicy),
	{Group: "admissionregistration.k8s.io", Kind: "ValidatingAdmissionPolicyBinding"}: printerOf(admissionPolicyBindingColumns(), printValidatingAdmissionPolicyBinding),
	{Group: "admissionregistration.k8s.io", Kind: "MutatingAdmissionPolicy"}:          printerOf(mutatingAdmissionPolicyColumns(), printMutatingAdmissionPolicy),
	{Group: "admissionregistration.k8s.io", Kind: "MutatingAdmissionPolicyBinding"}:   printerOf(admissionPolicyBindingColumns(), printMutatingAdmissionPolicyBinding),
	{Group: "flowcontrol.apiserver.k8s.io", Kind: "FlowSchema"}:                       printerOf(flowSchemaColumns(), printFlowSchema),
	{Group: "flowcontrol.apiserver.k8s.io", Kind: "PriorityLevelConfiguration"}:       printerOf(priorityLevelConfigurationColumns(), printPriorityLevelConfiguration),
	{Group: "resource.k8s.io", Kind: "DeviceClass"}:                                   printerOf(nameAgeColumns(), printDeviceClass),
	{Group: "resource.k8s.io", Kind: "ResourceClaim"}:                                 printerOf(resourceClaimColumns(), printResourceClaim),
	{Group: "resource.k8s.io", Kind: "ResourceClaimTemplate"}:                         printerOf(nameAgeColumns(), printResourceClaimTemplate),
	{Group: "resource.k8s.io", Kind: "ResourceSlice"}:                                 printerOf(resourceSliceColumns(), printResourceSlice),
	{Group: "resource.k8s.io", Kind: "DeviceTaintRule"}:                               printerOf(deviceTaintRuleColumns(), printDeviceTaintRule),
	{Group: "storagemigration.k8s.io", Kind: "StorageVersionMigration"}:               printerOf(storageVersionMigrationColumns(), printStorageVersionMigration),
	{Group: "apiregistration.k8s.io", Kind: "APIService"}:                             printerOf(apiServiceColumns(), printAPIService),
}

// defaultPrinter is apiserver's defaultTableConvertor, used for every
// kind without a printer.
var defaultPrinter = printer{
	columns: []metav1.TableColumnDefinition{
		nameColumn,
		column("Created At", "date", objectMetaDoc["creationTimestamp"]),
	},
	row: func(obj runtime.Object, _ time.Time) (metav1.TableRow, bool) {
		m, err := meta.Accessor(obj)
		if err != nil {
			return metav1.TableRow{}, false
		}
		return metav1.TableRow{Cells: []any{m.GetName(), m.GetCreationTimestamp().UTC().Format(time.RFC3339)}}, true
	},
	nilRows: true,
}

// printerOf adapts a typed row function to printer.
func printerOf[T runtime.Object](columns []metav1.TableColumnDefinition, print func(T, time.Time) metav1.TableRow) printer {
	return printer{columns: columns, row: func(obj runtime.Object, now time.Time) (metav1.TableRow, bool) {
		t, ok := obj.(T)
		if !ok {
			return metav1.TableRow{}, false
		}
		return print(t, now), true
	}}
}

// column and wideColumn build a column definition; wide ones (priority 1)
// show only with kubectl -o wide.
func column(name, typ, description string) metav1.TableColumnDefinition {
	return metav1.TableColumnDefinition{Name: name, Type: typ, Description: description}
}

func wideColumn(name, typ, description string) metav1.TableColumnDefinition {
	return metav1.TableColumnDefinition{Name: name, Type: typ, Priority: 1, Description: description}
}

// cells wraps a row's cells.
func cells(c ...any) metav1.TableRow { return metav1.TableRow{Cells: c} }

// age is translateTimestampSince (and translateMicroTimestampSince) with
// the server's clock: the time from t to now, <unknown> for a zero t.
func age(t time.Time, now time.Time) string {
	if t.IsZero() {
		return "<unknown>"
	}
	return duration.HumanDuration(now.Sub(t))
}

// replicasOrDefault is a workload's spec.replicas after v1 defaulting
// (nil becomes 1), which is what kube-apiserver stores and prints.
func replicasOrDefault(r *int32) int32 {
	if r == nil {
		return 1
	}
	return *r
}
