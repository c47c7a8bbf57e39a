package conformance

// Cases for the validation of writes through the status subresource of
// core/v1 Services, PersistentVolumeClaims and Nodes: what a
// load-balancer, volume-expansion or node controller under test writes.
// kube-apiserver walks resource maps in Go's random order, so each case
// puts at most one bad entry in any one map.

import (
	"context"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/client-go/rest"
)

// coreStatusValidationCases are the cases of this file, in the order [Cases] runs them.
func coreStatusValidationCases() []Case {
	return []Case{
		{Name: "ValidateServiceStatus", Run: runValidateServiceStatus},
		{Name: "ValidatePVCStatus", Run: runValidatePVCStatus},
		{Name: "ValidateNodeStatus", Run: runValidateNodeStatus},
		{Name: "StatusWriteMetadata", Run: runStatusWriteMetadata},
		{Name: "NodeCreateWithStatus", Run: runNodeCreateWithStatus},
		{Name: "PersistentVolumeStatus", Run: runPersistentVolumeStatus},
		{Name: "ValidateNode", Run: runValidateNode},
	}
}

// Messages of core validation's status checks.
const (
	notAnIPMsg        = "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"
	badQuantityMsg    = "must be a valid resource quantity"
	resizeStatusesMsg = `supported values: "ControllerResizeInProgress", "ControllerResizeInfeasible", "NodeResizeInProgress", "NodeResizeInfeasible", "NodeResizePending"`
	sortedMsg         = "list must be sorted alphabetically"
)

// causeForbidden is the cause type of a field.Forbidden (metav1 names no
// constant for it).
const causeForbidden metav1.CauseType = "FieldValueForbidden"

// notSupported is the cause of a field.NotSupported.
func notSupported(field, value, supported string) metav1.StatusCause {
	return cause(metav1.CauseTypeFieldValueNotSupported, field, `Unsupported value: "`+value+`": `+supported)
}

// service is a core/v1 Service body of type typ ("" for the default)
// with one port.
func service(name, typ string) object {
	spec := object{"ports": []any{object{"port": 80}}}
	if typ != "" {
		spec["type"] = typ
	}
	return object{"apiVersion": "v1", "kind": "Service", "metadata": object{"name": name}, "spec": spec}
}

// getObject GETs path and decodes it, failing the case unless it is found.
func (e *env) getObject(ctx context.Context, path string) object {
	e.t.Helper()
	r := e.c.do(ctx, e.t, request{Method: http.MethodGet, Path: path})
	r.mustCode(e.t, http.StatusOK, "get "+path)
	var o object
	r.decode(e.t, &o)
	return o
}

// putStatus PUTs obj to the status subresource of the object at path.
func (e *env) putStatus(ctx context.Context, path string, obj object) response {
	return e.c.do(ctx, e.t, request{Method: http.MethodPut, Path: path + statusSubSuffix, Body: obj})
}

// at returns the value at the keys of a decoded object (nil if absent).
func at(o object, keys ...string) any {
	var v any = map[string]any(o)
	for _, k := range keys {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

// runValidateServiceStatus: load-balancer ingress only on a LoadBalancer
// Service; each ingress IP valid (strictly: no leading zeros, no
// IPv4-mapped IPv6), an ipMode (VIP or Proxy) only with an IP and
// defaulted to VIP when left out, a hostname that is a DNS subdomain and
// not an IP. Ingress ports are not checked. A status write keeps the
// stored spec, whatever spec its body carries: defaulting saw the body's,
// validation sees the stored one.
func runValidateServiceStatus(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	svcs := nsPath(e.ns, "services")
	e.createAt(ctx, svcs, service("cip", ""), "create ClusterIP service")
	r := e.patchStatus(ctx, svcs+"/cip", object{"loadBalancer": object{"ingress": []any{object{"ip": "1.2.3.4"}, object{"ip": "bad"}}}})
	checkStatus(t, "ingress on a ClusterIP service", r, invalid("Service", "", "cip",
		cause(causeForbidden, "status.loadBalancer.ingress", "Forbidden: may only be used when `spec.type` is 'LoadBalancer'")))

	e.createAt(ctx, svcs, service("lb", "LoadBalancer"), "create LoadBalancer service")
	path := svcs + "/lb"
	ing := "status.loadBalancer.ingress"
	r = e.patchStatus(ctx, path, object{"loadBalancer": object{"ingress": []any{
		object{"ip": "001.2.3.4"},
		object{"ip": "1.2.3", "ipMode": "Bogus"},
		object{"hostname": "1.2.3.4"},
		object{"hostname": "Bad_Host", "ipMode": "Proxy"},
		object{"ip": "::ffff:1.2.3.4", "ipMode": "Proxy", "hostname": "ok.example.com"},
	}}})
	checkStatus(t, "bad ingress points", r, invalid("Service", "", "lb",
		invalidValue(ing+"[0].ip", "001.2.3.4", "must not have leading 0s"),
		invalidValue(ing+"[1].ip", "1.2.3", notAnIPMsg),
		notSupported(ing+"[1].ipMode", "Bogus", `supported values: "Proxy", "VIP"`),
		invalidValue(ing+"[2].hostname", "1.2.3.4", "must be a DNS name, not an IP address"),
		cause(causeForbidden, ing+"[3].ipMode", "Forbidden: may not be specified when `ip` is not set"),
		invalidValue(ing+"[3].hostname", "Bad_Host", validation.IsDNS1123Subdomain("Bad_Host")[0]),
		invalidValue(ing+"[4].ip", "::ffff:1.2.3.4", "must not be an IPv4-mapped IPv6 address")))

	ports := []any{map[string]any{"port": float64(-1), "protocol": "XYZ", "error": "bad err!"}}
	r = e.patchStatus(ctx, path, object{"loadBalancer": object{"ingress": []any{
		object{"ip": "5.6.7.8", "ports": ports}, object{"hostname": "lb.example.com"}}}})
	r.mustCode(t, http.StatusOK, "valid ingress")
	var got object
	r.decode(t, &got)
	want := []any{map[string]any{"ip": "5.6.7.8", "ipMode": "VIP", "ports": ports}, map[string]any{"hostname": "lb.example.com"}}
	if diff := cmp.Diff(want, at(got, "status", "loadBalancer", "ingress")); diff != "" {
		t.Errorf("stored ingress (-want +got):\n%s", diff)
	}

	// A PUT whose body turns the Service into a ClusterIP one: ipMode is
	// not defaulted (the body's type), the check runs on the stored
	// LoadBalancer spec, so it is required.
	svc := e.getObject(ctx, path)
	svc["spec"].(map[string]any)["type"] = "ClusterIP"
	svc["status"] = object{"loadBalancer": object{"ingress": []any{object{"ip": "9.9.9.9"}}}}
	checkStatus(t, "PUT status with a ClusterIP spec", e.putStatus(ctx, path, svc), invalid("Service", "", "lb",
		cause(metav1.CauseTypeFieldValueRequired, ing+"[0].ipMode", "Required value: must be specified when `ip` is set")))
	svc["status"] = object{"loadBalancer": object{"ingress": []any{object{"ip": "9.9.9.9", "ipMode": "Proxy"}}}}
	r = e.putStatus(ctx, path, svc)
	r.mustCode(t, http.StatusOK, "PUT status with a ClusterIP spec and an ipMode")
	r.decode(t, &got)
	if typ := at(got, "spec", "type"); typ != "LoadBalancer" {
		t.Errorf("spec.type after a status PUT = %v, want the stored LoadBalancer", typ)
	}
}

// pvc is a core/v1 PersistentVolumeClaim body asking for 1Gi.
func pvc(name string) object {
	return object{"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": object{"name": name},
		"spec": object{"accessModes": []any{"ReadWriteOnce"}, "resources": object{"requests": object{"storage": "1Gi"}}}}
}

// runValidatePVCStatus: what a resizer writes into a claim's status:
// capacity and allocatedResources quantities not negative once rounded to
// units, allocatedResources and allocatedResourceStatuses keyed by
// storage or a prefixed name, resize statuses from the known set.
// healthStatus (CSIVolumeHealth, alpha) is dropped.
func runValidatePVCStatus(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	pvcs := nsPath(e.ns, "persistentvolumeclaims")
	e.createAt(ctx, pvcs, pvc("c"), "create claim")
	path := pvcs + "/c"

	r := e.patchStatus(ctx, path, object{"capacity": object{"storage": "-1Gi"},
		"allocatedResources": object{"cpu": "1"}, "allocatedResourceStatuses": object{"storage": "Bogus"}})
	checkStatus(t, "negative capacity, cpu allocated, bogus resize status", r, invalid("PersistentVolumeClaim", "", "c",
		cause(metav1.CauseTypeFieldValueInvalid, "status.capacity[storage]", "Invalid value: -1073741824: "+badQuantityMsg),
		notSupported("status.allocatedResourceStatuses", "storage", resizeStatusesMsg),
		notSupported("status.allocatedResources", "cpu", `supported values: "storage"`)))

	r = e.patchStatus(ctx, path, object{"allocatedResources": object{"example.com/foo": "-2"}, "allocatedResourceStatuses": object{"cpu": "Bogus"}})
	checkStatus(t, "cpu resize status, negative extended resource", r, invalid("PersistentVolumeClaim", "", "c",
		notSupported("status.allocatedResourceStatuses", "cpu", `supported values: "storage"`),
		notSupported("status.allocatedResourceStatuses", "cpu", resizeStatusesMsg),
		cause(metav1.CauseTypeFieldValueInvalid, "status.allocatedResources[example.com/foo]", "Invalid value: -2: "+badQuantityMsg)))

	r = e.patchStatus(ctx, path, object{"allocatedResources": object{"storage": "-1m"}, "allocatedResourceStatuses": object{"bad key!": "ControllerResizeInProgress"}})
	checkStatus(t, "bad key, -1m allocated", r, invalid("PersistentVolumeClaim", "", "c",
		invalidValue("status.allocatedResourceStatuses", "bad key!", validation.IsQualifiedName("bad key!")[0]),
		cause(metav1.CauseTypeFieldValueInvalid, "status.allocatedResources[storage]", "Invalid value: -1: "+badQuantityMsg)))

	r = e.patchStatus(ctx, path, object{"phase": "Bound", "capacity": object{"storage": "2Gi"},
		"healthStatus":       object{"healthConditions": []any{object{"reason": "bad reason!"}}},
		"allocatedResources": object{"storage": "2Gi"}, "allocatedResourceStatuses": object{"storage": "NodeResizePending"}})
	r.mustCode(t, http.StatusOK, "valid resize status")
	var got object
	r.decode(t, &got)
	want := map[string]any{"phase": "Bound", "capacity": map[string]any{"storage": "2Gi"},
		"allocatedResources": map[string]any{"storage": "2Gi"}, "allocatedResourceStatuses": map[string]any{"storage": "NodeResizePending"}}
	if diff := cmp.Diff(want, at(got, "status")); diff != "" {
		t.Errorf("stored status (-want +got):\n%s", diff)
	}
}

// deleteBestEffort deletes the object at path with a fresh client, best
// effort (for cluster-scoped objects a namespace's deletion does not take).
func deleteBestEffort(target Target, path string) {
	cfg := target.RESTConfig()
	hc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return
	}
	c := &client{target: target, base: baseURL(cfg), http: hc}
	req, err := c.newHTTPRequest(context.Background(), request{Method: http.MethodDelete, Path: path})
	if err != nil {
		return
	}
	if resp, err := hc.Do(req); err == nil {
		resp.Body.Close()
	}
}

// runValidateNodeStatus: what a node controller or fake kubelet writes:
// capacity and allocatable not negative and whole for counted and
// extended resources (allocatable defaults to the capacity, quantities
// round up to milli-units), declared features well formed and sorted,
// addresses without duplicates. status.config is dropped, and a status
// PUT keeps the stored spec.
func runValidateNodeStatus(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	name := e.ns // unique, and cluster-scoped names need it
	path := "/api/v1/nodes/" + name
	e.createAt(ctx, "/api/v1/nodes", object{"apiVersion": "v1", "kind": "Node", "metadata": object{"name": name},
		"spec": object{"podCIDRs": []any{"10.0.0.0/24"}, "taints": []any{object{"key": "k", "effect": "NoSchedule"}}}}, "create node")
	t.Cleanup(func() { deleteBestEffort(target, path) })

	r := e.patchStatus(ctx, path, object{
		"capacity":    object{"cpu": "-1", "memory": "1Gi"},
		"allocatable": object{"example.com/foo": "500m", "memory": "1Gi"},
		"addresses": []any{object{"type": "InternalIP", "address": "10.0.0.1"}, object{"type": "Hostname", "address": name},
			object{"type": "InternalIP", "address": "10.0.0.1"}},
		"declaredFeatures": []any{"bFeat", "Zed", "Alpha", "Alpha"}})
	checkStatus(t, "bad quantities, features, addresses", r, invalid("Node", "", name,
		invalidValue("status.capacity.cpu", "-1", "must be greater than or equal to 0"),
		invalidValue("status.allocatable.example.com/foo", "500m", "must be an integer"),
		invalidValue("status.declaredFeatures[0]", "bFeat", `invalid feature name "bFeat": must start with an UpperCamelCase segment, with subsequent segments separated by '/' (e.g., MyFeature or MyFeature/mySubFeature), and contain only alphanumeric characters and slashes`),
		invalidValue("status.declaredFeatures[1]", "Zed", sortedMsg),
		invalidValue("status.declaredFeatures[2]", "Alpha", sortedMsg),
		cause(metav1.CauseTypeFieldValueDuplicate, "status.declaredFeatures[3]", `Duplicate value: "Alpha"`),
		cause(metav1.CauseTypeFieldValueDuplicate, "status.addresses[2]", `Duplicate value: {"Type":"InternalIP","Address":"10.0.0.1"}`)))

	// allocatable left out is the capacity: its error comes twice.
	r = e.patchStatus(ctx, path, object{"capacity": object{"pods": "1500m"}})
	checkStatus(t, "fractional pods", r, invalid("Node", "", name,
		invalidValue("status.capacity.pods", "1500m", "must be an integer"),
		invalidValue("status.allocatable.pods", "1500m", "must be an integer")))

	r = e.patchStatus(ctx, path, object{"capacity": object{"cpu": "1500u", "memory": "1Gi", "pods": "110"},
		"declaredFeatures": []any{"Alpha", "Beta/sub"},
		"config":           object{"active": object{"configMap": object{"name": "x", "namespace": "y", "kubeletConfigKey": "k"}}}})
	r.mustCode(t, http.StatusOK, "valid node status")
	var got object
	r.decode(t, &got)
	capacity := map[string]any{"cpu": "2m", "memory": "1Gi", "pods": "110"}
	for _, f := range []string{"capacity", "allocatable"} {
		if diff := cmp.Diff(capacity, at(got, "status", f)); diff != "" {
			t.Errorf("stored status.%s (-want +got):\n%s", f, diff)
		}
	}
	if c := at(got, "status", "config"); c != nil {
		t.Errorf("stored status.config = %v, want it dropped", c)
	}

	spec := at(got, "spec")
	got["spec"] = object{"podCIDRs": []any{"10.9.0.0/24"}, "unschedulable": true, "providerID": "x"}
	r = e.putStatus(ctx, path, got)
	r.mustCode(t, http.StatusOK, "PUT status with another spec")
	r.decode(t, &got)
	if diff := cmp.Diff(spec, at(got, "spec")); diff != "" {
		t.Errorf("spec after a status PUT (-stored before +after):\n%s", diff)
	}
}

// runStatusWriteMetadata: a write through /status of a built-in kind
// stores the metadata it carries (labels, annotations), checked as any
// metadata update, bar what the kind's status strategy resets: a
// Deployment's labels, a Pod's ownerReferences.
func runStatusWriteMetadata(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	svcs := nsPath(e.ns, "services")
	e.createAt(ctx, svcs, service("s", ""), "create service")
	withMeta := func(md object) object { return object{"metadata": md, "status": object{}} }
	patch := func(path string, body object) response {
		return e.c.do(ctx, t, request{Method: http.MethodPatch, Path: path + statusSubSuffix, Body: body, ContentType: mergePatchType})
	}
	r := patch(svcs+"/s", withMeta(object{"labels": object{"x": "y"}, "annotations": object{"a": "b"}}))
	r.mustCode(t, http.StatusOK, "service status write with metadata")
	var got object
	r.decode(t, &got)
	if diff := cmp.Diff([]any{map[string]any{"x": "y"}, map[string]any{"a": "b"}},
		[]any{at(got, "metadata", "labels"), at(got, "metadata", "annotations")}); diff != "" {
		t.Errorf("service labels and annotations after a status write (-want +got):\n%s", diff)
	}
	r = patch(svcs+"/s", withMeta(object{"labels": object{"bad key!": "v"}}))
	checkStatus(t, "bad label through /status", r, invalid("Service", "", "s",
		invalidValue("metadata.labels", "bad key!", validation.IsQualifiedName("bad key!")[0])))

	e.createAt(ctx, e.deployments(), deployment("d", 1), "create deployment")
	r = patch(e.deployments()+"/d", withMeta(object{"labels": object{"x": "y"}, "annotations": object{"a": "b"}}))
	r.mustCode(t, http.StatusOK, "deployment status write with metadata")
	r.decode(t, &got)
	if diff := cmp.Diff([]any{nil, map[string]any{"a": "b"}},
		[]any{at(got, "metadata", "labels"), at(got, "metadata", "annotations")}); diff != "" {
		t.Errorf("deployment labels and annotations after a status write (-want +got):\n%s", diff)
	}

	e.createPod(ctx, pod("p", "", object{"name": "c", "image": "busybox"}))
	r = patch(e.pods()+"/p", withMeta(object{"labels": object{"x": "y"},
		"ownerReferences": []any{object{"apiVersion": "v1", "kind": "ConfigMap", "name": "o", "uid": "u"}}}))
	r.mustCode(t, http.StatusOK, "pod status write with metadata")
	r.decode(t, &got)
	if diff := cmp.Diff([]any{map[string]any{"x": "y"}, nil},
		[]any{at(got, "metadata", "labels"), at(got, "metadata", "ownerReferences")}); diff != "" {
		t.Errorf("pod labels and ownerReferences after a status write (-want +got):\n%s", diff)
	}
}

// runNodeCreateWithStatus: a Node, unlike most kinds, keeps the status it
// is created with (a test creates Ready nodes so), with allocatable
// defaulted from the capacity and status.config dropped; the
// TaintNodesByCondition admission plugin adds the not-ready NoSchedule
// taint unless the node has one (of any value).
func runNodeCreateWithStatus(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	path := "/api/v1/nodes/" + e.ns
	t.Cleanup(func() { deleteBestEffort(target, path) })
	r := e.c.do(ctx, t, request{Method: http.MethodPost, Path: "/api/v1/nodes", Body: object{"apiVersion": "v1", "kind": "Node",
		"metadata": object{"name": e.ns},
		"status": object{"capacity": object{"cpu": "4"}, "conditions": []any{object{"type": "Ready", "status": "True"}},
			"config": object{"active": object{"configMap": object{"name": "x", "namespace": "y", "kubeletConfigKey": "k"}}}}}})
	r.mustCode(t, http.StatusCreated, "create node with a status")
	var got object
	r.decode(t, &got)
	want := []any{map[string]any{"cpu": "4"}, map[string]any{"cpu": "4"},
		[]any{map[string]any{"type": "Ready", "status": "True", "lastHeartbeatTime": nil, "lastTransitionTime": nil}}, nil}
	if diff := cmp.Diff(want, []any{at(got, "status", "capacity"), at(got, "status", "allocatable"),
		at(got, "status", "conditions"), at(got, "status", "config")}); diff != "" {
		t.Errorf("created node's capacity, allocatable, conditions, config (-want +got):\n%s", diff)
	}
	notReady := map[string]any{"key": "node.kubernetes.io/not-ready", "effect": "NoSchedule"}
	if diff := cmp.Diff([]any{notReady}, at(got, "spec", "taints")); diff != "" {
		t.Errorf("created node's taints (-want +got):\n%s", diff)
	}

	tainted := []any{map[string]any{"key": "k", "effect": "NoExecute"},
		map[string]any{"key": "node.kubernetes.io/not-ready", "value": "x", "effect": "NoSchedule"}}
	path = "/api/v1/nodes/" + e.ns + "-b"
	t.Cleanup(func() { deleteBestEffort(target, path) })
	r = e.c.do(ctx, t, request{Method: http.MethodPost, Path: "/api/v1/nodes", Body: object{"apiVersion": "v1", "kind": "Node",
		"metadata": object{"name": e.ns + "-b"}, "spec": object{"taints": tainted}}})
	r.mustCode(t, http.StatusCreated, "create node with a not-ready taint")
	r.decode(t, &got)
	if diff := cmp.Diff(tainted, at(got, "spec", "taints")); diff != "" {
		t.Errorf("taints of a node created with a not-ready one (-want +got):\n%s", diff)
	}
}

// runPersistentVolumeStatus: a new volume is Pending since its
// lastPhaseTransitionTime, with the spec defaults (reclaim policy Retain,
// volumeMode Filesystem, hostPath type ""); a status write keeps the
// stored transition time while the phase stays, records a new one when
// the phase changes without one, and a phase left empty is Pending. A new
// claim is Pending too, with volumeMode Filesystem.
func runPersistentVolumeStatus(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	path := "/api/v1/persistentvolumes/" + e.ns
	t.Cleanup(func() { deleteBestEffort(target, path) })
	e.createAt(ctx, "/api/v1/persistentvolumes", object{"apiVersion": "v1", "kind": "PersistentVolume", "metadata": object{"name": e.ns},
		"spec": object{"accessModes": []any{"ReadWriteOnce"}, "capacity": object{"storage": "1Gi"}, "hostPath": object{"path": "/tmp"}}}, "create volume")
	pv := e.getObject(ctx, path)
	if diff := cmp.Diff([]any{"Pending", true, "Retain", "Filesystem", ""}, []any{at(pv, "status", "phase"),
		at(pv, "status", "lastPhaseTransitionTime") != nil, at(pv, "spec", "persistentVolumeReclaimPolicy"),
		at(pv, "spec", "volumeMode"), at(pv, "spec", "hostPath", "type")}); diff != "" {
		t.Errorf("new volume's phase, has a transition time, reclaim policy, volumeMode, hostPath type (-want +got):\n%s", diff)
	}

	const then = "2020-01-01T00:00:00Z"
	r := e.patchStatus(ctx, path, object{"phase": "Bound", "lastPhaseTransitionTime": then})
	r.mustCode(t, http.StatusOK, "status Bound at a given time")
	pv = e.getObject(ctx, path)
	pv["status"] = object{"phase": "Bound", "message": "m"}
	r = e.putStatus(ctx, path, pv)
	r.mustCode(t, http.StatusOK, "PUT status, same phase, no time")
	r.decode(t, &pv)
	if got := at(pv, "status", "lastPhaseTransitionTime"); got != then {
		t.Errorf("lastPhaseTransitionTime after a write keeping the phase = %v, want %s kept", got, then)
	}
	pv["status"] = object{"phase": "Released"}
	r = e.putStatus(ctx, path, pv)
	r.mustCode(t, http.StatusOK, "PUT status, new phase, no time")
	r.decode(t, &pv)
	if got := at(pv, "status", "lastPhaseTransitionTime"); got == then || got == nil {
		t.Errorf("lastPhaseTransitionTime after a phase change = %v, want a new time", got)
	}
	r = e.patchStatus(ctx, path, object{"phase": ""})
	r.mustCode(t, http.StatusOK, "status with no phase")
	r.decode(t, &pv)
	if got := at(pv, "status", "phase"); got != "Pending" {
		t.Errorf("phase after writing none = %v, want Pending", got)
	}

	pvcs := nsPath(e.ns, "persistentvolumeclaims")
	e.createAt(ctx, pvcs, pvc("c"), "create claim")
	c := e.getObject(ctx, pvcs+"/c")
	if diff := cmp.Diff([]any{"Pending", "Filesystem"}, []any{at(c, "status", "phase"), at(c, "spec", "volumeMode")}); diff != "" {
		t.Errorf("new claim's phase and volumeMode (-want +got):\n%s", diff)
	}
}

// runValidateNode: a Node's create checks its taints (reported under
// metadata.taints), capacity and allocatable, swap capacity, declared
// features and pod CIDRs; an update also keeps pod CIDRs and providerID
// once set and externalID always, each cause once although
// kube-apiserver's validations find some twice. A podCIDR written alone
// (by an older IPAM controller) fills podCIDRs.
func runValidateNode(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	nodes := "/api/v1/nodes"
	create := func(name string, spec, status object) response {
		t.Cleanup(func() { deleteBestEffort(target, nodes+"/"+name) })
		return e.c.do(ctx, t, request{Method: http.MethodPost, Path: nodes, Body: object{"apiVersion": "v1", "kind": "Node",
			"metadata": object{"name": name}, "spec": spec, "status": status}})
	}
	name := e.ns
	r := create(name, object{"podCIDRs": []any{"10.0.0.0/24", "10.1.0.0/24"}, "taints": []any{
		object{"key": "bad key!", "value": "bad value!", "effect": "Bogus"}, object{"key": "k", "effect": ""},
		object{"key": "d", "effect": "NoSchedule"}, object{"key": "d", "value": "v", "effect": "NoSchedule"}}},
		object{"capacity": object{"cpu": "-1"}, "nodeInfo": object{"swap": object{"capacity": 0}}, "declaredFeatures": []any{"b"}})
	checkStatus(t, "create an invalid node", r, invalid("Node", "", name,
		invalidValue("metadata.taints[0].key", "bad key!", validation.IsQualifiedName("bad key!")[0]),
		invalidValue("metadata.taints[0].value", "bad value!", validation.IsValidLabelValue("bad value!")[0]),
		notSupported("metadata.taints[0].effect", "Bogus", `supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"`),
		cause(metav1.CauseTypeFieldValueRequired, "metadata.taints[1].effect", "Required value"),
		cause(metav1.CauseTypeFieldValueDuplicate, "metadata.taints[3]", `Duplicate value: {"Key":"d","Value":"v","Effect":"NoSchedule","TimeAdded":null}: taints must be unique by key and effect pair`),
		invalidValue("status.capacity.cpu", "-1", "must be greater than or equal to 0"),
		invalidValue("status.allocatable.cpu", "-1", "must be greater than or equal to 0"),
		cause(metav1.CauseTypeFieldValueInvalid, "metadata.nodeSwapStatus.capacity", "Invalid value: 0: must be greater than zero"),
		invalidValue("status.declaredFeatures[0]", "b", `invalid feature name "b": must start with an UpperCamelCase segment, with subsequent segments separated by '/' (e.g., MyFeature or MyFeature/mySubFeature), and contain only alphanumeric characters and slashes`),
		cause(metav1.CauseTypeFieldValueInvalid, "spec.podCIDRs", `Invalid value: ["10.0.0.0/24","10.1.0.0/24"]: may specify no more than one CIDR for each IP family`)))
	r = create(name, object{"podCIDRs": []any{"10.0.0.0/33"}}, nil)
	checkStatus(t, "create with a bad pod CIDR", r, invalid("Node", "", name,
		invalidValue("spec.podCIDRs[0]", "10.0.0.0/33", "must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)")))

	create(name, object{"podCIDRs": []any{"10.0.0.0/24"}, "providerID": "p1", "externalID": "e"}, nil).mustCode(t, http.StatusCreated, "create node")
	path := nodes + "/" + name
	patch := func(body object) response {
		return e.c.do(ctx, t, request{Method: http.MethodPatch, Path: path, Body: body, ContentType: mergePatchType})
	}
	cidrChange := cause(causeForbidden, "spec.podCIDRs", `Forbidden: node updates may not change podCIDR except from "" to valid`)
	r = patch(object{"metadata": object{"labels": object{"bad key!": "v"}}, "spec": object{"podCIDRs": []any{"10.9.0.0/24"}, "podCIDR": "10.9.0.0/24",
		"providerID": "p2", "externalID": "f", "taints": []any{object{"key": "x", "effect": "Bogus"}}}})
	checkStatus(t, "change what a node keeps", r, invalid("Node", "", name,
		invalidValue("metadata.labels", "bad key!", validation.IsQualifiedName("bad key!")[0]),
		notSupported("metadata.taints[0].effect", "Bogus", `supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"`),
		cidrChange,
		cause(metav1.CauseTypeFieldValueInvalid, "spec.providerID", "Invalid value: null: field cannot be modified once set"),
		cause(causeForbidden, "spec.externalID", "Forbidden: may not be updated")))
	r = patch(object{"spec": object{"providerID": nil, "podCIDRs": nil, "podCIDR": nil}})
	checkStatus(t, "clear what a node keeps", r, invalid("Node", "", name,
		cidrChange, cause(metav1.CauseTypeFieldValueInvalid, "spec.providerID", "Invalid value: null: field cannot be cleared once set")))
	checkStatus(t, "add an IPv6 pod CIDR", patch(object{"spec": object{"podCIDRs": []any{"10.0.0.0/24", "fd00::/64"}}}), invalid("Node", "", name, cidrChange))

	// Both pod CIDRs of a dual-stack node changed: two identical causes, one reported.
	create(name+"-c", object{"podCIDRs": []any{"10.0.0.0/24", "fd00::/64"}}, nil).mustCode(t, http.StatusCreated, "create dual-stack node")
	r = e.c.do(ctx, t, request{Method: http.MethodPatch, Path: path + "-c", ContentType: mergePatchType,
		Body: object{"spec": object{"podCIDR": "10.1.0.0/24", "podCIDRs": []any{"10.1.0.0/24", "fd01::/64"}}}})
	checkStatus(t, "change both pod CIDRs", r, invalid("Node", "", name+"-c", cidrChange))

	create(name+"-b", nil, nil).mustCode(t, http.StatusCreated, "create node without pod CIDRs")
	r = e.c.do(ctx, t, request{Method: http.MethodPatch, Path: path + "-b", Body: object{"spec": object{"podCIDR": "10.5.0.0/24"}}, ContentType: mergePatchType})
	r.mustCode(t, http.StatusOK, "set the legacy podCIDR")
	var got object
	r.decode(t, &got)
	if diff := cmp.Diff([]any{"10.5.0.0/24", []any{"10.5.0.0/24"}}, []any{at(got, "spec", "podCIDR"), at(got, "spec", "podCIDRs")}); diff != "" {
		t.Errorf("podCIDR and podCIDRs after setting podCIDR (-want +got):\n%s", diff)
	}
}
