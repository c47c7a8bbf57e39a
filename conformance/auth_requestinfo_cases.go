package conformance

import (
	"context"
	"fmt"
	"net/http"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// authRequestinfoCases are the cases of this file, in the order [Cases] runs them.
func authRequestinfoCases() []Case {
	return []Case{
		{Name: "AnonymousRequestInfo", Run: runAnonymousRequestInfo},
	}
}

// runAnonymousRequestInfo: the 403 of an anonymous request names what
// kube-apiserver's RequestInfoFactory reads from it, which is not always
// what a route serves: the method's verb on paths no route serves (a PUT
// on a collection, a DELETE on a /watch/ path, segments past the
// subresource, the removed /proxy/ paths), "get" for a named GET whatever
// ?watch= says, and the name a metadata.name field selector gives a list.
func runAnonymousRequestInfo(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	c := anonymousClient(t, target)
	cms := `configmaps is forbidden: User "system:anonymous" cannot %s resource "configmaps" in API group "" in the namespace %q`
	named := `configmaps "cm" is forbidden: User "system:anonymous" cannot %s resource "configmaps" in API group "" in the namespace %q`
	nsCM := &metav1.StatusDetails{Kind: "configmaps"}
	cm := &metav1.StatusDetails{Kind: "configmaps", Name: "cm"}
	for _, tc := range []struct {
		what    string
		req     request
		msg     string
		details *metav1.StatusDetails
	}{
		{"PUT on a collection", request{Method: http.MethodPut, Path: e.cms(), Body: object{}}, fmt.Sprintf(cms, "update", e.ns), nsCM},
		{"named GET with watch", request{Path: e.cms() + "/cm", Query: q("watch", "true")}, fmt.Sprintf(named, "get", e.ns), cm},
		{"DELETE on a /watch/ path", request{Method: http.MethodDelete, Path: "/api/v1/watch/namespaces/" + e.ns + "/configmaps"}, fmt.Sprintf(cms, "watch", e.ns), nsCM},
		{"list by field selector", request{Path: e.cms(), Query: q("fieldSelector", "metadata.name=cm")}, fmt.Sprintf(named, "list", e.ns), cm},
		{"watch by field selector", request{Path: e.cms(), Query: q("watch", "1", "fieldSelector", "metadata.name==cm")}, fmt.Sprintf(named, "watch", e.ns), cm},
		{"list by field selector, bad limit", request{Path: e.cms(), Query: q("limit", "x", "fieldSelector", "metadata.name=cm")}, fmt.Sprintf(cms, "list", e.ns), nsCM},
		{"segments past the subresource", request{Path: nsPath(e.ns, "pods") + "/p/status/x"},
			fmt.Sprintf(`pods "p" is forbidden: User "system:anonymous" cannot get resource "pods/status" in API group "" in the namespace %q`, e.ns),
			&metav1.StatusDetails{Kind: "pods", Name: "p"}},
		{"proxy path", request{Path: "/api/v1/proxy/namespaces/" + e.ns + "/pods/p/x"},
			fmt.Sprintf(`pods "p" is forbidden: User "system:anonymous" cannot proxy resource "pods" in API group "" in the namespace %q`, e.ns),
			&metav1.StatusDetails{Kind: "pods", Name: "p"}},
		{"namespace finalize", request{Method: http.MethodPut, Path: "/api/v1/namespaces/" + e.ns + "/finalize", Body: object{}},
			fmt.Sprintf(`namespaces %q is forbidden: User "system:anonymous" cannot update resource "namespaces/finalize" in API group "" in the namespace %q`, e.ns, e.ns),
			&metav1.StatusDetails{Kind: "namespaces", Name: e.ns}},
	} {
		checkStatus(t, "anonymous "+tc.what, c.do(ctx, t, tc.req), wantStatus(http.StatusForbidden, metav1.StatusReasonForbidden, tc.msg, tc.details))
	}
}
