package fakeapiserver

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestNegotiationErrors(t *testing.T) {
	t.Parallel()
	const (
		plain  = "application/json, application/yaml, application/vnd.kubernetes.protobuf"
		stream = plain + ", application/json;stream=watch, application/vnd.kubernetes.protobuf;stream=watch"
	)
	restful406 := func(available string) metav1.Status {
		return wantFailure(406, metav1.StatusReasonNotAcceptable, "406: Not Acceptable\n\nAvailable representations: "+available, &metav1.StatusDetails{})
	}
	cases := []statusCase{
		{name: "list text/plain", method: "GET", path: cmPath, header: []string{"Accept", "text/plain"}, want: restful406(stream), reason: "observed"},
		{name: "get text/plain", method: "GET", path: cmPath + "/cm-a", header: []string{"Accept", "text/plain"}, want: restful406(plain),
			reason: "needs real-server check: the GET route produces no stream types (installer.go)"},
		{name: "application/* is not a wildcard to go-restful", method: "GET", path: cmPath + "/cm-a", header: []string{"Accept", "application/*"}, want: restful406(plain)},
		{name: "create text/plain", method: "POST", path: cmPath, body: `{}`, header: []string{"Accept", "text/plain"}, want: restful406(plain)},
		{name: "handler negotiation", method: "GET", path: cmPath + "/cm-a", header: []string{"Accept", "application/json;as=Foo"},
			want:   wantFailure(406, metav1.StatusReasonNotAcceptable, "only the following media types are accepted: "+plain, nil),
			reason: "go-restful passes (type produced), NegotiateOutputMediaType fails: errNotAcceptable has no details"},
		{name: "create unknown content type", method: "POST", path: cmPath, body: `{}`, header: []string{"Content-Type", "text/plain"},
			want: wantFailure(415, metav1.StatusReasonUnsupportedMediaType, "the body of the request was in an unknown format - accepted media types include: "+plain, nil)},
		{name: "update unknown content type", method: "PUT", path: cmPath + "/cm-a", body: `{}`, header: []string{"Content-Type", "text/plain"},
			want: wantFailure(415, metav1.StatusReasonUnsupportedMediaType, "the body of the request was in an unknown format - accepted media types include: "+plain, nil)},
		{name: "patch unknown content type", method: "PATCH", path: cmPath + "/cm-a", body: `{}`, header: []string{"Content-Type", "application/json"},
			want:   wantFailure(415, metav1.StatusReasonUnsupportedMediaType, "415: Unsupported Media Type", &metav1.StatusDetails{}),
			reason: "the PATCH route declares Consumes, so go-restful answers first"},
		{name: "patch without content type", method: "PATCH", path: cmPath + "/cm-a", body: `{}`, header: []string{"Content-Type", ""},
			want: wantFailure(415, metav1.StatusReasonUnsupportedMediaType, "415: Unsupported Media Type", &metav1.StatusDetails{})},
		{name: "server-side apply without fieldManager", method: "PATCH", path: cmPath + "/cm-a", body: `{}`, header: []string{"Content-Type", "application/apply-patch+yaml"},
			want: wantFailure(422, metav1.StatusReasonInvalid,
				`PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch`,
				&metav1.StatusDetails{Group: "meta.k8s.io", Kind: "PatchOptions", Causes: []metav1.StatusCause{{Type: metav1.CauseTypeFieldValueRequired, Message: "Required value: is required for apply patch", Field: "fieldManager"}}}),
			reason: "apply is a supported patch type; its options are checked before the body"},
	}
	runStatusCases(t, cases)
}

func TestNegotiationAccepted(t *testing.T) {
	t.Parallel()
	srv := Start(t)
	for _, accept := range []string{"", "*/*", "application/json", "application/yaml", "application/vnd.kubernetes.protobuf", "application/vnd.kubernetes.protobuf,application/json"} {
		resp := doWrite(t, srv, "GET", "/api/v1/namespaces/default", nil, "Accept", accept)
		if resp.code != 200 {
			t.Errorf("GET namespace Accept %q = %d %s, want 200", accept, resp.code, resp.body)
		}
	}
}
