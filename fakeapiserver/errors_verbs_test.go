package fakeapiserver

import (
	"bytes"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
)

// Media types an error is asked for in.
const (
	mediaJSON     = "application/json"
	mediaYAML     = "application/yaml"
	mediaProtobuf = "application/vnd.kubernetes.protobuf"
)

// verbErrorCase is one request that a verb's handler fails: the code and
// reason its Status must carry, and the media types it is asked for in
// (all three unless the resource serves fewer).
type verbErrorCase struct {
	name        string
	method      string
	path        string
	body        string
	contentType string // of the body; JSON when empty
	code        int
	reason      metav1.StatusReason
	media       []string
}

const (
	deployPath = "/apis/apps/v1/namespaces/default/deployments"
	widgetPath = "/apis/example.com/v1/namespaces/default/widgets"
	sarPath    = "/apis/authorization.k8s.io/v1/subjectaccessreviews"
)

// TestVerbErrorsWrittenOnce: every verb's handler (get, list, create,
// update, patch, apply, delete, deletecollection, the status, scale,
// eviction and binding subresources, reviews, a custom resource's scale,
// and watch before its stream) answers a failure with one Status and
// nothing else, in the encoding the client accepts: its Content-Type is
// the one asked for, re-encoding the decoded Status gives the body byte
// for byte (a second write would have been appended), its code is the
// HTTP status, and it is the same Status in every encoding.
func TestVerbErrorsWrittenOnce(t *testing.T) {
	t.Parallel()
	srv := startErrorFixture(t)
	crMedia := []string{mediaJSON, mediaYAML} // custom resources are not served as protobuf
	cases := []verbErrorCase{
		{name: "get 404", method: "GET", path: cmPath + "/nope", code: 404, reason: metav1.StatusReasonNotFound},
		{name: "get status 404", method: "GET", path: deployPath + "/nope/status", code: 404, reason: metav1.StatusReasonNotFound},
		{name: "list 400", method: "GET", path: cmPath + "?continue=bad", code: 400, reason: metav1.StatusReasonBadRequest},
		{name: "watch 400 before the stream", method: "GET", path: cmPath + "?watch=1&fieldSelector=bogus%3Dx", code: 400, reason: metav1.StatusReasonBadRequest,
			media: []string{mediaJSON, mediaProtobuf}}, // YAML has no stream form: 406
		{name: "create 409", method: "POST", path: cmPath, body: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm-a"}}`,
			code: 409, reason: metav1.StatusReasonAlreadyExists},
		{name: "create 422", method: "POST", path: cmPath, body: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"Bad_Name"}}`,
			code: 422, reason: metav1.StatusReasonInvalid},
		{name: "create 415", method: "POST", path: cmPath, body: `{}`, contentType: "text/plain", code: 415, reason: metav1.StatusReasonUnsupportedMediaType},
		{name: "update 404", method: "PUT", path: cmPath + "/cm-zzz", body: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm-zzz"}}`,
			code: 404, reason: metav1.StatusReasonNotFound},
		{name: "update 409", method: "PUT", path: cmPath + "/cm-a", body: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm-a","resourceVersion":"1"}}`,
			code: 409, reason: metav1.StatusReasonConflict},
		{name: "update status 409", method: "PUT", path: deployPath + "/web/status", body: `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","resourceVersion":"1"}}`,
			code: 409, reason: metav1.StatusReasonConflict},
		{name: "patch 404", method: "PATCH", path: cmPath + "/nope", body: `{}`, contentType: "application/merge-patch+json", code: 404, reason: metav1.StatusReasonNotFound},
		{name: "patch 422", method: "PATCH", path: cmPath + "/cm-a", body: `[{"op":"test","path":"/data/x","value":"1"}]`,
			contentType: "application/json-patch+json", code: 422, reason: metav1.StatusReasonInvalid},
		{name: "apply 422", method: "PATCH", path: cmPath + "/cm-a", body: `{}`, contentType: "application/apply-patch+yaml", code: 422, reason: metav1.StatusReasonInvalid},
		{name: "apply 409", method: "PATCH", path: cmPath + "/fresh?fieldManager=m", body: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"fresh","uid":"u1"}}`,
			contentType: "application/apply-patch+yaml", code: 409, reason: metav1.StatusReasonConflict},
		{name: "delete 404", method: "DELETE", path: cmPath + "/nope", code: 404, reason: metav1.StatusReasonNotFound},
		{name: "delete 409", method: "DELETE", path: cmPath + "/cm-a", body: `{"preconditions":{"uid":"not-it"}}`, code: 409, reason: metav1.StatusReasonConflict},
		{name: "deletecollection 400", method: "DELETE", path: cmPath + "?fieldSelector=bogus%3Dx", code: 400, reason: metav1.StatusReasonBadRequest},
		{name: "scale get 404", method: "GET", path: deployPath + "/nope/scale", code: 404, reason: metav1.StatusReasonNotFound},
		{name: "scale update 409", method: "PUT", path: deployPath + "/web/scale",
			body: `{"apiVersion":"autoscaling/v1","kind":"Scale","metadata":{"name":"web","namespace":"default","resourceVersion":"1"},"spec":{"replicas":3}}`,
			code: 409, reason: metav1.StatusReasonConflict},
		{name: "scale patch 422", method: "PATCH", path: deployPath + "/web/scale", body: `{"spec":{"replicas":-1}}`,
			contentType: "application/merge-patch+json", code: 422, reason: metav1.StatusReasonInvalid},
		{name: "eviction 404", method: "POST", path: podPath + "/nope/eviction",
			body: `{"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":"nope","namespace":"default"}}`, code: 404, reason: metav1.StatusReasonNotFound},
		{name: "binding 409", method: "POST", path: podPath + "/bound/binding",
			body: `{"apiVersion":"v1","kind":"Binding","metadata":{"name":"bound","namespace":"default"},"target":{"kind":"Node","name":"n2"}}`,
			code: 409, reason: metav1.StatusReasonConflict},
		{name: "review 422", method: "POST", path: sarPath, body: `{"apiVersion":"authorization.k8s.io/v1","kind":"SubjectAccessReview","spec":{}}`,
			code: 422, reason: metav1.StatusReasonInvalid},
		{name: "custom resource get 404", method: "GET", path: widgetPath + "/nope", code: 404, reason: metav1.StatusReasonNotFound, media: crMedia},
		{name: "custom resource patch 415", method: "PATCH", path: widgetPath + "/s", body: `{}`, contentType: "application/strategic-merge-patch+json",
			code: 415, reason: metav1.StatusReasonUnsupportedMediaType, media: crMedia},
		{name: "custom scale get 404", method: "GET", path: widgetPath + "/nope/scale", code: 404, reason: metav1.StatusReasonNotFound, media: crMedia},
		{name: "custom scale update 409", method: "PUT", path: widgetPath + "/s/scale",
			body: `{"apiVersion":"autoscaling/v1","kind":"Scale","metadata":{"name":"s","namespace":"default","resourceVersion":"1"},"spec":{"replicas":3}}`,
			code: 409, reason: metav1.StatusReasonConflict, media: crMedia},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			media := tc.media
			if media == nil {
				media = []string{mediaJSON, mediaYAML, mediaProtobuf}
			}
			var first *metav1.Status
			for _, accept := range media {
				st := requireOneStatus(t, srv, tc, accept, accept)
				if first == nil {
					first = st
				} else if diff := cmp.Diff(first, st); diff != "" {
					t.Errorf("Status in %s differs from %s (-%s +%s):\n%s", accept, media[0], media[0], accept, diff)
				}
			}
		})
	}
}

// TestVerbNotAcceptableWrittenOnce: an Accept header that go-restful lets
// through (its type is produced) but no handler can serve is each
// handler's own 406, written as one JSON Status (the encoding a Status
// falls back to when the client accepts none the server has).
func TestVerbNotAcceptableWrittenOnce(t *testing.T) {
	t.Parallel()
	srv := startErrorFixture(t)
	const unservable = "application/json;as=Foo"
	cases := []verbErrorCase{
		{name: "get", method: "GET", path: cmPath + "/cm-a"},
		{name: "list", method: "GET", path: cmPath},
		{name: "create", method: "POST", path: cmPath, body: `{}`},
		{name: "update", method: "PUT", path: cmPath + "/cm-a", body: `{}`},
		{name: "patch", method: "PATCH", path: cmPath + "/cm-a", body: `{}`, contentType: "application/merge-patch+json"},
		{name: "delete", method: "DELETE", path: cmPath + "/cm-a"},
		{name: "deletecollection", method: "DELETE", path: cmPath},
		{name: "scale", method: "GET", path: deployPath + "/web/scale"},
		{name: "eviction", method: "POST", path: podPath + "/bound/eviction", body: `{}`},
		{name: "binding", method: "POST", path: podPath + "/bound/binding", body: `{}`},
		{name: "review", method: "POST", path: sarPath, body: `{}`},
		{name: "custom scale", method: "GET", path: widgetPath + "/s/scale"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tc.code, tc.reason = http.StatusNotAcceptable, metav1.StatusReasonNotAcceptable
			requireOneStatus(t, srv, tc, unservable, mediaJSON)
		})
	}
}

// startErrorFixture starts a server holding configmap cm-a, deployment
// web, pod bound (on node n1), the widget CRD and widget s with replicas.
func startErrorFixture(t *testing.T) *Server {
	t.Helper()
	srv := Start(t)
	mustWrite(t, srv, "POST", cmPath, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm-a"}}`)
	mustCreateDeployment(t, t.Context(), clientsetFor(t, srv), "web", 2)
	pod := `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"bound"},"spec":{"nodeName":"n1","containers":[{"name":"c","image":"i"}]}}`
	mustWrite(t, srv, "POST", podPath, pod)
	installCRD(t, srv, testWidgetCRD())
	mustWrite(t, srv, "POST", widgetPath, `{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"s"},"spec":{"replicas":2}}`)
	return srv
}

// mustWrite sends one JSON write that must answer 201.
func mustWrite(t *testing.T, srv *Server, method, path, body string) {
	t.Helper()
	if resp := doWrite(t, srv, method, path, []byte(body)); resp.code != http.StatusCreated {
		t.Fatalf("%s %s = %d %s", method, path, resp.code, resp.body)
	}
}

// requireOneStatus sends tc with Accept accept and checks that the answer
// is exactly one Status in wantMedia with tc's code and reason, which it
// returns.
func requireOneStatus(t *testing.T, srv *Server, tc verbErrorCase, accept, wantMedia string) *metav1.Status {
	t.Helper()
	var body []byte
	hdr := []string{"Accept", accept}
	if tc.body != "" {
		body = []byte(tc.body)
		if tc.contentType != "" {
			hdr = append(hdr, "Content-Type", tc.contentType)
		}
	}
	resp := doWrite(t, srv, tc.method, tc.path, body, hdr...)
	if resp.code != tc.code {
		t.Fatalf("%s %s (Accept %s) = %d, want %d: %s", tc.method, tc.path, accept, resp.code, tc.code, resp.body)
	}
	if ct := resp.header.Get("Content-Type"); ct != wantMedia {
		t.Errorf("%s %s (Accept %s) Content-Type = %q, want %q", tc.method, tc.path, accept, ct, wantMedia)
	}
	if resp.header.Get("Audit-Id") == "" {
		t.Errorf("%s %s (Accept %s) has no Audit-Id", tc.method, tc.path, accept)
	}
	st := decodeOneStatus(t, resp.body, wantMedia)
	want := metav1.Status{TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: metav1.StatusFailure, Code: int32(tc.code), Reason: tc.reason}
	got := metav1.Status{TypeMeta: st.TypeMeta, Status: st.Status, Code: st.Code, Reason: st.Reason}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("%s %s (Accept %s) Status mismatch (-want +got):\n%s\nmessage: %s", tc.method, tc.path, accept, diff, st.Message)
	}
	return st
}

// decodeOneStatus decodes body as a Status in mediaType and checks that
// encoding it again gives body exactly: the body is one Status, nothing
// more.
func decodeOneStatus(t *testing.T, body []byte, mediaType string) *metav1.Status {
	t.Helper()
	codecs := serializer.NewCodecFactory(newDefaultScheme())
	info, ok := runtime.SerializerInfoForMediaType(codecs.SupportedMediaTypes(), mediaType)
	if !ok {
		t.Fatalf("no serializer for %s", mediaType)
	}
	obj, _, err := info.Serializer.Decode(body, nil, &metav1.Status{})
	if err != nil {
		t.Fatalf("decode %s Status %q: %v", mediaType, body, err)
	}
	st, ok := obj.(*metav1.Status)
	if !ok {
		t.Fatalf("decoded %T from %q, want a Status", obj, body)
	}
	var again bytes.Buffer
	if err := info.Serializer.Encode(st, &again); err != nil {
		t.Fatalf("encode Status again: %v", err)
	}
	if mediaType == mediaJSON && bytes.HasPrefix(body, []byte("{\n")) {
		// The raw JSON of an error no Accept clause can carry
		// (responsewriters.WriteRawJSON).
		indented, err := json.MarshalIndent(st, "", "  ")
		if err != nil {
			t.Fatalf("indent Status: %v", err)
		}
		again.Reset()
		again.Write(indented)
	}
	if !bytes.Equal(again.Bytes(), body) {
		t.Errorf("body is not exactly one %s Status:\n got %q\nwant %q", mediaType, body, again.Bytes())
	}
	return st
}
