package fakeapiserver

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// copyBomb is a JSON patch of 1.7 KB: a 1 KiB value at /x, then n copies
// of /x into itself under new keys, each doubling it (16 reach 64 MiB).
func copyBomb(tb testing.TB, n int) []byte {
	tb.Helper()
	ops := []map[string]any{{"op": "add", "path": "/x", "value": map[string]any{"p": strings.Repeat("A", 1024)}}}
	for i := range n {
		ops = append(ops, map[string]any{"op": "copy", "from": "/x", "path": fmt.Sprintf("/x/y%d", i)})
	}
	return mustJSON(tb, ops)
}

// TestPatchCopyBomb: the copy bomb stops at the 3 MiB accumulated copy
// limit with the real server's 422 (conformance case PatchJSONCopyAmplification)
// and leaves the object as it was; a patch of copies under the limit applies.
func TestPatchCopyBomb(t *testing.T) {
	t.Parallel()
	srv := Start(t)
	created := doWrite(t, srv, http.MethodPost, cmPath, []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"bomb"}}`))
	if created.code != http.StatusCreated {
		t.Fatalf("create = %d %s", created.code, created.body)
	}
	resp := doWrite(t, srv, http.MethodPatch, cmPath+"/bomb", copyBomb(t, 16), "Content-Type", "application/json-patch+json")
	want := wantFailure(422, metav1.StatusReasonInvalid, "the server rejected our request due to an error in our request", &metav1.StatusDetails{})
	if diff := cmp.Diff(want, resp.status(t)); diff != "" || resp.code != 422 {
		t.Errorf("copy bomb = %d, Status mismatch (-want +got):\n%s", resp.code, diff)
	}
	got := doWrite(t, srv, http.MethodGet, cmPath+"/bomb", nil)
	if diff := cmp.Diff(created.body, got.body); diff != "" {
		t.Errorf("object after the rejected patch (-created +got):\n%s", diff)
	}
	// 8 doublings of 1 KiB (255 KiB copied in all) are within the limit.
	ok := doWrite(t, srv, http.MethodPatch, cmPath+"/bomb", copyBomb(t, 8), "Content-Type", "application/json-patch+json")
	if ok.code != http.StatusOK {
		t.Errorf("8 copies = %d %s, want 200", ok.code, ok.body)
	}
}

// TestPatchCopyLimitNotGlobal (issue 21): a server limits a patch's copies
// per request, not through json-patch's package variable, so starting one
// changes nothing other users of the library in the process see: with the
// limit unset there, the library applies the bomb the server refuses.
func TestPatchCopyLimitNotGlobal(t *testing.T) {
	t.Parallel()
	srv := Start(t)
	if jsonpatch.AccumulatedCopySizeLimit != 0 {
		t.Fatalf("json-patch's AccumulatedCopySizeLimit = %d after New, want 0: set for the whole process", jsonpatch.AccumulatedCopySizeLimit)
	}
	created := doWrite(t, srv, http.MethodPost, cmPath, []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"bomb"}}`))
	if created.code != http.StatusCreated {
		t.Fatalf("create = %d %s", created.code, created.body)
	}
	if resp := doWrite(t, srv, http.MethodPatch, cmPath+"/bomb", copyBomb(t, 12), "Content-Type", "application/json-patch+json"); resp.code != 422 {
		t.Errorf("12 doublings through the server = %d, want the 422 of the copy limit", resp.code)
	}
	ops, err := jsonpatch.DecodePatch(copyBomb(t, 12))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ops.Apply([]byte(`{}`)); err != nil {
		t.Errorf("json-patch in the same process applies 12 doublings: %v, want no limit (none was set)", err)
	}
}

// TestWriteLimits pins the other write limits' answers (each checked
// against kube-apiserver by the conformance cases WriteBodyTooLarge,
// PatchJSONTooManyOps and WriteTooDeep).
func TestWriteLimits(t *testing.T) {
	t.Parallel()
	srv := Start(t)
	doWrite(t, srv, http.MethodPost, cmPath, []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"}}`))
	deep := strings.Repeat("[", 10001) + strings.Repeat("]", 10001)
	ops := make([]map[string]any, 10001)
	for i := range ops {
		ops[i] = map[string]any{"op": "test", "path": "/metadata/name", "value": "a"}
	}
	tests := []struct {
		name, method, path, contentType, body string
		want                                  metav1.Status
	}{
		{"too many ops", http.MethodPatch, cmPath + "/a", "application/json-patch+json", string(mustJSON(t, ops)),
			wantFailure(413, metav1.StatusReasonRequestEntityTooLarge, "Request entity too large: The allowed maximum operations in a JSON patch is 10000, got 10001", nil)},
		{"body over 3 MiB", http.MethodPut, cmPath + "/a", "application/json", strings.Repeat(" ", 3<<20+1),
			wantFailure(413, metav1.StatusReasonRequestEntityTooLarge, "Request entity too large: limit is 3145728", nil)},
		{"deep create", http.MethodPost, cmPath, "application/json", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"b"},"x":` + deep + `}`,
			wantFailure(400, metav1.StatusReasonBadRequest, `the object provided is unrecognized (must be of type ConfigMap): couldn't get version/kind; json parse error: invalid character '[' exceeded max depth ({"apiVersion":"v1","kind":"Con ...)`, nil)},
		{"deep merge patch", http.MethodPatch, cmPath + "/a", "application/merge-patch+json", `{"x":` + deep + `}`,
			wantFailure(400, metav1.StatusReasonBadRequest, "invalid JSON patch", nil)},
		{"deep strategic patch", http.MethodPatch, cmPath + "/a", "application/strategic-merge-patch+json", `{"x":` + deep + `}`,
			wantFailure(400, metav1.StatusReasonBadRequest, "invalid JSON patch", nil)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := doWrite(t, srv, tt.method, tt.path, []byte(tt.body), "Content-Type", tt.contentType)
			if diff := cmp.Diff(tt.want, resp.status(t)); diff != "" || resp.code != int(tt.want.Code) {
				t.Errorf("%s = %d, Status mismatch (-want +got):\n%s", tt.name, resp.code, diff)
			}
		})
	}
}
