package conformance

// Cases for dryRun=All: every step of a write runs, nothing is stored.

import (
	"context"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// dryrunCases are the cases of this file, in the order [Cases] runs them.
func dryrunCases() []Case {
	return []Case{
		{Name: "DryRunCreate", Run: runDryRunCreate},
		{Name: "DryRunUpdatePatch", Run: runDryRunUpdatePatch},
		{Name: "DryRunDelete", Run: runDryRunDelete},
		{Name: "DryRunDeletePod", Run: runDryRunDeletePod},
		{Name: "DryRunInvalidValue", Run: runDryRunInvalidValue},
		{Name: "DryRunCreateWorkload", Run: runDryRunCreateWorkload},
		{Name: "DryRunSubresources", Run: runDryRunSubresources},
	}
}

// dryRun is the query of a dry run.
func dryRun() map[string][]string { return q("dryRun", "All") }

// runDryRunCreate: a dry-run create is 201 with uid and creationTimestamp
// but no resourceVersion, and stores nothing; a taken name is still 409
// and an invalid one 422.
func runDryRunCreate(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	r := e.c.do(ctx, t, request{Method: http.MethodPost, Path: e.cms(), Query: dryRun(), Body: cm("a", nil, "v")})
	r.mustCode(t, http.StatusCreated, "dry-run create")
	var o object
	r.decode(t, &o)
	md := metaOf(o)
	if _, ok := md["resourceVersion"]; ok || md["uid"] == nil || md["creationTimestamp"] == nil {
		t.Errorf("dry-run create metadata = %v, want uid and creationTimestamp, no resourceVersion", md)
	}
	checkStatus(t, "get after a dry-run create", e.c.do(ctx, t, request{Path: e.cms() + "/a"}), notFound("a"))
	e.createN(ctx, "b")
	r = e.c.do(ctx, t, request{Method: http.MethodPost, Path: e.cms(), Query: dryRun(), Body: cm("b", nil, "v")})
	checkStatus(t, "dry-run create of a taken name", r, wantStatus(http.StatusConflict, metav1.StatusReasonAlreadyExists,
		`configmaps "b" already exists`, &metav1.StatusDetails{Name: "b", Kind: "configmaps"}))
	r = e.c.do(ctx, t, request{Method: http.MethodPost, Path: e.pods(), Query: dryRun(), Body: pod("p", "")})
	checkStatus(t, "dry-run create of an invalid pod", r, invalid("Pod", "", "p", cause(metav1.CauseTypeFieldValueRequired, "spec.containers", "Required value")))
}

// runDryRunUpdatePatch: dry-run PUT and PATCH answer the new object at
// the current resourceVersion and change nothing.
func runDryRunUpdatePatch(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	orig := e.create(ctx, "a", nil)
	r := e.c.do(ctx, t, request{Method: http.MethodPut, Path: e.cms() + "/a", Query: dryRun(), Body: cm("a", nil, "w")})
	r.mustCode(t, http.StatusOK, "dry-run update")
	var o object
	r.decode(t, &o)
	if o["data"].(map[string]any)["k"] != "w" || rvOf(t, o) != rvOf(t, orig) {
		t.Errorf("dry-run update = %s, want data w at rv %d", r.Body, rvOf(t, orig))
	}
	r = e.c.do(ctx, t, request{Method: http.MethodPatch, Path: e.cms() + "/a", Query: dryRun(), Body: object{"data": object{"k": "p"}}, ContentType: "application/merge-patch+json"})
	r.mustCode(t, http.StatusOK, "dry-run patch")
	r.decode(t, &o)
	if o["data"].(map[string]any)["k"] != "p" || rvOf(t, o) != rvOf(t, orig) {
		t.Errorf("dry-run patch = %s, want data p at rv %d", r.Body, rvOf(t, orig))
	}
	r = e.c.do(ctx, t, request{Path: e.cms() + "/a"})
	r.decode(t, &o)
	if diff := cmp.Diff(orig, o); diff != "" {
		t.Errorf("configmap after dry runs changed (-before +after):\n%s", diff)
	}
}

// runDryRunDelete: a dry-run delete answers as a delete would (a Success
// Status for a ConfigMap) and the object stays; so does deletecollection.
func runDryRunDelete(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	orig := e.create(ctx, "a", nil)
	r := e.c.do(ctx, t, request{Method: http.MethodDelete, Path: e.cms() + "/a", Query: dryRun()})
	r.mustCode(t, http.StatusOK, "dry-run delete")
	st := r.status(t)
	if st.Status != metav1.StatusSuccess || st.Details == nil || st.Details.Name != "a" || st.Details.Kind != "configmaps" {
		t.Errorf("dry-run delete = %s, want a Success Status naming configmaps a", r.Body)
	}
	r = e.c.do(ctx, t, request{Method: http.MethodDelete, Path: e.cms(), Query: dryRun()})
	r.mustCode(t, http.StatusOK, "dry-run deletecollection")
	l := e.list(ctx)
	if len(l.Items) != 1 || rvOf(t, l.Items[0]) != rvOf(t, orig) {
		t.Errorf("configmaps after dry-run deletes = %v, want a unchanged", l.names())
	}
}

// runDryRunDeletePod: a dry-run delete of a scheduled pod answers the pod
// marked for deletion (grace 30, generation 2) at its current
// resourceVersion; the pod stays as it was.
func runDryRunDeletePod(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	orig := e.createPod(ctx, pod("p", "node-a", object{"name": "c", "image": "busybox"}))
	r := e.c.do(ctx, t, request{Method: http.MethodDelete, Path: e.pods() + "/p", Query: dryRun()})
	r.mustCode(t, http.StatusOK, "dry-run delete pod")
	var d object
	r.decode(t, &d)
	md := metaOf(d)
	if d["kind"] != "Pod" || md["deletionTimestamp"] == nil || md["deletionGracePeriodSeconds"] != float64(30) ||
		md["generation"] != float64(2) || rvOf(t, d) != rvOf(t, orig) {
		t.Errorf("dry-run delete pod = %s, want the pod marked with grace 30, generation 2, at rv %d", r.Body, rvOf(t, orig))
	}
	r = e.c.do(ctx, t, request{Path: e.pods() + "/p"})
	var o object
	r.decode(t, &o)
	if diff := cmp.Diff(orig, o); diff != "" {
		t.Errorf("pod after the dry-run delete changed (-before +after):\n%s", diff)
	}
}

// runDryRunInvalidValue: dryRun must be All: 422 on the verb's options.
func runDryRunInvalidValue(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	e.createN(ctx, "a")
	foo := cause(metav1.CauseTypeFieldValueNotSupported, "dryRun", `Unsupported value: ["Foo"]: supported values: "All"`)
	options := func(kind string) statusShape {
		return wantStatus(http.StatusUnprocessableEntity, metav1.StatusReasonInvalid, kind+`.meta.k8s.io "" is invalid: dryRun: `+foo.Message,
			&metav1.StatusDetails{Group: "meta.k8s.io", Kind: kind, Causes: []metav1.StatusCause{foo}})
	}
	r := e.c.do(ctx, t, request{Method: http.MethodPost, Path: e.cms(), Query: q("dryRun", "Foo"), Body: cm("b", nil, "v")})
	checkStatus(t, "create dryRun=Foo", r, options("CreateOptions"))
	r = e.c.do(ctx, t, request{Method: http.MethodDelete, Path: e.cms() + "/a", Query: q("dryRun", "Foo")})
	checkStatus(t, "delete dryRun=Foo", r, options("DeleteOptions"))
}

// runDryRunCreateWorkload: a dry-run create of a Deployment carries
// generation 1, a uid and no resourceVersion, and stores nothing.
func runDryRunCreateWorkload(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	r := e.c.do(ctx, t, request{Method: http.MethodPost, Path: e.deployments(), Query: dryRun(), Body: deployment("web", 1)})
	r.mustCode(t, http.StatusCreated, "dry-run create deployment")
	var o object
	r.decode(t, &o)
	md := metaOf(o)
	if _, ok := md["resourceVersion"]; ok || md["uid"] == nil || md["generation"] != float64(1) {
		t.Errorf("dry-run create metadata = %v, want uid, generation 1, no resourceVersion", md)
	}
	checkStatus(t, "get after a dry-run create", e.c.do(ctx, t, request{Path: e.deployments() + "/web"}),
		wantStatus(http.StatusNotFound, metav1.StatusReasonNotFound, `deployments.apps "web" not found`, &metav1.StatusDetails{Name: "web", Group: "apps", Kind: "deployments"}))
}

// runDryRunSubresources: dry-run writes through pods/status,
// deployments/scale and pods/binding answer at the current
// resourceVersion (the binding with its Success Status) and change
// nothing.
func runDryRunSubresources(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	p := e.createPod(ctx, pod("p", "", object{"name": "c", "image": "busybox"}))
	p["status"] = object{"phase": "Running"}
	r := e.c.do(ctx, t, request{Method: http.MethodPut, Path: e.pods() + "/p/status", Query: dryRun(), Body: p})
	r.mustCode(t, http.StatusOK, "dry-run put status")
	var o object
	r.decode(t, &o)
	if o["status"].(map[string]any)["phase"] != "Running" || rvOf(t, o) != rvOf(t, p) {
		t.Errorf("dry-run put status = %s, want phase Running at rv %d", r.Body, rvOf(t, p))
	}
	r = e.c.do(ctx, t, request{Method: http.MethodPost, Path: e.pods() + "/p/binding", Query: dryRun(), Body: object{
		"apiVersion": "v1", "kind": "Binding", "metadata": object{"name": "p"}, "target": object{"name": "node-a"}}})
	r.mustCode(t, http.StatusCreated, "dry-run binding")
	e.c.do(ctx, t, request{Path: e.pods() + "/p"}).decode(t, &o)
	if rvOf(t, o) != rvOf(t, p) || o["spec"].(map[string]any)["nodeName"] != nil {
		t.Errorf("pod after dry runs = rv %d nodeName %v, want untouched at rv %d", rvOf(t, o), o["spec"].(map[string]any)["nodeName"], rvOf(t, p))
	}

	r = e.c.do(ctx, t, request{Method: http.MethodPost, Path: e.deployments(), Body: deployment("web", 1)})
	r.mustCode(t, http.StatusCreated, "create deployment")
	var d object
	r.decode(t, &d)
	r = e.c.do(ctx, t, request{Method: http.MethodPatch, Path: e.deployments() + "/web/scale", Query: dryRun(),
		Body: object{"spec": object{"replicas": 4}}, ContentType: "application/merge-patch+json"})
	r.mustCode(t, http.StatusOK, "dry-run patch scale")
	r.decode(t, &o)
	if o["spec"].(map[string]any)["replicas"] != float64(4) || rvOf(t, o) != rvOf(t, d) {
		t.Errorf("dry-run patch scale = %s, want 4 replicas at rv %d", r.Body, rvOf(t, d))
	}
	e.c.do(ctx, t, request{Path: e.deployments() + "/web"}).decode(t, &o)
	if o["spec"].(map[string]any)["replicas"] != float64(1) || rvOf(t, o) != rvOf(t, d) {
		t.Errorf("deployment after a dry-run scale = %v at rv %d, want 1 replica at rv %d", o["spec"].(map[string]any)["replicas"], rvOf(t, o), rvOf(t, d))
	}
}
