package conformance

import (
	"context"
	"net/http"
	"regexp"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// writeCases are the cases of this file, in the order [Cases] runs them.
func writeCases() []Case {
	return []Case{
		{Name: "CreateSetsMetadata", Run: runCreateSetsMetadata},
		{Name: "CreateAlreadyExists", Run: runCreateAlreadyExists},
		{Name: "CreateWithRVSet", Run: runCreateWithRVSet},
		{Name: "CreateNamespaceMismatch", Run: runCreateNamespaceMismatch},
		{Name: "CreateInMissingNamespace", Run: runCreateInMissingNamespace},
		{Name: "CreateGenerateName", Run: runCreateGenerateName},
		{Name: "CreateInvalidName", Run: runCreateInvalidName},
		{Name: "UpdateConflict", Run: runUpdateConflict},
		{Name: "UpdateWithCurrentRV", Run: runUpdateWithCurrentRV},
		{Name: "UpdateUnconditional", Run: runUpdateUnconditional},
		{Name: "UpdateNotFound", Run: runUpdateNotFound},
		{Name: "UpdateNameMismatch", Run: runUpdateNameMismatch},
		{Name: "UpdateNoOpKeepsRV", Run: runUpdateNoOpKeepsRV},
		{Name: "PatchConflict", Run: runPatchConflict},
		{Name: "PatchNotFound", Run: runPatchNotFound},
		{Name: "PatchMerge", Run: runPatchMerge},
		{Name: "GetNotFound", Run: runGetNotFound},
		{Name: "GetRV0", Run: runGetRV0},
		{Name: "DeleteReturnsStatus", Run: runDeleteReturnsStatus},
		{Name: "DeleteNotFound", Run: runDeleteNotFound},
		{Name: "DeletePreconditionRV", Run: runDeletePreconditionRV},
		{Name: "DeletePreconditionUID", Run: runDeletePreconditionUID},
		{Name: "DeleteWithFinalizer", Run: runDeleteWithFinalizer},
		{Name: "RVGlobalAcrossNamespaces", Run: runRVGlobalAcrossNamespaces},
	}
}

// uuidRE matches a UUID as metadata.uid carries it.
var uuidRE = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

// runCreateSetsMetadata: POST is 201 with uid, creationTimestamp (RFC 3339
// seconds, UTC) and an RV above the list RV before it
// (registry/generic/registry/store.go Create).
func runCreateSetsMetadata(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	before := e.currentRV(ctx)
	o := e.create(ctx, "a", nil)
	md := metaOf(o)
	if uid, _ := md["uid"].(string); !uuidRE.MatchString(uid) {
		t.Errorf("uid = %q, want a UUID", uid)
	}
	ts, _ := md["creationTimestamp"].(string)
	if _, err := time.Parse("2006-01-02T15:04:05Z", ts); err != nil {
		t.Errorf("creationTimestamp = %q: %v", ts, err)
	}
	if rv := rvOf(t, o); rv <= before {
		t.Errorf("rv = %d, want > %d", rv, before)
	}
	if o["kind"] != "ConfigMap" || o["apiVersion"] != "v1" {
		t.Errorf("kind/apiVersion = %v/%v", o["kind"], o["apiVersion"])
	}
	if _, ok := md["generation"]; ok {
		t.Errorf("configmap has generation %v; ConfigMaps have none", md["generation"])
	}
}

// runCreateAlreadyExists: a duplicate name is 409 AlreadyExists
// (registry/generic/registry/store.go Create).
func runCreateAlreadyExists(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	e.createN(ctx, "a")
	r := e.c.do(ctx, t, request{Method: http.MethodPost, Path: e.cms(), Body: cm("a", nil, "v")})
	checkStatus(t, "create duplicate", r, wantStatus(http.StatusConflict, metav1.StatusReasonAlreadyExists,
		`configmaps "a" already exists`, &metav1.StatusDetails{Name: "a", Kind: "configmaps"}))
}

// runCreateWithRVSet: a create body with metadata.resourceVersion is 500
// with no reason (registry/generic/registry/store.go Create).
func runCreateWithRVSet(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	body := cm("a", nil, "v")
	body["metadata"].(object)["resourceVersion"] = "5"
	r := e.c.do(ctx, t, request{Method: http.MethodPost, Path: e.cms(), Body: body})
	checkStatus(t, "create with rv", r, wantStatus(http.StatusInternalServerError, "", "resourceVersion should not be set on objects to be created", nil))
}

// runCreateNamespaceMismatch: a body namespace other than the URL's (400).
func runCreateNamespaceMismatch(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	body := cm("a", nil, "v")
	body["metadata"].(object)["namespace"] = "elsewhere"
	r := e.c.do(ctx, t, request{Method: http.MethodPost, Path: e.cms(), Body: body})
	checkStatus(t, "create in another namespace", r, badRequest("the namespace of the provided object does not match the namespace sent on the request"))
}

// runCreateInMissingNamespace: 404 for the namespace
// (admission/plugin/namespace/lifecycle/admission.go).
func runCreateInMissingNamespace(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	ns := e.ns + "-missing"
	r := e.c.do(ctx, t, request{Method: http.MethodPost, Path: nsPath(ns, "configmaps"), Body: cm("a", nil, "v")})
	checkStatus(t, "create in a missing namespace", r, wantStatus(http.StatusNotFound, metav1.StatusReasonNotFound,
		`namespaces "`+ns+`" not found`, &metav1.StatusDetails{Name: ns, Kind: "namespaces"}))
}

// runCreateGenerateName: generateName gets 5 characters from
// bcdfghjklmnpqrstvwxz2456789 and is kept (storage/names/generate.go).
func runCreateGenerateName(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	body := cm("", nil, "v")
	body["metadata"] = object{"generateName": "gen-"}
	r := e.c.do(ctx, t, request{Method: http.MethodPost, Path: e.cms(), Body: body})
	r.mustCode(t, http.StatusCreated, "create with generateName")
	var o object
	r.decode(t, &o)
	if name := nameOf(o); !regexp.MustCompile(`^gen-[bcdfghjklmnpqrstvwxz2456789]{5}$`).MatchString(name) {
		t.Errorf("name = %q, want gen- and 5 generated characters", name)
	}
	if g := metaOf(o)["generateName"]; g != "gen-" {
		t.Errorf("generateName = %v, want kept", g)
	}
}

// runCreateInvalidName: 422 Invalid with the Kind in details (apimachinery
// api/errors/errors.go NewInvalid).
func runCreateInvalidName(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	r := e.c.do(ctx, t, request{Method: http.MethodPost, Path: e.cms(), Body: cm("Bad_Name", nil, "v")})
	detail := `Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`
	checkStatus(t, "create Bad_Name", r, wantStatus(http.StatusUnprocessableEntity, metav1.StatusReasonInvalid,
		`ConfigMap "Bad_Name" is invalid: metadata.name: `+detail,
		&metav1.StatusDetails{Name: "Bad_Name", Kind: "ConfigMap", Causes: []metav1.StatusCause{{Type: "FieldValueInvalid", Message: detail, Field: "metadata.name"}}}))
}

// runUpdateConflict: PUT with a stale RV is 409 Conflict
// (registry/generic/registry/store.go Update).
func runUpdateConflict(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	rvs := e.createN(ctx, "a")
	e.update(ctx, "a", "v2", nil)
	body := cm("a", nil, "v3")
	body["metadata"].(object)["resourceVersion"] = itoa(rvs[0])
	r := e.c.do(ctx, t, request{Method: http.MethodPut, Path: e.cms() + "/a", Body: body})
	checkStatus(t, "stale update", r, conflict("a"))
}

func conflict(name string) statusShape {
	return wantStatus(http.StatusConflict, metav1.StatusReasonConflict,
		`Operation cannot be fulfilled on configmaps "`+name+`": the object has been modified; please apply your changes to the latest version and try again`,
		&metav1.StatusDetails{Name: name, Kind: "configmaps"})
}

// runUpdateWithCurrentRV: PUT with the current RV succeeds with a new RV.
func runUpdateWithCurrentRV(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	rvs := e.createN(ctx, "a")
	body := cm("a", nil, "v2")
	body["metadata"].(object)["resourceVersion"] = itoa(rvs[0])
	r := e.c.do(ctx, t, request{Method: http.MethodPut, Path: e.cms() + "/a", Body: body})
	r.mustCode(t, http.StatusOK, "update")
	var o object
	r.decode(t, &o)
	if rv := rvOf(t, o); rv <= rvs[0] {
		t.Errorf("rv = %d, want > %d", rv, rvs[0])
	}
}

// runUpdateUnconditional: PUT without RV is unconditional for ConfigMaps,
// and keeps uid and creationTimestamp (registry/generic/registry/store.go Update).
func runUpdateUnconditional(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	o := e.create(ctx, "a", nil)
	u := e.update(ctx, "a", "v2", nil)
	if rvOf(t, u) <= rvOf(t, o) {
		t.Errorf("rv %d, want > %d", rvOf(t, u), rvOf(t, o))
	}
	for _, k := range []string{"uid", "creationTimestamp"} {
		if metaOf(u)[k] != metaOf(o)[k] {
			t.Errorf("%s changed from %v to %v", k, metaOf(o)[k], metaOf(u)[k])
		}
	}
}

// runUpdateNotFound: PUT of a missing object is 404 (no create-on-update).
func runUpdateNotFound(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	r := e.c.do(ctx, t, request{Method: http.MethodPut, Path: e.cms() + "/nope", Body: cm("nope", nil, "v")})
	checkStatus(t, "update missing", r, notFound("nope"))
}

func notFound(name string) statusShape {
	return wantStatus(http.StatusNotFound, metav1.StatusReasonNotFound, `configmaps "`+name+`" not found`,
		&metav1.StatusDetails{Name: name, Kind: "configmaps"})
}

// runUpdateNameMismatch: body name other than the URL's (400,
// endpoints/handlers/rest.go).
func runUpdateNameMismatch(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	e.createN(ctx, "a")
	r := e.c.do(ctx, t, request{Method: http.MethodPut, Path: e.cms() + "/a", Body: cm("other", nil, "v")})
	checkStatus(t, "update with another name", r, badRequest("the name of the object (other) does not match the name on the URL (a)"))
}

// runUpdateNoOpKeepsRV: an update that changes nothing keeps the RV and
// sends no watch event (storage/etcd3/store.go GuaranteedUpdate).
func runUpdateNoOpKeepsRV(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	rvs := e.createN(ctx, "a")
	w := e.c.watch(ctx, t, request{Path: e.cms(), Query: q("resourceVersion", itoa(rvs[0]), "timeoutSeconds", shortWatch)})
	u := e.update(ctx, "a", "v", map[string]string{"app": "x"})
	if rv := rvOf(t, u); rv != rvs[0] {
		t.Errorf("no-op update rv = %d, want unchanged %d", rv, rvs[0])
	}
	evs, _ := w.collect(ctx, shortWatchWait)
	if len(evs) != 0 {
		t.Errorf("events %v after a no-op update, want none", eventTypes(evs))
	}
}

// runPatchConflict: a merge patch carrying a stale RV is 409
// (registry/generic/registry/store.go Update, which a patch ends in).
func runPatchConflict(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	rvs := e.createN(ctx, "a")
	e.update(ctx, "a", "v2", nil)
	r := e.c.do(ctx, t, request{Method: http.MethodPatch, Path: e.cms() + "/a", ContentType: "application/merge-patch+json",
		Body: object{"metadata": object{"resourceVersion": itoa(rvs[0])}, "data": object{"k": "v3"}}})
	checkStatus(t, "stale patch", r, conflict("a"))
}

// runPatchNotFound: PATCH of a missing object is 404 (storage/errors/storage.go
// InterpretGetError).
func runPatchNotFound(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	r := e.c.do(ctx, t, request{Method: http.MethodPatch, Path: e.cms() + "/nope", ContentType: "application/merge-patch+json",
		Body: object{"data": object{"k": "v"}}})
	checkStatus(t, "patch missing", r, notFound("nope"))
}

// runPatchMerge: a merge patch changes the object and bumps the RV.
func runPatchMerge(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	rvs := e.createN(ctx, "a")
	r := e.c.do(ctx, t, request{Method: http.MethodPatch, Path: e.cms() + "/a", ContentType: "application/merge-patch+json",
		Body: object{"data": object{"k2": "w"}}})
	r.mustCode(t, http.StatusOK, "patch")
	var o object
	r.decode(t, &o)
	if diff := cmp.Diff(map[string]any{"k": "v", "k2": "w"}, o["data"]); diff != "" {
		t.Errorf("data (-want +got):\n%s", diff)
	}
	if rvOf(t, o) <= rvs[0] {
		t.Errorf("rv %d, want > %d", rvOf(t, o), rvs[0])
	}
}

// runGetNotFound: GET of a missing object is 404 (storage/errors/storage.go
// InterpretGetError).
func runGetNotFound(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	r := e.c.do(ctx, t, request{Path: e.cms() + "/nope"})
	checkStatus(t, "get missing", r, notFound("nope"))
}

// runGetRV0: GET ?resourceVersion=0 serves the object
// (storage/cacher/delegator.go Get).
func runGetRV0(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	rvs := e.createN(ctx, "a")
	r := e.c.do(ctx, t, request{Path: e.cms() + "/a", Query: q("resourceVersion", "0")})
	r.mustCode(t, http.StatusOK, "get rv=0")
	var o object
	r.decode(t, &o)
	if rvOf(t, o) != rvs[0] {
		t.Errorf("rv %d, want %d", rvOf(t, o), rvs[0])
	}
}

// runDeleteReturnsStatus: deleting a ConfigMap is 200 with a Success
// Status naming it, with no code (registry/generic/registry/store.go Delete).
func runDeleteReturnsStatus(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	o := e.create(ctx, "a", nil)
	r := e.c.do(ctx, t, request{Method: http.MethodDelete, Path: e.cms() + "/a"})
	r.mustCode(t, http.StatusOK, "delete")
	st := r.status(t)
	want := metav1.Status{TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: metav1.StatusSuccess,
		Details: &metav1.StatusDetails{Name: "a", Kind: "configmaps", UID: typesUID(metaOf(o)["uid"])}}
	if diff := cmp.Diff(want, st); diff != "" {
		t.Errorf("delete status (-want +got):\n%s", diff)
	}
	checkStatus(t, "get after delete", e.c.do(ctx, t, request{Path: e.cms() + "/a"}), notFound("a"))
}

// runDeleteNotFound: DELETE of a missing object is 404.
func runDeleteNotFound(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	r := e.c.do(ctx, t, request{Method: http.MethodDelete, Path: e.cms() + "/nope"})
	checkStatus(t, "delete missing", r, notFound("nope"))
}

// runDeletePreconditionRV: a resourceVersion precondition mismatch is 409
// with the Kind in details (registry/rest/delete.go BeforeDelete).
func runDeletePreconditionRV(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	e.createN(ctx, "a")
	r := e.c.do(ctx, t, request{Method: http.MethodDelete, Path: e.cms() + "/a",
		Body: object{"kind": "DeleteOptions", "apiVersion": "v1", "preconditions": object{"resourceVersion": "1"}}})
	checkStatus(t, "delete with a stale rv precondition", r, wantStatus(http.StatusConflict, metav1.StatusReasonConflict,
		`Operation cannot be fulfilled on ConfigMap "a": the ResourceVersion in the precondition (1) does not match the ResourceVersion in record (2). The object might have been modified`,
		&metav1.StatusDetails{Name: "a", Kind: "ConfigMap"}))
}

// runDeletePreconditionUID: a uid precondition mismatch is 409
// (registry/rest/delete.go BeforeDelete).
func runDeletePreconditionUID(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	o := e.create(ctx, "a", nil)
	bad := "00000000-0000-0000-0000-000000000000"
	r := e.c.do(ctx, t, request{Method: http.MethodDelete, Path: e.cms() + "/a",
		Body: object{"kind": "DeleteOptions", "apiVersion": "v1", "preconditions": object{"uid": bad}}})
	checkStatus(t, "delete with a wrong uid precondition", r, wantStatus(http.StatusConflict, metav1.StatusReasonConflict,
		`Operation cannot be fulfilled on ConfigMap "a": the UID in the precondition (`+bad+`) does not match the UID in record (`+metaOf(o)["uid"].(string)+`). The object might have been deleted and then recreated`,
		&metav1.StatusDetails{Name: "a", Kind: "ConfigMap"}))
}

// runDeleteWithFinalizer: DELETE of an object with a finalizer marks it
// (deletionTimestamp, grace 0, new RV, MODIFIED) and answers 200 with it;
// removing the finalizer deletes it (DELETED with a new RV)
// (registry/generic/registry/store.go updateForGracefulDeletionAndFinalizers).
func runDeleteWithFinalizer(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	body := cm("a", nil, "v")
	body["metadata"].(object)["finalizers"] = []string{"example.com/hold"}
	r := e.c.do(ctx, t, request{Method: http.MethodPost, Path: e.cms(), Body: body})
	r.mustCode(t, http.StatusCreated, "create with finalizer")
	var o object
	r.decode(t, &o)
	w := e.c.watch(ctx, t, request{Path: e.cms(), Query: q("resourceVersion", itoa(rvOf(t, o)))})
	r = e.c.do(ctx, t, request{Method: http.MethodDelete, Path: e.cms() + "/a"})
	r.mustCode(t, http.StatusOK, "delete with finalizer")
	var d object
	r.decode(t, &d)
	if d["kind"] != "ConfigMap" {
		t.Fatalf("delete answered %v, want the ConfigMap", d["kind"])
	}
	md := metaOf(d)
	if md["deletionTimestamp"] == nil || md["deletionGracePeriodSeconds"] != float64(0) {
		t.Errorf("deletionTimestamp %v, grace %v; want set and 0", md["deletionTimestamp"], md["deletionGracePeriodSeconds"])
	}
	e.c.do(ctx, t, request{Path: e.cms() + "/a"}).mustCode(t, http.StatusOK, "get while finalizing")
	r = e.c.do(ctx, t, request{Method: http.MethodPatch, Path: e.cms() + "/a", ContentType: "application/merge-patch+json",
		Body: object{"metadata": object{"finalizers": nil}}})
	r.mustCode(t, http.StatusOK, "remove finalizer")
	checkStatus(t, "get after finalizing", e.c.do(ctx, t, request{Path: e.cms() + "/a"}), notFound("a"))
	evs := summarize(t, w.takeN(ctx, 2, "finalizer events"))
	want := []evSummary{{"MODIFIED", "a", rvOf(t, d)}, {"DELETED", "a", evs[1].RV}}
	if diff := cmp.Diff(want, evs); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	if evs[1].RV <= evs[0].RV {
		t.Errorf("DELETED rv %d, want > %d", evs[1].RV, evs[0].RV)
	}
}

// runRVGlobalAcrossNamespaces: RVs are one global counter: writes in two
// namespaces interleave strictly increasing, and a LIST of one namespace
// reports an RV at least the other's last write (one etcd revision for every
// resource: storage/etcd3/store.go, storage/api_object_versioner.go
// UpdateList).
func runRVGlobalAcrossNamespaces(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	e2 := setupSibling(ctx, t, e)
	a := rvOf(t, e.create(ctx, "a", nil))
	b := rvOf(t, e2.create(ctx, "b", nil))
	c := rvOf(t, e.create(ctx, "c", nil))
	if !(a < b && b < c) {
		t.Errorf("rvs %d, %d, %d; want strictly increasing across namespaces", a, b, c)
	}
	d := rvOf(t, e2.create(ctx, "d", nil))
	if l := e.list(ctx).rv(t); l < d {
		t.Errorf("list rv %d, want >= %d (a write in another namespace)", l, d)
	}
}
