package conformance

// Cases for the finalizers a DELETE leaves for the garbage collector
// (k8s.io/apiserver registry/generic/registry/store.go
// deletionFinalizersForGarbageCollection, shouldOrphanDependents,
// shouldDeleteDependentsInForeground, updateForGracefulDeletionAndFinalizers;
// each kind's DefaultGarbageCollectionPolicy in kubernetes
// pkg/registry/*/strategy.go). kube-apiserver adds them whether or not a
// garbage collector runs; neither server here runs one, so an object
// deleted with propagationPolicy Orphan or Foreground stays, marked, with
// the "orphan" or "foregroundDeletion" finalizer.

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// deletePropagationCases are the cases of this file, in the order [Cases] runs them.
func deletePropagationCases() []Case {
	return []Case{
		{Name: "DeletePropagationFinalizers", Run: runDeletePropagationFinalizers},
		{Name: "DeleteDefaultGCPolicy", Run: runDeleteDefaultGCPolicy},
		{Name: "DeleteCollectionPropagation", Run: runDeleteCollectionPropagation},
		{Name: "DeletePodPropagation", Run: runDeletePodPropagation},
	}
}

// deleteOutcome is what a DELETE left: the answer's code and kind, and the
// object's finalizers and deletion marks (read back with a GET: "gone"
// when it is not found).
type deleteOutcome struct {
	Code       int
	Kind       string
	Finalizers []any
	Marked     bool // deletionTimestamp set
	Grace      any  // deletionGracePeriodSeconds
	Gone       bool // GET answers 404
}

// deleteAndRead DELETEs path with the query and body given and reads the
// object back.
func (e *env) deleteAndRead(ctx context.Context, path string, query url.Values, body any) deleteOutcome {
	e.t.Helper()
	r := e.c.do(ctx, e.t, request{Method: http.MethodDelete, Path: path, Query: query, Body: body})
	out := deleteOutcome{Code: r.Code}
	if r.Code < 300 {
		out.Kind, _ = decoded(e.t, r)["kind"].(string)
	}
	g := e.c.do(ctx, e.t, request{Path: path})
	if g.Code == http.StatusNotFound {
		out.Gone = true
		return out
	}
	g.mustCode(e.t, http.StatusOK, "read back "+path)
	md := metaOf(decoded(e.t, g))
	out.Finalizers, _ = md["finalizers"].([]any)
	out.Marked = md["deletionTimestamp"] != nil
	out.Grace = md["deletionGracePeriodSeconds"]
	return out
}

// dropFinalizers clears path's finalizers (best effort, for the case's
// clean-up: neither server runs a garbage collector to do it).
func (e *env) dropFinalizers(path string) {
	e.c.do(context.Background(), e.t, request{Method: http.MethodPatch, Path: path, ContentType: "application/merge-patch+json",
		Body: object{"metadata": object{"finalizers": nil}}})
}

// propagation is a query with propagationPolicy p.
func propagation(p string) url.Values { return q("propagationPolicy", p) }

// runDeletePropagationFinalizers: on a ConfigMap, Foreground adds
// foregroundDeletion and Orphan orphan (each replacing the other), both
// only marking the object (deletionTimestamp, grace 0, 200 with the
// object); Background then removes the last one and the object goes. An
// object's own finalizer stays beside them; the deprecated
// orphanDependents=false on an object that stays answers 202; options in
// the body count as in the query.
func runDeletePropagationFinalizers(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	e.create(ctx, "a", nil)
	a := e.cms() + "/a"
	t.Cleanup(func() { e.dropFinalizers(a) })
	steps := []struct {
		what  string
		query url.Values
		body  any
		want  deleteOutcome
	}{
		{"Foreground", propagation("Foreground"), nil,
			deleteOutcome{Code: 200, Kind: "ConfigMap", Finalizers: []any{"foregroundDeletion"}, Marked: true, Grace: float64(0)}},
		{"Orphan after Foreground", propagation("Orphan"), nil,
			deleteOutcome{Code: 200, Kind: "ConfigMap", Finalizers: []any{"orphan"}, Marked: true, Grace: float64(0)}},
		{"no options keep orphan", nil, nil,
			deleteOutcome{Code: 200, Kind: "ConfigMap", Finalizers: []any{"orphan"}, Marked: true, Grace: float64(0)}},
		{"Background in the body", nil, object{"kind": "DeleteOptions", "apiVersion": "v1", "propagationPolicy": "Background"},
			deleteOutcome{Code: 200, Kind: "Status", Gone: true}},
	}
	for _, s := range steps {
		if diff := cmp.Diff(s.want, e.deleteAndRead(ctx, a, s.query, s.body)); diff != "" {
			t.Errorf("%s: DELETE (-want +got):\n%s", s.what, diff)
		}
	}

	r := e.c.do(ctx, t, request{Method: http.MethodPost, Path: e.cms(), Body: object{"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": object{"name": "b", "finalizers": []any{"example.com/keep"}}}})
	r.mustCode(t, http.StatusCreated, "create b")
	b := e.cms() + "/b"
	t.Cleanup(func() { e.dropFinalizers(b) })
	steps = []struct {
		what  string
		query url.Values
		body  any
		want  deleteOutcome
	}{
		{"orphanDependents=false", q("orphanDependents", "false"), nil,
			deleteOutcome{Code: 202, Kind: "ConfigMap", Finalizers: []any{"example.com/keep"}, Marked: true, Grace: float64(0)}},
		{"orphanDependents=true", q("orphanDependents", "true"), nil,
			deleteOutcome{Code: 200, Kind: "ConfigMap", Finalizers: []any{"example.com/keep", "orphan"}, Marked: true, Grace: float64(0)}},
		{"Foreground beside its own", propagation("Foreground"), nil,
			deleteOutcome{Code: 200, Kind: "ConfigMap", Finalizers: []any{"example.com/keep", "foregroundDeletion"}, Marked: true, Grace: float64(0)}},
		{"Background keeps its own", propagation("Background"), nil,
			deleteOutcome{Code: 200, Kind: "ConfigMap", Finalizers: []any{"example.com/keep"}, Marked: true, Grace: float64(0)}},
	}
	for _, s := range steps {
		if diff := cmp.Diff(s.want, e.deleteAndRead(ctx, b, s.query, s.body)); diff != "" {
			t.Errorf("%s: DELETE (-want +got):\n%s", s.what, diff)
		}
	}
}

// runDeleteDefaultGCPolicy: a DELETE without options orphans the
// dependents of a batch/v1 Job and a v1 ReplicationController (their
// strategies' default: the "orphan" finalizer, the object stays) and not
// those of a Deployment (gone at once); an Event, whose strategy does not
// support garbage collection, is deleted at once even when Foreground is
// asked, in both of its groups.
func runDeleteDefaultGCPolicy(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	podTemplate := func(restart string) object {
		return object{"metadata": object{"labels": object{"app": "x"}}, "spec": object{"restartPolicy": restart,
			"containers": []any{object{"name": "c", "image": "busybox"}}}}
	}
	objects := []struct {
		collection string
		body       object
		query      url.Values
		want       deleteOutcome
	}{
		{"/apis/batch/v1/namespaces/" + e.ns + "/jobs", object{"apiVersion": "batch/v1", "kind": "Job", "metadata": object{"name": "j"},
			"spec": object{"template": podTemplate("Never")}}, nil,
			deleteOutcome{Code: 200, Kind: "Job", Finalizers: []any{"orphan"}, Marked: true, Grace: float64(0)}},
		{"/api/v1/namespaces/" + e.ns + "/replicationcontrollers", object{"apiVersion": "v1", "kind": "ReplicationController",
			"metadata": object{"name": "rc"}, "spec": object{"selector": object{"app": "x"}, "template": podTemplate("Always")}}, nil,
			deleteOutcome{Code: 200, Kind: "ReplicationController", Finalizers: []any{"orphan"}, Marked: true, Grace: float64(0)}},
		{"/apis/apps/v1/namespaces/" + e.ns + "/deployments", object{"apiVersion": "apps/v1", "kind": "Deployment",
			"metadata": object{"name": "d"}, "spec": object{"selector": object{"matchLabels": object{"app": "x"}}, "template": podTemplate("Always")}}, nil,
			deleteOutcome{Code: 200, Kind: "Status", Gone: true}},
		{"/api/v1/namespaces/" + e.ns + "/events", object{"apiVersion": "v1", "kind": "Event", "metadata": object{"name": "ev"},
			"involvedObject": object{"kind": "ConfigMap", "name": "x", "namespace": e.ns}, "reason": "R", "message": "m"}, propagation("Foreground"),
			deleteOutcome{Code: 200, Kind: "Status", Gone: true}},
		{"/apis/events.k8s.io/v1/namespaces/" + e.ns + "/events", object{"apiVersion": "events.k8s.io/v1", "kind": "Event",
			"metadata": object{"name": "ev2"}, "eventTime": "2026-01-01T00:00:00.000000Z", "reportingController": "example.com/c",
			"reportingInstance": "i", "action": "A", "reason": "R", "type": "Normal", "regarding": object{"kind": "ConfigMap", "name": "x", "namespace": e.ns}},
			propagation("Orphan"), deleteOutcome{Code: 200, Kind: "Status", Gone: true}},
	}
	for _, o := range objects {
		name := nameOf(o.body)
		r := e.c.do(ctx, t, request{Method: http.MethodPost, Path: o.collection, Body: o.body})
		r.mustCode(t, http.StatusCreated, "create "+name)
		path := o.collection + "/" + name
		t.Cleanup(func() { e.dropFinalizers(path) })
		if diff := cmp.Diff(o.want, e.deleteAndRead(ctx, path, o.query, nil)); diff != "" {
			t.Errorf("DELETE %s %v (-want +got):\n%s", path, o.query, diff)
		}
	}
	// Background takes the default's finalizer off the Job: it goes.
	job := "/apis/batch/v1/namespaces/" + e.ns + "/jobs/j"
	if diff := cmp.Diff(deleteOutcome{Code: 200, Kind: "Status", Gone: true}, e.deleteAndRead(ctx, job, propagation("Background"), nil)); diff != "" {
		t.Errorf("DELETE %s Background (-want +got):\n%s", job, diff)
	}
}

// runDeleteCollectionPropagation: a deletecollection applies the options
// to each object it deletes (Foreground: each stays, marked) and answers
// 200 with the list as read before.
func runDeleteCollectionPropagation(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	e.createN(ctx, "a", "b")
	e.create(ctx, "c", map[string]string{"app": "other"})
	for _, n := range []string{"a", "b", "c"} {
		path := e.cms() + "/" + n
		t.Cleanup(func() { e.dropFinalizers(path) })
	}
	r := e.c.do(ctx, t, request{Method: http.MethodDelete, Path: e.cms(), Query: q("labelSelector", "app=x", "propagationPolicy", "Foreground")})
	r.mustCode(t, http.StatusOK, "deletecollection")
	got := map[string][]any{}
	for _, it := range e.list(ctx).Items {
		f, _ := metaOf(it)["finalizers"].([]any)
		got[nameOf(it)] = f
	}
	want := map[string][]any{"a": {"foregroundDeletion"}, "b": {"foregroundDeletion"}, "c": nil}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("finalizers after a Foreground deletecollection (-want +got):\n%s", diff)
	}
}

// runDeletePodPropagation: a pod bound to a node is deleted gracefully
// (30 s; no kubelet here finishes it) and gets foregroundDeletion beside its grace; a
// second DELETE while that grace runs changes no finalizer (BeforeDelete's
// pending graceful deletion), and one that shortens the grace to 0 may.
func runDeletePodPropagation(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	e.createPod(ctx, pod("p", "node-a", object{"name": "c", "image": "busybox"}))
	path := e.pods() + "/p"
	t.Cleanup(func() {
		e.dropFinalizers(path)
		e.c.do(context.Background(), t, request{Method: http.MethodDelete, Path: path, Query: q("gracePeriodSeconds", "0")})
	})
	steps := []struct {
		what  string
		query url.Values
		want  deleteOutcome
	}{
		{"Foreground", propagation("Foreground"),
			deleteOutcome{Code: 200, Kind: "Pod", Finalizers: []any{"foregroundDeletion"}, Marked: true, Grace: float64(30)}},
		{"Orphan during the grace", propagation("Orphan"),
			deleteOutcome{Code: 200, Kind: "Pod", Finalizers: []any{"foregroundDeletion"}, Marked: true, Grace: float64(30)}},
		{"Orphan with grace 0", q("propagationPolicy", "Orphan", "gracePeriodSeconds", "0"),
			deleteOutcome{Code: 200, Kind: "Pod", Finalizers: []any{"orphan"}, Marked: true, Grace: float64(0)}},
	}
	for _, s := range steps {
		if diff := cmp.Diff(s.want, e.deleteAndRead(ctx, path, s.query, nil)); diff != "" {
			t.Errorf("%s: DELETE %s (-want +got):\n%s", s.what, fmt.Sprint(s.query), diff)
		}
	}
}
