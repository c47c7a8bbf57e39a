package conformance

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// limitsCases are the cases of this file, in the order [Cases] runs them.
func limitsCases() []Case {
	return []Case{
		{Name: "WriteBodyTooLarge", Run: runWriteBodyTooLarge},
		{Name: "PatchJSONCopyAmplification", Run: runPatchJSONCopyAmplification},
		{Name: "PatchJSONTooManyOps", Run: runPatchJSONTooManyOps},
		{Name: "WriteTooDeep", Run: runWriteTooDeep},
	}
}

// The real server's limits on writes (apiserver pkg/server/config.go
// defaults, pkg/endpoints/handlers): request bodies, JSON patch operations
// and copy amplification, and nesting depth.
const (
	// maxBodyBytes is --max-resource-write-bytes' default, 3 MiB.
	maxBodyBytes = 3 * 1024 * 1024
	// maxPatchOps is handlers/patch.go maxJSONPatchOperations.
	maxPatchOps = 10000
	// tooDeep is one more than encoding/json's and go-yaml's nesting limit,
	// 10000, which sigs.k8s.io/json and sigs.k8s.io/yaml inherit.
	tooDeep = 10001
)

// runWriteBodyTooLarge: a body one byte over 3 MiB is 413 on create,
// update, patch and delete, before anything is decoded.
func runWriteBodyTooLarge(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	e.createN(ctx, "a")
	body := bytes.Repeat([]byte(" "), maxBodyBytes+1)
	want := wantStatus(http.StatusRequestEntityTooLarge, metav1.StatusReasonRequestEntityTooLarge,
		fmt.Sprintf("Request entity too large: limit is %d", maxBodyBytes), nil)
	for _, r := range []request{
		{Method: http.MethodPost, Path: e.cms()},
		{Method: http.MethodPut, Path: e.cms() + "/a"},
		{Method: http.MethodPatch, Path: e.cms() + "/a", ContentType: "application/merge-patch+json"},
		{Method: http.MethodDelete, Path: e.cms() + "/a"},
	} {
		r.Body = body
		checkStatus(t, r.Method+" with a body over 3 MiB", e.c.do(ctx, t, r), want)
	}
}

// runPatchJSONCopyAmplification: a 1.7 KB JSON patch whose 16 copy
// operations would double one value each time (to 64 MiB) stops at the
// accumulated copy size limit (3 MiB, jsonpatch.AccumulatedCopySizeLimit as
// kube-apiserver sets it) with the 422 of a patch that does not apply; the
// object is unchanged.
func runPatchJSONCopyAmplification(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	rvs := e.createN(ctx, "a")
	r := e.c.do(ctx, t, request{Method: http.MethodPatch, Path: e.cms() + "/a",
		ContentType: "application/json-patch+json", Body: copyBombPatch(16)})
	checkStatus(t, "copy bomb", r, wantStatus(http.StatusUnprocessableEntity, metav1.StatusReasonInvalid,
		"the server rejected our request due to an error in our request", &metav1.StatusDetails{}))
	got := e.c.do(ctx, t, request{Path: e.cms() + "/a"})
	got.mustCode(t, http.StatusOK, "get after the copy bomb")
	var o object
	got.decode(t, &o)
	if rvOf(t, o) != rvs[0] {
		t.Errorf("rv after a rejected patch = %d, want unchanged %d", rvOf(t, o), rvs[0])
	}
}

// copyBombPatch adds a 1 KiB value at /x and copies /x into itself n
// times under new keys, doubling it each time.
func copyBombPatch(n int) []object {
	ops := []object{{"op": "add", "path": "/x", "value": object{"p": strings.Repeat("A", 1024)}}}
	for i := range n {
		ops = append(ops, object{"op": "copy", "from": "/x", "path": fmt.Sprintf("/x/y%c", 'a'+i)})
	}
	return ops
}

// runPatchJSONTooManyOps: a JSON patch of 10 001 operations is 413 with
// the operation count; 10 000 are applied.
func runPatchJSONTooManyOps(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	e.createN(ctx, "a")
	test := object{"op": "test", "path": "/metadata/name", "value": "a"}
	ops := func(n int) []object {
		s := make([]object, n)
		for i := range s {
			s[i] = test
		}
		return s
	}
	r := e.c.do(ctx, t, request{Method: http.MethodPatch, Path: e.cms() + "/a",
		ContentType: "application/json-patch+json", Body: ops(maxPatchOps + 1)})
	checkStatus(t, "too many ops", r, wantStatus(http.StatusRequestEntityTooLarge, metav1.StatusReasonRequestEntityTooLarge,
		fmt.Sprintf("Request entity too large: The allowed maximum operations in a JSON patch is %d, got %d", maxPatchOps, maxPatchOps+1), nil))
	r = e.c.do(ctx, t, request{Method: http.MethodPatch, Path: e.cms() + "/a",
		ContentType: "application/json-patch+json", Body: ops(maxPatchOps)})
	r.mustCode(t, http.StatusOK, "10000 test ops")
}

// runWriteTooDeep: a body nested 10 001 levels deep is 400 for every write
// and content type: create and update bodies (JSON and YAML) with the
// decoder's depth error, patches of every type as invalid JSON.
func runWriteTooDeep(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	e.createN(ctx, "a")
	deep := strings.Repeat("[", tooDeep) + strings.Repeat("]", tooDeep)
	cm := func(name string) []byte {
		return []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"` + name + `"},"x":` + deep + `}`)
	}
	notCM := func(msg string) statusShape {
		return wantStatus(http.StatusBadRequest, metav1.StatusReasonBadRequest,
			"the object provided is unrecognized (must be of type ConfigMap): "+msg, nil)
	}
	jsonDepth := notCM(`couldn't get version/kind; json parse error: invalid character '[' exceeded max depth (` +
		`{"apiVersion":"v1","kind":"Con ...)`)
	checkStatus(t, "create JSON", e.c.do(ctx, t, request{Method: http.MethodPost, Path: e.cms(), Body: cm("b")}), jsonDepth)
	checkStatus(t, "update JSON", e.c.do(ctx, t, request{Method: http.MethodPut, Path: e.cms() + "/a", Body: cm("a")}), jsonDepth)
	yml := []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\nx: " + deep + "\n")
	checkStatus(t, "create YAML", e.c.do(ctx, t, request{Method: http.MethodPost, Path: e.cms(), Body: yml, ContentType: "application/yaml"}),
		notCM(fmt.Sprintf("yaml: line 5: exceeded max depth of 10000 (%x ...)", yml[:30])))
	invalid := wantStatus(http.StatusBadRequest, metav1.StatusReasonBadRequest, "invalid JSON patch", nil)
	for ct, body := range map[string]string{
		"application/merge-patch+json":           `{"x":` + deep + `}`,
		"application/strategic-merge-patch+json": `{"x":` + deep + `}`,
		"application/json-patch+json":            `[{"op":"add","path":"/x","value":` + deep + `}]`,
	} {
		r := e.c.do(ctx, t, request{Method: http.MethodPatch, Path: e.cms() + "/a", ContentType: ct, Body: []byte(body)})
		checkStatus(t, ct, r, invalid)
	}
}
