package tables

import (
	"fmt"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/sets"
)

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

// printSecret is printers.go printSecret: the stored type and data keys.
// The write path defaults the type to Opaque and merges stringData into
// data (internal/defaults), so nothing is made up here: an object the
// server never stored, such as a watch's empty bookmark object, prints
// with no type and no data, as it does on kube-apiserver [observed].
func printSecret(secret *corev1.Secret, now time.Time) metav1.TableRow {
	return cells(secret.Name, string(secret.Type), int64(len(secret.Data)), age(secret.CreationTimestamp.Time, now))
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
