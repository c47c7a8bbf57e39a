package conformance

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// safetyCases are the cases of this file, in the order [Cases] runs them.
func safetyCases() []Case {
	return []Case{
		{Name: "WriteBodyTooLargeEveryType", Run: runWriteBodyTooLargeEveryType},
		{Name: "WriteTooDeepEveryType", Run: runWriteTooDeepEveryType},
		{Name: "YAMLAliasBomb", Run: runYAMLAliasBomb},
		{Name: "PatchManyKeys", Run: runPatchManyKeys},
		{Name: "AnonymousOtherPaths", Run: runAnonymousOtherPaths},
		{Name: "ObjectTooLargeForStorage", Run: runObjectTooLargeForStorage},
	}
}

// Issue 13's write limits on every verb, content type and patch type, and
// the anonymous answers of the paths around the public ones (limits_cases.go
// and auth_cases.go have the first cases).

// tooLarge is the 413 of a body over the 3 MiB limit (handlers/rest.go
// limitedReadBody).
var tooLarge = wantStatus(http.StatusRequestEntityTooLarge, metav1.StatusReasonRequestEntityTooLarge,
	fmt.Sprintf("Request entity too large: limit is %d", maxBodyBytes), nil)

// runWriteBodyTooLargeEveryType: a body one byte over 3 MiB is 413 for
// every write verb, content type and patch type, on subresources and
// collections too. The handlers' order shows where a bad Content-Type
// meets a large body: a create negotiates its decoder first (415), an
// update and a delete read the body first (413); a PATCH's type is checked
// by the route before anything is read (415).
func runWriteBodyTooLargeEveryType(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	e.createN(ctx, "a")
	body := bytes.Repeat([]byte(" "), maxBodyBytes+1)
	const (
		yml   = "application/yaml"
		proto = "application/vnd.kubernetes.protobuf"
	)
	for _, r := range []request{
		{Method: http.MethodPost, Path: e.cms(), ContentType: yml},
		{Method: http.MethodPost, Path: e.cms(), ContentType: proto},
		{Method: http.MethodPut, Path: e.cms() + "/a", ContentType: yml},
		{Method: http.MethodPut, Path: e.cms() + "/a", ContentType: proto},
		{Method: http.MethodPut, Path: e.cms() + "/a", ContentType: "text/plain"},
		{Method: http.MethodPatch, Path: e.cms() + "/a", ContentType: "application/json-patch+json"},
		{Method: http.MethodPatch, Path: e.cms() + "/a", ContentType: "application/strategic-merge-patch+json"},
		{Method: http.MethodPatch, Path: e.cms() + "/a", ContentType: "application/apply-patch+yaml", Query: q("fieldManager", "m")},
		{Method: http.MethodPut, Path: "/api/v1/namespaces/" + e.ns + "/status"},
		{Method: http.MethodPatch, Path: "/api/v1/namespaces/" + e.ns + "/status", ContentType: "application/merge-patch+json"},
		{Method: http.MethodPost, Path: nsPath(e.ns, "pods") + "/x/eviction"},
		{Method: http.MethodDelete, Path: e.cms()},
		{Method: http.MethodDelete, Path: e.cms() + "/a", ContentType: "text/plain"},
	} {
		r.Body = body
		checkStatus(t, r.Method+" "+r.Path+" "+r.ContentType, e.c.do(ctx, t, r), tooLarge)
	}
	checkStatus(t, "create text/plain", e.c.do(ctx, t, request{Method: http.MethodPost, Path: e.cms(), ContentType: "text/plain", Body: body}),
		wantStatus(http.StatusUnsupportedMediaType, metav1.StatusReasonUnsupportedMediaType, `the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf`, nil))
	checkStatus(t, "patch text/plain", e.c.do(ctx, t, request{Method: http.MethodPatch, Path: e.cms() + "/a", ContentType: "text/plain", Body: body}),
		wantStatus(http.StatusUnsupportedMediaType, metav1.StatusReasonUnsupportedMediaType, "415: Unsupported Media Type", &metav1.StatusDetails{}))
	// Exactly 3 MiB is read and decoded (here: found to be no object).
	r := e.c.do(ctx, t, request{Method: http.MethodPut, Path: e.cms() + "/a", Body: body[:maxBodyBytes]})
	if r.Code == http.StatusRequestEntityTooLarge {
		t.Errorf("a body of exactly 3 MiB = 413, want it read: %s", r.Body)
	}
}

// runWriteTooDeepEveryType: nesting past 10 000 levels in an update's YAML
// and an apply's YAML is 400 with the decoder's depth error.
func runWriteTooDeepEveryType(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	e.createN(ctx, "a")
	deep := strings.Repeat("[", tooDeep) + strings.Repeat("]", tooDeep)
	yml := []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\nx: " + deep + "\n")
	checkStatus(t, "update YAML", e.c.do(ctx, t, request{Method: http.MethodPut, Path: e.cms() + "/a", Body: yml, ContentType: "application/yaml"}),
		wantStatus(http.StatusBadRequest, metav1.StatusReasonBadRequest,
			fmt.Sprintf("the object provided is unrecognized (must be of type ConfigMap): yaml: line 5: exceeded max depth of 10000 (%x ...)", yml[:30]), nil))
	checkStatus(t, "apply YAML", e.c.do(ctx, t, request{Method: http.MethodPatch, Path: e.cms() + "/a", Query: q("fieldManager", "m"),
		Body: yml, ContentType: "application/apply-patch+yaml"}),
		wantStatus(http.StatusBadRequest, metav1.StatusReasonBadRequest, "error encoding patch: yaml: line 5: exceeded max depth of 10000", nil))
	checkStatus(t, "JSON patch deep path", e.c.do(ctx, t, request{Method: http.MethodPatch, Path: e.cms() + "/a",
		Body: []byte(`[{"op":"add","path":"/x` + strings.Repeat("/0", tooDeep) + `","value":1}]`), ContentType: "application/json-patch+json"}),
		wantStatus(http.StatusUnprocessableEntity, metav1.StatusReasonInvalid, "the server rejected our request due to an error in our request", &metav1.StatusDetails{}))
}

// yamlAliasBomb is a YAML document whose aliases expand 9^8 times: a
// "billion laughs" of 600 bytes.
func yamlAliasBomb(name string) []byte {
	var b strings.Builder
	b.WriteString("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: " + name + "\n")
	b.WriteString(`a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]` + "\n")
	for i := 1; i <= 8; i++ {
		p := fmt.Sprintf("*a%d", i-1)
		fmt.Fprintf(&b, "a%d: &a%d [%s]\n", i, i, strings.Repeat(p+",", 8)+p)
	}
	return []byte(b.String())
}

// runYAMLAliasBomb: a YAML body whose aliases would expand to billions of
// nodes is refused by the decoder (go-yaml's excessive aliasing check) on
// create, update and apply.
func runYAMLAliasBomb(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	rvs := e.createN(ctx, "a")
	aliasing := func(body []byte) statusShape {
		return wantStatus(http.StatusBadRequest, metav1.StatusReasonBadRequest, fmt.Sprintf(
			"the object provided is unrecognized (must be of type ConfigMap): yaml: document contains excessive aliasing (%x ...)", body[:30]), nil)
	}
	create := e.c.do(ctx, t, request{Method: http.MethodPost, Path: e.cms(), Body: yamlAliasBomb("b"), ContentType: "application/yaml"})
	checkStatus(t, "create", create, aliasing(yamlAliasBomb("b")))
	update := e.c.do(ctx, t, request{Method: http.MethodPut, Path: e.cms() + "/a", Body: yamlAliasBomb("a"), ContentType: "application/yaml"})
	checkStatus(t, "update", update, aliasing(yamlAliasBomb("a")))
	apply := e.c.do(ctx, t, request{Method: http.MethodPatch, Path: e.cms() + "/a", Query: q("fieldManager", "m"),
		Body: yamlAliasBomb("a"), ContentType: "application/apply-patch+yaml"})
	checkStatus(t, "apply", apply, wantStatus(http.StatusBadRequest, metav1.StatusReasonBadRequest,
		"error encoding patch: yaml: document contains excessive aliasing", nil))
	got := e.c.do(ctx, t, request{Path: e.cms() + "/a"})
	var o object
	got.decode(t, &o)
	if rvOf(t, o) != rvs[0] {
		t.Errorf("rv after the refused writes = %d, want unchanged %d", rvOf(t, o), rvs[0])
	}
}

// runPatchManyKeys: only JSON patches have an operation limit: merge and
// strategic merge patches of 10 001 keys apply.
func runPatchManyKeys(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	e.createN(ctx, "a")
	data := object{}
	for i := range maxPatchOps + 1 {
		data[fmt.Sprintf("k%d", i)] = "v"
	}
	for _, ct := range []string{"application/merge-patch+json", "application/strategic-merge-patch+json"} {
		r := e.c.do(ctx, t, request{Method: http.MethodPatch, Path: e.cms() + "/a", ContentType: ct, Body: object{"data": data}})
		r.mustCode(t, http.StatusOK, ct+" of 10001 keys")
	}
}

// runAnonymousOtherPaths: around the paths anonymous callers may read,
// kube-apiserver's default RBAC answers 403 for a trailing slash (but
// /version/), other methods and the discovery documents.
func runAnonymousOtherPaths(ctx context.Context, t *testing.T, target Target) {
	c := anonymousClient(t, target)
	r := c.do(ctx, t, request{Path: "/version/"})
	r.mustCode(t, http.StatusOK, "anonymous GET /version/")
	for _, tc := range []struct{ method, path string }{
		{http.MethodGet, "/healthz/"}, {http.MethodGet, "/apis"}, {http.MethodGet, "/openapi/v2"}, {http.MethodGet, "/metrics"},
		{http.MethodGet, "/.well-known/openid-configuration"}, {http.MethodPut, "/version"}, {http.MethodDelete, "/livez"},
		{http.MethodGet, "/healthz/log"}, {http.MethodGet, "/readyz/etcd"},
	} {
		r := c.do(ctx, t, request{Method: tc.method, Path: tc.path})
		checkStatus(t, "anonymous "+tc.method+" "+tc.path, r, wantStatus(http.StatusForbidden, metav1.StatusReasonForbidden,
			fmt.Sprintf("forbidden: User %q cannot %s path %q", "system:anonymous", strings.ToLower(tc.method), tc.path), &metav1.StatusDetails{}))
	}
	r = c.do(ctx, t, request{Method: http.MethodHead, Path: "/healthz"})
	if r.Code != http.StatusForbidden {
		t.Errorf("anonymous HEAD /healthz = %d, want 403", r.Code)
	}
	r = c.do(ctx, t, request{Path: "/livez", Query: q("exclude", "etcd"), Accept: "*/*"})
	if r.Code != http.StatusOK || string(r.Body) != "ok" {
		t.Errorf("anonymous GET /livez?exclude=etcd = %d %q, want 200 ok", r.Code, r.Body)
	}
}

// skipUnlessComparing skips a case whose megabytes of objects make it too
// slow for `make test` (the fake alone, under the race detector): it runs
// when a real server is the target too (make conformance-real), and the
// fake's own tests cover the behaviour in small.
func skipUnlessComparing(t *testing.T) {
	t.Helper()
	if os.Getenv("LWSIM_KUBECONFIG") == "" {
		t.Skip("heavy case: runs against a real server (make conformance-real)")
	}
}

// bigEvent is a v1 Event named name about ConfigMap x whose message has n
// bytes: Events have no size validation, so only storage limits it.
func bigEvent(ns, name string, n int) object {
	return object{"apiVersion": "v1", "kind": "Event", "metadata": object{"name": name},
		"involvedObject": object{"kind": "ConfigMap", "name": "x", "namespace": ns},
		"reason":         "R", "message": strings.Repeat("m", n), "type": "Normal"}
}

// runObjectTooLargeForStorage: kube-apiserver writes each object to etcd
// in one request, which etcd's client refuses over 2 MiB (gRPC send limit)
// and etcd itself over 1.5 MiB, both a 500 with etcd's words and no
// reason, however the object got large (a body under the 3 MiB body
// limit, a JSON patch's copies). A dry run never reaches etcd. An object
// too large only because of its managedFields is stored without them
// (handlers isTooLargeError: create, update and patch retry so), unless
// the write is a server-side apply.
func runObjectTooLargeForStorage(ctx context.Context, t *testing.T, target Target) {
	skipUnlessComparing(t)
	e := setup(ctx, t, target)
	events := nsPath(e.ns, "events")
	tooLarge := wantStatus(http.StatusInternalServerError, "", "etcdserver: request is too large", nil)
	overGRPC := wantStatus(http.StatusInternalServerError, "", "rpc error: code = ResourceExhausted desc = trying to send message larger than max (N vs. N)", nil)
	checkStatus(t, "2 MiB event", e.c.do(ctx, t, request{Method: http.MethodPost, Path: events, Body: bigEvent(e.ns, "two", 2<<20)}), overGRPC)
	checkStatus(t, "1.6 MiB event", e.c.do(ctx, t, request{Method: http.MethodPost, Path: events, Body: bigEvent(e.ns, "one-six", 1600<<10)}), tooLarge)
	e.c.do(ctx, t, request{Method: http.MethodPost, Path: events, Query: q("dryRun", "All"), Body: bigEvent(e.ns, "dry", 2<<20)}).
		mustCode(t, http.StatusCreated, "dry-run 2 MiB event")
	r := e.c.do(ctx, t, request{Method: http.MethodPost, Path: events, Body: bigEvent(e.ns, "grow", 800<<10)})
	r.mustCode(t, http.StatusCreated, "800 KiB event")
	var created object
	r.decode(t, &created)
	checkStatus(t, "patch copying 800 KiB", e.c.do(ctx, t, request{Method: http.MethodPatch, Path: events + "/grow", ContentType: "application/json-patch+json",
		Body: []byte(`[{"op":"copy","from":"/message","path":"/action"}]`)}), tooLarge)
	var got object
	r = e.c.do(ctx, t, request{Path: events + "/grow"})
	r.decode(t, &got)
	if rvOf(t, got) != rvOf(t, created) {
		t.Errorf("rv after the refused patch = %d, want unchanged %d", rvOf(t, got), rvOf(t, created))
	}
	data := object{}
	for i := range 60000 {
		data[fmt.Sprintf("k%06d", i)] = ""
	}
	r = e.c.do(ctx, t, request{Method: http.MethodPost, Path: e.cms(), Body: object{"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": object{"name": "many"}, "data": data}})
	r.mustCode(t, http.StatusCreated, "ConfigMap of 60 000 keys (0.8 MB, 0.9 MB of managedFields)")
	var many object
	r.decode(t, &many)
	if mf, ok := metaOf(many)["managedFields"]; ok {
		t.Errorf("ConfigMap of 60 000 keys kept managedFields (%d entries), want them dropped to fit etcd", len(mf.([]any)))
	}
	// A server-side apply is not retried without managedFields: with its
	// own (larger than an update's) the object is over 2 MiB.
	r = e.c.do(ctx, t, request{Method: http.MethodPatch, Path: e.cms() + "/many", Query: q("fieldManager", "m"), ContentType: "application/apply-patch+yaml",
		Body: object{"apiVersion": "v1", "kind": "ConfigMap", "metadata": object{"name": "many"}, "data": data}})
	checkStatus(t, "apply of the 60 000 keys", r, overGRPC)
}
