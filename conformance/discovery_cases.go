package conformance

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// discoveryCases are the cases of this file, in the order [Cases] runs them.
func discoveryCases() []Case {
	return []Case{
		{Name: "DiscoveryBuiltinGroups", Run: runDiscoveryBuiltinGroups},
		{Name: "ReviewSelfSubjectAccess", Run: runReviewSelfSubjectAccess},
		{Name: "ReviewSubjectAccess", Run: runReviewSubjectAccess},
		{Name: "ReviewSelfSubjectRules", Run: runReviewSelfSubjectRules},
		{Name: "ReviewSelfSubject", Run: runReviewSelfSubject},
		{Name: "OpenAPIV2Served", Run: runOpenAPIV2Served},
		{Name: "OpenAPIV3Documents", Run: runOpenAPIV3Documents},
		{Name: "TableJob", Run: runTableJob},
		{Name: "TableDefaultColumns", Run: runTableDefaultColumns},
		{Name: "TablePolicyAndRBAC", Run: runTablePolicyAndRBAC},
	}
}

// allVerbs are the verbs of a stored resource.
var allVerbs = metav1.Verbs{"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"}

// tableAccept asks for a server-side Table.
const tableAccept = "application/json;as=Table;v=v1;g=meta.k8s.io"

// resourceList GETs the legacy discovery document of a group-version.
func resourceList(ctx context.Context, t *testing.T, c *client, path string) map[string]metav1.APIResource {
	t.Helper()
	r := c.do(ctx, t, request{Path: path})
	r.mustCode(t, http.StatusOK, "GET "+path)
	var l metav1.APIResourceList
	r.decode(t, &l)
	out := map[string]metav1.APIResource{}
	for _, res := range l.APIResources {
		out[res.Name] = res
	}
	return out
}

// runDiscoveryBuiltinGroups: the group-versions kube-apiserver serves by
// default are in /apis, and their resources have kube-apiserver's scope,
// verbs, short names, categories and singular names (namespaces without
// deletecollection, reviews create-only, componentstatuses read-only).
func runDiscoveryBuiltinGroups(ctx context.Context, t *testing.T, target Target) {
	c := newClient(t, target)
	r := c.do(ctx, t, request{Path: "/apis"})
	r.mustCode(t, http.StatusOK, "GET /apis")
	var groups metav1.APIGroupList
	r.decode(t, &groups)
	var got []string
	for _, g := range groups.Groups {
		for _, v := range g.Versions {
			got = append(got, v.GroupVersion)
		}
	}
	for _, gv := range []string{"batch/v1", "rbac.authorization.k8s.io/v1", "networking.k8s.io/v1", "policy/v1",
		"events.k8s.io/v1", "discovery.k8s.io/v1", "autoscaling/v1", "autoscaling/v2", "storage.k8s.io/v1",
		"scheduling.k8s.io/v1", "node.k8s.io/v1", "certificates.k8s.io/v1", "admissionregistration.k8s.io/v1",
		"flowcontrol.apiserver.k8s.io/v1", "resource.k8s.io/v1", "authorization.k8s.io/v1", "authentication.k8s.io/v1"} {
		if !slices.Contains(got, gv) {
			t.Errorf("/apis lacks %s; has %v", gv, got)
		}
	}
	tests := []struct {
		path string
		want metav1.APIResource
	}{
		{"/apis/batch/v1", metav1.APIResource{Name: "jobs", SingularName: "job", Namespaced: true, Kind: "Job", Verbs: allVerbs, Categories: []string{"all"}, StorageVersionHash: "mudhfqk/qZY="}},
		{"/apis/batch/v1", metav1.APIResource{Name: "cronjobs", SingularName: "cronjob", Namespaced: true, Kind: "CronJob", Verbs: allVerbs, ShortNames: []string{"cj"}, Categories: []string{"all"}, StorageVersionHash: "sd5LIXh4Fjs="}},
		{"/apis/rbac.authorization.k8s.io/v1", metav1.APIResource{Name: "clusterroles", SingularName: "clusterrole", Kind: "ClusterRole", Verbs: allVerbs, StorageVersionHash: "bYE5ZWDrJ44="}},
		{"/apis/networking.k8s.io/v1", metav1.APIResource{Name: "ingresses", SingularName: "ingress", Namespaced: true, Kind: "Ingress", Verbs: allVerbs, ShortNames: []string{"ing"}, StorageVersionHash: "39NQlfNR+bo="}},
		{"/apis/policy/v1", metav1.APIResource{Name: "poddisruptionbudgets", SingularName: "poddisruptionbudget", Namespaced: true, Kind: "PodDisruptionBudget", Verbs: allVerbs, ShortNames: []string{"pdb"}, StorageVersionHash: "EVWiDmWqyJw="}},
		{"/apis/events.k8s.io/v1", metav1.APIResource{Name: "events", SingularName: "event", Namespaced: true, Kind: "Event", Verbs: allVerbs, ShortNames: []string{"ev"}, StorageVersionHash: "r2yiGXH7wu8="}},
		{"/apis/discovery.k8s.io/v1", metav1.APIResource{Name: "endpointslices", SingularName: "endpointslice", Namespaced: true, Kind: "EndpointSlice", Verbs: allVerbs, StorageVersionHash: "qgS0xkrxYAI="}},
		{"/apis/autoscaling/v1", metav1.APIResource{Name: "horizontalpodautoscalers", SingularName: "horizontalpodautoscaler", Namespaced: true, Kind: "HorizontalPodAutoscaler", Verbs: allVerbs, ShortNames: []string{"hpa"}, Categories: []string{"all"}, StorageVersionHash: "qwQve8ut294="}},
		{"/apis/storage.k8s.io/v1", metav1.APIResource{Name: "storageclasses", SingularName: "storageclass", Kind: "StorageClass", Verbs: allVerbs, ShortNames: []string{"sc"}, StorageVersionHash: "K+m6uJwbjGY="}},
		{"/apis/authorization.k8s.io/v1", metav1.APIResource{Name: "selfsubjectaccessreviews", SingularName: "selfsubjectaccessreview", Kind: "SelfSubjectAccessReview", Verbs: metav1.Verbs{"create"}}},
		{"/apis/authorization.k8s.io/v1", metav1.APIResource{Name: "localsubjectaccessreviews", SingularName: "localsubjectaccessreview", Namespaced: true, Kind: "LocalSubjectAccessReview", Verbs: metav1.Verbs{"create"}}},
		{"/apis/authentication.k8s.io/v1", metav1.APIResource{Name: "selfsubjectreviews", SingularName: "selfsubjectreview", Kind: "SelfSubjectReview", Verbs: metav1.Verbs{"create"}}},
		{"/api/v1", metav1.APIResource{Name: "namespaces", SingularName: "namespace", Kind: "Namespace", Verbs: metav1.Verbs{"create", "delete", "get", "list", "patch", "update", "watch"}, ShortNames: []string{"ns"}, StorageVersionHash: "Q3oi5N2YM8M="}},
		{"/api/v1", metav1.APIResource{Name: "componentstatuses", SingularName: "componentstatus", Kind: "ComponentStatus", Verbs: metav1.Verbs{"get", "list"}, ShortNames: []string{"cs"}}},
	}
	lists := map[string]map[string]metav1.APIResource{}
	for _, tt := range tests {
		if lists[tt.path] == nil {
			lists[tt.path] = resourceList(ctx, t, c, tt.path)
		}
		got, ok := lists[tt.path][tt.want.Name]
		if !ok {
			t.Errorf("GET %s lacks %q", tt.path, tt.want.Name)
			continue
		}
		if diff := cmp.Diff(tt.want, got, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("GET %s %q mismatch (-want +got):\n%s", tt.path, tt.want.Name, diff)
		}
	}
	if _, ok := lists["/apis/batch/v1"]["jobs/status"]; !ok {
		t.Errorf("GET /apis/batch/v1 lacks jobs/status")
	}
}

// reviewBody is a review of the given kind and spec.
func reviewBody(group, kind string, spec object) object {
	return object{"apiVersion": group + "/v1", "kind": kind, "spec": spec}
}

// runReviewSelfSubjectAccess: POST selfsubjectaccessreviews is 201 with the
// spec echoed and status.allowed true; a spec with neither attribute set is
// kube-apiserver's 422; other methods and paths are 405 and 404.
func runReviewSelfSubjectAccess(ctx context.Context, t *testing.T, target Target) {
	c := newClient(t, target)
	const path = "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews"
	spec := object{"resourceAttributes": object{"namespace": "default", "verb": "create", "resource": "pods"}}
	r := c.do(ctx, t, request{Method: http.MethodPost, Path: path, Body: reviewBody("authorization.k8s.io", "SelfSubjectAccessReview", spec)})
	r.mustCode(t, http.StatusCreated, "create SelfSubjectAccessReview")
	var got object
	r.decode(t, &got)
	want := object{"kind": "SelfSubjectAccessReview", "apiVersion": "authorization.k8s.io/v1", "spec": spec, "status": object{"allowed": true}}
	delete(got, "metadata") // managedFields on the real server
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("SelfSubjectAccessReview answer mismatch (-want +got):\n%s", diff)
	}
	r = c.do(ctx, t, request{Method: http.MethodPost, Path: path, Body: reviewBody("authorization.k8s.io", "SelfSubjectAccessReview", object{})})
	msg := "exactly one of nonResourceAttributes or resourceAttributes must be specified"
	checkStatus(t, "empty SelfSubjectAccessReview", r, wantStatus(http.StatusUnprocessableEntity, metav1.StatusReasonInvalid,
		`.authorization.k8s.io "" is invalid: spec: Invalid value: null: `+msg,
		&metav1.StatusDetails{Group: "authorization.k8s.io", Causes: []metav1.StatusCause{{Type: metav1.CauseTypeFieldValueInvalid, Message: "Invalid value: null: " + msg, Field: "spec"}}}))
	r = c.do(ctx, t, request{Path: path})
	checkStatus(t, "GET selfsubjectaccessreviews", r, wantStatus(http.StatusMethodNotAllowed, metav1.StatusReasonMethodNotAllowed,
		"the server does not allow this method on the requested resource", &metav1.StatusDetails{}))
	r = c.do(ctx, t, request{Method: http.MethodDelete, Path: path + "/x"})
	checkStatus(t, "DELETE selfsubjectaccessreviews/x", r, wantStatus(http.StatusNotFound, metav1.StatusReasonNotFound,
		"the server could not find the requested resource", &metav1.StatusDetails{}))
}

// runReviewSubjectAccess: SubjectAccessReview needs a user or group (422),
// and LocalSubjectAccessReview's attributes must name its namespace (422);
// valid ones about a system:masters subject are allowed (201; other
// subjects: runRBACAccessReviews). LocalSubjectAccessReview has no
// cluster-wide path (404).
func runReviewSubjectAccess(ctx context.Context, t *testing.T, target Target) {
	c := newClient(t, target)
	attrs := object{"verb": "get", "resource": "pods"}
	r := c.do(ctx, t, request{Method: http.MethodPost, Path: "/apis/authorization.k8s.io/v1/subjectaccessreviews",
		Body: reviewBody("authorization.k8s.io", "SubjectAccessReview", object{"resourceAttributes": attrs})})
	msg := "at least one of user or group must be specified"
	checkStatus(t, "SubjectAccessReview without user", r, wantStatus(http.StatusUnprocessableEntity, metav1.StatusReasonInvalid,
		`.authorization.k8s.io "" is invalid: spec.user: Invalid value: "": `+msg,
		&metav1.StatusDetails{Group: "authorization.k8s.io", Causes: []metav1.StatusCause{{Type: metav1.CauseTypeFieldValueInvalid, Message: `Invalid value: "": ` + msg, Field: "spec.user"}}}))
	r = c.do(ctx, t, request{Method: http.MethodPost, Path: "/apis/authorization.k8s.io/v1/subjectaccessreviews",
		Body: reviewBody("authorization.k8s.io", "SubjectAccessReview", object{"user": "alice", "groups": []any{"system:masters"}, "resourceAttributes": attrs})})
	r.mustCode(t, http.StatusCreated, "create SubjectAccessReview")
	var got object
	r.decode(t, &got)
	if diff := cmp.Diff(object{"allowed": true}, got["status"]); diff != "" {
		t.Errorf("SubjectAccessReview status mismatch (-want +got):\n%s", diff)
	}
	local := "/apis/authorization.k8s.io/v1/namespaces/default/localsubjectaccessreviews"
	other := object{"verb": "get", "resource": "pods", "namespace": "other"}
	r = c.do(ctx, t, request{Method: http.MethodPost, Path: local,
		Body: reviewBody("authorization.k8s.io", "LocalSubjectAccessReview", object{"user": "alice", "resourceAttributes": other})})
	checkStatus(t, "LocalSubjectAccessReview of another namespace", r, wantStatus(http.StatusUnprocessableEntity, metav1.StatusReasonInvalid,
		`.authorization.k8s.io "" is invalid: spec.resourceAttributes.namespace: Invalid value: "other": must match metadata.namespace`,
		&metav1.StatusDetails{Group: "authorization.k8s.io", Causes: []metav1.StatusCause{{Type: metav1.CauseTypeFieldValueInvalid, Message: `Invalid value: "other": must match metadata.namespace`, Field: "spec.resourceAttributes.namespace"}}}))
	own := object{"verb": "get", "resource": "pods", "namespace": "default"}
	r = c.do(ctx, t, request{Method: http.MethodPost, Path: local,
		Body: reviewBody("authorization.k8s.io", "LocalSubjectAccessReview", object{"user": "alice", "groups": []any{"system:masters"}, "resourceAttributes": own})})
	r.mustCode(t, http.StatusCreated, "create LocalSubjectAccessReview")
	r.decode(t, &got)
	if ns := metaOf(got)["namespace"]; ns != "default" {
		t.Errorf("LocalSubjectAccessReview metadata.namespace = %v, want default", ns)
	}
	r = c.do(ctx, t, request{Method: http.MethodPost, Path: "/apis/authorization.k8s.io/v1/localsubjectaccessreviews",
		Body: reviewBody("authorization.k8s.io", "LocalSubjectAccessReview", object{"user": "alice", "resourceAttributes": own})})
	checkStatus(t, "cluster-wide localsubjectaccessreviews", r, wantStatus(http.StatusNotFound, metav1.StatusReasonNotFound,
		"the server could not find the requested resource", &metav1.StatusDetails{}))
}

// runReviewSelfSubjectRules: the rules of the admin user (system:masters
// under RBAC), and 400 without a namespace.
func runReviewSelfSubjectRules(ctx context.Context, t *testing.T, target Target) {
	c := newClient(t, target)
	const path = "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews"
	r := c.do(ctx, t, request{Method: http.MethodPost, Path: path, Body: reviewBody("authorization.k8s.io", "SelfSubjectRulesReview", object{"namespace": "default"})})
	r.mustCode(t, http.StatusCreated, "create SelfSubjectRulesReview")
	var got object
	r.decode(t, &got)
	// The rules RBAC lists for system:masters: the bootstrap roles of every
	// authenticated user, then cluster-admin's.
	strs := func(s ...string) []any {
		out := make([]any, len(s))
		for i := range s {
			out[i] = s[i]
		}
		return out
	}
	want := object{
		"kind": "SelfSubjectRulesReview", "apiVersion": "authorization.k8s.io/v1", "metadata": object{}, "spec": object{},
		"status": object{
			"resourceRules": []any{
				object{"verbs": strs("create"), "apiGroups": strs("authorization.k8s.io"), "resources": strs("selfsubjectaccessreviews", "selfsubjectrulesreviews")},
				object{"verbs": strs("create"), "apiGroups": strs("authentication.k8s.io"), "resources": strs("selfsubjectreviews")},
				object{"verbs": strs("*"), "apiGroups": strs("*"), "resources": strs("*")},
			},
			"nonResourceRules": []any{
				object{"verbs": strs("get"), "nonResourceURLs": strs("/api", "/api/*", "/apis", "/apis/*", "/healthz", "/livez", "/openapi", "/openapi/*", "/readyz", "/version", "/version/")},
				object{"verbs": strs("get"), "nonResourceURLs": strs("/healthz", "/livez", "/readyz", "/version", "/version/")},
				object{"verbs": strs("*"), "nonResourceURLs": strs("*")},
			},
			"incomplete": false,
		},
	}
	// RBAC lists the rules of each binding in the order its informer
	// cache yields the bindings, which varies: compare them as sets.
	byJSON := cmpopts.SortSlices(func(a, b any) bool {
		ja, _ := json.Marshal(a)
		jb, _ := json.Marshal(b)
		return string(ja) < string(jb)
	})
	if diff := cmp.Diff(want, got, byJSON); diff != "" {
		t.Errorf("SelfSubjectRulesReview answer mismatch (-want +got):\n%s", diff)
	}
	r = c.do(ctx, t, request{Method: http.MethodPost, Path: path, Body: reviewBody("authorization.k8s.io", "SelfSubjectRulesReview", object{})})
	checkStatus(t, "SelfSubjectRulesReview without namespace", r, badRequest("no namespace on request"))
}

// runReviewSelfSubject: SelfSubjectReview reports the admin user the
// target's credentials are (for lw-sim and tools/realapiserver alike, the
// loopback identity system:apiserver), with a creation time; TokenReview
// without a token is 400.
func runReviewSelfSubject(ctx context.Context, t *testing.T, target Target) {
	c := newClient(t, target)
	r := c.do(ctx, t, request{Method: http.MethodPost, Path: "/apis/authentication.k8s.io/v1/selfsubjectreviews",
		Body: object{"apiVersion": "authentication.k8s.io/v1", "kind": "SelfSubjectReview"}})
	r.mustCode(t, http.StatusCreated, "create SelfSubjectReview")
	var got struct {
		Kind     string            `json:"kind"`
		Metadata metav1.ObjectMeta `json:"metadata"`
		Status   struct {
			UserInfo struct {
				Username string   `json:"username"`
				UID      string   `json:"uid"`
				Groups   []string `json:"groups"`
			} `json:"userInfo"`
		} `json:"status"`
	}
	if err := json.Unmarshal(r.Body, &got); err != nil {
		t.Fatalf("SelfSubjectReview body %s: %v", r.Body, err)
	}
	u := got.Status.UserInfo
	if got.Kind != "SelfSubjectReview" || u.Username != "system:apiserver" || !uuidRE.MatchString(u.UID) ||
		!slices.Equal(u.Groups, []string{"system:authenticated", "system:masters"}) || got.Metadata.CreationTimestamp.IsZero() {
		t.Errorf("SelfSubjectReview = %s; want system:apiserver with a UID, groups system:authenticated, system:masters and a creationTimestamp", r.Body)
	}
	r = c.do(ctx, t, request{Method: http.MethodPost, Path: "/apis/authentication.k8s.io/v1/tokenreviews",
		Body: reviewBody("authentication.k8s.io", "TokenReview", object{})})
	checkStatus(t, "TokenReview without token", r, badRequest("token is required for TokenReview in authentication"))
}

// runOpenAPIV2Served: /openapi/v2 is served in JSON with the definition of
// batch/v1 Job, with an ETag that answers 304, and in protobuf.
func runOpenAPIV2Served(ctx context.Context, t *testing.T, target Target) {
	c := newClient(t, target)
	r := c.do(ctx, t, request{Path: "/openapi/v2"})
	r.mustCode(t, http.StatusOK, "GET /openapi/v2")
	if ct := r.Header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("GET /openapi/v2 Content-Type = %q, want application/json", ct)
	}
	var doc struct {
		Swagger     string                    `json:"swagger"`
		Definitions map[string]map[string]any `json:"definitions"`
		Paths       map[string]any            `json:"paths"`
	}
	r.decode(t, &doc)
	job := doc.Definitions["io.k8s.api.batch.v1.Job"]
	wantGVK := []any{object{"group": "batch", "kind": "Job", "version": "v1"}}
	if doc.Swagger != "2.0" || job == nil || !cmp.Equal(job["x-kubernetes-group-version-kind"], wantGVK) {
		t.Errorf("GET /openapi/v2: swagger %q, Job definition %v; want 2.0 and a Job with its group-version-kind", doc.Swagger, job != nil)
	}
	if _, ok := doc.Paths["/apis/batch/v1/namespaces/{namespace}/jobs"]; !ok {
		t.Errorf("GET /openapi/v2 lacks the path /apis/batch/v1/namespaces/{namespace}/jobs")
	}
	checkOpenAPIV2ETag(ctx, t, c, r.Header.Get("Etag"))
	r = c.do(ctx, t, request{Path: "/openapi/v2", Accept: "application/com.github.proto-openapi.spec.v2@v1.0+protobuf"})
	r.mustCode(t, http.StatusOK, "GET /openapi/v2 as protobuf")
	if ct := r.Header.Get("Content-Type"); ct != "application/com.github.proto-openapi.spec.v2.v1.0+protobuf" || len(r.Body) == 0 {
		t.Errorf("GET /openapi/v2 as protobuf: Content-Type %q, %d bytes", ct, len(r.Body))
	}
}

// openAPIV2ETagTries bounds the retries of the ETag check: other cases
// create and delete CRDs concurrently, and each changes the document (and
// its ETag) between two GETs; a handful of tries outlasts them.
const openAPIV2ETagTries = 5

// checkOpenAPIV2ETag: a GET with If-None-Match of the current ETag is 304.
// A 200 means the document changed in between; it is fetched again.
func checkOpenAPIV2ETag(ctx context.Context, t *testing.T, c *client, etag string) {
	t.Helper()
	for try := 1; ; try++ {
		code := c.conditionalGet(ctx, t, "/openapi/v2", etag)
		if etag != "" && code == http.StatusNotModified {
			return
		}
		if etag == "" || code != http.StatusOK || try == openAPIV2ETagTries {
			t.Errorf("GET /openapi/v2 with If-None-Match %q = %d, want 304 (try %d)", etag, code, try)
			return
		}
		etag = c.do(ctx, t, request{Path: "/openapi/v2"}).Header.Get("Etag")
	}
}

// runOpenAPIV3Documents: /openapi/v3 lists batch/v1 and its group, and the
// batch/v1 document describes Job.
func runOpenAPIV3Documents(ctx context.Context, t *testing.T, target Target) {
	c := newClient(t, target)
	r := c.do(ctx, t, request{Path: "/openapi/v3"})
	r.mustCode(t, http.StatusOK, "GET /openapi/v3")
	var root struct {
		Paths map[string]struct {
			ServerRelativeURL string `json:"serverRelativeURL"`
		} `json:"paths"`
	}
	r.decode(t, &root)
	for _, p := range []string{"api/v1", "apis/batch", "apis/batch/v1", "apis/rbac.authorization.k8s.io/v1", "apis/authorization.k8s.io/v1"} {
		if _, ok := root.Paths[p]; !ok {
			t.Errorf("GET /openapi/v3 lacks %q", p)
		}
	}
	r = c.do(ctx, t, request{Path: "/openapi/v3/apis/batch/v1"})
	r.mustCode(t, http.StatusOK, "GET /openapi/v3/apis/batch/v1")
	var doc struct {
		Components struct {
			Schemas map[string]any `json:"schemas"`
		} `json:"components"`
	}
	r.decode(t, &doc)
	if _, ok := doc.Components.Schemas["io.k8s.api.batch.v1.Job"]; !ok {
		t.Errorf("GET /openapi/v3/apis/batch/v1 lacks the Job schema")
	}
	r = c.do(ctx, t, request{Path: "/openapi/v3/apis/example.com/v1"})
	if r.Code != http.StatusNotFound || len(r.Body) != 0 {
		t.Errorf("GET /openapi/v3/apis/example.com/v1 = %d %q, want an empty 404", r.Code, r.Body)
	}
}

// runTableJob: a Job's Table has kube-apiserver's columns and cells (the
// selector, which the real server generates from the UID, and the age
// aside).
func runTableJob(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	job := object{"apiVersion": "batch/v1", "kind": "Job", "metadata": object{"name": "job"},
		"spec": object{"template": object{"spec": object{"restartPolicy": "Never",
			"containers": []any{object{"name": "c", "image": "busybox"}}}}}}
	r := e.c.do(ctx, t, request{Method: http.MethodPost, Path: "/apis/batch/v1/namespaces/" + e.ns + "/jobs", Body: job})
	r.mustCode(t, http.StatusCreated, "create job")
	r = e.c.do(ctx, t, request{Path: "/apis/batch/v1/namespaces/" + e.ns + "/jobs", Accept: tableAccept})
	r.mustCode(t, http.StatusOK, "list jobs as Table")
	var table metav1.Table
	r.decode(t, &table)
	var names []string
	for _, col := range table.ColumnDefinitions {
		names = append(names, col.Name)
	}
	if diff := cmp.Diff([]string{"Name", "Status", "Completions", "Duration", "Age", "Containers", "Images", "Selector"}, names); diff != "" {
		t.Errorf("Job Table columns mismatch (-want +got):\n%s", diff)
	}
	if len(table.Rows) != 1 || len(table.Rows[0].Cells) != 8 {
		t.Fatalf("Job Table rows = %v, want one row of 8 cells", table.Rows)
	}
	got := slices.Clone(table.Rows[0].Cells)
	got[4], got[7] = nil, nil
	if diff := cmp.Diff([]any{"job", "Running", "0/1", "", nil, "c", "busybox", nil}, got); diff != "" {
		t.Errorf("Job Table cells mismatch (-want +got):\n%s", diff)
	}
}

// runTableDefaultColumns: a resource without a printer gets Name and
// Created At (a date).
func runTableDefaultColumns(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	role := object{"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role", "metadata": object{"name": "r"}, "rules": []any{}}
	path := "/apis/rbac.authorization.k8s.io/v1/namespaces/" + e.ns + "/roles"
	r := e.c.do(ctx, t, request{Method: http.MethodPost, Path: path, Body: role})
	r.mustCode(t, http.StatusCreated, "create role")
	r = e.c.do(ctx, t, request{Path: path, Accept: tableAccept})
	r.mustCode(t, http.StatusOK, "list roles as Table")
	var table metav1.Table
	r.decode(t, &table)
	var cols []string
	for _, col := range table.ColumnDefinitions {
		cols = append(cols, col.Name+":"+col.Type+":"+col.Format)
	}
	if diff := cmp.Diff([]string{"Name:string:name", "Created At:date:"}, cols); diff != "" {
		t.Errorf("Role Table columns mismatch (-want +got):\n%s", diff)
	}
	if len(table.Rows) != 1 || len(table.Rows[0].Cells) != 2 || table.Rows[0].Cells[0] != "r" {
		t.Errorf("Role Table rows = %v, want one row for r", table.Rows)
	}
}

// conditionalGet GETs path with If-None-Match and returns the status code.
func (c *client) conditionalGet(ctx context.Context, t *testing.T, path, etag string) int {
	t.Helper()
	req, err := c.newHTTPRequest(ctx, request{Path: path})
	if err != nil {
		t.Fatalf("build GET %s: %v", path, err)
	}
	req.Header.Set("If-None-Match", etag)
	resp, err := c.http.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

// tableOf lists path as a Table and returns its column names and the
// cells of its single row, with the Age column (by name) blanked.
func tableOf(ctx context.Context, t *testing.T, c *client, path string) (columns []string, cells []any) {
	t.Helper()
	r := c.do(ctx, t, request{Path: path, Accept: tableAccept})
	r.mustCode(t, http.StatusOK, "list "+path+" as Table")
	var table metav1.Table
	r.decode(t, &table)
	if len(table.Rows) != 1 || len(table.Rows[0].Cells) != len(table.ColumnDefinitions) {
		t.Fatalf("Table of %s: %d columns, rows %v; want one row with a cell per column", path, len(table.ColumnDefinitions), table.Rows)
	}
	cells = slices.Clone(table.Rows[0].Cells)
	for i, col := range table.ColumnDefinitions {
		columns = append(columns, col.Name)
		if col.Name == "Age" {
			cells[i] = nil
		}
	}
	return columns, cells
}

// runTablePolicyAndRBAC: PodDisruptionBudget and RoleBinding Tables have
// kube-apiserver's columns and cells.
func runTablePolicyAndRBAC(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	pdb := object{"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": object{"name": "pdb"},
		"spec": object{"minAvailable": "50%", "selector": object{"matchLabels": object{"app": "web"}}}}
	pdbs := "/apis/policy/v1/namespaces/" + e.ns + "/poddisruptionbudgets"
	e.c.do(ctx, t, request{Method: http.MethodPost, Path: pdbs, Body: pdb}).mustCode(t, http.StatusCreated, "create pdb")
	cols, cells := tableOf(ctx, t, e.c, pdbs)
	if diff := cmp.Diff([]string{"Name", "Min Available", "Max Unavailable", "Allowed Disruptions", "Age"}, cols); diff != "" {
		t.Errorf("PodDisruptionBudget Table columns mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]any{"pdb", "50%", "N/A", float64(0), nil}, cells); diff != "" {
		t.Errorf("PodDisruptionBudget Table cells mismatch (-want +got):\n%s", diff)
	}
	rb := object{"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding", "metadata": object{"name": "rb"},
		"roleRef": object{"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "view"},
		"subjects": []any{
			object{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": "alice"},
			object{"apiGroup": "rbac.authorization.k8s.io", "kind": "Group", "name": "devs"},
			object{"kind": "ServiceAccount", "name": "sa", "namespace": e.ns},
		}}
	rbs := "/apis/rbac.authorization.k8s.io/v1/namespaces/" + e.ns + "/rolebindings"
	e.c.do(ctx, t, request{Method: http.MethodPost, Path: rbs, Body: rb}).mustCode(t, http.StatusCreated, "create rolebinding")
	cols, cells = tableOf(ctx, t, e.c, rbs)
	if diff := cmp.Diff([]string{"Name", "Role", "Age", "Users", "Groups", "ServiceAccounts"}, cols); diff != "" {
		t.Errorf("RoleBinding Table columns mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]any{"rb", "ClusterRole/view", nil, "alice", "devs", e.ns + "/sa"}, cells); diff != "" {
		t.Errorf("RoleBinding Table cells mismatch (-want +got):\n%s", diff)
	}
}
