package fakeapiserver

import (
	"net/http"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestMalformedRoutes pins issue 21's routing findings with
// kube-apiserver v1.37.2's answers (conformance's Malformed* cases compare
// the whole corpus): a /watch/ path takes only GET, so no other method
// writes; dot and empty segments fail where the real server builds its
// storage keys; the routes lw-sim does not serve still refuse the methods
// they do not take. runStatusCases also checks nothing was written.
func TestMalformedRoutes(t *testing.T) {
	t.Parallel()
	notFound := wantFailure(404, metav1.StatusReasonNotFound, "the server could not find the requested resource", &metav1.StatusDetails{})
	notAllowed := wantFailure(405, metav1.StatusReasonMethodNotAllowed, "the server does not allow this method on the requested resource", &metav1.StatusDetails{})
	badRequest := func(msg string) metav1.Status { return wantFailure(400, metav1.StatusReasonBadRequest, msg, nil) }
	invalidKey := func(key string) metav1.Status { return wantFailure(500, "", `invalid key: "`+key+`"`, nil) }
	const watchCM = "/api/v1/watch/namespaces/default/configmaps"
	cm := `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm-b"}}`
	cases := []statusCase{
		{name: "DELETE on a watch item", method: http.MethodDelete, path: watchCM + "/cm-a", want: notAllowed,
			reason: "it deleted cm-a before: the /watch/ route is GET only"},
		{name: "PUT on a watch item", method: http.MethodPut, path: watchCM + "/cm-a", body: cm, want: notAllowed},
		{name: "PATCH on a watch item", method: http.MethodPatch, path: watchCM + "/cm-a", body: `{}`,
			header: []string{"Content-Type", "application/merge-patch+json"}, want: notAllowed},
		{name: "POST on a watch collection", method: http.MethodPost, path: watchCM, body: cm, want: notAllowed},
		{name: "DELETE on a watch collection", method: http.MethodDelete, path: watchCM, want: notAllowed},
		{name: "watch of a subresource", method: http.MethodGet, path: "/api/v1/watch/namespaces/default/pods/p/status", want: notFound},
		{name: "list in namespace ..", method: http.MethodGet, path: "/api/v1/namespaces/../configmaps", want: invalidKey("/configmaps/..")},
		{name: "deletecollection in namespace ..", method: http.MethodDelete, path: "/api/v1/namespaces/../configmaps",
			want: invalidKey("/configmaps/..")},
		{name: "watch in namespace .", method: http.MethodGet, path: watchCM[:len("/api/v1/watch/namespaces/")] + "./configmaps",
			want: invalidKey("/configmaps/.")},
		{name: "get in namespace ..", method: http.MethodGet, path: "/api/v1/namespaces/../configmaps/cm-a", want: invalidKey("/configmaps/../cm-a")},
		{name: "service in namespace ..", method: http.MethodGet, path: "/api/v1/namespaces/../services/s", want: invalidKey("/services/specs/../s"),
			reason: "services are stored under services/specs"},
		{name: "name ..", method: http.MethodGet, path: cmPath + "/..", want: badRequest(`Name parameter invalid: "..": may not be '..'`)},
		{name: "name with %", method: http.MethodDelete, path: cmPath + "/%252e", want: badRequest(`Name parameter invalid: "%2e": may not contain '%'`)},
		{name: "empty namespace", method: http.MethodGet, path: "/api/v1/namespaces//configmaps/cm-a", want: badRequest("Namespace parameter required.")},
		{name: "empty name", method: http.MethodGet, path: "/apis/apps/v1/namespaces/default/deployments//scale", want: badRequest("name must be provided")},
		{name: "create in namespace ..", method: http.MethodPost, path: "/api/v1/namespaces/../configmaps", body: cm,
			want: wantFailure(500, metav1.StatusReasonInternalError, `Internal error occurred: invalid resource name "..": [may not be '..']`,
				&metav1.StatusDetails{Causes: []metav1.StatusCause{{Message: `invalid resource name "..": [may not be '..']`}}})},
		{name: "create in the empty namespace", method: http.MethodPost, path: "/api/v1/namespaces//configmaps", body: cm,
			want: wantFailure(422, metav1.StatusReasonInvalid, `ConfigMap "cm-b" is invalid: metadata.namespace: Required value`,
				&metav1.StatusDetails{Name: "cm-b", Kind: "ConfigMap", Causes: []metav1.StatusCause{
					{Type: metav1.CauseTypeFieldValueRequired, Message: "Required value", Field: "metadata.namespace"}}})},
		{name: "DELETE on pods/log", method: http.MethodDelete, path: podPath + "/x/log", want: notAllowed},
		{name: "GET on pods/exec", method: http.MethodPut, path: podPath + "/x/exec", body: `{}`, want: notAllowed},
		{name: "LIST on a pod proxy path", method: "LIST", path: podPath + "/x/proxy/a/b", want: notAllowed},
		{name: "GET on bindings", method: http.MethodGet, path: "/api/v1/namespaces/default/bindings", want: notAllowed},
		{name: "GET on serviceaccounts/token", method: http.MethodGet, path: "/api/v1/namespaces/default/serviceaccounts/x/token", want: notAllowed},
	}
	runStatusCases(t, cases)
}

// TestMalformedRoutesPlainNotFound: outside the paths kube-apiserver's
// go-restful container serves, a path no handler serves is the plain-text
// 404 of Go's http.NotFound, not a Status.
func TestMalformedRoutesPlainNotFound(t *testing.T) {
	t.Parallel()
	srv := Start(t)
	for _, path := range []string{"/apis//", "/apisx", "/foo", "/healthz/", "/readyz//ping", "/openapi", "/openapi/v2/", "//api/v1/namespaces"} {
		resp := getRaw(t, srv, http.MethodGet, path, nil)
		if resp.code != http.StatusNotFound || string(resp.body) != "404 page not found\n" {
			t.Errorf("GET %s = %d %q, want 404 %q", path, resp.code, resp.body, "404 page not found\n")
		}
	}
}
