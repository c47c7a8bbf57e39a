package conformance

import (
	"context"
	"encoding/json"
	"net/http"
	"sort"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// applyCases are the cases of this file, in the order [Cases] runs them.
func applyCases() []Case {
	return []Case{
		{Name: "ApplyCreate", Run: runApplyCreate},
		{Name: "ApplyUpdate", Run: runApplyUpdate},
		{Name: "ApplyConflict", Run: runApplyConflict},
		{Name: "ApplyForce", Run: runApplyForce},
		{Name: "ApplyOptionErrors", Run: runApplyOptionErrors},
		{Name: "ApplyBodyErrors", Run: runApplyBodyErrors},
		{Name: "ManagedFieldsCreateUpdatePatch", Run: runManagedFieldsCreateUpdatePatch},
		{Name: "ApplyStatus", Run: runApplyStatus},
		{Name: "ManagedFieldsPodDefaults", Run: runManagedFieldsPodDefaults},
		{Name: "ManagedFieldsSystemNamespace", Run: runManagedFieldsSystemNamespace},
		{Name: "ManagedFieldsUserAgentManager", Run: runManagedFieldsUserAgentManager},
		{Name: "ApplyFieldValidation", Run: runApplyFieldValidation},
		{Name: "ApplyDryRun", Run: runApplyDryRun},
		{Name: "ManagedFieldsScale", Run: runManagedFieldsScale},
	}
}

// applyContentType is server-side apply's patch media type.
const applyContentType = "application/apply-patch+yaml"

// managedEntry is a managedFields entry with its time checked for format
// and dropped, so entries compare across servers and runs.
type managedEntry struct {
	Manager     string `json:"manager"`
	Operation   string `json:"operation"`
	APIVersion  string `json:"apiVersion"`
	Subresource string `json:"subresource,omitempty"`
	FieldsType  string `json:"fieldsType"`
	FieldsV1    any    `json:"fieldsV1"`
}

// managedFieldsOf returns obj's managedFields normalised: every time must be
// RFC 3339 in UTC at second precision or absent, and is then dropped; entries are
// sorted by operation, manager and subresource (the server orders them by
// time within an operation, which differs from run to run).
func managedFieldsOf(t testing.TB, obj object) []managedEntry {
	t.Helper()
	raw, _ := json.Marshal(metaOf(obj)["managedFields"])
	var timed []struct {
		Time string `json:"time"`
	}
	var out []managedEntry
	if err := json.Unmarshal(raw, &timed); err != nil {
		t.Fatalf("managedFields %s: %v", raw, err)
	}
	for i, e := range timed {
		if e.Time == "" {
			continue // entries converted back from the scale subresource have none (managedfields.ScaleHandler.ToParent)
		}
		if _, err := time.Parse("2006-01-02T15:04:05Z", e.Time); err != nil {
			t.Errorf("managedFields[%d].time = %q: %v", i, e.Time, err)
		}
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("managedFields %s: %v", raw, err)
	}
	sort.SliceStable(out, func(i, j int) bool {
		p, q := out[i], out[j]
		if p.Operation != q.Operation {
			return p.Operation < q.Operation
		}
		if p.Manager != q.Manager {
			return p.Manager < q.Manager
		}
		return p.Subresource < q.Subresource
	})
	return out
}

// fieldsJSON decodes a fieldsV1 literal.
func fieldsJSON(t testing.TB, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("bad fieldsV1 literal %s: %v", s, err)
	}
	return v
}

// v1Entry is an expected entry of a core/v1 object on the main resource.
func v1Entry(t testing.TB, manager, op, fields string) managedEntry {
	return managedEntry{Manager: manager, Operation: op, APIVersion: "v1", FieldsType: "FieldsV1", FieldsV1: fieldsJSON(t, fields)}
}

// checkManaged fails the test if obj's managedFields differ from want.
func checkManaged(t testing.TB, what string, obj object, want ...managedEntry) {
	t.Helper()
	if diff := cmp.Diff(want, managedFieldsOf(t, obj)); diff != "" {
		t.Errorf("%s: managedFields (-want +got):\n%s", what, diff)
	}
}

// apply sends a server-side apply of body (YAML or JSON text) to path.
func (e *env) apply(ctx context.Context, path, body string, kv ...string) response {
	e.t.Helper()
	return e.c.do(ctx, e.t, request{Method: http.MethodPatch, Path: path, Query: q(kv...), Body: []byte(body), ContentType: applyContentType})
}

// applyCM is an applied ConfigMap configuration with data k=v.
func applyCM(name, v string) string {
	return "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: " + name + "\ndata:\n  k: " + v + "\n"
}

// decoded is the object r carries.
func decoded(t testing.TB, r response) object {
	t.Helper()
	var o object
	r.decode(t, &o)
	return o
}

// runApplyCreate: apply to a missing object creates it (201), owned by the
// applier with operation Apply.
func runApplyCreate(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	r := e.apply(ctx, e.cms()+"/a", applyCM("a", "one"), "fieldManager", "applier")
	r.mustCode(t, http.StatusCreated, "apply (create)")
	o := decoded(t, r)
	if uid, _ := metaOf(o)["uid"].(string); !uuidRE.MatchString(uid) {
		t.Errorf("uid = %q, want a UUID", uid)
	}
	checkManaged(t, "after apply create", o, v1Entry(t, "applier", "Apply", `{"f:data":{"f:k":{}}}`))
}

// runApplyUpdate: apply to an existing object updates it (200) and the
// applier owns exactly the fields of its latest configuration.
func runApplyUpdate(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	e.apply(ctx, e.cms()+"/a", applyCM("a", "one"), "fieldManager", "applier").mustCode(t, http.StatusCreated, "apply (create)")
	body := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  labels:\n    app: x\ndata:\n  j: two\n"
	r := e.apply(ctx, e.cms()+"/a", body, "fieldManager", "applier")
	r.mustCode(t, http.StatusOK, "apply (update)")
	o := decoded(t, r)
	if diff := cmp.Diff(map[string]any{"j": "two"}, o["data"]); diff != "" {
		t.Errorf("data (-want +got): the field the applier stopped applying is removed\n%s", diff)
	}
	checkManaged(t, "after apply update", o, v1Entry(t, "applier", "Apply", `{"f:data":{"f:j":{}},"f:metadata":{"f:labels":{"f:app":{}}}}`))
	again := e.apply(ctx, e.cms()+"/a", body, "fieldManager", "applier")
	again.mustCode(t, http.StatusOK, "apply (same again)")
	if got, want := rvOf(t, decoded(t, again)), rvOf(t, o); got != want {
		t.Errorf("re-applying the same configuration moved the RV %d -> %d", want, got)
	}
}

// runApplyConflict: applying a field another manager set by update is 409
// Conflict naming the manager, its apiVersion and the field path.
func runApplyConflict(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	e.c.do(ctx, t, request{Method: http.MethodPost, Path: e.cms(), Query: q("fieldManager", "creator"), Body: cm("a", nil, "v")}).
		mustCode(t, http.StatusCreated, "create")
	r := e.apply(ctx, e.cms()+"/a", applyCM("a", "mine"), "fieldManager", "applier")
	checkStatus(t, "conflicting apply", r, wantStatus(http.StatusConflict, metav1.StatusReasonConflict,
		`Apply failed with 1 conflict: conflict with "creator" using v1: .data.k`,
		&metav1.StatusDetails{Causes: []metav1.StatusCause{{Type: metav1.CauseTypeFieldManagerConflict, Message: `conflict with "creator" using v1`, Field: ".data.k"}}}))
	two := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  labels:\n    l: x\ndata:\n  k: mine\n"
	e.c.do(ctx, t, request{Method: http.MethodPatch, Path: e.cms() + "/a", Query: q("fieldManager", "labeller"), ContentType: "application/merge-patch+json",
		Body: object{"metadata": object{"labels": object{"l": "y"}}}}).mustCode(t, http.StatusOK, "label patch")
	r = e.apply(ctx, e.cms()+"/a", two, "fieldManager", "applier")
	checkStatus(t, "two conflicts", sortedCauses(t, r), wantStatus(http.StatusConflict, metav1.StatusReasonConflict,
		"Apply failed with 2 conflicts: conflicts with \"creator\" using v1:\n- .data.k\nconflicts with \"labeller\" using v1:\n- .metadata.labels.l",
		&metav1.StatusDetails{Causes: []metav1.StatusCause{
			{Type: metav1.CauseTypeFieldManagerConflict, Message: `conflict with "creator" using v1`, Field: ".data.k"},
			{Type: metav1.CauseTypeFieldManagerConflict, Message: `conflict with "labeller" using v1`, Field: ".metadata.labels.l"},
		}}))
}

// sortedCauses returns r with its Status causes sorted by field: the
// field manager lists conflicts in map order (structured-merge-diff
// ConflictsFromManagers), on the real server as here; the message is sorted.
func sortedCauses(t testing.TB, r response) response {
	t.Helper()
	st := r.status(t)
	if st.Details != nil {
		sort.Slice(st.Details.Causes, func(i, j int) bool { return st.Details.Causes[i].Field < st.Details.Causes[j].Field })
	}
	body, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	r.Body = body
	return r
}

// runApplyForce: force=true takes the conflicting field over; the previous
// owner keeps the rest.
func runApplyForce(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	e.c.do(ctx, t, request{Method: http.MethodPost, Path: e.cms(), Query: q("fieldManager", "creator"), Body: cm("a", map[string]string{"app": "x"}, "v")}).
		mustCode(t, http.StatusCreated, "create")
	r := e.apply(ctx, e.cms()+"/a", applyCM("a", "mine"), "fieldManager", "applier", "force", "true")
	r.mustCode(t, http.StatusOK, "forced apply")
	o := decoded(t, r)
	checkManaged(t, "after force", o,
		v1Entry(t, "applier", "Apply", `{"f:data":{"f:k":{}}}`),
		v1Entry(t, "creator", "Update", `{"f:data":{},"f:metadata":{"f:labels":{".":{},"f:app":{}}}}`))
}

// runApplyOptionErrors: apply needs fieldManager (422 on PatchOptions);
// force is only for apply (422).
func runApplyOptionErrors(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	r := e.apply(ctx, e.cms()+"/a", applyCM("a", "v"))
	checkStatus(t, "apply without fieldManager", r, wantStatus(http.StatusUnprocessableEntity, metav1.StatusReasonInvalid,
		`PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch`,
		&metav1.StatusDetails{Group: "meta.k8s.io", Kind: "PatchOptions", Causes: []metav1.StatusCause{{Type: metav1.CauseTypeFieldValueRequired, Message: "Required value: is required for apply patch", Field: "fieldManager"}}}))
	e.createN(ctx, "b")
	r = e.c.do(ctx, t, request{Method: http.MethodPatch, Path: e.cms() + "/b", Query: q("force", "true"), ContentType: "application/merge-patch+json", Body: object{}})
	checkStatus(t, "force on a merge patch", r, wantStatus(http.StatusUnprocessableEntity, metav1.StatusReasonInvalid,
		`PatchOptions.meta.k8s.io "" is invalid: force: Forbidden: may not be specified for non-apply patch`,
		&metav1.StatusDetails{Group: "meta.k8s.io", Kind: "PatchOptions", Causes: []metav1.StatusCause{{Type: "FieldValueForbidden", Message: "Forbidden: may not be specified for non-apply patch", Field: "force"}}}))
}

// runApplyBodyErrors: an apply body of another apiVersion or kind, of
// another name, or carrying managedFields is 400.
func runApplyBodyErrors(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	cases := []struct{ name, body, msg string }{
		{"other apiVersion", "apiVersion: v2\nkind: ConfigMap\nmetadata:\n  name: a\n", "invalid object type: /v2, Kind=ConfigMap"},
		{"other kind", "apiVersion: v1\nkind: Secret\nmetadata:\n  name: a\n", "invalid object type: /v1, Kind=Secret"},
		{"other name", applyCM("other", "v"), "the name of the object (other) does not match the name on the URL (a)"},
		{"managedFields", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  managedFields: []\n", "metadata.managedFields must be nil"},
		{"not YAML", "a: [", "error encoding patch: yaml: line 1: did not find expected node content"},
	}
	for _, tc := range cases {
		r := e.apply(ctx, e.cms()+"/a", tc.body, "fieldManager", "m")
		checkStatus(t, tc.name, r, badRequest(tc.msg))
	}
}

// runManagedFieldsCreateUpdatePatch: creates, updates and patches record
// their manager (the fieldManager parameter) with operation Update and the
// fields they set or changed.
func runManagedFieldsCreateUpdatePatch(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	r := e.c.do(ctx, t, request{Method: http.MethodPost, Path: e.cms(), Query: q("fieldManager", "creator"), Body: cm("a", map[string]string{"app": "x"}, "v")})
	r.mustCode(t, http.StatusCreated, "create")
	created := v1Entry(t, "creator", "Update", `{"f:data":{".":{},"f:k":{}},"f:metadata":{"f:labels":{".":{},"f:app":{}}}}`)
	checkManaged(t, "after create", decoded(t, r), created)

	body := cm("a", map[string]string{"app": "x"}, "v")
	body["data"].(object)["j"] = "w"
	r = e.c.do(ctx, t, request{Method: http.MethodPut, Path: e.cms() + "/a", Query: q("fieldManager", "updater"), Body: body})
	r.mustCode(t, http.StatusOK, "update")
	updated := v1Entry(t, "updater", "Update", `{"f:data":{"f:j":{}}}`)
	checkManaged(t, "after update", decoded(t, r), created, updated)

	r = e.c.do(ctx, t, request{Method: http.MethodPatch, Path: e.cms() + "/a", Query: q("fieldManager", "patcher"), ContentType: "application/strategic-merge-patch+json",
		Body: object{"data": object{"k": "changed"}}})
	r.mustCode(t, http.StatusOK, "patch")
	checkManaged(t, "after patch", decoded(t, r),
		v1Entry(t, "creator", "Update", `{"f:data":{},"f:metadata":{"f:labels":{".":{},"f:app":{}}}}`),
		v1Entry(t, "patcher", "Update", `{"f:data":{"f:k":{}}}`),
		updated)

	r = e.c.do(ctx, t, request{Path: e.cms() + "/a"})
	r.mustCode(t, http.StatusOK, "get")
	if len(managedFieldsOf(t, decoded(t, r))) != 3 {
		t.Errorf("GET does not carry the stored managedFields: %s", r.Body)
	}
}

// runApplyStatus: an apply to pods/status owns status fields under
// subresource "status"; spec in it is ignored and not owned, and a status
// in a main-resource apply is neither kept nor owned.
func runApplyStatus(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	pods := nsPath(e.ns, "pods")
	pod := "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n  - name: c\n    image: busybox\nstatus:\n  message: hello\n"
	r := e.apply(ctx, pods+"/p", pod, "fieldManager", "owner")
	r.mustCode(t, http.StatusCreated, "apply pod")
	o := decoded(t, r)
	if st, _ := o["status"].(map[string]any); st["message"] != nil {
		t.Errorf("status.message = %v after a main-resource apply, want dropped", st["message"])
	}
	mainEntry := v1Entry(t, "owner", "Apply", `{"f:spec":{"f:containers":{"k:{\"name\":\"c\"}":{".":{},"f:image":{},"f:name":{}}}}}`)
	checkManaged(t, "after pod apply", o, mainEntry)

	status := "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  activeDeadlineSeconds: 5\nstatus:\n  conditions:\n  - type: example.com/Ready\n    status: \"True\"\n"
	r = e.apply(ctx, pods+"/p/status", status, "fieldManager", "reporter")
	r.mustCode(t, http.StatusOK, "apply status")
	o = decoded(t, r)
	if spec, _ := o["spec"].(map[string]any); spec["activeDeadlineSeconds"] != nil {
		t.Errorf("status apply set spec.activeDeadlineSeconds = %v", spec["activeDeadlineSeconds"])
	}
	statusEntry := v1Entry(t, "reporter", "Apply", `{"f:status":{"f:conditions":{"k:{\"type\":\"example.com/Ready\"}":{".":{},"f:status":{},"f:type":{}}}}}`)
	statusEntry.Subresource = "status"
	checkManaged(t, "after status apply", o, mainEntry, statusEntry)

	// A PUT to /status is recorded as an Update under subresource "status".
	o["status"].(map[string]any)["message"] = "hello"
	r = e.c.do(ctx, t, request{Method: http.MethodPut, Path: pods + "/p/status", Query: q("fieldManager", "putter"), Body: o})
	r.mustCode(t, http.StatusOK, "update status")
	putEntry := v1Entry(t, "putter", "Update", `{"f:status":{"f:message":{}}}`)
	putEntry.Subresource = "status"
	checkManaged(t, "after status update", decoded(t, r), mainEntry, statusEntry, putEntry)
}

// runManagedFieldsPodDefaults: a pod created with a minimal spec records
// the creator as owner of every field it sent and of the defaults the
// decoder filled in (before admission), but not of what admission and the
// strategy add (priority, tolerations, service account, status).
func runManagedFieldsPodDefaults(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	pod := object{
		"apiVersion": "v1", "kind": "Pod",
		"metadata": object{"name": "p", "labels": object{"app": "x"}},
		"spec": object{
			"nodeName":   "node-a",
			"containers": []any{object{"name": "main", "image": "registry.k8s.io/pause:3.10"}},
		},
	}
	r := e.c.do(ctx, t, request{Method: http.MethodPost, Path: nsPath(e.ns, "pods"), Query: q("fieldManager", "creator"), Body: pod})
	r.mustCode(t, http.StatusCreated, "create pod")
	checkManaged(t, "pod", decoded(t, r), v1Entry(t, "creator", "Update", podDefaultsFields))
}

// podDefaultsFields is what kube-apiserver v1.37.2 records for the pod of
// runManagedFieldsPodDefaults.
const podDefaultsFields = `{"f:metadata":{"f:labels":{".":{},"f:app":{}}},"f:spec":{` +
	`"f:containers":{"k:{\"name\":\"main\"}":{".":{},"f:image":{},"f:imagePullPolicy":{},"f:name":{},"f:resources":{},` +
	`"f:terminationMessagePath":{},"f:terminationMessagePolicy":{}}},"f:dnsPolicy":{},"f:enableServiceLinks":{},"f:nodeName":{},` +
	`"f:restartPolicy":{},"f:schedulerName":{},"f:securityContext":{},"f:terminationGracePeriodSeconds":{}}}`

// runManagedFieldsSystemNamespace: the namespaces kube-apiserver creates
// itself are owned by the User-Agent prefix of its loopback client,
// "kube-apiserver" (its label). tools/realapiserver runs kube-apiserver
// inside a Go test binary named realapiserver, whose loopback client
// therefore says "realapiserver"; that name counts as kube-apiserver's.
func runManagedFieldsSystemNamespace(ctx context.Context, t *testing.T, target Target) {
	c := newClient(t, target)
	r := c.do(ctx, t, request{Path: "/api/v1/namespaces/kube-public"})
	r.mustCode(t, http.StatusOK, "get namespace kube-public")
	got := managedFieldsOf(t, decoded(t, r))
	for i := range got {
		if got[i].Manager == "realapiserver" {
			got[i].Manager = "kube-apiserver"
		}
	}
	want := []managedEntry{v1Entry(t, "kube-apiserver", "Update", `{"f:metadata":{"f:labels":{".":{},"f:kubernetes.io/metadata.name":{}}}}`)}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("kube-public: managedFields (-want +got):\n%s", diff)
	}
}

// runManagedFieldsUserAgentManager: without fieldManager, the manager is
// the User-Agent up to its first "/" (Go's default agent here).
func runManagedFieldsUserAgentManager(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	checkManaged(t, "create without fieldManager", e.create(ctx, "a", nil), v1Entry(t, "Go-http-client", "Update", `{"f:data":{".":{},"f:k":{}}}`))
}

// runApplyFieldValidation: an applied configuration with an unknown field
// or a mistyped value fails the typed conversion (500 with the field
// manager's message); duplicate fields are 400 under Strict.
func runApplyFieldValidation(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	r := e.apply(ctx, e.cms()+"/a", applyCM("a", "v")+"bogus: 1\n", "fieldManager", "m")
	checkStatus(t, "unknown field", r, wantStatus(http.StatusInternalServerError, "",
		"failed to create typed patch object (/a; /v1, Kind=ConfigMap): .bogus: field not declared in schema", nil))
	r = e.apply(ctx, e.cms()+"/a", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: y\n", "fieldManager", "m")
	checkStatus(t, "name parsed as a YAML boolean", r, wantStatus(http.StatusInternalServerError, "",
		"failed to create typed patch object (/; /v1, Kind=ConfigMap): .metadata.name: expected string, got &value.valueUnstructured{Value:true}", nil))
	r = e.apply(ctx, e.cms()+"/a", applyCM("a", "v")+"data:\n  j: w\n", "fieldManager", "m", "fieldValidation", "Strict")
	checkStatus(t, "duplicate field, Strict", r, badRequest("error strict decoding patch: error converting YAML to JSON: yaml: unmarshal errors:\n  line 7: key \"data\" already set in map"))
}

// runApplyDryRun: with dryRun=All an apply answers as it would (201 with
// the created object, 200 with the merged one, managedFields included) and
// stores nothing.
func runApplyDryRun(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	r := e.apply(ctx, e.cms()+"/a", applyCM("a", "one"), "fieldManager", "applier", "dryRun", "All")
	r.mustCode(t, http.StatusCreated, "dry-run apply (create)")
	checkManaged(t, "dry-run create", decoded(t, r), v1Entry(t, "applier", "Apply", `{"f:data":{"f:k":{}}}`))
	e.c.do(ctx, t, request{Path: e.cms() + "/a"}).mustCode(t, http.StatusNotFound, "get after a dry-run create")

	e.apply(ctx, e.cms()+"/a", applyCM("a", "one"), "fieldManager", "applier").mustCode(t, http.StatusCreated, "apply (create)")
	r = e.apply(ctx, e.cms()+"/a", applyCM("a", "two"), "fieldManager", "other", "dryRun", "All", "force", "true")
	r.mustCode(t, http.StatusOK, "dry-run forced apply")
	if d := decoded(t, r)["data"]; !cmp.Equal(d, map[string]any{"k": "two"}) {
		t.Errorf("dry-run apply answered data %v, want k=two", d)
	}
	got := decoded(t, e.c.do(ctx, t, request{Path: e.cms() + "/a"}))
	if d := got["data"]; !cmp.Equal(d, map[string]any{"k": "one"}) {
		t.Errorf("stored data %v after a dry-run apply, want k=one", d)
	}
	checkManaged(t, "stored after dry run", got, v1Entry(t, "applier", "Apply", `{"f:data":{"f:k":{}}}`))
}

// entryOf returns obj's managedFields entry of manager, or nil.
func entryOf(t testing.TB, obj object, manager string) *managedEntry {
	t.Helper()
	for _, e := range managedFieldsOf(t, obj) {
		if e.Manager == manager {
			return &e
		}
	}
	return nil
}

// runManagedFieldsScale: a patch and an apply of deployments/NAME/scale are
// recorded on the Deployment under subresource "scale", owning
// spec.replicas, which the creator no longer owns once it changed; an
// applied Scale conflicts with the manager that set the replicas.
func runManagedFieldsScale(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	e.c.do(ctx, t, request{Method: http.MethodPost, Path: e.deployments(), Query: q("fieldManager", "creator"), Body: deployment("web", 2)}).
		mustCode(t, http.StatusCreated, "create deployment")
	e.c.do(ctx, t, request{Method: http.MethodPatch, Path: e.deployments() + "/web/scale", Query: q("fieldManager", "scaler"),
		ContentType: "application/merge-patch+json", Body: object{"spec": object{"replicas": 3}}}).mustCode(t, http.StatusOK, "patch scale")
	d := decoded(t, e.c.do(ctx, t, request{Path: e.deployments() + "/web"}))
	want := managedEntry{Manager: "scaler", Operation: "Update", APIVersion: "apps/v1", Subresource: "scale", FieldsType: "FieldsV1",
		FieldsV1: fieldsJSON(t, `{"f:spec":{"f:replicas":{}}}`)}
	if diff := cmp.Diff(&want, entryOf(t, d, "scaler")); diff != "" {
		t.Errorf("scaler's entry (-want +got):\n%s", diff)
	}
	if c := entryOf(t, d, "creator"); c == nil {
		t.Errorf("creator's entry is gone: %v", managedFieldsOf(t, d))
	} else if spec, _ := c.FieldsV1.(map[string]any)["f:spec"].(map[string]any); spec["f:replicas"] != nil {
		t.Errorf("creator still owns spec.replicas: %v", c.FieldsV1)
	}

	scaleBody := "apiVersion: autoscaling/v1\nkind: Scale\nmetadata:\n  name: web\nspec:\n  replicas: 4\n"
	r := e.apply(ctx, e.deployments()+"/web/scale", scaleBody, "fieldManager", "autoscaler")
	checkStatus(t, "conflicting scale apply", r, wantStatus(http.StatusConflict, metav1.StatusReasonConflict,
		`Apply failed with 1 conflict: conflict with "scaler" with subresource "scale" using autoscaling/v1: .spec.replicas`,
		&metav1.StatusDetails{Causes: []metav1.StatusCause{{Type: metav1.CauseTypeFieldManagerConflict, Message: `conflict with "scaler" with subresource "scale" using autoscaling/v1`, Field: ".spec.replicas"}}}))
	r = e.apply(ctx, e.deployments()+"/web/scale", scaleBody, "fieldManager", "autoscaler", "force", "true")
	r.mustCode(t, http.StatusOK, "forced scale apply")
	if spec, _ := decoded(t, r)["spec"].(map[string]any); spec["replicas"] != float64(4) {
		t.Errorf("scale after apply = %v, want replicas 4", spec)
	}
	d = decoded(t, e.c.do(ctx, t, request{Path: e.deployments() + "/web"}))
	want = managedEntry{Manager: "autoscaler", Operation: "Apply", APIVersion: "apps/v1", Subresource: "scale", FieldsType: "FieldsV1",
		FieldsV1: fieldsJSON(t, `{"f:spec":{"f:replicas":{}}}`)}
	if diff := cmp.Diff(&want, entryOf(t, d, "autoscaler")); diff != "" {
		t.Errorf("autoscaler's entry (-want +got):\n%s", diff)
	}
	if entryOf(t, d, "scaler") != nil {
		t.Errorf("scaler still has an entry after the forced apply took its only field: %v", managedFieldsOf(t, d))
	}
}
