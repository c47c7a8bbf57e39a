package conformance

// Cases for what a write through the status subresource does to the
// metadata. kube-apiserver hands the whole request object to the kind's
// status strategy, which resets the spec and, depending on the kind, some
// or all of the metadata: a Pod keeps label and annotation changes but
// not ownerReferences, a Deployment keeps annotations but not labels, a
// ReplicaSet keeps everything, a custom resource nothing (and a CRD,
// through a no-op reset, everything). managedFields are recorded before
// the strategy runs, minus the kind's reset fields.

import (
	"context"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// statusMetadataCases are the cases of this file, in the order [Cases] runs them.
func statusMetadataCases() []Case {
	return []Case{
		{Name: "StatusMetadataPod", Run: runStatusMetadataPod},
		{Name: "StatusMetadataPodAnnotations", Run: runStatusMetadataPodAnnotations},
		{Name: "StatusMetadataDeployment", Run: runStatusMetadataDeployment},
		{Name: "StatusMetadataKeepsAll", Run: runStatusMetadataKeepsAll},
		{Name: "StatusMetadataCustomResource", Run: runStatusMetadataCustomResource},
		{Name: "StatusMetadataReset", Run: runStatusMetadataReset},
		{Name: "StatusMetadataCSR", Run: runStatusMetadataCSR},
	}
}

// statusMeta is what the cases compare after a status write: the
// user-set metadata, generation, and the fields the writer's entry on
// the status subresource claims (nil when it has none).
type statusMeta struct {
	Labels      any
	Annotations any
	Finalizers  any
	OwnerRefs   any
	Generation  any
	Owned       any
}

// statusMetaOf extracts a statusMeta from o, with manager's status entry.
func statusMetaOf(t testing.TB, o object, manager string) statusMeta {
	t.Helper()
	md := metaOf(o)
	out := statusMeta{Labels: md["labels"], Annotations: md["annotations"], Finalizers: md["finalizers"],
		OwnerRefs: md["ownerReferences"], Generation: md["generation"]}
	for _, e := range managedFieldsOf(t, o) {
		if e.Manager == manager && e.Subresource == "status" {
			out.Owned = e.FieldsV1
		}
	}
	return out
}

// checkStatusMeta fails the case unless the write succeeded and its
// response carries want.
func checkStatusMeta(t testing.TB, what string, r response, manager string, want statusMeta) object {
	t.Helper()
	r.mustCode(t, http.StatusOK, what)
	o := decoded(t, r)
	if diff := cmp.Diff(want, statusMetaOf(t, o, manager)); diff != "" {
		t.Errorf("%s: metadata (-want +got):\n%s", what, diff)
	}
	return o
}

// fields decodes a fieldsV1 literal for a statusMeta.
func fields(t testing.TB, s string) any {
	t.Helper()
	return fieldsJSON(t, s)
}

// metaPatch merge-patches only the metadata of path's status subresource
// as manager.
func (e *env) metaPatch(ctx context.Context, path, manager string, md object) response {
	return e.c.do(ctx, e.t, request{Method: http.MethodPatch, Path: path + statusSubSuffix, Query: q("fieldManager", manager),
		Body: object{"metadata": md}, ContentType: mergePatchType})
}

// metaPut PUTs o, with its metadata changed by edit, to path's status
// subresource as manager.
func (e *env) metaPut(ctx context.Context, path, manager string, o object, edit func(md map[string]any)) response {
	edit(metaOf(o))
	return e.c.do(ctx, e.t, request{Method: http.MethodPut, Path: path + statusSubSuffix, Query: q("fieldManager", manager), Body: o})
}

// testOwner is an ownerReference a status write tries to add.
var testOwner = []any{object{"apiVersion": "v1", "kind": "ConfigMap", "name": "owner", "uid": "6f1c3c5e-5d7b-4f0e-9d2a-3f2b1c0d9e8a"}}

// runStatusMetadataPod: PATCH and PUT of pods/status store label and
// annotation changes (owned by the status writer) but not
// ownerReferences; the mirror pod and AppArmor annotations may not be
// added there.
func runStatusMetadataPod(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	p := pod("p", "node-a", object{"name": "c", "image": "busybox"})
	metaOf(p)["labels"] = object{"app": "p"}
	e.createPod(ctx, p)
	path := e.pods() + "/p"

	r := e.metaPatch(ctx, path, "meta-patch", object{"labels": object{"st": "patched"},
		"annotations": object{"example.com/st": "patched"}, "ownerReferences": testOwner})
	o := checkStatusMeta(t, "PATCH status labels, annotations, ownerReferences", r, "meta-patch", statusMeta{
		Labels: object{"app": "p", "st": "patched"}, Annotations: object{"example.com/st": "patched"}, Generation: float64(1),
		Owned: fields(t, `{"f:metadata":{"f:annotations":{".":{},"f:example.com/st":{}},"f:labels":{"f:st":{}}}}`)})

	r = e.metaPut(ctx, path, "meta-put", o, func(md map[string]any) {
		md["labels"] = object{"app": "p", "st": "put"}
		delete(md, "annotations")
	})
	checkStatusMeta(t, "PUT status labels changed, annotations removed", r, "meta-put", statusMeta{
		Labels: object{"app": "p", "st": "put"}, Generation: float64(1),
		Owned: fields(t, `{"f:metadata":{"f:labels":{"f:st":{}}}}`)})

	mirror := "kubernetes.io/config.mirror"
	r = e.metaPatch(ctx, path, "meta-patch", object{"annotations": object{mirror: "x"}})
	checkStatus(t, "PATCH status adds the mirror pod annotation", r, invalid("Pod", "", "p",
		cause(metav1.CauseTypeForbidden, "metadata.annotations["+mirror+"]", "Forbidden: may not add mirror pod annotation")))

	apparmor := "container.apparmor.security.beta.kubernetes.io/c"
	r = e.metaPatch(ctx, path, "meta-patch", object{"annotations": object{apparmor: "runtime/default"}})
	checkStatus(t, "PATCH status adds an AppArmor annotation", r, invalid("Pod", "", "p",
		cause(metav1.CauseTypeForbidden, "metadata.annotations["+apparmor+"]", "Forbidden: may not add AppArmor annotations")))
}

// runStatusMetadataPodAnnotations: a pod created with a mirror pod
// annotation keeps it through status writes, which may neither change
// nor remove it; an unbound pod may not carry it; a pod-deletion-cost is
// a 32-bit integer; an AppArmor annotation names a container and a
// profile.
func runStatusMetadataPodAnnotations(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	mirror := "kubernetes.io/config.mirror"
	p := pod("m", "node-a", object{"name": "c", "image": "busybox"})
	metaOf(p)["annotations"] = object{mirror: "x"}
	o := e.createPod(ctx, p)
	path := e.pods() + "/m"
	r := e.metaPatch(ctx, path, "meta-patch", object{"annotations": object{mirror: "y"}})
	checkStatus(t, "PATCH status changes the mirror pod annotation", r, invalid("Pod", "", "m",
		cause(metav1.CauseTypeForbidden, "metadata.annotations["+mirror+"]", "Forbidden: may not remove or update mirror pod annotation")))
	r = e.metaPut(ctx, path, "meta-put", o, func(md map[string]any) { delete(md, "annotations") })
	checkStatus(t, "PUT status removes the mirror pod annotation", r, invalid("Pod", "", "m",
		cause(metav1.CauseTypeForbidden, "metadata.annotations["+mirror+"]", "Forbidden: may not remove or update mirror pod annotation")))
	r = e.metaPatch(ctx, path, "meta-patch", object{"annotations": object{"example.com/x": "y"}})
	checkStatusMeta(t, "PATCH status adds another annotation", r, "meta-patch", statusMeta{
		Annotations: object{mirror: "x", "example.com/x": "y"}, Generation: float64(1),
		Owned: fields(t, `{"f:metadata":{"f:annotations":{"f:example.com/x":{}}}}`)})

	e.createPod(ctx, pod("u", "", object{"name": "c", "image": "busybox"}))
	r = e.metaPatch(ctx, e.pods()+"/u", "meta-patch", object{"annotations": object{mirror: "x", "controller.kubernetes.io/pod-deletion-cost": "+1"}})
	checkStatus(t, "PATCH status of an unbound pod", r, invalid("Pod", "", "u",
		cause(metav1.CauseTypeForbidden, "metadata.annotations["+mirror+"]", "Forbidden: may not add mirror pod annotation"),
		invalidValue("metadata.annotations["+mirror+"]", "x", "must set spec.nodeName if mirror pod annotation is set"),
		invalidValue("metadata.annotations[controller.kubernetes.io/pod-deletion-cost]", "+1", "must be a 32bit integer")))

	apparmor := "container.apparmor.security.beta.kubernetes.io/other"
	r = e.metaPatch(ctx, e.pods()+"/u", "meta-patch", object{"annotations": object{apparmor: "bad"}})
	checkStatus(t, "PATCH status adds a bad AppArmor annotation", r, invalid("Pod", "", "u",
		cause(metav1.CauseTypeForbidden, "metadata.annotations["+apparmor+"]", "Forbidden: may not add AppArmor annotations"),
		invalidValue("metadata.annotations["+apparmor+"]", "other", "container not found"),
		invalidValue("metadata.annotations["+apparmor+"]", "bad", `invalid AppArmor profile name: "bad"`)))
}

// runStatusMetadataDeployment: the Deployment status strategy resets the
// labels (its reset fields say so: the writer owns none) and keeps
// annotation changes, through PATCH, PUT and apply.
func runStatusMetadataDeployment(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	e.createAt(ctx, e.deployments(), deployment("d", 1), "create deployment")
	path := e.deployments() + "/d"

	r := e.metaPatch(ctx, path, "meta-patch", object{"labels": object{"st": "patched"}, "annotations": object{"example.com/st": "patched"}})
	o := checkStatusMeta(t, "PATCH status labels and annotations", r, "meta-patch", statusMeta{
		Annotations: object{"example.com/st": "patched"}, Generation: float64(1),
		Owned: fields(t, `{"f:metadata":{"f:annotations":{".":{},"f:example.com/st":{}}}}`)})

	r = e.metaPut(ctx, path, "meta-put", o, func(md map[string]any) {
		md["labels"] = object{"st": "put"}
		md["annotations"] = object{"example.com/st": "put"}
	})
	checkStatusMeta(t, "PUT status labels and annotations", r, "meta-put", statusMeta{
		Annotations: object{"example.com/st": "put"}, Generation: float64(1),
		Owned: fields(t, `{"f:metadata":{"f:annotations":{"f:example.com/st":{}}}}`)})

	body := "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\n  labels:\n    st: applied\n  annotations:\n    example.com/applied: \"yes\"\n"
	r = e.apply(ctx, path+statusSubSuffix, body, "fieldManager", "meta-apply")
	checkStatusMeta(t, "apply status labels and annotations", r, "meta-apply", statusMeta{
		Annotations: object{"example.com/st": "put", "example.com/applied": "yes"}, Generation: float64(1),
		Owned: fields(t, `{"f:metadata":{"f:annotations":{"f:example.com/applied":{}}}}`)})
}

// runStatusMetadataKeepsAll: a ReplicaSet's status strategy only resets
// the spec, so a status write stores labels, annotations, finalizers and
// ownerReferences, adds and removals alike; generation does not move.
func runStatusMetadataKeepsAll(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	rs := deployment("r", 1)
	rs["kind"] = "ReplicaSet"
	e.createAt(ctx, e.appsPath("replicasets"), rs, "create replicaset")
	path := e.appsPath("replicasets") + "/r"

	r := e.metaPatch(ctx, path, "meta-patch", object{"labels": object{"st": "patched"}, "annotations": object{"example.com/st": "patched"},
		"finalizers": []any{"example.com/f"}, "ownerReferences": testOwner})
	o := checkStatusMeta(t, "PATCH status metadata", r, "meta-patch", statusMeta{
		Labels: object{"st": "patched"}, Annotations: object{"example.com/st": "patched"},
		Finalizers: []any{"example.com/f"}, OwnerRefs: testOwner, Generation: float64(1),
		Owned: fields(t, `{"f:metadata":{"f:annotations":{".":{},"f:example.com/st":{}},"f:finalizers":{".":{},"v:\"example.com/f\"":{}},"f:labels":{".":{},"f:st":{}},"f:ownerReferences":{".":{},"k:{\"uid\":\"6f1c3c5e-5d7b-4f0e-9d2a-3f2b1c0d9e8a\"}":{}}}}`)})

	r = e.metaPut(ctx, path, "meta-put", o, func(md map[string]any) {
		md["labels"] = object{"st": "put"}
		delete(md, "finalizers")
		delete(md, "ownerReferences")
	})
	checkStatusMeta(t, "PUT status removes finalizers and ownerReferences", r, "meta-put", statusMeta{
		Labels: object{"st": "put"}, Annotations: object{"example.com/st": "patched"}, Generation: float64(1),
		Owned: fields(t, `{"f:metadata":{"f:labels":{"f:st":{}}}}`)})
}

// runStatusMetadataCustomResource: the custom resource status strategy
// keeps only the request's status, so metadata changes through /status
// are dropped, and the writer's entry does not claim them (its reset
// fields name metadata and spec). The CRD's own status strategy resets
// nothing.
func runStatusMetadataCustomResource(ctx context.Context, t *testing.T, target Target) {
	ce := setupCRD(ctx, t, target)
	ce.createWidget(ctx, "w", object{"size": 1})
	path := ce.widgets() + "/w"

	r := ce.metaPatch(ctx, path, "meta-patch", object{"labels": object{"st": "patched"}, "annotations": object{"example.com/st": "patched"}})
	o := checkStatusMeta(t, "PATCH status labels and annotations", r, "meta-patch", statusMeta{Generation: float64(1)})

	r = ce.metaPut(ctx, path, "meta-put", o, func(md map[string]any) { md["labels"] = object{"st": "put"} })
	checkStatusMeta(t, "PUT status labels", r, "meta-put", statusMeta{Generation: float64(1)})

	// With a status change, the writer owns the status only.
	r = ce.c.do(ctx, t, request{Method: http.MethodPatch, Path: path + statusSubSuffix, Query: q("fieldManager", "meta-patch"),
		Body: object{"metadata": object{"labels": object{"st": "patched"}}, "status": object{"replicas": 2}}, ContentType: mergePatchType})
	checkStatusMeta(t, "PATCH status labels and replicas", r, "meta-patch", statusMeta{Generation: float64(1),
		Owned: fields(t, `{"f:status":{".":{},"f:replicas":{}}}`)})

	crd := crdPath + "/" + ce.name
	r = ce.metaPatch(ctx, crd, "meta-patch", object{"labels": object{"st": "patched"}})
	got := statusMetaOf(t, decodedOK(t, r, "PATCH CRD status labels"), "meta-patch")
	if diff := cmp.Diff(object{"st": "patched"}, got.Labels); diff != "" {
		t.Errorf("CRD labels after PATCH status (-want +got):\n%s", diff)
	}
}

// decodedOK is the object of a 200 response.
func decodedOK(t testing.TB, r response, what string) object {
	t.Helper()
	r.mustCode(t, http.StatusOK, what)
	return decoded(t, r)
}

// runStatusMetadataReset: a FlowSchema's status strategy keeps the whole
// stored metadata (its reset fields name metadata), so metadata-only
// status patches change nothing and record no owner. (Merge patches only:
// a PUT would race the APF controller's status writes on the real
// server. generation is not compared: lw-sim's FlowSchemas have none.)
func runStatusMetadataReset(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	const fsPath = "/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas"
	name := "lwsim-" + randomSuffix()
	e.createAt(ctx, fsPath, object{"apiVersion": "flowcontrol.apiserver.k8s.io/v1", "kind": "FlowSchema",
		"metadata": object{"name": name, "labels": object{"app": "fs"}},
		"spec":     object{"priorityLevelConfiguration": object{"name": "global-default"}, "matchingPrecedence": 9000}}, "create flowschema")
	t.Cleanup(func() { e.c.do(context.Background(), t, request{Method: http.MethodDelete, Path: fsPath + "/" + name}) })
	path := fsPath + "/" + name
	for _, md := range []object{
		{"labels": object{"st": "patched"}, "annotations": object{"example.com/st": "patched"}, "finalizers": []any{"example.com/f"}},
		{"labels": object{"app": nil}},
	} {
		got := statusMetaOf(t, decodedOK(t, e.metaPatch(ctx, path, "meta-patch", md), "PATCH status metadata"), "meta-patch")
		got.Generation = nil
		if diff := cmp.Diff(statusMeta{Labels: object{"app": "fs"}}, got); diff != "" {
			t.Errorf("PATCH status metadata %v (-want +got):\n%s", md, diff)
		}
	}
}

// runStatusMetadataCSR: a CertificateSigningRequest's status and approval
// strategies leave the metadata alone, so both subresources store label
// changes, owned by their writers.
func runStatusMetadataCSR(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	path := e.createCSR(ctx, target)
	r := e.metaPatch(ctx, path, "meta-patch", object{"labels": object{"st": "patched"}})
	checkStatusMeta(t, "PATCH status labels", r, "meta-patch", statusMeta{Labels: object{"app": "csr", "st": "patched"},
		Owned: fields(t, `{"f:metadata":{"f:labels":{"f:st":{}}}}`)})

	r = e.c.do(ctx, t, request{Method: http.MethodPatch, Path: path + "/approval", Query: q("fieldManager", "meta-approval"),
		Body: object{"metadata": object{"labels": object{"approval": "yes"}}}, ContentType: mergePatchType})
	r.mustCode(t, http.StatusOK, "PATCH approval labels")
	o := decoded(t, r)
	var owned any
	for _, e := range managedFieldsOf(t, o) {
		if e.Manager == "meta-approval" && e.Subresource == "approval" {
			owned = e.FieldsV1
		}
	}
	want := statusMeta{Labels: object{"app": "csr", "st": "patched", "approval": "yes"}, Owned: fields(t, `{"f:metadata":{"f:labels":{"f:approval":{}}}}`)}
	got := statusMetaOf(t, o, "")
	got.Owned = owned
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("PATCH approval labels (-want +got):\n%s", diff)
	}
}
