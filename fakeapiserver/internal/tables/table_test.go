package tables

import (
	"errors"
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	apiv1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	nodev1 "k8s.io/api/node/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	rbacv1beta1 "k8s.io/api/rbac/v1beta1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/utils/ptr"
)

// tableNow is the fake clock's time in every table test.
var tableNow = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// testResource is a built-in kind served as plural.
type testResource struct {
	gvk    schema.GroupVersionKind
	plural string
}

func (r testResource) GroupVersionKind() schema.GroupVersionKind { return r.gvk }
func (r testResource) GroupResource() schema.GroupResource {
	return schema.GroupResource{Group: r.gvk.Group, Resource: r.plural}
}
func (r testResource) TableConvertor() Convertor { return nil }

// tableResource is a built-in kind served as plural.
func tableResource(gvk schema.GroupVersionKind, plural string) Resource {
	return testResource{gvk: gvk, plural: plural}
}

// toTable converts at tableNow.
func toTable(res Resource, objs []runtime.Object, listMeta metav1.ListMeta, include metav1.IncludeObjectPolicy) (*metav1.Table, error) {
	return Convert(res, objs, Options{ListMeta: listMeta, IncludeObject: include, Now: tableNow})
}

// toStatus is the Status the server answers with for err: the error's own,
// or a 500 for an error without one.
func toStatus(err error) metav1.Status {
	var st apierrors.APIStatus
	if errors.As(err, &st) {
		return st.Status()
	}
	return apierrors.NewInternalError(err).ErrStatus
}

var (
	podResource = tableResource(apiv1.SchemeGroupVersion.WithKind("Pod"), "pods")
	tableAgo    = func(d time.Duration) metav1.Time { return metav1.NewTime(tableNow.Add(-d)) }
)

// TestTableColumnDefinitions pins every printer's columns to the
// definitions of kubernetes v1.37.2 pkg/printers/internalversion/printers.go
// AddHandlers, copied verbatim (apiv1 is core/v1 there too).
func TestTableColumnDefinitions(t *testing.T) {
	tests := map[schema.GroupKind][]metav1.TableColumnDefinition{
		{Kind: "Pod"}: {
			{Name: "Name", Type: "string", Format: "name", Description: metav1.ObjectMeta{}.SwaggerDoc()["name"]},
			{Name: "Ready", Type: "string", Description: "The aggregate readiness state of this pod for accepting traffic."},
			{Name: "Status", Type: "string", Description: "The aggregate status of the containers in this pod."},
			{Name: "Restarts", Type: "string", Description: "The number of times the containers in this pod have been restarted and when the last container in this pod has restarted."},
			{Name: "Age", Type: "string", Description: metav1.ObjectMeta{}.SwaggerDoc()["creationTimestamp"]},
			{Name: "IP", Type: "string", Priority: 1, Description: apiv1.PodStatus{}.SwaggerDoc()["podIP"]},
			{Name: "Node", Type: "string", Priority: 1, Description: apiv1.PodSpec{}.SwaggerDoc()["nodeName"]},
			{Name: "Nominated Node", Type: "string", Priority: 1, Description: apiv1.PodStatus{}.SwaggerDoc()["nominatedNodeName"]},
			{Name: "Readiness Gates", Type: "string", Priority: 1, Description: apiv1.PodSpec{}.SwaggerDoc()["readinessGates"]},
		},
		{Kind: "ConfigMap"}: {
			{Name: "Name", Type: "string", Format: "name", Description: metav1.ObjectMeta{}.SwaggerDoc()["name"]},
			{Name: "Data", Type: "string", Description: apiv1.ConfigMap{}.SwaggerDoc()["data"]},
			{Name: "Age", Type: "string", Description: metav1.ObjectMeta{}.SwaggerDoc()["creationTimestamp"]},
		},
		{Kind: "Secret"}: {
			{Name: "Name", Type: "string", Format: "name", Description: metav1.ObjectMeta{}.SwaggerDoc()["name"]},
			{Name: "Type", Type: "string", Description: apiv1.Secret{}.SwaggerDoc()["type"]},
			{Name: "Data", Type: "string", Description: apiv1.Secret{}.SwaggerDoc()["data"]},
			{Name: "Age", Type: "string", Description: metav1.ObjectMeta{}.SwaggerDoc()["creationTimestamp"]},
		},
		{Kind: "Namespace"}: {
			{Name: "Name", Type: "string", Format: "name", Description: metav1.ObjectMeta{}.SwaggerDoc()["name"]},
			{Name: "Status", Type: "string", Description: "The status of the namespace"},
			{Name: "Age", Type: "string", Description: metav1.ObjectMeta{}.SwaggerDoc()["creationTimestamp"]},
		},
		{Kind: "Node"}: {
			{Name: "Name", Type: "string", Format: "name", Description: metav1.ObjectMeta{}.SwaggerDoc()["name"]},
			{Name: "Status", Type: "string", Description: "The status of the node"},
			{Name: "Roles", Type: "string", Description: "The roles of the node"},
			{Name: "Age", Type: "string", Description: metav1.ObjectMeta{}.SwaggerDoc()["creationTimestamp"]},
			{Name: "Version", Type: "string", Description: apiv1.NodeSystemInfo{}.SwaggerDoc()["kubeletVersion"]},
			{Name: "Internal-IP", Type: "string", Priority: 1, Description: apiv1.NodeStatus{}.SwaggerDoc()["addresses"]},
			{Name: "External-IP", Type: "string", Priority: 1, Description: apiv1.NodeStatus{}.SwaggerDoc()["addresses"]},
			{Name: "OS-Image", Type: "string", Priority: 1, Description: apiv1.NodeSystemInfo{}.SwaggerDoc()["osImage"]},
			{Name: "Kernel-Version", Type: "string", Priority: 1, Description: apiv1.NodeSystemInfo{}.SwaggerDoc()["kernelVersion"]},
			{Name: "Container-Runtime", Type: "string", Priority: 1, Description: apiv1.NodeSystemInfo{}.SwaggerDoc()["containerRuntimeVersion"]},
		},
		{Kind: "Service"}: {
			{Name: "Name", Type: "string", Format: "name", Description: metav1.ObjectMeta{}.SwaggerDoc()["name"]},
			{Name: "Type", Type: "string", Description: apiv1.ServiceSpec{}.SwaggerDoc()["type"]},
			{Name: "Cluster-IP", Type: "string", Description: apiv1.ServiceSpec{}.SwaggerDoc()["clusterIP"]},
			{Name: "External-IP", Type: "string", Description: apiv1.ServiceSpec{}.SwaggerDoc()["externalIPs"]},
			{Name: "Port(s)", Type: "string", Description: apiv1.ServiceSpec{}.SwaggerDoc()["ports"]},
			{Name: "Age", Type: "string", Description: metav1.ObjectMeta{}.SwaggerDoc()["creationTimestamp"]},
			{Name: "Selector", Type: "string", Priority: 1, Description: apiv1.ServiceSpec{}.SwaggerDoc()["selector"]},
		},
		{Kind: "Event"}: {
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
		{Kind: "ServiceAccount"}: {
			{Name: "Name", Type: "string", Format: "name", Description: metav1.ObjectMeta{}.SwaggerDoc()["name"]},
			{Name: "Age", Type: "string", Description: metav1.ObjectMeta{}.SwaggerDoc()["creationTimestamp"]},
		},
		{Kind: "ReplicationController"}: {
			{Name: "Name", Type: "string", Format: "name", Description: metav1.ObjectMeta{}.SwaggerDoc()["name"]},
			{Name: "Desired", Type: "integer", Description: apiv1.ReplicationControllerSpec{}.SwaggerDoc()["replicas"]},
			{Name: "Current", Type: "integer", Description: apiv1.ReplicationControllerStatus{}.SwaggerDoc()["replicas"]},
			{Name: "Ready", Type: "integer", Description: apiv1.ReplicationControllerStatus{}.SwaggerDoc()["readyReplicas"]},
			{Name: "Age", Type: "string", Description: metav1.ObjectMeta{}.SwaggerDoc()["creationTimestamp"]},
			{Name: "Containers", Type: "string", Priority: 1, Description: "Names of each container in the template."},
			{Name: "Images", Type: "string", Priority: 1, Description: "Images referenced by each container in the template."},
			{Name: "Selector", Type: "string", Priority: 1, Description: apiv1.ReplicationControllerSpec{}.SwaggerDoc()["selector"]},
		},
		{Group: "apps", Kind: "Deployment"}: {
			{Name: "Name", Type: "string", Format: "name", Description: metav1.ObjectMeta{}.SwaggerDoc()["name"]},
			{Name: "Ready", Type: "string", Description: "Number of the pod with ready state"},
			{Name: "Up-to-date", Type: "string", Description: appsv1.DeploymentStatus{}.SwaggerDoc()["updatedReplicas"]},
			{Name: "Available", Type: "string", Description: appsv1.DeploymentStatus{}.SwaggerDoc()["availableReplicas"]},
			{Name: "Age", Type: "string", Description: metav1.ObjectMeta{}.SwaggerDoc()["creationTimestamp"]},
			{Name: "Containers", Type: "string", Priority: 1, Description: "Names of each container in the template."},
			{Name: "Images", Type: "string", Priority: 1, Description: "Images referenced by each container in the template."},
			{Name: "Selector", Type: "string", Priority: 1, Description: appsv1.DeploymentSpec{}.SwaggerDoc()["selector"]},
		},
		{Group: "apps", Kind: "ReplicaSet"}: {
			{Name: "Name", Type: "string", Format: "name", Description: metav1.ObjectMeta{}.SwaggerDoc()["name"]},
			{Name: "Desired", Type: "integer", Description: appsv1.ReplicaSetSpec{}.SwaggerDoc()["replicas"]},
			{Name: "Current", Type: "integer", Description: appsv1.ReplicaSetStatus{}.SwaggerDoc()["replicas"]},
			{Name: "Ready", Type: "integer", Description: appsv1.ReplicaSetStatus{}.SwaggerDoc()["readyReplicas"]},
			{Name: "Age", Type: "string", Description: metav1.ObjectMeta{}.SwaggerDoc()["creationTimestamp"]},
			{Name: "Containers", Type: "string", Priority: 1, Description: "Names of each container in the template."},
			{Name: "Images", Type: "string", Priority: 1, Description: "Images referenced by each container in the template."},
			{Name: "Selector", Type: "string", Priority: 1, Description: appsv1.ReplicaSetSpec{}.SwaggerDoc()["selector"]},
		},
		{Group: "apps", Kind: "StatefulSet"}: {
			{Name: "Name", Type: "string", Format: "name", Description: metav1.ObjectMeta{}.SwaggerDoc()["name"]},
			{Name: "Ready", Type: "string", Description: "Number of the pod with ready state"},
			{Name: "Age", Type: "string", Description: metav1.ObjectMeta{}.SwaggerDoc()["creationTimestamp"]},
			{Name: "Containers", Type: "string", Priority: 1, Description: "Names of each container in the template."},
			{Name: "Images", Type: "string", Priority: 1, Description: "Images referenced by each container in the template."},
		},
		{Group: "apps", Kind: "DaemonSet"}: {
			{Name: "Name", Type: "string", Format: "name", Description: metav1.ObjectMeta{}.SwaggerDoc()["name"]},
			{Name: "Desired", Type: "integer", Description: appsv1.DaemonSetStatus{}.SwaggerDoc()["desiredNumberScheduled"]},
			{Name: "Current", Type: "integer", Description: appsv1.DaemonSetStatus{}.SwaggerDoc()["currentNumberScheduled"]},
			{Name: "Ready", Type: "integer", Description: appsv1.DaemonSetStatus{}.SwaggerDoc()["numberReady"]},
			{Name: "Up-to-date", Type: "integer", Description: appsv1.DaemonSetStatus{}.SwaggerDoc()["updatedNumberScheduled"]},
			{Name: "Available", Type: "integer", Description: appsv1.DaemonSetStatus{}.SwaggerDoc()["numberAvailable"]},
			{Name: "Node Selector", Type: "string", Description: apiv1.PodSpec{}.SwaggerDoc()["nodeSelector"]},
			{Name: "Age", Type: "string", Description: metav1.ObjectMeta{}.SwaggerDoc()["creationTimestamp"]},
			{Name: "Containers", Type: "string", Priority: 1, Description: "Names of each container in the template."},
			{Name: "Images", Type: "string", Priority: 1, Description: "Images referenced by each container in the template."},
			{Name: "Selector", Type: "string", Priority: 1, Description: appsv1.DaemonSetSpec{}.SwaggerDoc()["selector"]},
		},
		{Group: "coordination.k8s.io", Kind: "Lease"}: {
			{Name: "Name", Type: "string", Format: "name", Description: metav1.ObjectMeta{}.SwaggerDoc()["name"]},
			{Name: "Holder", Type: "string", Description: coordinationv1.LeaseSpec{}.SwaggerDoc()["holderIdentity"]},
			{Name: "Age", Type: "string", Description: metav1.ObjectMeta{}.SwaggerDoc()["creationTimestamp"]},
		},
		// kubernetes pkg/printers/internalversion/printers.go
		// jobColumnDefinitions, cronJobColumnDefinitions and
		// ingressColumnDefinitions.
		{Group: "batch", Kind: "Job"}: {
			{Name: "Name", Type: "string", Format: "name", Description: metav1.ObjectMeta{}.SwaggerDoc()["name"]},
			{Name: "Status", Type: "string", Description: "Status of the job."},
			{Name: "Completions", Type: "string", Description: batchv1.JobStatus{}.SwaggerDoc()["succeeded"]},
			{Name: "Duration", Type: "string", Description: "Time required to complete the job."},
			{Name: "Age", Type: "string", Description: metav1.ObjectMeta{}.SwaggerDoc()["creationTimestamp"]},
			{Name: "Containers", Type: "string", Priority: 1, Description: "Names of each container in the template."},
			{Name: "Images", Type: "string", Priority: 1, Description: "Images referenced by each container in the template."},
			{Name: "Selector", Type: "string", Priority: 1, Description: batchv1.JobSpec{}.SwaggerDoc()["selector"]},
		},
		{Group: "batch", Kind: "CronJob"}: {
			{Name: "Name", Type: "string", Format: "name", Description: metav1.ObjectMeta{}.SwaggerDoc()["name"]},
			{Name: "Schedule", Type: "string", Description: batchv1.CronJobSpec{}.SwaggerDoc()["schedule"]},
			{Name: "Timezone", Type: "string", Description: batchv1.CronJobSpec{}.SwaggerDoc()["timeZone"]},
			{Name: "Suspend", Type: "boolean", Description: batchv1.CronJobSpec{}.SwaggerDoc()["suspend"]},
			{Name: "Active", Type: "integer", Description: batchv1.CronJobStatus{}.SwaggerDoc()["active"]},
			{Name: "Last Schedule", Type: "string", Description: batchv1.CronJobStatus{}.SwaggerDoc()["lastScheduleTime"]},
			{Name: "Age", Type: "string", Description: metav1.ObjectMeta{}.SwaggerDoc()["creationTimestamp"]},
			{Name: "Containers", Type: "string", Priority: 1, Description: "Names of each container in the template."},
			{Name: "Images", Type: "string", Priority: 1, Description: "Images referenced by each container in the template."},
			{Name: "Selector", Type: "string", Priority: 1, Description: batchv1.JobSpec{}.SwaggerDoc()["selector"]},
		},
		{Group: "node.k8s.io", Kind: "RuntimeClass"}: {
			{Name: "Name", Type: "string", Format: "name", Description: metav1.ObjectMeta{}.SwaggerDoc()["name"]},
			{Name: "Handler", Type: "string", Description: metav1.ObjectMeta{}.SwaggerDoc()["handler"]},
			{Name: "Age", Type: "string", Description: metav1.ObjectMeta{}.SwaggerDoc()["creationTimestamp"]},
		},
		{Group: "networking.k8s.io", Kind: "IngressClass"}: {
			{Name: "Name", Type: "string", Format: "name", Description: metav1.ObjectMeta{}.SwaggerDoc()["name"]},
			{Name: "Controller", Type: "string", Description: "Controller that is responsible for handling this class"},
			{Name: "Parameters", Type: "string", Description: "A reference to a resource with additional parameters"},
			{Name: "Age", Type: "string", Description: metav1.ObjectMeta{}.SwaggerDoc()["creationTimestamp"]},
		},
		{Group: "policy", Kind: "PodDisruptionBudget"}: {
			{Name: "Name", Type: "string", Format: "name", Description: metav1.ObjectMeta{}.SwaggerDoc()["name"]},
			{Name: "Min Available", Type: "string", Description: "The minimum number of pods that must be available."},
			{Name: "Max Unavailable", Type: "string", Description: "The maximum number of pods that may be unavailable."},
			{Name: "Allowed Disruptions", Type: "integer", Description: "Calculated number of pods that may be disrupted at this time."},
			{Name: "Age", Type: "string", Description: metav1.ObjectMeta{}.SwaggerDoc()["creationTimestamp"]},
		},
		{Group: "scheduling.k8s.io", Kind: "PriorityClass"}: {
			{Name: "Name", Type: "string", Format: "name", Description: metav1.ObjectMeta{}.SwaggerDoc()["name"]},
			{Name: "Value", Type: "integer", Description: schedulingv1.PriorityClass{}.SwaggerDoc()["value"]},
			{Name: "Global-Default", Type: "boolean", Description: schedulingv1.PriorityClass{}.SwaggerDoc()["globalDefault"]},
			{Name: "Age", Type: "string", Description: metav1.ObjectMeta{}.SwaggerDoc()["creationTimestamp"]},
			{Name: "PreemptionPolicy", Type: "string", Description: schedulingv1.PriorityClass{}.SwaggerDoc()["preemptionPolicy"]},
		},
		{Group: "rbac.authorization.k8s.io", Kind: "RoleBinding"}: {
			{Name: "Name", Type: "string", Format: "name", Description: metav1.ObjectMeta{}.SwaggerDoc()["name"]},
			{Name: "Role", Type: "string", Description: rbacv1beta1.RoleBinding{}.SwaggerDoc()["roleRef"]},
			{Name: "Age", Type: "string", Description: metav1.ObjectMeta{}.SwaggerDoc()["creationTimestamp"]},
			{Name: "Users", Type: "string", Priority: 1, Description: "Users in the roleBinding"},
			{Name: "Groups", Type: "string", Priority: 1, Description: "Groups in the roleBinding"},
			{Name: "ServiceAccounts", Type: "string", Priority: 1, Description: "ServiceAccounts in the roleBinding"},
		},
		{Group: "rbac.authorization.k8s.io", Kind: "ClusterRoleBinding"}: {
			{Name: "Name", Type: "string", Format: "name", Description: metav1.ObjectMeta{}.SwaggerDoc()["name"]},
			{Name: "Role", Type: "string", Description: rbacv1beta1.ClusterRoleBinding{}.SwaggerDoc()["roleRef"]},
			{Name: "Age", Type: "string", Description: metav1.ObjectMeta{}.SwaggerDoc()["creationTimestamp"]},
			{Name: "Users", Type: "string", Priority: 1, Description: "Users in the clusterRoleBinding"},
			{Name: "Groups", Type: "string", Priority: 1, Description: "Groups in the clusterRoleBinding"},
			{Name: "ServiceAccounts", Type: "string", Priority: 1, Description: "ServiceAccounts in the clusterRoleBinding"},
		},
		{Group: "networking.k8s.io", Kind: "Ingress"}: {
			{Name: "Name", Type: "string", Format: "name", Description: metav1.ObjectMeta{}.SwaggerDoc()["name"]},
			{Name: "Class", Type: "string", Description: "The name of the IngressClass resource that should be used for additional configuration"},
			{Name: "Hosts", Type: "string", Description: "Hosts that incoming requests are matched against before the ingress rule"},
			{Name: "Address", Type: "string", Description: "Address is a list containing ingress points for the load-balancer"},
			{Name: "Ports", Type: "string", Description: "Ports of TLS configurations that open"},
			{Name: "Age", Type: "string", Description: metav1.ObjectMeta{}.SwaggerDoc()["creationTimestamp"]},
		},
	}
	maps.Copy(tests, moreColumnPins) // printers_more_test.go
	for gk, want := range tests {
		t.Run(gk.String(), func(t *testing.T) {
			p, ok := printers[gk]
			if !ok {
				t.Fatalf("printers[%v] missing", gk)
			}
			if diff := cmp.Diff(want, p.columns); diff != "" {
				t.Errorf("columns of %v mismatch (-want +got):\n%s", gk, diff)
			}
			for _, c := range p.columns {
				// RuntimeClass's Handler is kube-apiserver's one column
				// without a description.
				if c.Description == "" && !(gk.Kind == "RuntimeClass" && c.Name == "Handler") {
					t.Errorf("column %q of %v has no description (a SwaggerDoc key is wrong)", c.Name, gk)
				}
			}
		})
	}
	if len(printers) != len(tests) {
		t.Errorf("len(printers) = %d, want %d: pin the new printer's columns here", len(printers), len(tests))
	}
	// apiserver pkg/registry/rest/table.go defaultTableConvertor.
	swaggerMetadataDescriptions := metav1.ObjectMeta{}.SwaggerDoc()
	wantDefault := []metav1.TableColumnDefinition{
		{Name: "Name", Type: "string", Format: "name", Description: swaggerMetadataDescriptions["name"]},
		{Name: "Created At", Type: "date", Description: swaggerMetadataDescriptions["creationTimestamp"]},
	}
	if diff := cmp.Diff(wantDefault, defaultPrinter.columns); diff != "" {
		t.Errorf("default columns mismatch (-want +got):\n%s", diff)
	}
}

// runningStatus, waitingStatus and terminatedStatus build container
// statuses; they and the helpers below keep the pod cases short.
func runningStatus(name string, ready bool, restarts int32) apiv1.ContainerStatus {
	return apiv1.ContainerStatus{Name: name, Ready: ready, RestartCount: restarts,
		State: apiv1.ContainerState{Running: &apiv1.ContainerStateRunning{}}}
}

func waitingStatus(name, reason string, restarts int32) apiv1.ContainerStatus {
	return apiv1.ContainerStatus{Name: name, RestartCount: restarts,
		State: apiv1.ContainerState{Waiting: &apiv1.ContainerStateWaiting{Reason: reason}}}
}

func terminatedStatus(name, reason string, exitCode, signal int32) apiv1.ContainerStatus {
	return apiv1.ContainerStatus{Name: name,
		State: apiv1.ContainerState{Terminated: &apiv1.ContainerStateTerminated{Reason: reason, ExitCode: exitCode, Signal: signal}}}
}

// lastTerminatedAt sets when the container last terminated.
func lastTerminatedAt(c apiv1.ContainerStatus, at metav1.Time) apiv1.ContainerStatus {
	c.LastTerminationState.Terminated = &apiv1.ContainerStateTerminated{ExitCode: 1, FinishedAt: at}
	return c
}

func namedContainers(names ...string) []apiv1.Container {
	out := make([]apiv1.Container, len(names))
	for i, n := range names {
		out[i] = apiv1.Container{Name: n, Image: n + ":latest"}
	}
	return out
}

func testPod(phase apiv1.PodPhase, specContainers []apiv1.Container, statuses ...apiv1.ContainerStatus) *apiv1.Pod {
	return &apiv1.Pod{
		TypeMeta:   metav1.TypeMeta{Kind: "Pod", APIVersion: "v1"},
		ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "default", CreationTimestamp: tableAgo(10 * time.Minute), ResourceVersion: "7"},
		Spec:       apiv1.PodSpec{Containers: specContainers},
		Status:     apiv1.PodStatus{Phase: phase, ContainerStatuses: statuses},
	}
}

func TestTablePodCells(t *testing.T) {
	always := ptr.To(apiv1.ContainerRestartPolicyAlways)
	tests := []struct {
		name   string
		pod    func() *apiv1.Pod
		want   []any // NAME READY STATUS RESTARTS AGE IP NODE NOMINATED READINESS-GATES
		conds  []metav1.TableRowCondition
		reason string
	}{{
		name: "running",
		pod: func() *apiv1.Pod {
			p := testPod(apiv1.PodRunning, namedContainers("a", "b"), runningStatus("a", true, 0), runningStatus("b", true, 0))
			p.Status.PodIP, p.Spec.NodeName = "10.0.0.5", "node-1"
			return p
		},
		want: []any{"p", "2/2", "Running", "0", "10m", "10.0.0.5", "node-1", "<none>", "<none>"},
	}, {
		name: "pending, nothing reported",
		pod:  func() *apiv1.Pod { return testPod(apiv1.PodPending, namedContainers("a")) },
		want: []any{"p", "0/1", "Pending", "0", "10m", "<none>", "<none>", "<none>", "<none>"},
	}, {
		name: "pending, container creating",
		pod: func() *apiv1.Pod {
			p := testPod(apiv1.PodPending, namedContainers("a"), waitingStatus("a", "ContainerCreating", 0))
			p.Spec.NodeName, p.Status.NominatedNodeName = "node-1", "node-2"
			return p
		},
		want: []any{"p", "0/1", "ContainerCreating", "0", "10m", "<none>", "node-1", "node-2", "<none>"},
	}, {
		name: "scheduling gated",
		pod: func() *apiv1.Pod {
			p := testPod(apiv1.PodPending, namedContainers("a"))
			p.Status.Conditions = []apiv1.PodCondition{{Type: apiv1.PodScheduled, Status: apiv1.ConditionFalse, Reason: apiv1.PodReasonSchedulingGated}}
			return p
		},
		want: []any{"p", "0/1", "SchedulingGated", "0", "10m", "<none>", "<none>", "<none>", "<none>"},
	}, {
		name: "completed",
		pod: func() *apiv1.Pod {
			return testPod(apiv1.PodSucceeded, namedContainers("a"), terminatedStatus("a", "Completed", 0, 0))
		},
		want:  []any{"p", "0/1", "Completed", "0", "10m", "<none>", "<none>", "<none>", "<none>"},
		conds: podSuccessConditions,
	}, {
		name: "failed with exit code, no reason",
		pod: func() *apiv1.Pod {
			return testPod(apiv1.PodFailed, namedContainers("a"), terminatedStatus("a", "", 2, 0))
		},
		want:  []any{"p", "0/1", "ExitCode:2", "0", "10m", "<none>", "<none>", "<none>", "<none>"},
		conds: podFailedConditions,
	}, {
		name: "killed by signal",
		pod: func() *apiv1.Pod {
			return testPod(apiv1.PodFailed, namedContainers("a"), terminatedStatus("a", "", 0, 9))
		},
		want:  []any{"p", "0/1", "Signal:9", "0", "10m", "<none>", "<none>", "<none>", "<none>"},
		conds: podFailedConditions,
	}, {
		name: "evicted: status.reason wins over the phase",
		pod: func() *apiv1.Pod {
			p := testPod(apiv1.PodFailed, namedContainers("a"))
			p.Status.Reason = "Evicted"
			return p
		},
		want:  []any{"p", "0/1", "Evicted", "0", "10m", "<none>", "<none>", "<none>", "<none>"},
		conds: podFailedConditions,
	}, {
		name: "crash loop with restarts",
		pod: func() *apiv1.Pod {
			return testPod(apiv1.PodRunning, namedContainers("a", "b"),
				lastTerminatedAt(waitingStatus("a", "CrashLoopBackOff", 5), tableAgo(3*time.Minute)),
				lastTerminatedAt(runningStatus("b", true, 2), tableAgo(40*time.Minute)))
		},
		want:   []any{"p", "1/2", "CrashLoopBackOff", "7 (3m ago)", "10m", "<none>", "<none>", "<none>", "<none>"},
		reason: "restarts add up; the latest termination of any container dates them",
	}, {
		name: "restarts without a termination time have no suffix",
		pod: func() *apiv1.Pod {
			return testPod(apiv1.PodRunning, namedContainers("a"), runningStatus("a", true, 3))
		},
		want: []any{"p", "1/1", "Running", "3", "10m", "<none>", "<none>", "<none>", "<none>"},
	}, {
		name: "completed container while another still runs and the pod is ready",
		pod: func() *apiv1.Pod {
			p := testPod(apiv1.PodRunning, namedContainers("a", "b"), terminatedStatus("a", "Completed", 0, 0), runningStatus("b", true, 0))
			p.Status.Conditions = []apiv1.PodCondition{{Type: apiv1.PodReady, Status: apiv1.ConditionTrue}}
			return p
		},
		want: []any{"p", "1/2", "Running", "0", "10m", "<none>", "<none>", "<none>", "<none>"},
	}, {
		name: "completed container while another still runs, pod not ready",
		pod: func() *apiv1.Pod {
			return testPod(apiv1.PodRunning, namedContainers("a", "b"), terminatedStatus("a", "Completed", 0, 0), runningStatus("b", true, 0))
		},
		want: []any{"p", "1/2", "NotReady", "0", "10m", "<none>", "<none>", "<none>", "<none>"},
	}, {
		name: "completed hides an earlier container's error",
		pod: func() *apiv1.Pod {
			return testPod(apiv1.PodRunning, namedContainers("a", "b"), terminatedStatus("a", "Completed", 0, 0), terminatedStatus("b", "Error", 1, 0))
		},
		want:   []any{"p", "0/2", "Error", "0", "10m", "<none>", "<none>", "<none>", "<none>"},
		reason: "statuses are walked last to first, so a's Completed is the reason; then the error wins",
	}, {
		name: "terminating",
		pod: func() *apiv1.Pod {
			p := testPod(apiv1.PodRunning, namedContainers("a"), runningStatus("a", true, 0))
			p.DeletionTimestamp = ptr.To(tableAgo(0))
			return p
		},
		want: []any{"p", "1/1", "Terminating", "0", "10m", "<none>", "<none>", "<none>", "<none>"},
	}, {
		name: "deleted after completion stays Completed",
		pod: func() *apiv1.Pod {
			p := testPod(apiv1.PodSucceeded, namedContainers("a"), terminatedStatus("a", "Completed", 0, 0))
			p.DeletionTimestamp = ptr.To(tableAgo(0))
			return p
		},
		want:  []any{"p", "0/1", "Completed", "0", "10m", "<none>", "<none>", "<none>", "<none>"},
		conds: podSuccessConditions,
	}, {
		name: "node lost",
		pod: func() *apiv1.Pod {
			p := testPod(apiv1.PodRunning, namedContainers("a"), runningStatus("a", true, 0))
			p.DeletionTimestamp, p.Status.Reason = ptr.To(tableAgo(0)), "NodeLost"
			return p
		},
		want: []any{"p", "1/1", "Unknown", "0", "10m", "<none>", "<none>", "<none>", "<none>"},
	}, {
		name: "init containers: second of two running",
		pod: func() *apiv1.Pod {
			p := testPod(apiv1.PodPending, namedContainers("a"), waitingStatus("a", "PodInitializing", 0))
			p.Spec.InitContainers = namedContainers("i1", "i2")
			p.Status.InitContainerStatuses = []apiv1.ContainerStatus{terminatedStatus("i1", "Completed", 0, 0), runningStatus("i2", false, 0)}
			return p
		},
		want: []any{"p", "0/1", "Init:1/2", "0", "10m", "<none>", "<none>", "<none>", "<none>"},
	}, {
		name: "init container crash loop counts its restarts",
		pod: func() *apiv1.Pod {
			p := testPod(apiv1.PodPending, namedContainers("a"), waitingStatus("a", "PodInitializing", 0))
			p.Spec.InitContainers = namedContainers("i1")
			p.Status.InitContainerStatuses = []apiv1.ContainerStatus{lastTerminatedAt(waitingStatus("i1", "CrashLoopBackOff", 4), tableAgo(90*time.Second))}
			return p
		},
		want: []any{"p", "0/1", "Init:CrashLoopBackOff", "4 (90s ago)", "10m", "<none>", "<none>", "<none>", "<none>"},
	}, {
		name: "init container failed without a reason",
		pod: func() *apiv1.Pod {
			p := testPod(apiv1.PodPending, namedContainers("a"))
			p.Spec.InitContainers = namedContainers("i1")
			p.Status.InitContainerStatuses = []apiv1.ContainerStatus{terminatedStatus("i1", "", 3, 0)}
			return p
		},
		want: []any{"p", "0/1", "Init:ExitCode:3", "0", "10m", "<none>", "<none>", "<none>", "<none>"},
	}, {
		name: "init container failed with a reason",
		pod: func() *apiv1.Pod {
			p := testPod(apiv1.PodPending, namedContainers("a"))
			p.Spec.InitContainers = namedContainers("i1")
			p.Status.InitContainerStatuses = []apiv1.ContainerStatus{terminatedStatus("i1", "Error", 1, 0)}
			return p
		},
		want: []any{"p", "0/1", "Init:Error", "0", "10m", "<none>", "<none>", "<none>", "<none>"},
	}, {
		name: "init container killed by a signal",
		pod: func() *apiv1.Pod {
			p := testPod(apiv1.PodPending, namedContainers("a"))
			p.Spec.InitContainers = namedContainers("i1")
			p.Status.InitContainerStatuses = []apiv1.ContainerStatus{terminatedStatus("i1", "", 137, 9)}
			return p
		},
		want: []any{"p", "0/1", "Init:Signal:9", "0", "10m", "<none>", "<none>", "<none>", "<none>"},
	}, {
		name: "init container exited 0 despite a signal counts as done",
		pod: func() *apiv1.Pod {
			p := testPod(apiv1.PodPending, namedContainers("a"))
			p.Spec.InitContainers = namedContainers("i1")
			p.Status.InitContainerStatuses = []apiv1.ContainerStatus{terminatedStatus("i1", "", 0, 15)}
			return p
		},
		want:   []any{"p", "0/1", "Pending", "0", "10m", "<none>", "<none>", "<none>", "<none>"},
		reason: "only the exit code decides that an init container is done",
	}, {
		name: "init: initialized condition counts the main containers",
		pod: func() *apiv1.Pod {
			p := testPod(apiv1.PodRunning, namedContainers("a"), runningStatus("a", true, 0))
			p.Spec.InitContainers = namedContainers("i1")
			p.Status.InitContainerStatuses = []apiv1.ContainerStatus{waitingStatus("i1", "ImagePullBackOff", 0)}
			p.Status.Conditions = []apiv1.PodCondition{{Type: apiv1.PodInitialized, Status: apiv1.ConditionTrue}}
			return p
		},
		want:   []any{"p", "1/1", "Init:ImagePullBackOff", "0", "10m", "<none>", "<none>", "<none>", "<none>"},
		reason: "the main containers are counted, but a running one does not reset the reason",
	}, {
		name: "init: initialized condition lets a waiting main container name the status",
		pod: func() *apiv1.Pod {
			p := testPod(apiv1.PodRunning, namedContainers("a"), waitingStatus("a", "CrashLoopBackOff", 1))
			p.Spec.InitContainers = namedContainers("i1")
			p.Status.InitContainerStatuses = []apiv1.ContainerStatus{waitingStatus("i1", "ImagePullBackOff", 2)}
			p.Status.Conditions = []apiv1.PodCondition{{Type: apiv1.PodInitialized, Status: apiv1.ConditionTrue}}
			return p
		},
		want:   []any{"p", "0/1", "CrashLoopBackOff", "1", "10m", "<none>", "<none>", "<none>", "<none>"},
		reason: "restarts then count only sidecars and main containers",
	}, {
		name: "sidecar init container counts in READY and RESTARTS",
		pod: func() *apiv1.Pod {
			p := testPod(apiv1.PodRunning, namedContainers("a"), runningStatus("a", true, 1))
			p.Spec.InitContainers = namedContainers("sidecar")
			p.Spec.InitContainers[0].RestartPolicy = always
			side := lastTerminatedAt(runningStatus("sidecar", true, 2), tableAgo(5*time.Minute))
			side.Started = ptr.To(true)
			p.Status.InitContainerStatuses = []apiv1.ContainerStatus{side}
			return p
		},
		want: []any{"p", "2/2", "Running", "3 (5m ago)", "10m", "<none>", "<none>", "<none>", "<none>"},
	}, {
		name: "readiness gates and podIPs",
		pod: func() *apiv1.Pod {
			p := testPod(apiv1.PodRunning, namedContainers("a"), runningStatus("a", true, 0))
			p.Status.PodIPs = []apiv1.PodIP{{IP: "fd00::5"}}
			p.Spec.ReadinessGates = []apiv1.PodReadinessGate{{ConditionType: "g1"}, {ConditionType: "g2"}}
			p.Status.Conditions = []apiv1.PodCondition{{Type: "g1", Status: apiv1.ConditionTrue}, {Type: "g2", Status: apiv1.ConditionFalse}}
			return p
		},
		want: []any{"p", "1/1", "Running", "0", "10m", "fd00::5", "<none>", "<none>", "1/2"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			row := printPod(tt.pod(), tableNow)
			if diff := cmp.Diff(tt.want, row.Cells); diff != "" {
				t.Errorf("printPod() cells mismatch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.conds, row.Conditions); diff != "" {
				t.Errorf("printPod() conditions mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestTableOtherKindsCells(t *testing.T) {
	created := tableAgo(5 * time.Hour)
	om := func(name string) metav1.ObjectMeta {
		return metav1.ObjectMeta{Name: name, Namespace: "default", CreationTimestamp: created}
	}
	tmpl := apiv1.PodTemplateSpec{Spec: apiv1.PodSpec{Containers: namedContainers("web", "log")}}
	selector := &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}
	tests := []struct {
		name string
		gk   schema.GroupKind
		obj  runtime.Object
		want []any
	}{{
		name: "configmap counts data and binaryData",
		gk:   schema.GroupKind{Kind: "ConfigMap"},
		obj:  &apiv1.ConfigMap{ObjectMeta: om("cm"), Data: map[string]string{"a": "1"}, BinaryData: map[string][]byte{"b": nil}},
		want: []any{"cm", int64(2), "5h"},
	}, {
		name: "secret counts data",
		gk:   schema.GroupKind{Kind: "Secret"},
		obj:  &apiv1.Secret{ObjectMeta: om("s"), Type: apiv1.SecretTypeOpaque, Data: map[string][]byte{"a": nil, "b": nil}},
		want: []any{"s", "Opaque", int64(2), "5h"},
	}, {
		name: "secret prints what is stored: a bookmark's empty object has no type",
		gk:   schema.GroupKind{Kind: "Secret"},
		obj:  &apiv1.Secret{},
		want: []any{"", "", int64(0), "<unknown>"},
	}, {
		name: "namespace",
		gk:   schema.GroupKind{Kind: "Namespace"},
		obj:  &apiv1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "ns", CreationTimestamp: created}, Status: apiv1.NamespaceStatus{Phase: apiv1.NamespaceActive}},
		want: []any{"ns", "Active", "5h"},
	}, {
		name: "node ready, cordoned, with roles",
		gk:   schema.GroupKind{Kind: "Node"},
		obj: &apiv1.Node{
			ObjectMeta: metav1.ObjectMeta{Name: "n1", CreationTimestamp: created, Labels: map[string]string{
				"node-role.kubernetes.io/worker": "", "node-role.kubernetes.io/control-plane": "", "kubernetes.io/role": "infra"}},
			Spec: apiv1.NodeSpec{Unschedulable: true},
			Status: apiv1.NodeStatus{
				Conditions: []apiv1.NodeCondition{{Type: apiv1.NodeMemoryPressure, Status: apiv1.ConditionFalse}, {Type: apiv1.NodeReady, Status: apiv1.ConditionTrue}},
				Addresses:  []apiv1.NodeAddress{{Type: apiv1.NodeInternalIP, Address: "10.0.0.1"}},
				NodeInfo:   apiv1.NodeSystemInfo{KubeletVersion: "v1.37.2", KernelVersion: "6.1.0", Architecture: "amd64"},
			},
		},
		want: []any{"n1", "Ready,SchedulingDisabled", "control-plane,infra,worker", "5h", "v1.37.2", "10.0.0.1", "<none>", "<unknown>", "6.1.0 (amd64)", "<unknown>"},
	}, {
		name: "node without conditions",
		gk:   schema.GroupKind{Kind: "Node"},
		obj:  &apiv1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n2", CreationTimestamp: created}, Status: apiv1.NodeStatus{Conditions: []apiv1.NodeCondition{{Type: apiv1.NodeReady, Status: apiv1.ConditionUnknown}}}},
		want: []any{"n2", "NotReady", "<none>", "5h", "", "<none>", "<none>", "<unknown>", "<unknown>", "<unknown>"},
	}, {
		name: "service defaults: ClusterIP type, TCP, clusterIP",
		gk:   schema.GroupKind{Kind: "Service"},
		obj: &apiv1.Service{ObjectMeta: om("svc"), Spec: apiv1.ServiceSpec{
			ClusterIP: "10.96.0.10", Ports: []apiv1.ServicePort{{Port: 53, Protocol: apiv1.ProtocolUDP}, {Port: 80}},
			Selector: map[string]string{"app": "web"}}},
		want: []any{"svc", "ClusterIP", "10.96.0.10", "<none>", "53/UDP,80/TCP", "5h", "app=web"},
	}, {
		name: "service NodePort with external IPs",
		gk:   schema.GroupKind{Kind: "Service"},
		obj: &apiv1.Service{ObjectMeta: om("np"), Spec: apiv1.ServiceSpec{Type: apiv1.ServiceTypeNodePort,
			ClusterIPs: []string{"10.96.0.11"}, ExternalIPs: []string{"1.2.3.4"}, Ports: []apiv1.ServicePort{{Port: 80, NodePort: 30080, Protocol: apiv1.ProtocolTCP}}}},
		want: []any{"np", "NodePort", "10.96.0.11", "1.2.3.4", "80:30080/TCP", "5h", "<none>"},
	}, {
		name: "service LoadBalancer pending",
		gk:   schema.GroupKind{Kind: "Service"},
		obj:  &apiv1.Service{ObjectMeta: om("lb"), Spec: apiv1.ServiceSpec{Type: apiv1.ServiceTypeLoadBalancer, ClusterIP: "None"}},
		want: []any{"lb", "LoadBalancer", "None", "<pending>", "<none>", "5h", "<none>"},
	}, {
		name: "service LoadBalancer with ingress and external IPs",
		gk:   schema.GroupKind{Kind: "Service"},
		obj: &apiv1.Service{ObjectMeta: om("lb"), Spec: apiv1.ServiceSpec{Type: apiv1.ServiceTypeLoadBalancer, ExternalIPs: []string{"9.9.9.9"}},
			Status: apiv1.ServiceStatus{LoadBalancer: apiv1.LoadBalancerStatus{Ingress: []apiv1.LoadBalancerIngress{{Hostname: "lb.example"}, {IP: "5.5.5.5"}, {IP: "5.5.5.5"}}}}},
		want: []any{"lb", "LoadBalancer", "<none>", "5.5.5.5,lb.example,9.9.9.9", "<none>", "5h", "<none>"},
	}, {
		name: "service ExternalName",
		gk:   schema.GroupKind{Kind: "Service"},
		obj:  &apiv1.Service{ObjectMeta: om("ext"), Spec: apiv1.ServiceSpec{Type: apiv1.ServiceTypeExternalName, ExternalName: "db.example"}},
		want: []any{"ext", "ExternalName", "<none>", "db.example", "<none>", "5h", "<none>"},
	}, {
		name: "event with the old API's timestamps",
		gk:   schema.GroupKind{Kind: "Event"},
		obj: &apiv1.Event{ObjectMeta: om("p.1"), Type: "Warning", Reason: "BackOff", Message: " Back-off restarting \n",
			InvolvedObject: apiv1.ObjectReference{Kind: "Pod", Name: "p", FieldPath: "spec.containers{a}"},
			Source:         apiv1.EventSource{Component: "kubelet", Host: "node-1"},
			FirstTimestamp: tableAgo(time.Hour), LastTimestamp: tableAgo(30 * time.Second), Count: 12},
		want: []any{"30s", "Warning", "BackOff", "pod/p", "spec.containers{a}", "kubelet, node-1", "Back-off restarting", "60m", int64(12), "p.1"},
	}, {
		name: "event with the new API's eventTime and series",
		gk:   schema.GroupKind{Kind: "Event"},
		obj: &apiv1.Event{ObjectMeta: om("e.2"), Type: "Normal", Reason: "Scheduled",
			InvolvedObject: apiv1.ObjectReference{Kind: "Node"}, ReportingController: "default-scheduler",
			EventTime: metav1.NewMicroTime(tableNow.Add(-5 * time.Minute)),
			Series:    &apiv1.EventSeries{Count: 3, LastObservedTime: metav1.NewMicroTime(tableNow.Add(-time.Minute))}},
		want: []any{"60s", "Normal", "Scheduled", "node", "", "default-scheduler", "", "5m", int64(3), "e.2"},
	}, {
		name: "serviceaccount",
		gk:   schema.GroupKind{Kind: "ServiceAccount"},
		obj:  &apiv1.ServiceAccount{ObjectMeta: om("default")},
		want: []any{"default", "5h"},
	}, {
		name: "replicationcontroller",
		gk:   schema.GroupKind{Kind: "ReplicationController"},
		obj: &apiv1.ReplicationController{ObjectMeta: om("rc"), Spec: apiv1.ReplicationControllerSpec{
			Replicas: ptr.To[int32](3), Selector: map[string]string{"app": "web"}, Template: &tmpl},
			Status: apiv1.ReplicationControllerStatus{Replicas: 3, ReadyReplicas: 2}},
		want: []any{"rc", int64(3), int64(3), int64(2), "5h", "web,log", "web:latest,log:latest", "app=web"},
	}, {
		name: "deployment, replicas defaulted",
		gk:   schema.GroupKind{Group: "apps", Kind: "Deployment"},
		obj: &appsv1.Deployment{ObjectMeta: om("d"), Spec: appsv1.DeploymentSpec{Selector: selector, Template: tmpl},
			Status: appsv1.DeploymentStatus{ReadyReplicas: 1, UpdatedReplicas: 1, AvailableReplicas: 0}},
		want: []any{"d", "1/1", int64(1), int64(0), "5h", "web,log", "web:latest,log:latest", "app=web"},
	}, {
		name: "deployment without selector",
		gk:   schema.GroupKind{Group: "apps", Kind: "Deployment"},
		obj:  &appsv1.Deployment{ObjectMeta: om("d"), Spec: appsv1.DeploymentSpec{Replicas: ptr.To[int32](0)}},
		want: []any{"d", "0/0", int64(0), int64(0), "5h", "", "", ""},
	}, {
		name: "replicaset",
		gk:   schema.GroupKind{Group: "apps", Kind: "ReplicaSet"},
		obj: &appsv1.ReplicaSet{ObjectMeta: om("rs"), Spec: appsv1.ReplicaSetSpec{Replicas: ptr.To[int32](2), Selector: selector, Template: tmpl},
			Status: appsv1.ReplicaSetStatus{Replicas: 2, ReadyReplicas: 1}},
		want: []any{"rs", int64(2), int64(2), int64(1), "5h", "web,log", "web:latest,log:latest", "app=web"},
	}, {
		name: "statefulset",
		gk:   schema.GroupKind{Group: "apps", Kind: "StatefulSet"},
		obj:  &appsv1.StatefulSet{ObjectMeta: om("ss"), Spec: appsv1.StatefulSetSpec{Replicas: ptr.To[int32](3), Template: tmpl}, Status: appsv1.StatefulSetStatus{ReadyReplicas: 3}},
		want: []any{"ss", "3/3", "5h", "web,log", "web:latest,log:latest"},
	}, {
		name: "daemonset",
		gk:   schema.GroupKind{Group: "apps", Kind: "DaemonSet"},
		obj: &appsv1.DaemonSet{ObjectMeta: om("ds"),
			Spec: appsv1.DaemonSetSpec{Selector: selector, Template: apiv1.PodTemplateSpec{Spec: apiv1.PodSpec{
				Containers: namedContainers("agent"), NodeSelector: map[string]string{"kubernetes.io/os": "linux"}}}},
			Status: appsv1.DaemonSetStatus{DesiredNumberScheduled: 3, CurrentNumberScheduled: 3, NumberReady: 2, UpdatedNumberScheduled: 3, NumberAvailable: 2}},
		want: []any{"ds", int64(3), int64(3), int64(2), int64(3), int64(2), "kubernetes.io/os=linux", "5h", "agent", "agent:latest", "app=web"},
	}, {
		name: "lease",
		gk:   schema.GroupKind{Group: "coordination.k8s.io", Kind: "Lease"},
		obj:  &coordinationv1.Lease{ObjectMeta: om("kube-scheduler"), Spec: coordinationv1.LeaseSpec{HolderIdentity: ptr.To("sched-1")}},
		want: []any{"kube-scheduler", "sched-1", "5h"},
	}, {
		name: "lease without holder",
		gk:   schema.GroupKind{Group: "coordination.k8s.io", Kind: "Lease"},
		obj:  &coordinationv1.Lease{ObjectMeta: om("l")},
		want: []any{"l", "", "5h"},
	}, {
		name: "job running in parallel",
		gk:   schema.GroupKind{Group: "batch", Kind: "Job"},
		obj: &batchv1.Job{ObjectMeta: om("j"), Spec: batchv1.JobSpec{Parallelism: ptr.To[int32](3), Selector: selector,
			Template: apiv1.PodTemplateSpec{Spec: apiv1.PodSpec{Containers: namedContainers("c")}}},
			Status: batchv1.JobStatus{Succeeded: 1, StartTime: &metav1.Time{Time: tableNow.Add(-90 * time.Second)}}},
		want: []any{"j", "Running", "1/1 of 3", "90s", "5h", "c", "c:latest", "app=web"},
	}, {
		name: "job complete",
		gk:   schema.GroupKind{Group: "batch", Kind: "Job"},
		obj: &batchv1.Job{ObjectMeta: om("j"), Spec: batchv1.JobSpec{Completions: ptr.To[int32](2)},
			Status: batchv1.JobStatus{Succeeded: 2, StartTime: &metav1.Time{Time: tableNow.Add(-time.Hour)},
				CompletionTime: &metav1.Time{Time: tableNow.Add(-time.Hour + 2*time.Minute)},
				Conditions:     []batchv1.JobCondition{{Type: batchv1.JobComplete, Status: apiv1.ConditionTrue}}}},
		want: []any{"j", "Complete", "2/2", "2m", "5h", "", "", "<none>"},
	}, {
		name: "cronjob",
		gk:   schema.GroupKind{Group: "batch", Kind: "CronJob"},
		obj: &batchv1.CronJob{ObjectMeta: om("cj"), Spec: batchv1.CronJobSpec{Schedule: "*/5 * * * *", Suspend: ptr.To(false),
			JobTemplate: batchv1.JobTemplateSpec{Spec: batchv1.JobSpec{Template: apiv1.PodTemplateSpec{Spec: apiv1.PodSpec{Containers: namedContainers("c")}}}}}},
		want: []any{"cj", "*/5 * * * *", "<none>", "False", int64(0), "<none>", "5h", "c", "c:latest", "<none>"},
	}, {
		name: "ingress",
		gk:   schema.GroupKind{Group: "networking.k8s.io", Kind: "Ingress"},
		obj: &networkingv1.Ingress{ObjectMeta: om("ing"), Spec: networkingv1.IngressSpec{IngressClassName: ptr.To("nginx"),
			TLS:   []networkingv1.IngressTLS{{}},
			Rules: []networkingv1.IngressRule{{Host: "a"}, {Host: "b"}, {Host: "c"}, {Host: "d"}}},
			Status: networkingv1.IngressStatus{LoadBalancer: networkingv1.IngressLoadBalancerStatus{Ingress: []networkingv1.IngressLoadBalancerIngress{{IP: "10.0.0.2"}, {Hostname: "lb"}}}}},
		want: []any{"ing", "nginx", "a,b,c + 1 more...", "10.0.0.2,lb", "80, 443", "5h"},
	}, {
		name: "default ingress class with parameters",
		gk:   schema.GroupKind{Group: "networking.k8s.io", Kind: "IngressClass"},
		obj: &networkingv1.IngressClass{
			ObjectMeta: metav1.ObjectMeta{Name: "nginx", CreationTimestamp: metav1.NewTime(tableNow.Add(-5 * time.Hour)),
				Annotations: map[string]string{networkingv1.AnnotationIsDefaultIngressClass: "true"}},
			Spec: networkingv1.IngressClassSpec{Controller: "k8s.io/ingress-nginx", Parameters: &networkingv1.IngressClassParametersReference{
				APIGroup: ptr.To("k8s.example.com"), Kind: "IngressParameters", Name: "p"}}},
		want: []any{"nginx (default)", "k8s.io/ingress-nginx", "IngressParameters.k8s.example.com/p", "5h"},
	}, {
		name: "pdb",
		gk:   schema.GroupKind{Group: "policy", Kind: "PodDisruptionBudget"},
		obj: &policyv1.PodDisruptionBudget{ObjectMeta: om("pdb"), Spec: policyv1.PodDisruptionBudgetSpec{MinAvailable: ptr.To(intstr.FromString("50%"))},
			Status: policyv1.PodDisruptionBudgetStatus{DisruptionsAllowed: 2}},
		want: []any{"pdb", "50%", "N/A", int64(2), "5h"},
	}, {
		name: "priority class",
		gk:   schema.GroupKind{Group: "scheduling.k8s.io", Kind: "PriorityClass"},
		obj:  &schedulingv1.PriorityClass{ObjectMeta: om("high"), Value: 1000, GlobalDefault: true},
		want: []any{"high", int64(1000), true, "5h", ""},
	}, {
		name: "role binding",
		gk:   schema.GroupKind{Group: "rbac.authorization.k8s.io", Kind: "RoleBinding"},
		obj: &rbacv1.RoleBinding{ObjectMeta: om("rb"), RoleRef: rbacv1.RoleRef{Kind: "ClusterRole", Name: "view"},
			Subjects: []rbacv1.Subject{{Kind: "User", Name: "alice"}, {Kind: "User", Name: "bob"}, {Kind: "Group", Name: "devs"},
				{Kind: "ServiceAccount", Namespace: "ns", Name: "sa"}}},
		want: []any{"rb", "ClusterRole/view", "5h", "alice, bob", "devs", "ns/sa"},
	}, {
		name: "runtime class",
		gk:   schema.GroupKind{Group: "node.k8s.io", Kind: "RuntimeClass"},
		obj:  &nodev1.RuntimeClass{ObjectMeta: om("gvisor"), Handler: "runsc"},
		want: []any{"gvisor", "runsc", "5h"},
	}, {
		name: "cluster role binding without subjects",
		gk:   schema.GroupKind{Group: "rbac.authorization.k8s.io", Kind: "ClusterRoleBinding"},
		obj:  &rbacv1.ClusterRoleBinding{ObjectMeta: om("crb"), RoleRef: rbacv1.RoleRef{Kind: "ClusterRole", Name: "admin"}},
		want: []any{"crb", "ClusterRole/admin", "5h", "", "", ""},
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
			if len(row.Cells) != len(p.columns) {
				t.Errorf("len(cells) = %d, want one per column (%d)", len(row.Cells), len(p.columns))
			}
		})
	}
}

// TestToTableIncludeObject checks each row's embedded object against
// apiserver's asTable for every ?includeObject= value.
func TestToTableIncludeObject(t *testing.T) {
	pod := testPod(apiv1.PodRunning, namedContainers("a"), runningStatus("a", true, 0))
	pod.Labels = map[string]string{"app": "web"}
	bare := pod.DeepCopy()
	bare.TypeMeta = metav1.TypeMeta{}
	partial := &metav1.PartialObjectMetadata{
		TypeMeta:   metav1.TypeMeta{Kind: "PartialObjectMetadata", APIVersion: "meta.k8s.io/v1"},
		ObjectMeta: pod.ObjectMeta,
	}
	bookmark := &apiv1.Pod{ObjectMeta: metav1.ObjectMeta{ResourceVersion: "9",
		Annotations: map[string]string{metav1.InitialEventsAnnotationKey: "true"}}}
	tests := []struct {
		name    string
		obj     runtime.Object
		include metav1.IncludeObjectPolicy
		want    runtime.Object
		wantErr string
	}{
		{name: "default is metadata", obj: pod, include: "", want: partial},
		{name: "Metadata", obj: pod, include: metav1.IncludeMetadata, want: partial},
		{name: "Object", obj: pod, include: metav1.IncludeObject, want: pod},
		{name: "Object gets its kind", obj: bare, include: metav1.IncludeObject, want: pod},
		{name: "None", obj: pod, include: metav1.IncludeNone, want: nil},
		{name: "None keeps the initial-events-end bookmark's metadata", obj: bookmark, include: metav1.IncludeNone,
			want: &metav1.PartialObjectMetadata{TypeMeta: partial.TypeMeta, ObjectMeta: bookmark.ObjectMeta}},
		{name: "unknown policy", obj: pod, include: "Everything",
			wantErr: `Unable to convert to Table as requested: includeObject: Invalid value: "Everything": must be 'Metadata', 'Object', 'None', or empty`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			table, err := toTable(podResource, []runtime.Object{tt.obj}, metav1.ListMeta{ResourceVersion: "9"}, tt.include)
			if tt.wantErr != "" {
				st := toStatus(err)
				if st.Code != 400 || st.Reason != metav1.StatusReasonBadRequest || st.Message != tt.wantErr {
					t.Fatalf("toTable(includeObject=%q) = %v (%d %s), want 400 BadRequest %q", tt.include, err, st.Code, st.Reason, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("toTable(includeObject=%q): %v", tt.include, err)
			}
			if diff := cmp.Diff(tt.want, table.Rows[0].Object.Object); diff != "" {
				t.Errorf("toTable(includeObject=%q) row object mismatch (-want +got):\n%s", tt.include, diff)
			}
		})
	}
	if bare.Kind != "" {
		t.Errorf("toTable set the kind of the caller's (shared) object to %q", bare.Kind)
	}
}

func TestToTableListMeta(t *testing.T) {
	pod := testPod(apiv1.PodRunning, namedContainers("a"))
	remaining := int64(4)
	tests := []struct {
		name     string
		res      Resource
		objs     []runtime.Object
		listMeta metav1.ListMeta
		want     metav1.ListMeta
		wantRows []metav1.TableRow
	}{{
		name:     "list metadata is copied",
		res:      podResource,
		objs:     []runtime.Object{pod},
		listMeta: metav1.ListMeta{ResourceVersion: "42", Continue: "tok", RemainingItemCount: &remaining},
		want:     metav1.ListMeta{ResourceVersion: "42", Continue: "tok", RemainingItemCount: &remaining},
	}, {
		name: "a single object lends its resourceVersion",
		res:  podResource,
		objs: []runtime.Object{pod},
		want: metav1.ListMeta{ResourceVersion: "7"},
	}, {
		name:     "empty list of a printed kind has empty rows",
		res:      podResource,
		listMeta: metav1.ListMeta{ResourceVersion: "3"},
		want:     metav1.ListMeta{ResourceVersion: "3"},
		wantRows: []metav1.TableRow{},
	}, {
		name:     "empty list of a default kind has nil rows",
		res:      tableResource(apiv1.SchemeGroupVersion.WithKind("LimitRange"), "limitranges"),
		listMeta: metav1.ListMeta{ResourceVersion: "3"},
		want:     metav1.ListMeta{ResourceVersion: "3"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			table, err := toTable(tt.res, tt.objs, tt.listMeta, "")
			if err != nil {
				t.Fatalf("toTable: %v", err)
			}
			if diff := cmp.Diff(tt.want, table.ListMeta); diff != "" {
				t.Errorf("toTable() ListMeta mismatch (-want +got):\n%s", diff)
			}
			if tt.objs == nil {
				if diff := cmp.Diff(tt.wantRows, table.Rows); diff != "" {
					t.Errorf("toTable() rows mismatch (-want +got):\n%s", diff)
				}
			}
			if table.Kind != "Table" || table.APIVersion != "meta.k8s.io/v1" {
				t.Errorf("toTable() TypeMeta = %v, want meta.k8s.io/v1 Table", table.TypeMeta)
			}
		})
	}
}

func TestToTableDefaultConvertor(t *testing.T) {
	lr := &apiv1.LimitRange{ObjectMeta: metav1.ObjectMeta{Name: "limits", Namespace: "default",
		CreationTimestamp: metav1.NewTime(time.Date(2026, 2, 3, 4, 5, 6, 0, time.FixedZone("CET", 3600)))}}
	table, err := toTable(tableResource(apiv1.SchemeGroupVersion.WithKind("LimitRange"), "limitranges"), []runtime.Object{lr}, metav1.ListMeta{}, metav1.IncludeNone)
	if err != nil {
		t.Fatalf("toTable: %v", err)
	}
	want := []metav1.TableRow{{Cells: []any{"limits", "2026-02-03T03:05:06Z"}}}
	if diff := cmp.Diff(want, table.Rows); diff != "" {
		t.Errorf("toTable(limitranges) rows mismatch (-want +got):\n%s", diff)
	}
}

func TestToTableWrongType(t *testing.T) {
	_, err := toTable(podResource, []runtime.Object{&apiv1.ConfigMap{}}, metav1.ListMeta{}, "")
	if got, want := toStatus(err).Code, int32(500); got != want {
		t.Errorf("toTable(pods, ConfigMap) code = %d (%v), want %d", got, err, want)
	}
	_, err = toTable(tableResource(apiv1.SchemeGroupVersion.WithKind("LimitRange"), "limitranges"), []runtime.Object{&metav1.Status{}}, metav1.ListMeta{}, "")
	st := toStatus(err)
	if want := "the resource limitranges does not support being converted to a Table"; st.Code != 406 || st.Message != want {
		t.Errorf("toTable(limitranges, Status) = %d %q, want 406 %q", st.Code, st.Message, want)
	}
}

// TestTableJSONForKubectl encodes a pod Table with the server's JSON
// serializer and decodes it the way kubectl get does (kubectl
// pkg/cmd/get/get.go decodeIntoTable): unstructured, converted to
// metav1.Table, each row's object decoded as unstructured.
func TestTableJSONForKubectl(t *testing.T) {
	pod := testPod(apiv1.PodRunning, namedContainers("a"), runningStatus("a", true, 0))
	pod.Labels = map[string]string{"app": "web"}
	table, err := toTable(podResource, []runtime.Object{pod}, metav1.ListMeta{ResourceVersion: "8"}, "")
	if err != nil {
		t.Fatalf("toTable: %v", err)
	}
	info, ok := runtime.SerializerInfoForMediaType(scheme.Codecs.SupportedMediaTypes(), runtime.ContentTypeJSON)
	if !ok {
		t.Fatal("no JSON serializer")
	}
	body, err := runtime.Encode(info.Serializer, table)
	if err != nil {
		t.Fatalf("encode: %v", err)
	}
	for _, want := range []string{
		`{"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":{"resourceVersion":"8"},"columnDefinitions":[{"name":"Name","type":"string","format":"name","description":`,
		`"rows":[{"cells":["p","1/1","Running","0","10m","\u003cnone\u003e","\u003cnone\u003e","\u003cnone\u003e","\u003cnone\u003e"],"object":{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{"name":"p","namespace":"default","resourceVersion":"7"`,
	} {
		if !strings.Contains(string(body), want) {
			t.Errorf("Table JSON = %s\nwant it to contain %s", body, want)
		}
	}

	obj, err := runtime.Decode(unstructured.UnstructuredJSONScheme, body)
	if err != nil {
		t.Fatalf("decode as unstructured: %v", err)
	}
	var got metav1.Table
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj.(*unstructured.Unstructured).Object, &got); err != nil {
		t.Fatalf("FromUnstructured(Table): %v", err)
	}
	if diff := cmp.Diff(table.ColumnDefinitions, got.ColumnDefinitions); diff != "" {
		t.Errorf("decoded columns mismatch (-sent +decoded):\n%s", diff)
	}
	if len(got.Rows) != 1 {
		t.Fatalf("decoded %d rows, want 1", len(got.Rows))
	}
	rowObj, err := runtime.Decode(unstructured.UnstructuredJSONScheme, got.Rows[0].Object.Raw)
	if err != nil {
		t.Fatalf("decode row object: %v", err)
	}
	u := rowObj.(*unstructured.Unstructured)
	if u.GetKind() != "PartialObjectMetadata" || u.GetName() != "p" || u.GetNamespace() != "default" || u.GetLabels()["app"] != "web" {
		t.Errorf("row object = %v, want pod p's metadata (kubectl reads namespace and labels from it)", u.Object)
	}
}
