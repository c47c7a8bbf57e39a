package fakeapiserver

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/duration"
	"k8s.io/apimachinery/pkg/util/sets"
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
	{Kind: "Pod"}:                                 printerOf(podColumns(), printPod),
	{Kind: "ConfigMap"}:                           printerOf(configMapColumns(), printConfigMap),
	{Kind: "Secret"}:                              printerOf(secretColumns(), printSecret),
	{Kind: "Namespace"}:                           printerOf(namespaceColumns(), printNamespace),
	{Kind: "Node"}:                                printerOf(nodeColumns(), printNode),
	{Kind: "Service"}:                             printerOf(serviceColumns(), printService),
	{Kind: "Event"}:                               printerOf(eventColumns(), printEvent),
	{Kind: "ServiceAccount"}:                      printerOf([]metav1.TableColumnDefinition{nameColumn, ageColumn}, printServiceAccount),
	{Kind: "ReplicationController"}:               printerOf(replicationControllerColumns(), printReplicationController),
	{Group: "apps", Kind: "Deployment"}:           printerOf(deploymentColumns(), printDeployment),
	{Group: "apps", Kind: "ReplicaSet"}:           printerOf(replicaSetColumns(), printReplicaSet),
	{Group: "apps", Kind: "StatefulSet"}:          printerOf(statefulSetColumns(), printStatefulSet),
	{Group: "apps", Kind: "DaemonSet"}:            printerOf(daemonSetColumns(), printDaemonSet),
	{Group: "coordination.k8s.io", Kind: "Lease"}: printerOf(leaseColumns(), printLease),
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

// layoutContainerCells joins the containers' names and images.
func layoutContainerCells(containers []corev1.Container) (names, images string) {
	n := make([]string, len(containers))
	i := make([]string, len(containers))
	for k, c := range containers {
		n[k], i[k] = c.Name, c.Image
	}
	return strings.Join(n, ","), strings.Join(i, ",")
}

func podColumns() []metav1.TableColumnDefinition {
	return []metav1.TableColumnDefinition{
		nameColumn,
		column("Ready", "string", "The aggregate readiness state of this pod for accepting traffic."),
		column("Status", "string", "The aggregate status of the containers in this pod."),
		column("Restarts", "string", "The number of times the containers in this pod have been restarted and when the last container in this pod has restarted."),
		ageColumn,
		wideColumn("IP", "string", corev1.PodStatus{}.SwaggerDoc()["podIP"]),
		wideColumn("Node", "string", corev1.PodSpec{}.SwaggerDoc()["nodeName"]),
		wideColumn("Nominated Node", "string", corev1.PodStatus{}.SwaggerDoc()["nominatedNodeName"]),
		wideColumn("Readiness Gates", "string", corev1.PodSpec{}.SwaggerDoc()["readinessGates"]),
	}
}

// podSummary accumulates printPod's READY, STATUS and RESTARTS.
type podSummary struct {
	reason          string
	ready, total    int
	restarts        int
	lastRestart     time.Time
	initializing    bool
	sidecarRestarts int       // restarts of restartable init containers
	lastSidecar     time.Time // their latest restart
}

// printPod ports printers.go printPod; see podSummary for the steps.
func printPod(pod *corev1.Pod, now time.Time) metav1.TableRow {
	s := podSummary{reason: string(pod.Status.Phase), total: len(pod.Spec.Containers)}
	if pod.Status.Reason != "" {
		s.reason = pod.Status.Reason
	}
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodScheduled && c.Reason == corev1.PodReasonSchedulingGated {
			s.reason = corev1.PodReasonSchedulingGated
		}
	}
	s.scanInitContainers(pod)
	if !s.initializing || hasPodCondition(pod.Status.Conditions, corev1.PodInitialized) {
		s.scanContainers(pod)
	}
	terminal := pod.Status.Phase == corev1.PodFailed || pod.Status.Phase == corev1.PodSucceeded
	switch {
	case pod.DeletionTimestamp != nil && pod.Status.Reason == nodeUnreachablePodReason:
		s.reason = "Unknown"
	case pod.DeletionTimestamp != nil && !terminal:
		s.reason = "Terminating"
	}
	restarts := strconv.Itoa(s.restarts)
	if s.restarts != 0 && !s.lastRestart.IsZero() {
		restarts = fmt.Sprintf("%d (%s ago)", s.restarts, age(s.lastRestart, now))
	}
	row := cells(pod.Name, fmt.Sprintf("%d/%d", s.ready, s.total), s.reason, restarts, age(pod.CreationTimestamp.Time, now),
		orNone(podIP(&pod.Status)), orNone(pod.Spec.NodeName), orNone(pod.Status.NominatedNodeName), readinessGates(pod))
	switch pod.Status.Phase {
	case corev1.PodSucceeded:
		row.Conditions = podSuccessConditions
	case corev1.PodFailed:
		row.Conditions = podFailedConditions
	}
	return row
}

// scanInitContainers walks the init container statuses up to the first one
// still keeping the pod from starting, which sets the Init:... reason.
// Restartable (sidecar) init containers count towards READY once started.
func (s *podSummary) scanInitContainers(pod *corev1.Pod) {
	specs := make(map[string]*corev1.Container, len(pod.Spec.InitContainers))
	for i := range pod.Spec.InitContainers {
		specs[pod.Spec.InitContainers[i].Name] = &pod.Spec.InitContainers[i]
		if isRestartableInitContainer(&pod.Spec.InitContainers[i]) {
			s.total++
		}
	}
	for i, c := range pod.Status.InitContainerStatuses {
		s.restarts += int(c.RestartCount)
		last := lastTermination(c)
		s.lastRestart = later(s.lastRestart, last)
		sidecar := isRestartableInitContainer(specs[c.Name])
		if sidecar {
			s.sidecarRestarts += int(c.RestartCount)
			s.lastSidecar = later(s.lastSidecar, last)
		}
		switch term := c.State.Terminated; {
		case term != nil && term.ExitCode == 0:
			continue
		case sidecar && c.Started != nil && *c.Started:
			if c.Ready {
				s.ready++
			}
			continue
		case term != nil:
			// Initialization failed.
			switch {
			case term.Reason != "":
				s.reason = "Init:" + term.Reason
			case term.Signal != 0:
				s.reason = fmt.Sprintf("Init:Signal:%d", term.Signal)
			default:
				s.reason = fmt.Sprintf("Init:ExitCode:%d", term.ExitCode)
			}
		case c.State.Waiting != nil && c.State.Waiting.Reason != "" && c.State.Waiting.Reason != "PodInitializing":
			s.reason = "Init:" + c.State.Waiting.Reason
		default:
			s.reason = fmt.Sprintf("Init:%d/%d", i, len(pod.Spec.InitContainers))
		}
		s.initializing = true
		break
	}
}

// scanContainers walks the container statuses last to first, so the first
// container with a waiting or terminated reason names the pod's STATUS;
// RESTARTS restarts from the sidecars' count.
func (s *podSummary) scanContainers(pod *corev1.Pod) {
	s.restarts, s.lastRestart = s.sidecarRestarts, s.lastSidecar
	hasRunning, errorReason := false, ""
	for i := len(pod.Status.ContainerStatuses) - 1; i >= 0; i-- {
		c := pod.Status.ContainerStatuses[i]
		s.restarts += int(c.RestartCount)
		s.lastRestart = later(s.lastRestart, lastTermination(c))
		switch {
		case c.State.Waiting != nil && c.State.Waiting.Reason != "":
			s.reason = c.State.Waiting.Reason
		case c.State.Terminated != nil:
			term := c.State.Terminated
			switch {
			case term.Reason != "":
				s.reason = term.Reason
			case term.Signal != 0:
				s.reason = fmt.Sprintf("Signal:%d", term.Signal)
			default:
				s.reason = fmt.Sprintf("ExitCode:%d", term.ExitCode)
			}
			if term.ExitCode != 0 {
				errorReason = s.reason
			}
		case c.Ready && c.State.Running != nil:
			hasRunning = true
			s.ready++
		}
	}
	// A pod whose containers completed but one still runs is not Completed.
	if s.reason == "Completed" {
		switch {
		case hasRunning && hasPodCondition(pod.Status.Conditions, corev1.PodReady):
			s.reason = "Running"
		case errorReason != "":
			s.reason = errorReason
		case hasRunning:
			s.reason = "NotReady"
		}
	}
}

// lastTermination is when the container last terminated, zero if never.
func lastTermination(c corev1.ContainerStatus) time.Time {
	if t := c.LastTerminationState.Terminated; t != nil {
		return t.FinishedAt.Time
	}
	return time.Time{}
}

func later(a, b time.Time) time.Time {
	if a.Before(b) {
		return b
	}
	return a
}

func isRestartableInitContainer(c *corev1.Container) bool {
	return c != nil && c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways
}

// hasPodCondition reports whether the first condition of type t is True
// (printers.go hasPodReadyCondition, isPodInitializedConditionTrue).
func hasPodCondition(conds []corev1.PodCondition, t corev1.PodConditionType) bool {
	for _, c := range conds {
		if c.Type == t {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// readinessGates is "true/total" over the pod's readiness gates.
func readinessGates(pod *corev1.Pod) string {
	if len(pod.Spec.ReadinessGates) == 0 {
		return "<none>"
	}
	trueConditions := 0
	for _, g := range pod.Spec.ReadinessGates {
		for _, c := range pod.Status.Conditions {
			if c.Type == g.ConditionType {
				if c.Status == corev1.ConditionTrue {
					trueConditions++
				}
				break
			}
		}
	}
	return fmt.Sprintf("%d/%d", trueConditions, len(pod.Spec.ReadinessGates))
}

func orNone(s string) string {
	if s == "" {
		return "<none>"
	}
	return s
}

func configMapColumns() []metav1.TableColumnDefinition {
	return []metav1.TableColumnDefinition{nameColumn, column("Data", "string", corev1.ConfigMap{}.SwaggerDoc()["data"]), ageColumn}
}

func printConfigMap(cm *corev1.ConfigMap, now time.Time) metav1.TableRow {
	return cells(cm.Name, int64(len(cm.Data)+len(cm.BinaryData)), age(cm.CreationTimestamp.Time, now))
}

func secretColumns() []metav1.TableColumnDefinition {
	doc := corev1.Secret{}.SwaggerDoc()
	return []metav1.TableColumnDefinition{nameColumn, column("Type", "string", doc["type"]), column("Data", "string", doc["data"]), ageColumn}
}

// printSecret counts data keys after conversion, which merges the
// write-only stringData into data (core/v1 Convert_v1_Secret_To_core_Secret),
// and shows the Opaque type v1 defaulting gives an untyped secret.
func printSecret(secret *corev1.Secret, now time.Time) metav1.TableRow {
	typ := secret.Type
	if typ == "" {
		typ = corev1.SecretTypeOpaque
	}
	keys := len(secret.Data)
	for k := range secret.StringData {
		if _, ok := secret.Data[k]; !ok {
			keys++
		}
	}
	return cells(secret.Name, string(typ), int64(keys), age(secret.CreationTimestamp.Time, now))
}

func namespaceColumns() []metav1.TableColumnDefinition {
	return []metav1.TableColumnDefinition{nameColumn, column("Status", "string", "The status of the namespace"), ageColumn}
}

func printNamespace(ns *corev1.Namespace, now time.Time) metav1.TableRow {
	return cells(ns.Name, string(ns.Status.Phase), age(ns.CreationTimestamp.Time, now))
}

func nodeColumns() []metav1.TableColumnDefinition {
	info, status := corev1.NodeSystemInfo{}.SwaggerDoc(), corev1.NodeStatus{}.SwaggerDoc()
	return []metav1.TableColumnDefinition{
		nameColumn,
		column("Status", "string", "The status of the node"),
		column("Roles", "string", "The roles of the node"),
		ageColumn,
		column("Version", "string", info["kubeletVersion"]),
		wideColumn("Internal-IP", "string", status["addresses"]),
		wideColumn("External-IP", "string", status["addresses"]),
		wideColumn("OS-Image", "string", info["osImage"]),
		wideColumn("Kernel-Version", "string", info["kernelVersion"]),
		wideColumn("Container-Runtime", "string", info["containerRuntimeVersion"]),
	}
}

// printNode ports printNode: STATUS is Ready/NotReady (Unknown without a
// Ready condition), plus SchedulingDisabled when cordoned.
func printNode(node *corev1.Node, now time.Time) metav1.TableRow {
	var status []string
	var ready *corev1.NodeCondition
	for i := range node.Status.Conditions {
		if node.Status.Conditions[i].Type == corev1.NodeReady {
			ready = &node.Status.Conditions[i] // the last one wins, as in the upstream map
		}
	}
	switch {
	case ready == nil:
		status = append(status, "Unknown")
	case ready.Status == corev1.ConditionTrue:
		status = append(status, string(corev1.NodeReady))
	default:
		status = append(status, "Not"+string(corev1.NodeReady))
	}
	if node.Spec.Unschedulable {
		status = append(status, "SchedulingDisabled")
	}
	ni := node.Status.NodeInfo
	kernel := ni.KernelVersion
	if kernel == "" {
		kernel = "<unknown>"
	}
	if ni.Architecture != "" {
		kernel += " (" + ni.Architecture + ")"
	}
	return cells(node.Name, strings.Join(status, ","), orNone(strings.Join(nodeRoles(node), ",")), age(node.CreationTimestamp.Time, now),
		ni.KubeletVersion, nodeAddress(node, corev1.NodeInternalIP), nodeAddress(node, corev1.NodeExternalIP),
		orUnknown(ni.OSImage), kernel, orUnknown(ni.ContainerRuntimeVersion))
}

// nodeRoles are the sorted roles from node-role.kubernetes.io/<role> and
// kubernetes.io/role=<role> labels.
func nodeRoles(node *corev1.Node) []string {
	roles := sets.New[string]()
	for k, v := range node.Labels {
		switch {
		case strings.HasPrefix(k, labelNodeRolePrefix):
			if role := strings.TrimPrefix(k, labelNodeRolePrefix); role != "" {
				roles.Insert(role)
			}
		case k == nodeLabelRole && v != "":
			roles.Insert(v)
		}
	}
	return sets.List(roles)
}

// nodeAddress is the node's first address of type t, or <none>.
func nodeAddress(node *corev1.Node, t corev1.NodeAddressType) string {
	for _, a := range node.Status.Addresses {
		if a.Type == t {
			return a.Address
		}
	}
	return "<none>"
}

func orUnknown(s string) string {
	if s == "" {
		return "<unknown>"
	}
	return s
}

func serviceColumns() []metav1.TableColumnDefinition {
	doc := corev1.ServiceSpec{}.SwaggerDoc()
	return []metav1.TableColumnDefinition{
		nameColumn,
		column("Type", "string", doc["type"]),
		column("Cluster-IP", "string", doc["clusterIP"]),
		column("External-IP", "string", doc["externalIPs"]),
		column("Port(s)", "string", doc["ports"]),
		ageColumn,
		wideColumn("Selector", "string", doc["selector"]),
	}
}

// printService ports printService. type defaults to ClusterIP and
// clusterIPs[0] is clusterIP once the registry has normalized the service
// (pkg/registry/core/service/strategy.go).
func printService(svc *corev1.Service, now time.Time) metav1.TableRow {
	typ := svc.Spec.Type
	if typ == "" {
		typ = corev1.ServiceTypeClusterIP
	}
	clusterIP := "<none>"
	switch {
	case len(svc.Spec.ClusterIPs) > 0:
		clusterIP = svc.Spec.ClusterIPs[0]
	case svc.Spec.ClusterIP != "":
		clusterIP = svc.Spec.ClusterIP
	}
	ports := make([]string, len(svc.Spec.Ports))
	for i, p := range svc.Spec.Ports {
		proto := p.Protocol
		if proto == "" {
			proto = corev1.ProtocolTCP
		}
		ports[i] = fmt.Sprintf("%d/%s", p.Port, proto)
		if p.NodePort > 0 {
			ports[i] = fmt.Sprintf("%d:%d/%s", p.Port, p.NodePort, proto)
		}
	}
	return cells(svc.Name, string(typ), clusterIP, serviceExternalIP(svc, typ), orNone(strings.Join(ports, ",")),
		age(svc.CreationTimestamp.Time, now), labels.FormatLabels(svc.Spec.Selector))
}

// serviceExternalIP ports getServiceExternalIP in its wide form (the
// server never clips load-balancer addresses).
func serviceExternalIP(svc *corev1.Service, typ corev1.ServiceType) string {
	switch typ {
	case corev1.ServiceTypeClusterIP, corev1.ServiceTypeNodePort:
		if len(svc.Spec.ExternalIPs) > 0 {
			return strings.Join(svc.Spec.ExternalIPs, ",")
		}
		return "<none>"
	case corev1.ServiceTypeLoadBalancer:
		lb := sets.New[string]()
		for _, in := range svc.Status.LoadBalancer.Ingress {
			if in.IP != "" {
				lb.Insert(in.IP)
			} else if in.Hostname != "" {
				lb.Insert(in.Hostname)
			}
		}
		all := append(sets.List(lb), svc.Spec.ExternalIPs...)
		if len(all) == 0 {
			return "<pending>"
		}
		return strings.Join(all, ",")
	case corev1.ServiceTypeExternalName:
		return svc.Spec.ExternalName
	}
	return "<unknown>"
}

func eventColumns() []metav1.TableColumnDefinition {
	doc := corev1.Event{}.SwaggerDoc()
	return []metav1.TableColumnDefinition{
		column("Last Seen", "string", doc["lastTimestamp"]),
		column("Type", "string", doc["type"]),
		column("Reason", "string", doc["reason"]),
		column("Object", "string", doc["involvedObject"]),
		wideColumn("Subobject", "string", corev1.ObjectReference{}.SwaggerDoc()["fieldPath"]),
		wideColumn("Source", "string", doc["source"]),
		column("Message", "string", doc["message"]),
		wideColumn("First Seen", "string", doc["firstTimestamp"]),
		wideColumn("Count", "string", doc["count"]),
		{Name: "Name", Type: "string", Priority: 1, Format: "name", Description: objectMetaDoc["name"]},
	}
}

// printEvent ports printEvent: series events report their series' last
// time and count, events of the new API without a count count as 1.
func printEvent(ev *corev1.Event, now time.Time) metav1.TableRow {
	first := age(ev.FirstTimestamp.Time, now)
	if ev.FirstTimestamp.IsZero() {
		first = age(ev.EventTime.Time, now)
	}
	last := age(ev.LastTimestamp.Time, now)
	if ev.LastTimestamp.IsZero() {
		last = first
	}
	count := ev.Count
	if ev.Series != nil {
		last, count = age(ev.Series.LastObservedTime.Time, now), ev.Series.Count
	} else if count == 0 {
		count = 1
	}
	target := strings.ToLower(ev.InvolvedObject.Kind)
	if ev.InvolvedObject.Name != "" {
		target += "/" + ev.InvolvedObject.Name
	}
	source := firstNonEmpty(ev.Source.Component, ev.ReportingController)
	if host := firstNonEmpty(ev.Source.Host, ev.ReportingInstance); host != "" {
		source += ", " + host
	}
	return cells(last, ev.Type, ev.Reason, target, ev.InvolvedObject.FieldPath, source,
		strings.TrimSpace(ev.Message), first, int64(count), ev.Name)
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func printServiceAccount(sa *corev1.ServiceAccount, now time.Time) metav1.TableRow {
	return cells(sa.Name, age(sa.CreationTimestamp.Time, now))
}

// replicasColumns are the columns the ReplicationController and ReplicaSet
// printers share, with their own spec and status descriptions.
func replicasColumns(spec, status map[string]string) []metav1.TableColumnDefinition {
	return []metav1.TableColumnDefinition{
		nameColumn,
		column("Desired", "integer", spec["replicas"]),
		column("Current", "integer", status["replicas"]),
		column("Ready", "integer", status["readyReplicas"]),
		ageColumn,
		wideColumn("Containers", "string", containerColumnsDescription),
		wideColumn("Images", "string", imageColumnsDescription),
		wideColumn("Selector", "string", spec["selector"]),
	}
}

func replicationControllerColumns() []metav1.TableColumnDefinition {
	return replicasColumns(corev1.ReplicationControllerSpec{}.SwaggerDoc(), corev1.ReplicationControllerStatus{}.SwaggerDoc())
}

func printReplicationController(rc *corev1.ReplicationController, now time.Time) metav1.TableRow {
	var containers []corev1.Container
	if rc.Spec.Template != nil {
		containers = rc.Spec.Template.Spec.Containers
	}
	names, images := layoutContainerCells(containers)
	return cells(rc.Name, int64(replicasOrDefault(rc.Spec.Replicas)), int64(rc.Status.Replicas), int64(rc.Status.ReadyReplicas),
		age(rc.CreationTimestamp.Time, now), names, images, labels.FormatLabels(rc.Spec.Selector))
}

func replicaSetColumns() []metav1.TableColumnDefinition {
	return replicasColumns(appsv1.ReplicaSetSpec{}.SwaggerDoc(), appsv1.ReplicaSetStatus{}.SwaggerDoc())
}

func printReplicaSet(rs *appsv1.ReplicaSet, now time.Time) metav1.TableRow {
	names, images := layoutContainerCells(rs.Spec.Template.Spec.Containers)
	return cells(rs.Name, int64(replicasOrDefault(rs.Spec.Replicas)), int64(rs.Status.Replicas), int64(rs.Status.ReadyReplicas),
		age(rs.CreationTimestamp.Time, now), names, images, metav1.FormatLabelSelector(rs.Spec.Selector))
}

func deploymentColumns() []metav1.TableColumnDefinition {
	status := appsv1.DeploymentStatus{}.SwaggerDoc()
	return []metav1.TableColumnDefinition{
		nameColumn,
		column("Ready", "string", "Number of the pod with ready state"),
		column("Up-to-date", "string", status["updatedReplicas"]),
		column("Available", "string", status["availableReplicas"]),
		ageColumn,
		wideColumn("Containers", "string", containerColumnsDescription),
		wideColumn("Images", "string", imageColumnsDescription),
		wideColumn("Selector", "string", appsv1.DeploymentSpec{}.SwaggerDoc()["selector"]),
	}
}

func printDeployment(d *appsv1.Deployment, now time.Time) metav1.TableRow {
	selector := "<invalid>"
	if sel, err := metav1.LabelSelectorAsSelector(d.Spec.Selector); err == nil {
		selector = sel.String()
	}
	names, images := layoutContainerCells(d.Spec.Template.Spec.Containers)
	return cells(d.Name, fmt.Sprintf("%d/%d", d.Status.ReadyReplicas, replicasOrDefault(d.Spec.Replicas)),
		int64(d.Status.UpdatedReplicas), int64(d.Status.AvailableReplicas), age(d.CreationTimestamp.Time, now), names, images, selector)
}

func statefulSetColumns() []metav1.TableColumnDefinition {
	return []metav1.TableColumnDefinition{
		nameColumn,
		column("Ready", "string", "Number of the pod with ready state"),
		ageColumn,
		wideColumn("Containers", "string", containerColumnsDescription),
		wideColumn("Images", "string", imageColumnsDescription),
	}
}

func printStatefulSet(ss *appsv1.StatefulSet, now time.Time) metav1.TableRow {
	names, images := layoutContainerCells(ss.Spec.Template.Spec.Containers)
	return cells(ss.Name, fmt.Sprintf("%d/%d", ss.Status.ReadyReplicas, replicasOrDefault(ss.Spec.Replicas)),
		age(ss.CreationTimestamp.Time, now), names, images)
}

func daemonSetColumns() []metav1.TableColumnDefinition {
	status := appsv1.DaemonSetStatus{}.SwaggerDoc()
	return []metav1.TableColumnDefinition{
		nameColumn,
		column("Desired", "integer", status["desiredNumberScheduled"]),
		column("Current", "integer", status["currentNumberScheduled"]),
		column("Ready", "integer", status["numberReady"]),
		column("Up-to-date", "integer", status["updatedNumberScheduled"]),
		column("Available", "integer", status["numberAvailable"]),
		column("Node Selector", "string", corev1.PodSpec{}.SwaggerDoc()["nodeSelector"]),
		ageColumn,
		wideColumn("Containers", "string", containerColumnsDescription),
		wideColumn("Images", "string", imageColumnsDescription),
		wideColumn("Selector", "string", appsv1.DaemonSetSpec{}.SwaggerDoc()["selector"]),
	}
}

func printDaemonSet(ds *appsv1.DaemonSet, now time.Time) metav1.TableRow {
	st := ds.Status
	names, images := layoutContainerCells(ds.Spec.Template.Spec.Containers)
	return cells(ds.Name, int64(st.DesiredNumberScheduled), int64(st.CurrentNumberScheduled), int64(st.NumberReady),
		int64(st.UpdatedNumberScheduled), int64(st.NumberAvailable), labels.FormatLabels(ds.Spec.Template.Spec.NodeSelector),
		age(ds.CreationTimestamp.Time, now), names, images, metav1.FormatLabelSelector(ds.Spec.Selector))
}

func leaseColumns() []metav1.TableColumnDefinition {
	return []metav1.TableColumnDefinition{nameColumn, column("Holder", "string", coordinationv1.LeaseSpec{}.SwaggerDoc()["holderIdentity"]), ageColumn}
}

func printLease(l *coordinationv1.Lease, now time.Time) metav1.TableRow {
	holder := ""
	if l.Spec.HolderIdentity != nil {
		holder = *l.Spec.HolderIdentity
	}
	return cells(l.Name, holder, age(l.CreationTimestamp.Time, now))
}
