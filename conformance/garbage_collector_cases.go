package conformance

// Cases for kube-controller-manager's garbage collector
// (pkg/controller/garbagecollector), run with the collector on: the fake's
// own (fakeapiserver controller_gc.go) against the real one that
// realapiserver runs beside its kube-apiserver for the case. Each waits for
// the collector's asynchronous writes and compares where things end.

import (
	"context"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// garbageCollectorController is kube-controller-manager's name of the
// collector (fakeapiserver.ControllerGarbageCollector).
const garbageCollectorController = "garbage-collector-controller"

// garbageCollectorCases are the cases of this file, in the order [Cases] runs them.
func garbageCollectorCases() []Case {
	gc := []string{garbageCollectorController}
	return []Case{
		{Name: "GarbageCollectBackground", Run: runGarbageCollectBackground, Controllers: gc},
		{Name: "GarbageCollectForeground", Run: runGarbageCollectForeground, Controllers: gc},
		{Name: "GarbageCollectOrphan", Run: runGarbageCollectOrphan, Controllers: gc},
		{Name: "GarbageCollectJobDefault", Run: runGarbageCollectJobDefault, Controllers: gc},
	}
}

// gcWait bounds the wait for the collector: the real one first lists every
// resource into its informers (with a 30 s initial-sync timeout).
const gcWait = 90 * time.Second

// gcOwner is an ownerReferences entry to obj.
func gcOwner(obj object, block bool) object {
	return object{"apiVersion": obj["apiVersion"], "kind": obj["kind"], "name": nameOf(obj), "uid": metaOf(obj)["uid"], "blockOwnerDeletion": block}
}

// createOwned creates the ConfigMap name with owner references and
// finalizers.
func (e *env) createOwned(ctx context.Context, name string, owners []any, finalizers ...any) object {
	e.t.Helper()
	md := object{"name": name, "ownerReferences": owners}
	if len(finalizers) > 0 {
		md["finalizers"] = finalizers
	}
	r := e.c.do(ctx, e.t, request{Method: http.MethodPost, Path: e.cms(), Body: object{"apiVersion": "v1", "kind": "ConfigMap", "metadata": md}})
	r.mustCode(e.t, http.StatusCreated, "create "+name)
	return decoded(e.t, r)
}

// gcState is each of paths' state: "gone", or its owner names, its
// finalizers and whether it is marked for deletion.
func (e *env) gcState(ctx context.Context, paths map[string]string) map[string]string {
	out := map[string]string{}
	for label, p := range paths {
		o := e.getOK(ctx, p)
		if o == nil {
			out[label] = "gone"
			continue
		}
		md := metaOf(o)
		s := "owners:"
		refs, _ := md["ownerReferences"].([]any)
		for _, r := range refs {
			s += " " + r.(map[string]any)["name"].(string)
		}
		s += " finalizers:"
		fs, _ := md["finalizers"].([]any)
		for _, f := range fs {
			s += " " + f.(string)
		}
		if md["deletionTimestamp"] != nil {
			s += " deleting"
		}
		out[label] = s
	}
	return out
}

// awaitGC waits until paths reach want, and fails with the last difference
// if they do not.
func (e *env) awaitGC(ctx context.Context, what string, paths, want map[string]string) {
	e.t.Helper()
	var diff string
	if !eventually(ctx, gcWait, func() bool {
		diff = cmp.Diff(want, e.gcState(ctx, paths))
		return diff == ""
	}) {
		e.t.Fatalf("%s: not reached within %v (-want +got):\n%s", what, gcWait, diff)
	}
}

// cmPaths are the paths of the ConfigMaps names, by name.
func (e *env) cmPaths(names ...string) map[string]string {
	out := map[string]string{}
	for _, n := range names {
		out[n] = e.cms() + "/" + n
	}
	return out
}

// runGarbageCollectBackground: deleting an owner (background, the
// default) deletes the dependent it solely owned, then that one's own
// dependent; a dependent with another, existing owner loses the dangling
// reference; a reference to another uid of the owner's name is dangling.
func runGarbageCollectBackground(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	a, b := e.createOwned(ctx, "a", nil), e.createOwned(ctx, "b", nil)
	c := e.createOwned(ctx, "c", []any{gcOwner(a, false)})
	e.createOwned(ctx, "d", []any{gcOwner(c, false)})
	e.createOwned(ctx, "e", []any{gcOwner(a, false), gcOwner(b, false)})
	stale := gcOwner(b, false)
	stale["uid"] = "00000000-0000-0000-0000-000000000000"
	e.createOwned(ctx, "f", []any{stale})
	e.c.do(ctx, t, request{Method: http.MethodDelete, Path: e.cms() + "/a"}).mustCode(t, http.StatusOK, "delete a")
	e.awaitGC(ctx, "after deleting a", e.cmPaths("a", "b", "c", "d", "e", "f"),
		map[string]string{"a": "gone", "b": "owners: finalizers:", "c": "gone", "d": "gone", "e": "owners: b finalizers:", "f": "gone"})
}

// runGarbageCollectForeground: an owner deleted in the foreground keeps
// its foregroundDeletion finalizer while a blocking dependent exists; its
// dependents are deleted (one's own finalizer holds it, marked); once that
// finalizer goes, the dependent and then the owner go.
func runGarbageCollectForeground(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	a := e.createOwned(ctx, "a", nil)
	e.createOwned(ctx, "b", []any{gcOwner(a, true)}, "example.com/hold")
	e.createOwned(ctx, "c", []any{gcOwner(a, false)})
	e.c.do(ctx, t, request{Method: http.MethodDelete, Path: e.cms() + "/a", Query: propagation("Foreground")}).mustCode(t, http.StatusOK, "delete a")
	e.awaitGC(ctx, "after a foreground delete of a", e.cmPaths("a", "b", "c"), map[string]string{
		"a": "owners: finalizers: foregroundDeletion deleting", "b": "owners: a finalizers: example.com/hold deleting", "c": "gone"})
	e.dropFinalizers(e.cms() + "/b")
	e.awaitGC(ctx, "after b's finalizer went", e.cmPaths("a", "b"), map[string]string{"a": "gone", "b": "gone"})
}

// runGarbageCollectOrphan: an owner deleted with Orphan goes once its
// dependents no longer refer to it; they stay, with their other owners.
func runGarbageCollectOrphan(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	a, b := e.createOwned(ctx, "a", nil), e.createOwned(ctx, "b", nil)
	e.createOwned(ctx, "c", []any{gcOwner(a, true), gcOwner(b, false)})
	e.createOwned(ctx, "d", []any{gcOwner(a, false)})
	e.c.do(ctx, t, request{Method: http.MethodDelete, Path: e.cms() + "/a", Query: propagation("Orphan")}).mustCode(t, http.StatusOK, "delete a")
	e.awaitGC(ctx, "after an orphan delete of a", e.cmPaths("a", "c", "d"),
		map[string]string{"a": "gone", "c": "owners: b finalizers:", "d": "owners: finalizers:"})
}

// runGarbageCollectJobDefault: a batch/v1 Job deleted without options
// orphans its pods (the strategy's default puts the orphan finalizer on
// it): the collector frees the pod and the Job goes; deleted with
// Background, a Job's pod goes with it.
func runGarbageCollectJobDefault(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	jobs := "/apis/batch/v1/namespaces/" + e.ns + "/jobs"
	newJob := func(name string) object {
		r := e.c.do(ctx, t, request{Method: http.MethodPost, Path: jobs, Body: object{"apiVersion": "batch/v1", "kind": "Job",
			"metadata": object{"name": name}, "spec": object{"template": object{"spec": object{"restartPolicy": "Never",
				"containers": []any{object{"name": "c", "image": "busybox"}}}}}}})
		r.mustCode(t, http.StatusCreated, "create job "+name)
		job := decoded(t, r)
		owner := gcOwner(job, true)
		owner["controller"] = true
		p := pod(name+"-pod", "", object{"name": "c", "image": "busybox"})
		p["metadata"].(object)["ownerReferences"] = []any{owner}
		e.createPod(ctx, p)
		return job
	}
	newJob("orphaning")
	newJob("cascading")
	e.c.do(ctx, t, request{Method: http.MethodDelete, Path: jobs + "/orphaning"}).mustCode(t, http.StatusOK, "delete job orphaning")
	e.c.do(ctx, t, request{Method: http.MethodDelete, Path: jobs + "/cascading", Query: url.Values{"propagationPolicy": {"Background"}}}).
		mustCode(t, http.StatusOK, "delete job cascading")
	e.awaitGC(ctx, "after deleting the jobs", map[string]string{
		"orphaning": jobs + "/orphaning", "orphaning-pod": e.pods() + "/orphaning-pod",
		"cascading": jobs + "/cascading", "cascading-pod": e.pods() + "/cascading-pod",
	}, map[string]string{"orphaning": "gone", "orphaning-pod": "owners: finalizers:", "cascading": "gone", "cascading-pod": "gone"})
}
