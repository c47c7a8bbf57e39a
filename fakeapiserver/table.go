package fakeapiserver

import (
	"fmt"
	"net/http"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1beta1 "k8s.io/api/rbac/v1beta1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/duration"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// The Table form of a response is what `kubectl get` prints. kube-apiserver
// builds it in two steps, both copied here:
//
//  1. The resource's TableConvertor makes the columns and cells. Built-in
//     resources use the printers of kubernetes
//     pkg/printers/internalversion/printers.go through
//     pkg/printers/storage.TableConvertor, which always asks for the wide
//     form (every column, priority 1 included; kubectl hides those without
//     -o wide). The others use apiserver pkg/registry/rest/table.go
//     (defaultTableConvertor: Name and Created At).
//  2. asTable (apiserver pkg/endpoints/handlers/response.go) replaces each
//     row's object according to ?includeObject=: the object's metadata as a
//     meta.k8s.io/v1 PartialObjectMetadata by default, the whole object, or
//     nothing.
//
// The printers read internal types; here they are ported to the v1 types
// the store holds. Where v1 defaulting or conversion would have filled a
// field before the printer ran (replicas, service type, port protocol,
// clusterIPs, podIPs, secret type and stringData), the port reads the value
// kube-apiserver would have stored, so a fake that skips defaulting still
// prints what a real server does for the same request.

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

// tablePrinter is one kind's columns and the function that prints an
// object of that kind as a row, as printers.go registers them with
// TableHandler.
type tablePrinter struct {
	columns []metav1.TableColumnDefinition
	// row fills Cells (one per column) and Conditions; ok is false for an
	// object of another Go type.
	row func(obj runtime.Object, now time.Time) (row metav1.TableRow, ok bool)
	// nilRows keeps Rows nil for an empty table: the default convertor
	// appends to a nil slice, the printers start from make(..., 0), and the
	// JSON shows the difference ("rows": null vs []).
	nilRows bool
}

// tablePrinters are the printers kube-apiserver installs for the kinds
// served by default, and a few more that `kubectl get all` lists.
var tablePrinters = map[schema.GroupKind]tablePrinter{
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
}

// defaultTablePrinter is apiserver's defaultTableConvertor, used for every
// kind without a printer.
var defaultTablePrinter = tablePrinter{
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

// toTable converts objects of one resource into the Table kubectl asks for (Accept: application/json;as=Table;v=v1;g=meta.k8s.io).
// listMeta is copied into the Table (resourceVersion, continue, remainingItemCount); includeObject is the
// ?includeObject= query value ("" means the default, Metadata... see below).
//
// A zero listMeta with exactly one object (a GET, a watch event) gives the
// Table that object's resourceVersion, as the printers' GenerateTable does
// for a single object. Cells are computed at s.cfg.Clock.Now(). Errors: an
// invalid includeObject is a 400 with kube-apiserver's text
// (validateIncludeObject); an object the kind's printer cannot print is a
// 406 for the default convertor (no metadata) and a 500 otherwise.
func (s *Server) toTable(res *resourceInfo, objs []runtime.Object, listMeta metav1.ListMeta, includeObject metav1.IncludeObjectPolicy) (*metav1.Table, error) {
	if err := validateIncludeObject(includeObject); err != nil {
		return nil, err
	}
	if res.custom != nil && res.custom.table != nil {
		return s.customTable(res, objs, listMeta, includeObject) // customresource_table.go
	}
	p, hasPrinter := tablePrinters[res.Kind.GroupKind()]
	if !hasPrinter {
		p = defaultTablePrinter
	}
	table := &metav1.Table{
		TypeMeta:          metav1.TypeMeta{Kind: "Table", APIVersion: metav1.SchemeGroupVersion.String()},
		ListMeta:          listMeta,
		ColumnDefinitions: slices.Clone(p.columns),
	}
	if !p.nilRows {
		table.Rows = make([]metav1.TableRow, 0, len(objs))
	}
	now := s.cfg.Clock.Now()
	for _, obj := range objs {
		row, ok := p.row(obj, now)
		if !ok {
			return nil, cannotPrint(res, obj, hasPrinter)
		}
		embedded, err := rowObject(res, obj, includeObject)
		if err != nil {
			return nil, err
		}
		row.Object.Object = embedded
		table.Rows = append(table.Rows, row)
	}
	if listMeta == (metav1.ListMeta{}) && len(objs) == 1 {
		if m, err := meta.Accessor(objs[0]); err == nil {
			table.ResourceVersion = m.GetResourceVersion()
		}
	}
	return table, nil
}

// validateIncludeObject checks ?includeObject= as apiserver's
// optionsForTransform does (handlers/response.go, with
// meta/v1beta1/validation.ValidateTableOptions), before any conversion; a
// watch handler calls it before it starts the stream.
func validateIncludeObject(p metav1.IncludeObjectPolicy) error {
	switch p {
	case metav1.IncludeMetadata, metav1.IncludeNone, metav1.IncludeObject, "":
		return nil
	}
	fe := field.Invalid(field.NewPath("includeObject"), p, "must be 'Metadata', 'Object', 'None', or empty")
	return apierrors.NewBadRequest(fmt.Sprintf("Unable to convert to Table as requested: %v", fe.Error()))
}

// rowObject is the object a row embeds for the includeObject policy, as
// asTable sets it. Store objects are shared, so one without its apiVersion
// and kind is copied before they are set.
func rowObject(res *resourceInfo, obj runtime.Object, p metav1.IncludeObjectPolicy) (runtime.Object, error) {
	m, err := meta.Accessor(obj)
	if err != nil {
		return nil, err
	}
	switch {
	case p == metav1.IncludeObject:
		if obj.GetObjectKind().GroupVersionKind().Empty() {
			obj = obj.DeepCopyObject()
			obj.GetObjectKind().SetGroupVersionKind(res.Kind)
		}
		return obj, nil
	case p == metav1.IncludeNone && m.GetAnnotations()[metav1.InitialEventsAnnotationKey] != "true":
		return nil, nil
	default:
		// Metadata, "" and the initial-events-end bookmark object.
		partial := meta.AsPartialObjectMetadata(m)
		partial.SetGroupVersionKind(metav1.SchemeGroupVersion.WithKind("PartialObjectMetadata"))
		return partial, nil
	}
}

// cannotPrint is the error for an object the kind's printer cannot print:
// the default convertor's 406 (rest/table.go errNotAcceptable) for one
// without metadata, the table generator's "no table handler" 500 for a Go
// type the printer does not take.
func cannotPrint(res *resourceInfo, obj runtime.Object, hasPrinter bool) error {
	if !hasPrinter {
		return &apierrors.StatusError{ErrStatus: metav1.Status{
			Status:  metav1.StatusFailure,
			Code:    http.StatusNotAcceptable,
			Reason:  metav1.StatusReason("NotAcceptable"),
			Message: fmt.Sprintf("the resource %s does not support being converted to a Table", res.qualified()),
		}}
	}
	return fmt.Errorf("no table handler registered for this type %T", obj)
}

// printerOf adapts a typed row function to tablePrinter.
func printerOf[T runtime.Object](columns []metav1.TableColumnDefinition, print func(T, time.Time) metav1.TableRow) tablePrinter {
	return tablePrinter{columns: columns, row: func(obj runtime.Object, now time.Time) (metav1.TableRow, bool) {
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
