package conformance

// Cases for the validation of writes through the status subresource: the
// status strategies of the workloads and Jobs check the status itself
// (counters not negative nor above replicas, Job condition rules), not
// only the metadata. A controller test that writes a status the real
// server refuses must not pass on the fake.

import (
	"context"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
)

// statusValidationCases are the cases of this file, in the order [Cases] runs them.
func statusValidationCases() []Case {
	return []Case{
		{Name: "ValidateDeploymentStatus", Run: runValidateDeploymentStatus},
		{Name: "ValidateWorkloadStatus", Run: runValidateWorkloadStatus},
		{Name: "ValidateJobStatus", Run: runValidateJobStatus},
		{Name: "ValidatePodStatus", Run: runValidatePodStatus},
	}
}

// Messages of the status validations (kubernetes pkg/apis/apps/validation,
// pkg/apis/batch/validation).
const (
	nonNegativeMsg  = "must be greater than or equal to 0"
	aboveReplicas   = "cannot be greater than status.replicas"
	aboveReady      = "cannot be greater than readyReplicas"
	notDecremented  = "cannot be decremented"
	mergePatchType  = "application/merge-patch+json"
	statusSubSuffix = "/status"
)

// invalidInt is the cause of a field.Invalid on an integer value.
func invalidInt(field, value, msg string) metav1.StatusCause {
	return cause(metav1.CauseTypeFieldValueInvalid, field, "Invalid value: "+value+": "+msg)
}

// patchStatus merge-patches the status subresource of the object at path.
func (e *env) patchStatus(ctx context.Context, path string, status object) response {
	return e.c.do(ctx, e.t, request{Method: http.MethodPatch, Path: path + statusSubSuffix,
		Body: object{"status": status}, ContentType: mergePatchType})
}

// createAt POSTs body to the collection path and fails the case unless it
// is created.
func (e *env) createAt(ctx context.Context, path string, body object, what string) {
	e.t.Helper()
	e.c.do(ctx, e.t, request{Method: http.MethodPost, Path: path, Body: body}).mustCode(e.t, http.StatusCreated, what)
}

// appsPath is the collection path of an apps/v1 resource in the case's
// namespace.
func (e *env) appsPath(resource string) string {
	return "/apis/apps/v1/namespaces/" + e.ns + "/" + resource
}

// runValidateDeploymentStatus: a Deployment's status counters are not
// negative, none is above status.replicas, availableReplicas is not above
// readyReplicas and collisionCount never goes down; PUT and PATCH of
// /status both check, and a valid status is stored.
func runValidateDeploymentStatus(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	e.createAt(ctx, e.deployments(), deployment("d", 1), "create deployment")
	path := e.deployments() + "/d"

	// PUT of the object read back, with replicas -1.
	r := e.c.do(ctx, t, request{Method: http.MethodGet, Path: path})
	r.mustCode(t, http.StatusOK, "get deployment")
	var d object
	r.decode(t, &d)
	d["status"] = object{"replicas": -1}
	r = e.c.do(ctx, t, request{Method: http.MethodPut, Path: path + statusSubSuffix, Body: d})
	// The other counters, 0, are now above replicas.
	checkStatus(t, "PUT status replicas -1", r, invalid("Deployment", "apps", "d",
		invalidInt("status.replicas", "-1", nonNegativeMsg),
		invalidInt("status.updatedReplicas", "0", aboveReplicas),
		invalidInt("status.readyReplicas", "0", aboveReplicas),
		invalidInt("status.availableReplicas", "0", aboveReplicas)))

	r = e.patchStatus(ctx, path, object{"replicas": 1, "readyReplicas": 2, "availableReplicas": 3, "collisionCount": -1})
	checkStatus(t, "PATCH status above replicas", r, invalid("Deployment", "apps", "d",
		invalidInt("status.collisionCount", "-1", nonNegativeMsg),
		invalidInt("status.readyReplicas", "2", aboveReplicas),
		invalidInt("status.availableReplicas", "3", aboveReplicas),
		invalidInt("status.availableReplicas", "3", aboveReady)))

	r = e.patchStatus(ctx, path, object{"replicas": 2, "readyReplicas": 2, "availableReplicas": 1, "collisionCount": 2})
	r.mustCode(t, http.StatusOK, "PATCH a valid status")
	checkStatus(t, "collisionCount 2 → 1", e.patchStatus(ctx, path, object{"collisionCount": 1}), invalid("Deployment", "apps", "d",
		invalidInt("status.collisionCount", "1", notDecremented)))
}

// runValidateWorkloadStatus: the status rules of ReplicaSets,
// StatefulSets (which check the status before the metadata and say
// "status.readyReplicas"), DaemonSets and ReplicationControllers.
func runValidateWorkloadStatus(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	rs := deployment("r", 1)
	rs["kind"] = "ReplicaSet"
	e.createAt(ctx, e.appsPath("replicasets"), rs, "create replicaset")
	r := e.patchStatus(ctx, e.appsPath("replicasets")+"/r", object{"replicas": 1, "fullyLabeledReplicas": 2, "readyReplicas": -1, "availableReplicas": 1})
	checkStatus(t, "replicaset status", r, invalid("ReplicaSet", "apps", "r",
		invalidInt("status.readyReplicas", "-1", nonNegativeMsg),
		invalidInt("status.fullyLabeledReplicas", "2", aboveReplicas),
		invalidInt("status.availableReplicas", "1", aboveReady)))

	sts := deployment("s", 1)
	sts["kind"] = "StatefulSet"
	e.createAt(ctx, e.appsPath("statefulsets"), sts, "create statefulset")
	r = e.patchStatus(ctx, e.appsPath("statefulsets")+"/s", object{"replicas": 1, "currentReplicas": 2, "readyReplicas": 1, "availableReplicas": 2, "observedGeneration": -1})
	checkStatus(t, "statefulset status", r, invalid("StatefulSet", "apps", "s",
		invalidInt("status.observedGeneration", "-1", nonNegativeMsg),
		invalidInt("status.currentReplicas", "2", aboveReplicas),
		invalidInt("status.availableReplicas", "2", aboveReplicas),
		invalidInt("status.availableReplicas", "2", "cannot be greater than status.readyReplicas")))

	ds := deployment("ds", 1)
	ds["kind"] = "DaemonSet"
	delete(ds["spec"].(object), "replicas")
	e.createAt(ctx, e.appsPath("daemonsets"), ds, "create daemonset")
	r = e.patchStatus(ctx, e.appsPath("daemonsets")+"/ds", object{"currentNumberScheduled": 0, "numberMisscheduled": 0,
		"desiredNumberScheduled": -2, "numberReady": 0, "numberUnavailable": -1})
	checkStatus(t, "daemonset status", r, invalid("DaemonSet", "apps", "ds",
		invalidInt("status.desiredNumberScheduled", "-2", nonNegativeMsg),
		invalidInt("status.numberUnavailable", "-1", nonNegativeMsg)))

	rc := object{"apiVersion": "v1", "kind": "ReplicationController", "metadata": object{"name": "rc"},
		"spec": object{"replicas": 1, "selector": object{"app": "rc"}, "template": object{"metadata": object{"labels": object{"app": "rc"}},
			"spec": object{"containers": []any{object{"name": "c", "image": "busybox"}}}}}}
	e.createAt(ctx, nsPath(e.ns, "replicationcontrollers"), rc, "create replicationcontroller")
	r = e.patchStatus(ctx, nsPath(e.ns, "replicationcontrollers")+"/rc", object{"replicas": 0, "readyReplicas": 1})
	checkStatus(t, "replicationcontroller status", r, invalid("ReplicationController", "", "rc",
		invalidInt("status.readyReplicas", "1", aboveReplicas)))
	e.patchStatus(ctx, nsPath(e.ns, "replicationcontrollers")+"/rc", object{"replicas": 1, "readyReplicas": 1}).mustCode(t, http.StatusOK, "valid rc status")
}

// job is a batch/v1 Job body that runs one pod.
func job(name string) object {
	return object{"apiVersion": "batch/v1", "kind": "Job", "metadata": object{"name": name},
		"spec": object{"template": object{"spec": object{"restartPolicy": "Never",
			"containers": []any{object{"name": "c", "image": "busybox"}}}}}}
}

// condition is a Job condition of type typ with status True.
func condition(typ string) object { return object{"type": typ, "status": "True"} }

// runValidateJobStatus: what a test that fakes a Job's completion must
// write: Complete=True needs SuccessCriteriaMet=True, a startTime and a
// completionTime (not before startTime); ready pods are not more than the
// active ones; counters do not decrease; a terminal condition stays.
func runValidateJobStatus(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	jobs := "/apis/batch/v1/namespaces/" + e.ns + "/jobs"
	e.createAt(ctx, jobs, job("j"), "create job")
	path := jobs + "/j"
	omit := func(msg string) metav1.StatusCause {
		return cause(metav1.CauseTypeFieldValueInvalid, "status.conditions", "Invalid value: "+msg)
	}

	r := e.patchStatus(ctx, path, object{"conditions": []any{condition("Complete")}})
	checkStatus(t, "Complete alone", r, invalid("Job", "batch", "j",
		cause(metav1.CauseTypeFieldValueRequired, "status.completionTime", "Required value: completionTime is required for Complete jobs"),
		omit("cannot set Complete=True condition without the SuccessCriteriaMet=true condition"),
		cause(metav1.CauseTypeFieldValueRequired, "status.startTime", "Required value: startTime is required for finished job")))

	r = e.patchStatus(ctx, path, object{"active": 1, "ready": 2, "failed": -1})
	checkStatus(t, "ready above active, failed -1", r, invalid("Job", "batch", "j",
		invalidInt("status.failed", "-1", nonNegativeMsg),
		invalidInt("status.ready", "2", "cannot set more ready pods than active"),
		invalidInt("status.failed", "-1", "cannot decrease the failed counter")))

	r = e.patchStatus(ctx, path, object{"startTime": "2026-01-02T03:04:05Z", "completionTime": "2026-01-02T03:04:00Z", "succeeded": 1,
		"conditions": []any{condition("SuccessCriteriaMet"), condition("Complete")}})
	checkStatus(t, "completionTime before startTime", r, invalid("Job", "batch", "j",
		invalidValue("status.completionTime", "2026-01-02T03:04:00Z", "must be equal to or after `startTime`")))

	r = e.patchStatus(ctx, path, object{"startTime": "2026-01-02T03:04:05Z", "completionTime": "2026-01-02T03:04:06Z", "succeeded": 1,
		"conditions": []any{condition("SuccessCriteriaMet"), condition("Complete")}})
	r.mustCode(t, http.StatusOK, "a valid completion")
	r = e.patchStatus(ctx, path, object{"succeeded": 0, "conditions": []any{condition("SuccessCriteriaMet")}})
	checkStatus(t, "undo the completion", r, invalid("Job", "batch", "j",
		invalidValue("status.completionTime", "2026-01-02T03:04:06Z", "cannot set completionTime when there is no Complete=True condition"),
		omit("cannot disable the terminal Complete=True condition"),
		invalidInt("status.succeeded", "0", "cannot decrease the succeeded counter")))
}

// runValidatePodStatus: a pod's status write checks condition types
// (qualified names, bar the system ones), IPs, observedGeneration,
// nominatedNodeName and qosClass; a podIP alone is stored with the podIPs
// defaulting derives from it.
func runValidatePodStatus(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	e.createPod(ctx, pod("p", "node-a", object{"name": "c", "image": "busybox"}))
	path := e.pods() + "/p"
	r := e.patchStatus(ctx, path, object{"podIP": "10.1.2.3", "conditions": []any{object{"type": "Ready", "status": "True"}, object{"type": "example.com/gate", "status": "False"}}})
	r.mustCode(t, http.StatusOK, "valid pod status")
	var p object
	r.decode(t, &p)
	if diff := cmp.Diff([]any{map[string]any{"ip": "10.1.2.3"}}, p["status"].(map[string]any)["podIPs"]); diff != "" {
		t.Errorf("status.podIPs after setting podIP (-want +got):\n%s", diff)
	}
	r = e.patchStatus(ctx, path, object{"conditions": []any{object{"type": "bad type!", "status": "True"}}, "observedGeneration": -1})
	checkStatus(t, "bad condition type, observedGeneration -1", r, invalid("Pod", "", "p",
		invalidValue("status.conditions[0].Type", "bad type!", validation.IsQualifiedName("bad type!")[0]),
		invalidInt("status.observedGeneration", "-1", "must be a non-negative integer")))
	r = e.patchStatus(ctx, path, object{"podIP": "10.1.2.300", "podIPs": []any{object{"ip": "10.1.2.300"}}})
	checkStatus(t, "podIP 10.1.2.300", r, invalid("Pod", "", "p",
		invalidValue("status.podIPs[0]", "10.1.2.300", "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)")))
	r = e.patchStatus(ctx, path, object{"nominatedNodeName": "node-b", "qosClass": "Guaranteed", "hostIP": "10.0.0.1", "hostIPs": []any{object{"ip": "10.0.0.2"}}})
	checkStatus(t, "nominatedNodeName of a bound pod, qosClass, hostIPs", r, invalid("Pod", "", "p",
		cause(metav1.CauseType("FieldValueForbidden"), "status.nominatedNodeName", "Forbidden: may not be set on pods that are already bound to a node"),
		invalidValue("status.qosClass", "Guaranteed", "field is immutable"),
		invalidValue("status.hostIPs[0].ip", "10.0.0.2", "must be equal to `hostIP`")))
}
