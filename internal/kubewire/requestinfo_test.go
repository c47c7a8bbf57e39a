package kubewire

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestNewRequestInfo runs the resource paths of kube-apiserver's own table
// (apiserver pkg/endpoints/request/requestinfo_test.go TestGetAPIRequestInfo)
// and the paths the fake serves (list, watch, the deprecated
// /watch/ form, namespace subresources, groups).
func TestNewRequestInfo(t *testing.T) {
	t.Parallel()
	ri := func(verb, group, version, ns, resource, sub, name string, parts ...string) RequestInfo {
		prefix := "api"
		if group != "" {
			prefix = "apis"
		}
		return RequestInfo{IsResourceRequest: true, Verb: verb, APIPrefix: prefix, Group: group, Version: version,
			Namespace: ns, InNamespace: ns != "" && resource != "namespaces", Resource: resource, Subresource: sub, Name: name, Parts: parts}
	}
	inEmptyNamespace := func(info RequestInfo) RequestInfo { info.InNamespace = true; return info }
	tests := []struct {
		method, url string
		want        RequestInfo
	}{
		// kube-apiserver's table.
		{"GET", "/api/v1/namespaces", ri("list", "", "v1", "", "namespaces", "", "", "namespaces")},
		{"GET", "/api/v1/namespaces/other", ri("get", "", "v1", "other", "namespaces", "", "other", "namespaces", "other")},
		{"GET", "/api/v1/namespaces/other/pods", ri("list", "", "v1", "other", "pods", "", "", "pods")},
		{"GET", "/api/v1/namespaces/other/pods/foo", ri("get", "", "v1", "other", "pods", "", "foo", "pods", "foo")},
		{"HEAD", "/api/v1/namespaces/other/pods/foo", ri("get", "", "v1", "other", "pods", "", "foo", "pods", "foo")},
		{"GET", "/api/v1/pods", ri("list", "", "v1", "", "pods", "", "", "pods")},
		{"HEAD", "/api/v1/pods", ri("list", "", "v1", "", "pods", "", "", "pods")},
		{"GET", "/api/v1/watch/pods", withPathVerb(ri("watch", "", "v1", "", "pods", "", "", "pods"), "watch")},
		{"GET", "/api/v1/pods?watch=true", ri("watch", "", "v1", "", "pods", "", "", "pods")},
		{"GET", "/api/v1/pods?watch=false", ri("list", "", "v1", "", "pods", "", "", "pods")},
		{"GET", "/api/v1/watch/namespaces/other/pods", withPathVerb(ri("watch", "", "v1", "other", "pods", "", "", "pods"), "watch")},
		{"GET", "/api/v1/namespaces/other/pods?watch=1", ri("watch", "", "v1", "other", "pods", "", "", "pods")},
		{"GET", "/api/v1/namespaces/other/pods?watch=0", ri("list", "", "v1", "other", "pods", "", "", "pods")},
		{"GET", "/api/v1/proxy/namespaces/other/pods/foo", withPathVerb(ri("proxy", "", "v1", "other", "pods", "", "foo", "pods", "foo"), "proxy")},
		{"GET", "/api/v1/proxy/namespaces/other/pods/foo/subpath/not/a/subresource",
			withPathVerb(ri("proxy", "", "v1", "other", "pods", "", "foo", "pods", "foo", "subpath", "not", "a", "subresource"), "proxy")},
		{"GET", "/api/v1/namespaces/other/pods/foo/status", ri("get", "", "v1", "other", "pods", "status", "foo", "pods", "foo", "status")},
		{"GET", "/api/v1/namespaces/other/pods/foo/proxy/subpath", ri("get", "", "v1", "other", "pods", "proxy", "foo", "pods", "foo", "proxy", "subpath")},
		{"PUT", "/api/v1/namespaces/other/finalize", ri("update", "", "v1", "other", "namespaces", "finalize", "other", "namespaces", "other", "finalize")},
		{"PUT", "/api/v1/namespaces/other/status", ri("update", "", "v1", "other", "namespaces", "status", "other", "namespaces", "other", "status")},
		{"PATCH", "/api/v1/namespaces/other/pods/foo", ri("patch", "", "v1", "other", "pods", "", "foo", "pods", "foo")},
		{"DELETE", "/api/v1/namespaces/other/pods/foo", ri("delete", "", "v1", "other", "pods", "", "foo", "pods", "foo")},
		{"POST", "/api/v1/namespaces/other/pods", ri("create", "", "v1", "other", "pods", "", "", "pods")},
		{"DELETE", "/api/v1/nodes", ri("deletecollection", "", "v1", "", "nodes", "", "", "nodes")},
		{"DELETE", "/api/v1/namespaces", ri("deletecollection", "", "v1", "", "namespaces", "", "", "namespaces")},
		{"DELETE", "/apis/extensions/v1/namespaces/other/pods", ri("deletecollection", "extensions", "v1", "other", "pods", "", "", "pods")},
		{"POST", "/apis/extensions/v1beta3/namespaces/other/pods", ri("create", "extensions", "v1beta3", "other", "pods", "", "", "pods")},
		// An empty namespace segment is still a namespaced route's (issue 21).
		{"GET", "/api/v1/namespaces//pods", inEmptyNamespace(ri("list", "", "v1", "", "pods", "", "", "pods"))},
		{"DELETE", "/api/v1/namespaces//pods/foo", inEmptyNamespace(ri("delete", "", "v1", "", "pods", "", "foo", "pods", "foo"))},
		// The fake's paths.
		{"GET", "/apis/apps/v1/namespaces/ns/deployments/d/scale", ri("get", "apps", "v1", "ns", "deployments", "scale", "d", "deployments", "d", "scale")},
		{"POST", "/api/v1/namespaces/ns/pods/p/eviction", ri("create", "", "v1", "ns", "pods", "eviction", "p", "pods", "p", "eviction")},
		{"GET", "/api/v1/namespaces/ns/configmaps/cm?watch=true", ri("get", "", "v1", "ns", "configmaps", "", "cm", "configmaps", "cm")},
		{"GET", "/api/v1/namespaces/ns/configmaps?watch=", ri("watch", "", "v1", "ns", "configmaps", "", "", "configmaps")},
		{"GET", "/api/v1/namespaces/ns/configmaps?watch=FALSE", ri("list", "", "v1", "ns", "configmaps", "", "", "configmaps")},
		{"DELETE", "/api/v1/watch/namespaces/ns/configmaps", withPathVerb(ri("watch", "", "v1", "ns", "configmaps", "", "", "configmaps"), "watch")},
		{"OPTIONS", "/api/v1/namespaces/ns/configmaps", ri("", "", "v1", "ns", "configmaps", "", "", "configmaps")},
		{"GET", "/api/v1/namespaces/ns/", ri("get", "", "v1", "ns", "namespaces", "", "ns", "namespaces", "ns")},
		// A metadata.name field selector names a list or watch
		// (TestSelectorParsing), when ListOptions decode and the name is a
		// valid path segment.
		{"GET", "/api/v1/namespaces/ns/configmaps?fieldSelector=metadata.name%3Dcm", ri("list", "", "v1", "ns", "configmaps", "", "cm", "configmaps")},
		{"GET", "/api/v1/configmaps?watch=1&fieldSelector=metadata.name%3D%3Dcm,metadata.namespace%3Dns", ri("watch", "", "v1", "", "configmaps", "", "cm", "configmaps")},
		{"GET", "/api/v1/namespaces/ns/configmaps?fieldSelector=metadata.name%3D..", ri("list", "", "v1", "ns", "configmaps", "", "", "configmaps")},
		{"GET", "/api/v1/namespaces/ns/configmaps?fieldSelector=metadata.name!%3Dcm", ri("list", "", "v1", "ns", "configmaps", "", "", "configmaps")},
		{"GET", "/api/v1/namespaces/ns/configmaps?watch=true&limit=x&fieldSelector=metadata.name%3Dcm", ri("watch", "", "v1", "ns", "configmaps", "", "", "configmaps")},
		{"DELETE", "/api/v1/namespaces/ns/configmaps?fieldSelector=metadata.name%3Dcm", ri("deletecollection", "", "v1", "ns", "configmaps", "", "", "configmaps")},
	}
	for _, tt := range tests {
		got, err := NewRequestInfo(httptest.NewRequest(tt.method, tt.url, nil))
		if err != nil {
			t.Errorf("NewRequestInfo(%s %s): %v", tt.method, tt.url, err)
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("NewRequestInfo(%s %s) mismatch (-want +got):\n%s", tt.method, tt.url, diff)
		}
	}
}

func withPathVerb(info RequestInfo, verb string) RequestInfo {
	info.PathVerb = verb
	return info
}

// TestNonResourceRequests: kube-apiserver's non-resource paths
// (TestGetNonAPIRequestInfo, TestGetAPIRequestInfo's error cases) get the
// lower-cased method as their verb and no resource.
func TestNonResourceRequests(t *testing.T) {
	t.Parallel()
	for _, path := range []string{
		"/", "/api", "/api/v1", "/api/version/", "/apis/group/version/", "/apis/extensions/v1beta1",
		"/badprefix/version/resource", "/apis/version/resource", "/not-api/version/resource", "/healthz/etcd", "/version",
	} {
		got, err := NewRequestInfo(httptest.NewRequest(http.MethodPost, path, nil))
		if err != nil || got.IsResourceRequest || got.Verb != "post" || got.Resource != "" {
			t.Errorf("NewRequestInfo(POST %s) = %+v, %v; want a non-resource request with verb post", path, got, err)
		}
	}
}

// TestPathVerbWithoutResource: a path verb with nothing after it is the
// factory's one error, with its text.
func TestPathVerbWithoutResource(t *testing.T) {
	t.Parallel()
	_, err := ParsePath("/apis/apps/v1/watch")
	want := "unable to determine kind and namespace from url, /apis/apps/v1/watch"
	if err == nil || err.Error() != want {
		t.Errorf("ParsePath(/apis/apps/v1/watch) error = %v, want %q", err, want)
	}
}

func TestObjectNamespace(t *testing.T) {
	t.Parallel()
	tests := []struct{ path, want string }{
		{"/api/v1/namespaces/ns", ""},
		{"/api/v1/namespaces/ns/status", ""},
		{"/api/v1/namespaces/ns/configmaps/cm", "ns"},
		{"/api/v1/nodes/n", ""},
	}
	for _, tt := range tests {
		info, _ := ParsePath(tt.path)
		if got := info.ObjectNamespace(); got != tt.want {
			t.Errorf("ParsePath(%q).ObjectNamespace() = %q, want %q", tt.path, got, tt.want)
		}
	}
}

func TestGroupVersionResource(t *testing.T) {
	t.Parallel()
	info, _ := ParsePath("/apis/apps/v1/namespaces/ns/deployments/d")
	if got := info.GroupVersionResource().String(); got != "apps/v1, Resource=deployments" {
		t.Errorf("GroupVersionResource() = %s, want apps/v1, Resource=deployments", got)
	}
}
