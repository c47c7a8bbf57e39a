package fakeapiserver

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/lw-sim/lw-sim/internal/kubewire"
)

func TestRouteErrors(t *testing.T) {
	t.Parallel()
	notFound := wantFailure(404, metav1.StatusReasonNotFound, "the server could not find the requested resource", &metav1.StatusDetails{})
	notAllowed := wantFailure(405, metav1.StatusReasonMethodNotAllowed, "the server does not allow this method on the requested resource", &metav1.StatusDetails{})
	cases := []statusCase{
		{name: "unknown resource", method: "GET", path: "/api/v1/namespaces/default/foos", want: notFound},
		{name: "unknown subresource", method: "GET", path: cmPath + "/cm-a/status", want: notFound, reason: "configmaps have no status"},
		{name: "namespaced path of a cluster-scoped resource", method: "GET", path: "/api/v1/namespaces/default/nodes", want: notFound},
		{name: "PUT on a collection", method: "PUT", path: cmPath, body: `{}`, want: notAllowed},
		{name: "POST on an object", method: "POST", path: cmPath + "/cm-a", body: `{}`, want: notAllowed},
		{name: "POST across namespaces", method: "POST", path: "/api/v1/configmaps", body: `{}`, want: notAllowed},
		{name: "DELETE on status", method: "DELETE", path: "/api/v1/namespaces/default/pods/p/status", want: notAllowed},
	}
	runStatusCases(t, cases)
}

func TestResourcePath(t *testing.T) {
	t.Parallel()
	tests := []struct {
		path string
		want requestInfo
		ok   bool
	}{
		{"/api/v1/namespaces/ns/pods/p/status", requestInfo{resource: "pods", namespace: "ns", name: "p", subresource: "status", namespaced: true, item: true}, true},
		{"/api/v1/namespaces/ns", requestInfo{resource: "namespaces", name: "ns", item: true}, true},
		{"/api/v1/namespaces/ns/status", requestInfo{resource: "namespaces", name: "ns", subresource: "status", item: true}, true},
		{"/api/v1/watch/namespaces/ns/pods", requestInfo{resource: "pods", namespace: "ns", namespaced: true, forceWatch: true}, true},
		{"/api/v1/nodes/n", requestInfo{resource: "nodes", name: "n", item: true}, true},
		{"/api/v1/namespaces/ns/pods/p/status/x", requestInfo{}, false},
		{"/api/v1/namespaces/ns/pods/p/proxy/x/y", requestInfo{resource: "pods", namespace: "ns", name: "p", subresource: "proxy", namespaced: true, item: true, subpath: true}, true},
		{"/api/v1/proxy/namespaces/ns/pods/p", requestInfo{}, false},
		{"/api/v1/watch", requestInfo{}, false},
		{"/apis/apps/v1/namespaces/ns/deployments/d/scale", requestInfo{resource: "deployments", namespace: "ns", name: "d", subresource: "scale", namespaced: true, item: true}, true},
		{"/apis/apps/v1/namespaces//deployments//scale", requestInfo{resource: "deployments", subresource: "scale", namespaced: true, item: true}, true},
		{"/healthz", requestInfo{}, false},
	}
	for _, tt := range tests {
		got, ok := resourcePath(kubewire.ParsePath(tt.path))
		got.gv = tt.want.gv
		if ok != tt.ok || (ok && got != tt.want) {
			t.Errorf("resourcePath(%q) = %+v, %v; want %+v, %v", tt.path, got, ok, tt.want, tt.ok)
		}
	}
}
