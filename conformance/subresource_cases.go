package conformance

// Cases for the scale, eviction and binding subresources.

import (
	"bytes"
	"context"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// subresourceCases are the cases of this file, in the order [Cases] runs them.
func subresourceCases() []Case {
	return []Case{
		{Name: "ScaleGet", Run: runScaleGet},
		{Name: "ScaleUpdate", Run: runScaleUpdate},
		{Name: "Eviction", Run: runEviction},
		{Name: "Binding", Run: runBinding},
		{Name: "SubresourceDiscovery", Run: runSubresourceDiscovery},
		{Name: "ScaleMisc", Run: runScaleMisc},
		{Name: "SubresourceErrors", Run: runSubresourceErrors},
	}
}

// runScaleGet: GET deployments/NAME/scale is the autoscaling/v1 Scale of
// the Deployment: its identity and resourceVersion, spec.replicas, and
// the selector as a string.
func runScaleGet(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	r := e.c.do(ctx, t, request{Method: http.MethodPost, Path: e.deployments(), Body: deployment("web", 2)})
	r.mustCode(t, http.StatusCreated, "create deployment")
	var d object
	r.decode(t, &d)
	r = e.c.do(ctx, t, request{Path: e.deployments() + "/web/scale"})
	r.mustCode(t, http.StatusOK, "get scale")
	var got object
	r.decode(t, &got)
	md := metaOf(d)
	want := object{
		"kind": "Scale", "apiVersion": "autoscaling/v1",
		"metadata": map[string]any{"name": "web", "namespace": e.ns, "uid": md["uid"], "resourceVersion": md["resourceVersion"], "creationTimestamp": md["creationTimestamp"]},
		"spec":     map[string]any{"replicas": float64(2)},
		"status":   map[string]any{"replicas": float64(0), "selector": "app=web"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("scale (-want +got):\n%s", diff)
	}
	checkStatus(t, "scale of a missing deployment", e.c.do(ctx, t, request{Path: e.deployments() + "/nope/scale"}),
		wantStatus(http.StatusNotFound, metav1.StatusReasonNotFound, `deployments.apps "nope" not found`,
			&metav1.StatusDetails{Name: "nope", Group: "apps", Kind: "deployments"}))
}

// runScaleUpdate: PUT and PATCH of the scale change the Deployment's
// spec.replicas (a MODIFIED event, generation bumped) with the
// Deployment's resourceVersion precondition, and answer the new Scale.
func runScaleUpdate(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	r := e.c.do(ctx, t, request{Method: http.MethodPost, Path: e.deployments(), Body: deployment("web", 1)})
	r.mustCode(t, http.StatusCreated, "create deployment")
	var d object
	r.decode(t, &d)
	w := e.c.watch(ctx, t, request{Path: e.deployments(), Query: q("resourceVersion", itoa(rvOf(t, d)))})
	scale := func(replicas int, rv string) object {
		md := object{"name": "web", "namespace": e.ns}
		if rv != "" {
			md["resourceVersion"] = rv
		}
		return object{"apiVersion": "autoscaling/v1", "kind": "Scale", "metadata": md, "spec": object{"replicas": replicas}}
	}
	r = e.c.do(ctx, t, request{Method: http.MethodPut, Path: e.deployments() + "/web/scale", Body: scale(3, itoa(rvOf(t, d)))})
	r.mustCode(t, http.StatusOK, "put scale")
	var s object
	r.decode(t, &s)
	if s["kind"] != "Scale" || s["spec"].(map[string]any)["replicas"] != float64(3) || rvOf(t, s) <= rvOf(t, d) {
		t.Errorf("put scale = %s, want a Scale of 3 at a new rv", r.Body)
	}
	ev := w.mustNext(ctx, "event of the scale")
	spec, _ := ev.Object["spec"].(map[string]any)
	if ev.Type != "MODIFIED" || spec["replicas"] != float64(3) || rvOf(t, ev.Object) != rvOf(t, s) || metaOf(ev.Object)["generation"] != float64(2) {
		t.Errorf("event = %s replicas %v rv %d generation %v, want MODIFIED 3 at rv %d, generation 2", ev.Type, spec["replicas"], rvOf(t, ev.Object), metaOf(ev.Object)["generation"], rvOf(t, s))
	}
	r = e.c.do(ctx, t, request{Method: http.MethodPut, Path: e.deployments() + "/web/scale", Body: scale(4, itoa(rvOf(t, d)))})
	checkStatus(t, "put scale at a stale rv", r, wantStatus(http.StatusConflict, metav1.StatusReasonConflict,
		`Operation cannot be fulfilled on deployments.apps "web": the object has been modified; please apply your changes to the latest version and try again`,
		&metav1.StatusDetails{Name: "web", Group: "apps", Kind: "deployments"}))
	r = e.c.do(ctx, t, request{Method: http.MethodPatch, Path: e.deployments() + "/web/scale", Body: object{"spec": object{"replicas": 5}}, ContentType: "application/merge-patch+json"})
	r.mustCode(t, http.StatusOK, "patch scale")
	r.decode(t, &s)
	if s["spec"].(map[string]any)["replicas"] != float64(5) {
		t.Errorf("patch scale = %s, want 5 replicas", r.Body)
	}
	r = e.c.do(ctx, t, request{Method: http.MethodPut, Path: e.deployments() + "/web/scale", Body: scale(-1, "")})
	checkStatus(t, "scale to -1", r, invalid("Scale", "autoscaling", "web",
		cause(metav1.CauseTypeFieldValueInvalid, "spec.replicas", "Invalid value: -1: must be greater than or equal to 0")))
}

// runEviction: POST pods/NAME/eviction is 201 with a Success Status; a
// scheduled pod is then marked for deletion (grace 30) with the
// DisruptionTarget condition, an unscheduled one is gone.
func runEviction(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	e.createPod(ctx, pod("bound", "node-a", object{"name": "c", "image": "busybox"}))
	e.createPod(ctx, pod("pending", "", object{"name": "c", "image": "busybox"}))
	evict := func(name string, query ...string) response {
		return e.c.do(ctx, t, request{Method: http.MethodPost, Path: e.pods() + "/" + name + "/eviction", Query: q(query...), Body: object{
			"apiVersion": "policy/v1", "kind": "Eviction", "metadata": object{"name": name, "namespace": e.ns}}})
	}
	wantCreated := func(what string, r response) {
		t.Helper()
		if r.Code != http.StatusCreated {
			t.Errorf("%s: %d %s, want 201", what, r.Code, r.Body)
			return
		}
		var st object
		r.decode(t, &st)
		if diff := cmp.Diff(object{"kind": "Status", "apiVersion": "v1", "metadata": map[string]any{}, "status": "Success", "code": float64(201)}, st); diff != "" {
			t.Errorf("%s (-want +got):\n%s", what, diff)
		}
	}
	wantCreated("dry-run eviction", evict("bound", "dryRun", "All"))
	var o object
	e.c.do(ctx, t, request{Path: e.pods() + "/bound"}).decode(t, &o)
	if metaOf(o)["deletionTimestamp"] != nil {
		t.Errorf("pod after a dry-run eviction = %v, want not deleting", metaOf(o))
	}
	wantCreated("eviction of a scheduled pod", evict("bound"))
	e.c.do(ctx, t, request{Path: e.pods() + "/bound"}).decode(t, &o)
	st, _ := o["status"].(map[string]any)
	conds, _ := st["conditions"].([]any)
	var cond map[string]any
	if len(conds) == 1 {
		cond, _ = conds[0].(map[string]any)
	}
	if metaOf(o)["deletionGracePeriodSeconds"] != float64(30) || cond["type"] != "DisruptionTarget" || cond["status"] != "True" ||
		cond["reason"] != "EvictionByEvictionAPI" || cond["message"] != "Eviction API: evicting" {
		t.Errorf("evicted pod = metadata %v conditions %v, want deleting with grace 30 and DisruptionTarget", metaOf(o), conds)
	}
	wantCreated("eviction of a pending pod", evict("pending"))
	checkStatus(t, "get the evicted pending pod", e.c.do(ctx, t, request{Path: e.pods() + "/pending"}),
		wantStatus(http.StatusNotFound, metav1.StatusReasonNotFound, `pods "pending" not found`, &metav1.StatusDetails{Name: "pending", Kind: "pods"}))
	checkStatus(t, "eviction of a missing pod", evict("nope"),
		wantStatus(http.StatusNotFound, metav1.StatusReasonNotFound, `pods "nope" not found`, &metav1.StatusDetails{Name: "nope", Kind: "pods"}))
	r := e.c.do(ctx, t, request{Method: http.MethodPost, Path: e.pods() + "/bound/eviction", Body: object{
		"apiVersion": "policy/v1", "kind": "Eviction", "metadata": object{"name": "other"}}})
	checkStatus(t, "eviction naming another pod", r, badRequest("name in URL does not match name in Eviction object"))
}

// runBinding: POST pods/NAME/binding is 201 with a Success Status and
// binds the pod (spec.nodeName, PodScheduled); binding it again is 409.
func runBinding(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	orig := e.createPod(ctx, pod("p", "", object{"name": "c", "image": "busybox"}))
	bind := func(node string) response {
		return e.c.do(ctx, t, request{Method: http.MethodPost, Path: e.pods() + "/p/binding", Body: object{
			"apiVersion": "v1", "kind": "Binding", "metadata": object{"name": "p"}, "target": object{"kind": "Node", "name": node}}})
	}
	r := bind("node-a")
	if r.Code != http.StatusCreated {
		t.Fatalf("binding: %d %s, want 201", r.Code, r.Body)
	}
	var o object
	e.c.do(ctx, t, request{Path: e.pods() + "/p"}).decode(t, &o)
	spec, _ := o["spec"].(map[string]any)
	st, _ := o["status"].(map[string]any)
	conds, _ := st["conditions"].([]any)
	var cond map[string]any
	if len(conds) == 1 {
		cond, _ = conds[0].(map[string]any)
	}
	if spec["nodeName"] != "node-a" || cond["type"] != "PodScheduled" || cond["status"] != "True" || metaOf(o)["generation"] != metaOf(orig)["generation"] {
		t.Errorf("bound pod = nodeName %v conditions %v generation %v, want node-a, PodScheduled, generation unchanged", spec["nodeName"], conds, metaOf(o)["generation"])
	}
	checkStatus(t, "bind a bound pod", bind("node-b"), wantStatus(http.StatusConflict, metav1.StatusReasonConflict,
		`Operation cannot be fulfilled on pods/binding "p": pod p is already assigned to node "node-a"`,
		&metav1.StatusDetails{Name: "p", Kind: "pods/binding"}))
	checkStatus(t, "binding without a target", e.c.do(ctx, t, request{Method: http.MethodPost, Path: e.pods() + "/p/binding", Body: object{
		"apiVersion": "v1", "kind": "Binding", "metadata": object{"name": "p"}}}),
		wantStatus(http.StatusInternalServerError, "", "target.name: Required value", nil))
}

// runSubresourceDiscovery: legacy discovery lists deployments/scale,
// pods/eviction and pods/binding as kube-apiserver does.
func runSubresourceDiscovery(ctx context.Context, t *testing.T, target Target) {
	c := newClient(t, target)
	find := func(path, name string) *metav1.APIResource {
		var l metav1.APIResourceList
		r := c.do(ctx, t, request{Path: path})
		r.mustCode(t, http.StatusOK, "discovery "+path)
		r.decode(t, &l)
		for i := range l.APIResources {
			if l.APIResources[i].Name == name {
				return &l.APIResources[i]
			}
		}
		return nil
	}
	scaleVerbs := metav1.Verbs{"get", "patch", "update"}
	for _, tc := range []struct {
		path string
		want metav1.APIResource
	}{
		{"/apis/apps/v1", metav1.APIResource{Name: "deployments/scale", Namespaced: true, Group: "autoscaling", Version: "v1", Kind: "Scale", Verbs: scaleVerbs}},
		{"/apis/apps/v1", metav1.APIResource{Name: "replicasets/scale", Namespaced: true, Group: "autoscaling", Version: "v1", Kind: "Scale", Verbs: scaleVerbs}},
		{"/apis/apps/v1", metav1.APIResource{Name: "statefulsets/scale", Namespaced: true, Group: "autoscaling", Version: "v1", Kind: "Scale", Verbs: scaleVerbs}},
		{"/api/v1", metav1.APIResource{Name: "replicationcontrollers/scale", Namespaced: true, Group: "autoscaling", Version: "v1", Kind: "Scale", Verbs: scaleVerbs}},
		{"/api/v1", metav1.APIResource{Name: "pods/eviction", Namespaced: true, Group: "policy", Version: "v1", Kind: "Eviction", Verbs: metav1.Verbs{"create"}}},
		{"/api/v1", metav1.APIResource{Name: "pods/binding", Namespaced: true, Kind: "Binding", Verbs: metav1.Verbs{"create"}}},
	} {
		got := find(tc.path, tc.want.Name)
		if got == nil {
			t.Errorf("%s does not list %s", tc.path, tc.want.Name)
			continue
		}
		if diff := cmp.Diff(tc.want, *got); diff != "" {
			t.Errorf("%s %s (-want +got):\n%s", tc.path, tc.want.Name, diff)
		}
	}
}

// runScaleMisc: the scale of a Deployment created without replicas reads
// the default, 1; a Scale with another uid is 409; ReplicationControllers
// have a scale whose selector is their label map.
func runScaleMisc(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	body := deployment("web", 1)
	delete(body["spec"].(object), "replicas")
	e.c.do(ctx, t, request{Method: http.MethodPost, Path: e.deployments(), Body: body}).mustCode(t, http.StatusCreated, "create deployment")
	var s object
	e.c.do(ctx, t, request{Path: e.deployments() + "/web/scale"}).decode(t, &s)
	if s["spec"].(map[string]any)["replicas"] != float64(1) {
		t.Errorf("scale of a deployment without replicas = %v, want 1", s["spec"])
	}
	r := e.c.do(ctx, t, request{Method: http.MethodPut, Path: e.deployments() + "/web/scale", Body: object{"apiVersion": "autoscaling/v1", "kind": "Scale",
		"metadata": object{"name": "web", "uid": "00000000-0000-0000-0000-000000000000"}, "spec": object{"replicas": 2}}})
	uid, _ := metaOf(s)["uid"].(string)
	const other = "00000000-0000-0000-0000-000000000000"
	checkStatus(t, "put scale with another uid", registryKeys(r), wantStatus(http.StatusConflict, metav1.StatusReasonConflict,
		`Operation cannot be fulfilled on deployments.apps "web": StorageError: invalid object, Code: 4, Key: /registry/deployments/`+e.ns+
			`/web, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: UID in precondition: `+other+`, UID in object meta: `+uid,
		&metav1.StatusDetails{Name: "web", Group: "apps", Kind: "deployments"}))
	r = e.c.do(ctx, t, request{Method: http.MethodPatch, Path: e.deployments() + "/web/scale", Body: object{"metadata": object{"uid": other}},
		ContentType: "application/merge-patch+json"})
	checkStatus(t, "patch scale with another uid", r, wantStatus(http.StatusConflict, metav1.StatusReasonConflict,
		`Operation cannot be fulfilled on deployments/scale.apps "web": Precondition failed: UID in precondition: `+other+`, UID in object meta: `+uid,
		&metav1.StatusDetails{Name: "web", Group: "apps", Kind: "deployments/scale"}))

	rc := object{"apiVersion": "v1", "kind": "ReplicationController", "metadata": object{"name": "rc"}, "spec": object{"replicas": 2,
		"selector": object{"app": "rc", "tier": "x"}, "template": object{"metadata": object{"labels": object{"app": "rc", "tier": "x"}},
			"spec": object{"containers": []any{object{"name": "c", "image": "busybox"}}}}}}
	e.c.do(ctx, t, request{Method: http.MethodPost, Path: nsPath(e.ns, "replicationcontrollers"), Body: rc}).mustCode(t, http.StatusCreated, "create rc")
	e.c.do(ctx, t, request{Path: nsPath(e.ns, "replicationcontrollers") + "/rc/scale"}).decode(t, &s)
	if diff := cmp.Diff(map[string]any{"replicas": float64(2)}, s["spec"]); diff != "" {
		t.Errorf("rc scale spec (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]any{"replicas": float64(0), "selector": "app=rc,tier=x"}, s["status"]); diff != "" {
		t.Errorf("rc scale status (-want +got):\n%s", diff)
	}
}

// runSubresourceErrors: a Binding with another uid is 409 quoting the
// storage precondition error; an Eviction whose deleteOptions.dryRun
// disagrees with the request's is a 500.
func runSubresourceErrors(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	p := e.createPod(ctx, pod("p", "", object{"name": "c", "image": "busybox"}))
	r := e.c.do(ctx, t, request{Method: http.MethodPost, Path: e.pods() + "/p/binding", Body: object{"apiVersion": "v1", "kind": "Binding",
		"metadata": object{"name": "p", "uid": "00000000-0000-0000-0000-000000000000"}, "target": object{"name": "node-a"}}})
	checkStatus(t, "binding with another uid", registryKeys(r), wantStatus(http.StatusConflict, metav1.StatusReasonConflict,
		`Operation cannot be fulfilled on pods "p": StorageError: invalid object, Code: 4, Key: /registry/pods/`+e.ns+`/p, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: UID in precondition: 00000000-0000-0000-0000-000000000000, UID in object meta: `+metaOf(p)["uid"].(string),
		&metav1.StatusDetails{Name: "p", Kind: "pods"}))
	r = e.c.do(ctx, t, request{Method: http.MethodPost, Path: e.pods() + "/p/eviction", Query: q("dryRun", "All"), Body: object{
		"apiVersion": "policy/v1", "kind": "Eviction", "metadata": object{"name": "p"}, "deleteOptions": object{"dryRun": []string{}}}})
	if r.Code != http.StatusCreated {
		t.Errorf("eviction with an empty deleteOptions.dryRun: %d %s, want 201 (the request's dryRun applies)", r.Code, r.Body)
	}
}

// registryKeys rewrites the etcd keys a StorageError quotes to
// kube-apiserver's default prefix, /registry: the real server of
// tools/realapiserver stores under /lwsim/registry.
func registryKeys(r response) response {
	r.Body = bytes.ReplaceAll(r.Body, []byte("Key: /lwsim/registry/"), []byte("Key: /registry/"))
	return r
}
