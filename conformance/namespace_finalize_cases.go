package conformance

// Cases for a Namespace's finalize subresource (kubernetes
// pkg/registry/core/namespace/storage FinalizeREST): what the namespace
// controller writes once a namespace is empty. Neither server runs that
// controller, so a Terminating namespace stays until someone finalizes it.

import (
	"context"
	"fmt"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// namespaceFinalizeCases are the cases of this file, in the order [Cases] runs them.
func namespaceFinalizeCases() []Case {
	return []Case{
		{Name: "NamespaceFinalize", Run: runNamespaceFinalize},
		{Name: "NamespaceFinalizeDeletes", Run: runNamespaceFinalizeDeletes},
	}
}

// nsBody is a Namespace body named name with spec.finalizers and labels.
func nsBody(name string, finalizers []any, labels object) object {
	md := object{"name": name}
	if labels != nil {
		md["labels"] = labels
	}
	return object{"apiVersion": "v1", "kind": "Namespace", "metadata": md, "spec": object{"finalizers": finalizers}}
}

// createNamespace creates the namespace name, deleted and finalized when
// the case ends.
func (e *env) createNamespace(ctx context.Context, name string) {
	e.t.Helper()
	e.c.do(ctx, e.t, request{Method: http.MethodPost, Path: "/api/v1/namespaces", Body: nsBody(name, nil, nil)}).
		mustCode(e.t, http.StatusCreated, "create namespace "+name)
	e.t.Cleanup(func() {
		ctx := context.Background()
		e.c.do(ctx, e.t, request{Method: http.MethodDelete, Path: "/api/v1/namespaces/" + name})
		e.c.do(ctx, e.t, request{Method: http.MethodPut, Path: "/api/v1/namespaces/" + name + "/finalize", Body: nsBody(name, []any{}, nil)})
	})
}

// finalizeManagedFields returns the managedFields entry of the finalize
// subresource in ns, or nil.
func finalizeManagedFields(ns object) object {
	entries, _ := metaOf(ns)["managedFields"].([]any)
	for _, e := range entries {
		if m, ok := e.(map[string]any); ok && m["subresource"] == "finalize" {
			return m
		}
	}
	return nil
}

// runNamespaceFinalize: PUT namespaces/NAME/finalize replaces
// spec.finalizers and the metadata but not the status, recorded under the
// finalize subresource in managedFields; finalizer names are validated
// (422), the name must match (400), the namespace exist (404) and a stale
// resourceVersion conflicts (409); other methods are 405; a PUT of the
// namespace itself keeps spec.finalizers.
func runNamespaceFinalize(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	name := e.ns + "-fin"
	e.createNamespace(ctx, name)
	path := "/api/v1/namespaces/" + name
	body := nsBody(name, []any{"example.com/x", "kubernetes"}, object{"x": "y"})
	body["status"] = object{"phase": "Terminating"}
	r := e.c.do(ctx, t, request{Method: http.MethodPut, Path: path + "/finalize", Body: body})
	r.mustCode(t, http.StatusOK, "finalize")
	got := decoded(t, r)
	want := object{"spec": map[string]any{"finalizers": []any{"example.com/x", "kubernetes"}}, "status": map[string]any{"phase": "Active"},
		"labels": map[string]any{"kubernetes.io/metadata.name": name, "x": "y"}}
	if diff := cmp.Diff(want, object{"spec": got["spec"], "status": got["status"], "labels": metaOf(got)["labels"]}); diff != "" {
		t.Errorf("finalized namespace (-want +got):\n%s", diff)
	}
	mf := finalizeManagedFields(got)
	if diff := cmp.Diff(map[string]any{"f:metadata": map[string]any{"f:labels": map[string]any{"f:x": map[string]any{}}},
		"f:spec": map[string]any{"f:finalizers": map[string]any{}}}, mf["fieldsV1"]); mf == nil || mf["operation"] != "Update" || diff != "" {
		t.Errorf("finalize managedFields entry = %v (-want +got fieldsV1):\n%s", mf, diff)
	}

	r = e.c.do(ctx, t, request{Method: http.MethodPut, Path: path + "/finalize", Body: nsBody(name, []any{"foo", "a/b/c"}, nil)})
	fooMsg := `Invalid value: "foo": name is neither a standard finalizer name nor is it fully qualified`
	abcMsg := `Invalid value: "a/b/c": a valid label key must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`
	checkStatus(t, "finalize with invalid names", r, wantStatus(http.StatusUnprocessableEntity, metav1.StatusReasonInvalid,
		fmt.Sprintf("Namespace %q is invalid: [spec.finalizers[0]: %s, spec.finalizers[1]: %s]", name, fooMsg, abcMsg),
		&metav1.StatusDetails{Name: name, Kind: "Namespace", Causes: []metav1.StatusCause{
			{Type: metav1.CauseTypeFieldValueInvalid, Message: fooMsg, Field: "spec.finalizers[0]"},
			{Type: metav1.CauseTypeFieldValueInvalid, Message: abcMsg, Field: "spec.finalizers[1]"}}}))
	r = e.c.do(ctx, t, request{Method: http.MethodPut, Path: path + "/finalize", Body: nsBody("other", nil, nil)})
	checkStatus(t, "finalize of another name", r, badRequest(fmt.Sprintf("the name of the object (other) does not match the name on the URL (%s)", name)))
	r = e.c.do(ctx, t, request{Method: http.MethodPut, Path: "/api/v1/namespaces/" + name + "-none/finalize", Body: nsBody(name+"-none", nil, nil)})
	checkStatus(t, "finalize of a missing namespace", r, wantStatus(http.StatusNotFound, metav1.StatusReasonNotFound,
		fmt.Sprintf("namespaces %q not found", name+"-none"), &metav1.StatusDetails{Name: name + "-none", Kind: "namespaces"}))
	stale := nsBody(name, nil, nil)
	stale["metadata"].(object)["resourceVersion"] = "1"
	r = e.c.do(ctx, t, request{Method: http.MethodPut, Path: path + "/finalize", Body: stale})
	checkStatus(t, "finalize at a stale resourceVersion", r, wantStatus(http.StatusConflict, metav1.StatusReasonConflict,
		fmt.Sprintf("Operation cannot be fulfilled on namespaces %q: the object has been modified; please apply your changes to the latest version and try again", name),
		&metav1.StatusDetails{Name: name, Kind: "namespaces"}))
	for _, m := range []string{http.MethodGet, http.MethodPatch, http.MethodPost, http.MethodDelete} {
		r := e.c.do(ctx, t, request{Method: m, Path: path + "/finalize", Body: object{}, ContentType: "application/merge-patch+json"})
		checkStatus(t, m+" finalize", r, wantStatus(http.StatusMethodNotAllowed, metav1.StatusReasonMethodNotAllowed,
			"the server does not allow this method on the requested resource", &metav1.StatusDetails{}))
	}

	r = e.c.do(ctx, t, request{Method: http.MethodPut, Path: path, Body: nsBody(name, []any{}, object{"x": "y"})})
	r.mustCode(t, http.StatusOK, "update the namespace")
	if diff := cmp.Diff(map[string]any{"finalizers": []any{"example.com/x", "kubernetes"}}, decoded(t, r)["spec"]); diff != "" {
		t.Errorf("namespace update kept spec (-want +got):\n%s", diff)
	}
}

// runNamespaceFinalizeDeletes: a Terminating namespace finalized to no
// spec.finalizers is deleted by that PUT, which answers the finalized
// object at its last resourceVersion, and the watch sees DELETED with the
// last stored state; with metadata.finalizers left (the finalize PUT
// replaces those too) it stays Terminating until an update removes them; a
// dry-run finalize deletes nothing.
func runNamespaceFinalizeDeletes(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	name := e.ns + "-del"
	e.createNamespace(ctx, name)
	path := "/api/v1/namespaces/" + name
	r := e.c.do(ctx, t, request{Method: http.MethodDelete, Path: path})
	r.mustCode(t, http.StatusOK, "delete namespace")
	terminating := decoded(t, r)
	if at(terminating, "status", "phase") != "Terminating" {
		t.Fatalf("deleted namespace = %s, want Terminating", r.Body)
	}
	rv := rvOf(t, terminating)
	w := e.c.watch(ctx, t, request{Path: "/api/v1/namespaces", Query: q("fieldSelector", "metadata.name="+name, "resourceVersion", itoa(rv))})

	r = e.c.do(ctx, t, request{Method: http.MethodPut, Path: path + "/finalize", Query: dryRun(), Body: nsBody(name, []any{}, nil)})
	r.mustCode(t, http.StatusOK, "dry-run finalize")
	e.c.do(ctx, t, request{Path: path}).mustCode(t, http.StatusOK, "get after a dry-run finalize")

	r = e.c.do(ctx, t, request{Method: http.MethodPut, Path: path + "/finalize", Body: nsBody(name, []any{}, nil)})
	r.mustCode(t, http.StatusOK, "finalize a terminating namespace")
	got := decoded(t, r)
	if rvOf(t, got) != rv || at(got, "spec", "finalizers") != nil || at(got, "status", "phase") != "Terminating" {
		t.Errorf("finalize answer = %s, want no finalizers, Terminating, at rv %d", r.Body, rv)
	}
	checkStatus(t, "get a finalized namespace", e.c.do(ctx, t, request{Path: path}), wantStatus(http.StatusNotFound,
		metav1.StatusReasonNotFound, fmt.Sprintf("namespaces %q not found", name), &metav1.StatusDetails{Name: name, Kind: "namespaces"}))
	ev := w.mustNext(ctx, "watch of the finalized namespace")
	if ev.Type != "DELETED" || rvOf(t, ev.Object) <= rv || fmt.Sprint(at(ev.Object, "spec", "finalizers")) != "[kubernetes]" {
		t.Errorf("watch event = %s rv %d spec %v, want DELETED after rv %d with the stored finalizers", ev.Type, rvOf(t, ev.Object), at(ev.Object, "spec"), rv)
	}

	// With a metadata finalizer the namespace outlives its finalize.
	held := e.ns + "-held"
	e.createNamespace(ctx, held)
	hp := "/api/v1/namespaces/" + held
	r = e.c.do(ctx, t, request{Method: http.MethodPatch, Path: hp, ContentType: "application/merge-patch+json",
		Body: object{"metadata": object{"finalizers": []any{"example.com/hold"}}}})
	r.mustCode(t, http.StatusOK, "add a metadata finalizer")
	e.c.do(ctx, t, request{Method: http.MethodDelete, Path: hp}).mustCode(t, http.StatusOK, "delete the held namespace")
	body := nsBody(held, []any{}, nil)
	body["metadata"].(object)["finalizers"] = []any{"example.com/hold"}
	r = e.c.do(ctx, t, request{Method: http.MethodPut, Path: hp + "/finalize", Body: body})
	r.mustCode(t, http.StatusOK, "finalize the held namespace")
	got = e.getObject(ctx, hp)
	if at(got, "status", "phase") != "Terminating" || at(got, "spec", "finalizers") != nil {
		t.Errorf("held namespace after finalize = %v, want Terminating without spec.finalizers", got)
	}
	// An update of the namespace that drops the metadata finalizer
	// deletes it.
	delete(got["metadata"].(map[string]any), "finalizers")
	r = e.c.do(ctx, t, request{Method: http.MethodPut, Path: hp, Body: got})
	r.mustCode(t, http.StatusOK, "drop the metadata finalizer")
	checkStatus(t, "get the held namespace", e.c.do(ctx, t, request{Path: hp}), wantStatus(http.StatusNotFound,
		metav1.StatusReasonNotFound, fmt.Sprintf("namespaces %q not found", held), &metav1.StatusDetails{Name: held, Kind: "namespaces"}))
}
