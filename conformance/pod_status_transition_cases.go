package conformance

// Cases for what a controller or test writing a pod's status hits beyond
// conditions and IPs: a terminated container may run again only if its
// restart policy would restart it (v1.37 evaluates container restart
// rules and policies), reported users and allocated resources are
// checked, and resource claim statuses name the spec's claims.

import (
	"context"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
)

// podStatusTransitionCases are the cases of this file, in the order [Cases] runs them.
func podStatusTransitionCases() []Case {
	return []Case{
		{Name: "PodStatusTransitionNever", Run: runPodStatusTransitionNever},
		{Name: "PodStatusTransitionOnFailure", Run: runPodStatusTransitionOnFailure},
		{Name: "PodStatusTransitionRules", Run: runPodStatusTransitionRules},
		{Name: "PodStatusContainerFields", Run: runPodStatusContainerFields},
		{Name: "PodStatusResourceClaims", Run: runPodStatusResourceClaims},
	}
}

// Cause types of the pod status cases.
const (
	forbiddenCause    = metav1.CauseType("FieldValueForbidden")
	duplicateCause    = metav1.CauseType("FieldValueDuplicate")
	notSupportedCause = metav1.CauseType("FieldValueNotSupported")
	notToNonTerm      = "Forbidden: may not be transitioned to non-terminated state"
)

// podWith is a pod named name with restartPolicy policy whose spec has
// the given extra fields (containers, initContainers, ...).
func podWith(name, policy string, spec object) object {
	spec["restartPolicy"] = policy
	return object{"apiVersion": "v1", "kind": "Pod", "metadata": object{"name": name}, "spec": spec}
}

// ctr is a container body; extra fields are merged in.
func ctr(name string, extra object) object {
	c := object{"name": name, "image": "busybox"}
	for k, v := range extra {
		c[k] = v
	}
	return c
}

// terminated and running are container statuses in those states.
func terminated(name string, exitCode int) object {
	return object{"name": name, "ready": false, "restartCount": 0, "image": "busybox", "imageID": "",
		"state": object{"terminated": object{"exitCode": exitCode}}}
}

// running is a container status in the running state.
func running(name string) object {
	return object{"name": name, "ready": true, "restartCount": 1, "image": "busybox", "imageID": "",
		"state": object{"running": object{}}}
}

// waiting is a container status in the waiting state.
func waiting(name string) object {
	return object{"name": name, "ready": false, "restartCount": 1, "image": "busybox", "imageID": "",
		"state": object{"waiting": object{"reason": "CrashLoopBackOff"}}}
}

// transitionForbidden is the cause of a terminated container status at
// field reported non-terminated.
func transitionForbidden(field string) metav1.StatusCause {
	return cause(forbiddenCause, field+".state", notToNonTerm)
}

// invalidPod is invalid for a Pod with causes.
func invalidPod(name string, causes ...metav1.StatusCause) statusShape {
	return invalid("Pod", "", name, causes...)
}

// runPodStatusTransitionNever: in a restartPolicy Never pod a terminated
// container, or a plain init container, may not be reported running or
// waiting again; a sidecar (an init container with restartPolicy Always)
// may.
func runPodStatusTransitionNever(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	e.createPod(ctx, podWith("p", "Never", object{
		"initContainers": []any{ctr("i", nil), ctr("s", object{"restartPolicy": "Always"})},
		"containers":     []any{ctr("c", nil), ctr("d", nil)}}))
	path := e.pods() + "/p"
	e.patchStatus(ctx, path, object{
		"initContainerStatuses": []any{terminated("i", 0), terminated("s", 0)},
		"containerStatuses":     []any{terminated("c", 0), running("d")}}).mustCode(t, http.StatusOK, "terminate the containers")
	r := e.patchStatus(ctx, path, object{
		"initContainerStatuses": []any{running("i"), running("s")},
		"containerStatuses":     []any{terminated("d", 1), waiting("c")}})
	// The index is that of the old status.
	checkStatus(t, "terminated to running, Never", r, invalidPod("p",
		transitionForbidden("status.containerStatuses[0]"),
		transitionForbidden("status.initContainerStatuses[0]")))
	e.patchStatus(ctx, path, object{
		"initContainerStatuses": []any{terminated("i", 0), running("s")},
		"containerStatuses":     []any{terminated("c", 0), terminated("d", 1)}}).mustCode(t, http.StatusOK, "the sidecar restarts")
}

// runPodStatusTransitionOnFailure: in a restartPolicy OnFailure pod a
// container that failed may run again, one that succeeded may not, nor
// may a status naming no container of the spec. Only the first new status
// of a name counts.
func runPodStatusTransitionOnFailure(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	e.createPod(ctx, podWith("p", "OnFailure", object{"containers": []any{ctr("a", nil), ctr("b", nil)}}))
	path := e.pods() + "/p"
	e.patchStatus(ctx, path, object{"containerStatuses": []any{terminated("a", 0), terminated("b", 1), terminated("ghost", 1)}}).
		mustCode(t, http.StatusOK, "terminate the containers")
	r := e.patchStatus(ctx, path, object{"containerStatuses": []any{running("a"), running("b"), running("ghost"), running("a")}})
	checkStatus(t, "terminated to running, OnFailure", r, invalidPod("p",
		transitionForbidden("status.containerStatuses[0]"),
		transitionForbidden("status.containerStatuses[2]")))
	e.patchStatus(ctx, path, object{"containerStatuses": []any{terminated("a", 0), running("b"), terminated("ghost", 1)}}).
		mustCode(t, http.StatusOK, "the failed container restarts")
}

// runPodStatusTransitionRules: a container's own restartPolicy overrides
// the pod's, a matching restart rule overrides both, and a
// RestartAllContainers rule lets every container run again; ephemeral
// containers never restart.
func runPodStatusTransitionRules(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	rule := func(action string, codes ...int) object {
		return object{"action": action, "exitCodes": object{"operator": "In", "values": codes}}
	}
	e.createPod(ctx, podWith("p", "Always", object{"containers": []any{
		ctr("n", object{"restartPolicy": "Never"}),
		ctr("r", object{"restartPolicy": "Never", "restartPolicyRules": []any{rule("Restart", 42)}}),
		ctr("o", object{"restartPolicy": "OnFailure"}),
		ctr("a", nil)}}))
	path := e.pods() + "/p"
	e.patchStatus(ctx, path, object{
		"containerStatuses":          []any{terminated("n", 1), terminated("r", 42), terminated("o", 0), terminated("a", 0), terminated("x", 0)},
		"ephemeralContainerStatuses": []any{terminated("e", 0)}}).mustCode(t, http.StatusOK, "terminate the containers")
	r := e.patchStatus(ctx, path, object{
		"containerStatuses":          []any{running("n"), running("r"), running("o"), running("a"), running("x")},
		"ephemeralContainerStatuses": []any{running("e"), waiting("e")}})
	checkStatus(t, "container restart policies and rules", r, invalidPod("p",
		transitionForbidden("status.containerStatuses[0]"),
		transitionForbidden("status.containerStatuses[2]"),
		transitionForbidden("status.containerStatuses[4]"),
		// Both new statuses of e leave the terminated state: the same
		// error twice, reported once.
		transitionForbidden("status.ephemeralContainerStatuses[0]")))
	e.patchStatus(ctx, path, object{"containerStatuses": []any{terminated("r", 1)}}).mustCode(t, http.StatusOK, "r exits 1")
	checkStatus(t, "no rule matches exit 1", e.patchStatus(ctx, path, object{"containerStatuses": []any{running("r")}}),
		invalidPod("p", transitionForbidden("status.containerStatuses[0]")))

	e.createPod(ctx, podWith("all", "Never", object{"containers": []any{
		ctr("c", object{"restartPolicy": "Never", "restartPolicyRules": []any{rule("RestartAllContainers", 7)}}), ctr("d", nil)}}))
	path = e.pods() + "/all"
	e.patchStatus(ctx, path, object{"containerStatuses": []any{terminated("c", 0), terminated("d", 0), terminated("x", 0)}}).
		mustCode(t, http.StatusOK, "terminate the containers")
	e.patchStatus(ctx, path, object{"containerStatuses": []any{running("c"), running("d"), running("x")}}).
		mustCode(t, http.StatusOK, "a RestartAllContainers rule lets all run again")
}

// runPodStatusContainerFields: a container status's Linux user has a
// uid_t uid and valid group IDs (and a Windows pod's none); its
// allocatedResourcesStatus names the container's requests or claims, with
// valid, unique resource health entries; an ephemeral container has none.
func runPodStatusContainerFields(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	e.createPod(ctx, podWith("p", "Always", object{
		"resourceClaims": []any{object{"name": "gpu", "resourceClaimName": "shared-gpu"}},
		"containers": []any{ctr("c", object{"resources": object{
			"requests": object{"cpu": "100m"}, "claims": []any{object{"name": "gpu"}}}})}}))
	health := func(id, h string, msg *string) object {
		o := object{"resourceID": id, "health": h}
		if msg != nil {
			o["message"] = *msg
		}
		return o
	}
	empty := ""
	c := running("c")
	c["user"] = object{"linux": object{"uid": -1, "gid": -2, "supplementalGroups": []any{0, -3}}}
	c["allocatedResourcesStatus"] = []any{
		object{"name": "memory", "resources": []any{health("dev-a", "Bad", nil), health("dev-a", "Healthy", &empty)}},
		object{"name": "claim:gpu", "resources": []any{health("dev-b", "Unknown", nil)}},
		object{"name": "claim:other/req"}}
	ghost := running("ghost")
	ghost["allocatedResourcesStatus"] = []any{object{"name": "anything"}}
	eph := running("e")
	eph["allocatedResourcesStatus"] = []any{object{"name": "cpu"}}
	r := e.patchStatus(ctx, e.pods()+"/p", object{"containerStatuses": []any{c, ghost}, "ephemeralContainerStatuses": []any{eph}})
	a := "status.containerStatuses[0].allocatedResourcesStatus"
	checkStatus(t, "container status users and allocated resources", r, invalidPod("p",
		invalidInt("status.containerStatuses[0].user.linux.uid", "-1", "must be between 0 and 4294967295, inclusive"),
		invalidInt("status.containerStatuses[0].user.linux.gid", "-2", "must be between 0 and 2147483647, inclusive"),
		invalidInt("status.containerStatuses[0].user.linux.supplementalGroups[1]", "-3", "must be between 0 and 2147483647, inclusive"),
		invalidValue(a+"[0].name", "memory", "must match one of the container's resource requests"),
		cause(notSupportedCause, a+"[0].resources[0].health", `Unsupported value: "Bad": supported values: "Healthy", "Unhealthy", "Unknown"`),
		cause(metav1.CauseTypeFieldValueRequired, a+"[0].resources[1].message", "Required value: must be non-empty if specified"),
		cause(duplicateCause, a+"[0].resources[1].resourceID", `Duplicate value: "dev-a"`),
		invalidValue(a+"[2].name", "claim:other/req", "must match one of the container's resource claims as 'claim:<claimName>/<requestName>' when container.resources.claims[*].request is set or 'claim:<claimName>' when it is empty"),
		cause(forbiddenCause, "status.ephemeralContainerStatuses[0].allocatedResourcesStatus", "Forbidden: must not be specified in container status")))

	e.createPod(ctx, podWith("w", "Always", object{"os": object{"name": "windows"}, "containers": []any{ctr("c", nil)}}))
	w := running("c")
	w["user"] = object{"linux": object{"uid": 0, "gid": 0}}
	checkStatus(t, "a Linux user in a Windows pod", e.patchStatus(ctx, e.pods()+"/w", object{"containerStatuses": []any{w}}),
		invalidPod("w", cause(forbiddenCause, "status.containerStatuses[0].user.linux", "Forbidden: cannot be set for a windows pod")))
}

// runPodStatusResourceClaims: resourceClaimStatuses name the spec's
// claims, once each, with valid claim names; the extended resource claim
// status maps requests of the spec's containers; a status write that
// leaves them out keeps them; volumeHealth (CSIVolumeHealth, alpha) is
// dropped.
func runPodStatusResourceClaims(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	gpu := object{"example.com/gpu": "1"}
	e.createPod(ctx, podWith("p", "Always", object{
		"resourceClaims": []any{object{"name": "gpu", "resourceClaimTemplateName": "gpu-template"}},
		"containers":     []any{ctr("c", object{"resources": object{"requests": gpu, "limits": gpu}})}}))
	path := e.pods() + "/p"
	mapping := func(c, res, req string) object {
		return object{"containerName": c, "resourceName": res, "requestName": req}
	}
	r := e.patchStatus(ctx, path, object{
		"resourceClaimStatuses": []any{object{"name": "gpu", "resourceClaimName": "Bad_Name"}, object{"name": "other"}, object{"name": "gpu"}},
		"extendedResourceClaimStatus": object{"resourceClaimName": "", "requestMappings": []any{
			mapping("c", "example.com/gpu", "Req"), mapping("x", "example.com/gpu", "req"),
			mapping("c", "example.com/other", "req"), mapping("c", "example.com/gpu", "Req")}}})
	x := "status.extendedResourceClaimStatus"
	m := x + ".requestMappings"
	label := validation.IsDNS1123Label("Req")[0]
	checkStatus(t, "resource claim statuses", r, invalidPod("p",
		invalidValue("status.resourceClaimStatuses[0].resourceClaimName", "Bad_Name", validation.IsDNS1123Subdomain("Bad_Name")[0]),
		invalidValue("status.resourceClaimStatuses[1].name", "other", "must match the name of an entry in `spec.resourceClaims`"),
		cause(duplicateCause, "status.resourceClaimStatuses[2].name", `Duplicate value: "gpu"`),
		invalidValue(x+".requestName", "Req", label),
		invalidValue(m+"[1].containerName", "x", "must match the name of an entry in spec.initContainers.name or spec.containers.name"),
		invalidValue(m+"[2].resourceName", "example.com/other", "must match the extended resource name of an entry in spec.initContainers.resources.requests or spec.containers.resources.requests"),
		// The bad requestName of mapping 3 is reported at the same path
		// as that of mapping 0, so once.
		cause(duplicateCause, m+"[3].containerName", `Duplicate value: "c"`),
		cause(duplicateCause, m+"[3].resourceName", `Duplicate value: "example.com/gpu"`),
		cause(duplicateCause, m+"[3].requestName", `Duplicate value: "Req"`),
		cause(metav1.CauseTypeFieldValueRequired, x+".resourceClaimName", "Required value")))

	c := running("c")
	c["allocatedResourcesStatus"] = []any{object{"name": "claim:ext-claim/req"}}
	e.patchStatus(ctx, path, object{
		"resourceClaimStatuses":       []any{object{"name": "gpu", "resourceClaimName": "p-gpu-claim"}},
		"extendedResourceClaimStatus": object{"resourceClaimName": "ext-claim", "requestMappings": []any{mapping("c", "example.com/gpu", "req")}},
		"containerStatuses":           []any{c}}).mustCode(t, http.StatusOK, "valid claim statuses")
	// The container does not claim gpu itself.
	c["allocatedResourcesStatus"] = []any{object{"name": "claim:ext-claim/req"}, object{"name": "claim:gpu"}}
	checkStatus(t, "the claim is not the container's", e.patchStatus(ctx, path, object{"containerStatuses": []any{c}}),
		invalidPod("p", invalidValue("status.containerStatuses[0].allocatedResourcesStatus[1].name", "claim:gpu",
			"must match one of the container's resource claims as 'claim:<claimName>/<requestName>' when container.resources.claims[*].request is set or 'claim:<claimName>' when it is empty")))

	// A PUT of the status without the DRA fields, with volumeHealth.
	g := e.c.do(ctx, t, request{Method: http.MethodGet, Path: path})
	g.mustCode(t, http.StatusOK, "get pod")
	var p object
	g.decode(t, &p)
	st := p["status"].(object)
	delete(st, "resourceClaimStatuses")
	delete(st, "extendedResourceClaimStatus")
	st["volumeHealth"] = []any{object{"name": "no-such-volume"}}
	r = e.c.do(ctx, t, request{Method: http.MethodPut, Path: path + statusSubSuffix, Body: p})
	r.mustCode(t, http.StatusOK, "PUT status without the DRA fields")
	r.decode(t, &p)
	st = p["status"].(object)
	got := object{"resourceClaimStatuses": st["resourceClaimStatuses"], "extendedResourceClaimStatus": st["extendedResourceClaimStatus"], "volumeHealth": st["volumeHealth"]}
	want := object{"resourceClaimStatuses": []any{object{"name": "gpu", "resourceClaimName": "p-gpu-claim"}},
		"extendedResourceClaimStatus": object{"resourceClaimName": "ext-claim", "requestMappings": []any{mapping("c", "example.com/gpu", "req")}},
		"volumeHealth":                nil}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("status after a PUT without the DRA fields (-want +got):\n%s", diff)
	}
}
