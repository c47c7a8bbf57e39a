package fakeapiserver

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/version"
	"k8s.io/client-go/discovery"

	internaldiscovery "github.com/lw-sim/lw-sim/fakeapiserver/internal/discovery"
)

// allVerbs are the verbs discovery advertises for every served resource.
var allVerbs = metav1.Verbs{"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"}

// withGroupVersions serves the default group-versions plus extra.
func withGroupVersions(extra ...schema.GroupVersion) Option {
	return WithConfig(func(cfg *Config) {
		cfg.GroupVersions = append(slices.Clone(DefaultGroupVersions), extra...)
	})
}

// newDiscoveryClient is a client-go discovery client for srv; legacy makes
// it ask for the unaggregated documents only. It has a transport of its
// own, whose idle connections are closed before the server (cleanups run
// last-in first-out): the discovery client fetches in parallel, and a
// connection its transport dialled but never used would hold up the
// server's graceful shutdown, which waits for such connections.
func newDiscoveryClient(t *testing.T, srv *Server, legacy bool) *discovery.DiscoveryClient {
	t.Helper()
	cfg := srv.RESTConfig()
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	cfg.Transport = tr
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		t.Fatalf("NewDiscoveryClientForConfig = %v", err)
	}
	dc.UseLegacyDiscovery = legacy
	return dc
}

// rawResponse is one HTTP exchange made by getRaw.
type rawResponse struct {
	code   int
	header http.Header
	body   []byte
}

// getRaw sends one request with the given headers, without following
// redirects, on a transport the test owns (so no connection outlives it).
func getRaw(t *testing.T, srv *Server, method, path string, header map[string]string) rawResponse {
	t.Helper()
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	client := &http.Client{Transport: tr, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	req, err := http.NewRequestWithContext(t.Context(), method, srv.URL()+path, nil)
	if err != nil {
		t.Fatalf("NewRequest(%s %s) = %v", method, path, err)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("%s %s = %v", method, path, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: read body = %v", method, path, err)
	}
	return rawResponse{code: resp.StatusCode, header: resp.Header, body: body}
}

// resourcesByGV flattens ServerGroupsAndResources' lists for comparison.
func resourcesByGV(lists []*metav1.APIResourceList) map[string][]metav1.APIResource {
	out := map[string][]metav1.APIResource{}
	for _, l := range lists {
		out[l.GroupVersion] = l.APIResources
	}
	return out
}

// TestDiscoveryServerGroupsAndResources checks, through client-go's
// discovery client, that both the aggregated and the legacy form report
// every served resource, with its scope, kind and verbs, and its status
// subresource where the kind has a status.
func TestDiscoveryServerGroupsAndResources(t *testing.T) {
	t.Parallel()
	srv := Start(t)
	tests := []struct {
		name   string
		legacy bool
	}{
		{name: "aggregated", legacy: false},
		{name: "legacy", legacy: true},
	}
	got := map[string]map[string][]metav1.APIResource{}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dc := newDiscoveryClient(t, srv, tt.legacy)
			_, resources, _, err := dc.GroupsAndMaybeResources()
			if err != nil {
				t.Fatalf("GroupsAndMaybeResources() = %v", err)
			}
			// The client only returns resources with the groups when the
			// server answered in the aggregated form.
			if aggregated := resources != nil; aggregated == tt.legacy {
				t.Errorf("GroupsAndMaybeResources() answered aggregated = %v, want %v", aggregated, !tt.legacy)
			}
			groups, lists, err := dc.ServerGroupsAndResources()
			if err != nil {
				t.Fatalf("ServerGroupsAndResources() = %v", err)
			}
			if len(groups) != 22 {
				t.Errorf("ServerGroupsAndResources() groups = %d, want kube-apiserver's 22", len(groups))
			}
			// client-go gives the subresources it unfolds from the
			// aggregated form their parent's singularName
			// (discovery/aggregated_discovery.go convertAPISubresource);
			// the server sends none, as kube-apiserver.
			byGV := withoutSubresourceSingular(resourcesByGV(lists))
			checkServedResources(t, srv, byGV)
			got[tt.name] = byGV
		})
	}
	// The aggregated form has no storageVersionHash; otherwise the two
	// forms must agree exactly.
	opt := cmpopts.IgnoreFields(metav1.APIResource{}, "StorageVersionHash")
	if diff := cmp.Diff(got["legacy"], got["aggregated"], opt); diff != "" {
		t.Errorf("aggregated discovery differs from legacy discovery (-legacy +aggregated):\n%s", diff)
	}
}

// withoutSubresourceSingular returns byGV with the subresources'
// singularName cleared.
func withoutSubresourceSingular(byGV map[string][]metav1.APIResource) map[string][]metav1.APIResource {
	out := map[string][]metav1.APIResource{}
	for gv, list := range byGV {
		list = slices.Clone(list)
		for i := range list {
			if strings.Contains(list[i].Name, "/") {
				list[i].SingularName = ""
			}
		}
		out[gv] = list
	}
	return out
}

// checkServedResources checks byGV against the server's resource table
// (every resource and nothing else, with scope and kind) and spot-checks
// entries against kube-apiserver v1.37's own discovery.
func checkServedResources(t *testing.T, srv *Server, byGV map[string][]metav1.APIResource) {
	t.Helper()
	for gvr, res := range srv.resources.byGVR {
		list := byGV[gvr.GroupVersion().String()]
		i := slices.IndexFunc(list, func(r metav1.APIResource) bool { return r.Name == gvr.Resource })
		if i < 0 {
			t.Errorf("discovery of %s lacks served resource %q", gvr.GroupVersion(), gvr.Resource)
			continue
		}
		if list[i].Namespaced != !res.ClusterScoped || list[i].Kind != res.Kind.Kind {
			t.Errorf("discovery of %s = namespaced %v kind %q, want namespaced %v kind %q",
				gvr, list[i].Namespaced, list[i].Kind, !res.ClusterScoped, res.Kind.Kind)
		}
	}
	for gv, list := range byGV {
		for _, r := range list {
			parent, _, _ := strings.Cut(r.Name, "/")
			gvr := schema.FromAPIVersionAndKind(gv, "").GroupVersion().WithResource(parent)
			if _, ok := srv.resources.lookup(gvr); !ok {
				t.Errorf("discovery of %s lists %q, which is not served", gv, r.Name)
			}
		}
	}
	spots := []struct {
		gv   string
		want metav1.APIResource
	}{
		{"v1", metav1.APIResource{Name: "pods", SingularName: "pod", Namespaced: true, Kind: "Pod", Verbs: allVerbs, ShortNames: []string{"po"}, Categories: []string{"all"}}},
		{"v1", metav1.APIResource{Name: "pods/status", Namespaced: true, Kind: "Pod", Verbs: metav1.Verbs{"get", "patch", "update"}}},
		{"v1", metav1.APIResource{Name: "namespaces", SingularName: "namespace", Kind: "Namespace", Verbs: metav1.Verbs{"create", "delete", "get", "list", "patch", "update", "watch"}, ShortNames: []string{"ns"}}},
		{"v1", metav1.APIResource{Name: "namespaces/status", Kind: "Namespace", Verbs: metav1.Verbs{"get", "patch", "update"}}},
		{"v1", metav1.APIResource{Name: "configmaps", SingularName: "configmap", Namespaced: true, Kind: "ConfigMap", Verbs: allVerbs, ShortNames: []string{"cm"}}},
		{"apps/v1", metav1.APIResource{Name: "deployments", SingularName: "deployment", Namespaced: true, Kind: "Deployment", Verbs: allVerbs, ShortNames: []string{"deploy"}, Categories: []string{"all"}}},
		{"apps/v1", metav1.APIResource{Name: "deployments/status", Namespaced: true, Kind: "Deployment", Verbs: metav1.Verbs{"get", "patch", "update"}}},
		{"coordination.k8s.io/v1", metav1.APIResource{Name: "leases", SingularName: "lease", Namespaced: true, Kind: "Lease", Verbs: allVerbs}},
	}
	opt := cmpopts.IgnoreFields(metav1.APIResource{}, "StorageVersionHash")
	for _, s := range spots {
		list := byGV[s.gv]
		i := slices.IndexFunc(list, func(r metav1.APIResource) bool { return r.Name == s.want.Name })
		if i < 0 {
			t.Errorf("discovery of %s lacks %q", s.gv, s.want.Name)
			continue
		}
		if diff := cmp.Diff(s.want, list[i], opt, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("discovery of %s %q mismatch (-want +got):\n%s", s.gv, s.want.Name, diff)
		}
	}
	if i := slices.IndexFunc(byGV["v1"], func(r metav1.APIResource) bool { return r.Name == "configmaps/status" }); i >= 0 {
		t.Errorf("discovery of v1 lists configmaps/status, but ConfigMap has no status")
	}
}

// TestDiscoveryMatchesKubeAPIServer compares the legacy discovery of every
// default group-version with kube-apiserver v1.37.2's (as captured): equal
// but for the subresources and kinds this server does not serve.
func TestDiscoveryMatchesKubeAPIServer(t *testing.T) {
	t.Parallel()
	srv := Start(t)
	_, lists, err := newDiscoveryClient(t, srv, true).ServerGroupsAndResources()
	if err != nil {
		t.Fatalf("ServerGroupsAndResources() = %v", err)
	}
	got := resourcesByGV(lists)
	notServed := map[string]bool{"v1 bindings": true}
	for _, sub := range []string{"nodes/proxy", "pods/attach", "pods/ephemeralcontainers",
		"pods/exec", "pods/log", "pods/portforward", "pods/proxy", "pods/resize",
		"services/proxy"} {
		notServed["v1 "+sub] = true
	}
	captured, err := internaldiscovery.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	for _, gv := range DefaultGroupVersions {
		b := captured[gv]
		var want []metav1.APIResource
		for _, r := range b.Resources {
			want = append(want, r)
			want = append(want, b.Subresources[r.Name]...)
		}
		want = slices.DeleteFunc(want, func(r metav1.APIResource) bool { return notServed[gv.String()+" "+r.Name] })
		if diff := cmp.Diff(want, got[gv.String()], cmpopts.SortSlices(func(a, b metav1.APIResource) bool { return a.Name < b.Name }), cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("discovery of %s differs from kube-apiserver's (-real +fake):\n%s", gv, diff)
		}
	}
}

// TestDiscoveryStorageVersionHash pins the legacy form's storageVersionHash
// to the values kube-apiserver v1.37 advertises.
func TestDiscoveryStorageVersionHash(t *testing.T) {
	t.Parallel()
	srv := Start(t)
	_, lists, err := newDiscoveryClient(t, srv, true).ServerGroupsAndResources()
	if err != nil {
		t.Fatalf("ServerGroupsAndResources() = %v", err)
	}
	byGV := resourcesByGV(lists)
	tests := []struct{ gv, resource, want string }{
		{"v1", "pods", "xPOwRZ+Yhw8="},
		{"v1", "configmaps", "qFsyl6wFWjQ="},
		{"apps/v1", "deployments", "8aSe+NMegvE="},
	}
	for _, tt := range tests {
		i := slices.IndexFunc(byGV[tt.gv], func(r metav1.APIResource) bool { return r.Name == tt.resource })
		if i < 0 {
			t.Errorf("discovery of %s lacks %q", tt.gv, tt.resource)
			continue
		}
		if got := byGV[tt.gv][i].StorageVersionHash; got != tt.want {
			t.Errorf("%s %s storageVersionHash = %q, want %q", tt.gv, tt.resource, got, tt.want)
		}
	}
}

// TestDiscoveryGroupOrder checks kube-apiserver's group order (core, then
// by priority: apps, autoscaling, batch, coordination.k8s.io) and the
// preferred version (autoscaling/v2 over v1) in both forms.
func TestDiscoveryGroupOrder(t *testing.T) {
	t.Parallel()
	srv := Start(t)
	// kube-apiserver v1.37.2's /apis order: the aggregator's own group
	// first.
	want := []string{"v1", "apiregistration.k8s.io/v1", "apps/v1", "events.k8s.io/v1", "authentication.k8s.io/v1", "authorization.k8s.io/v1",
		"autoscaling/v2", "autoscaling/v1", "batch/v1", "certificates.k8s.io/v1", "networking.k8s.io/v1", "policy/v1",
		"rbac.authorization.k8s.io/v1", "storage.k8s.io/v1", "admissionregistration.k8s.io/v1", "apiextensions.k8s.io/v1", "scheduling.k8s.io/v1",
		"coordination.k8s.io/v1", "node.k8s.io/v1", "discovery.k8s.io/v1", "resource.k8s.io/v1",
		"flowcontrol.apiserver.k8s.io/v1", "storagemigration.k8s.io/v1"}
	wantPreferred := map[string]string{}
	for _, gv := range want {
		g := schema.FromAPIVersionAndKind(gv, "").Group
		if _, ok := wantPreferred[g]; !ok {
			wantPreferred[g] = gv
		}
	}
	for _, legacy := range []bool{false, true} {
		groups, err := newDiscoveryClient(t, srv, legacy).ServerGroups()
		if err != nil {
			t.Fatalf("ServerGroups(legacy=%v) = %v", legacy, err)
		}
		var got []string
		gotPreferred := map[string]string{}
		for _, g := range groups.Groups {
			for _, v := range g.Versions {
				got = append(got, v.GroupVersion)
			}
			gotPreferred[g.Name] = g.PreferredVersion.GroupVersion
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("ServerGroups(legacy=%v) group-versions mismatch (-want +got):\n%s", legacy, diff)
		}
		if diff := cmp.Diff(wantPreferred, gotPreferred); diff != "" {
			t.Errorf("ServerGroups(legacy=%v) preferred versions mismatch (-want +got):\n%s", legacy, diff)
		}
	}
}

// TestDiscoveryLegacyDocuments checks the legacy documents' type meta,
// which kube-apiserver strips for the core group (and only there), and the
// address rule of /api.
func TestDiscoveryLegacyDocuments(t *testing.T) {
	t.Parallel()
	srv := Start(t)
	tests := []struct {
		path string
		want metav1.TypeMeta
	}{
		{"/api", metav1.TypeMeta{Kind: "APIVersions"}},
		{"/api/", metav1.TypeMeta{Kind: "APIVersions"}},
		{"/api/v1", metav1.TypeMeta{Kind: "APIResourceList"}},
		{"/apis", metav1.TypeMeta{Kind: "APIGroupList", APIVersion: "v1"}},
		{"/apis/apps", metav1.TypeMeta{Kind: "APIGroup", APIVersion: "v1"}},
		{"/apis/apps/v1", metav1.TypeMeta{Kind: "APIResourceList", APIVersion: "v1"}},
	}
	for _, tt := range tests {
		resp := getRaw(t, srv, http.MethodGet, tt.path, map[string]string{"Accept": "application/json"})
		if resp.code != http.StatusOK || resp.header.Get("Content-Type") != "application/json" {
			t.Errorf("GET %s = %d %q, want 200 application/json", tt.path, resp.code, resp.header.Get("Content-Type"))
			continue
		}
		var got metav1.TypeMeta
		if err := json.Unmarshal(resp.body, &got); err != nil {
			t.Fatalf("GET %s: %v", tt.path, err)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("GET %s type meta mismatch (-want +got):\n%s", tt.path, diff)
		}
	}
	resp := getRaw(t, srv, http.MethodGet, "/api", nil)
	var versions metav1.APIVersions
	if err := json.Unmarshal(resp.body, &versions); err != nil {
		t.Fatalf("GET /api: %v", err)
	}
	host := strings.TrimPrefix(srv.URL(), "http://")
	want := metav1.APIVersions{
		TypeMeta:                   metav1.TypeMeta{Kind: "APIVersions"},
		Versions:                   []string{"v1"},
		ServerAddressByClientCIDRs: []metav1.ServerAddressByClientCIDR{{ClientCIDR: "0.0.0.0/0", ServerAddress: host}},
	}
	if diff := cmp.Diff(want, versions); diff != "" {
		t.Errorf("GET /api mismatch (-want +got):\n%s", diff)
	}
}

// TestDiscoveryNegotiation checks which Accept headers get the aggregated
// form (with the Content-Type parameters client-go's ContentTypeIsGVK
// requires), which get the legacy one, and which get 406.
func TestDiscoveryNegotiation(t *testing.T) {
	t.Parallel()
	srv := Start(t)
	const (
		aggregatedJSON = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"
		aggregatedPB   = "application/vnd.kubernetes.protobuf;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"
	)
	const (
		handler406 = "only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf"
		restful406 = "406: Not Acceptable\n\nAvailable representations: application/json, application/yaml, application/vnd.kubernetes.protobuf"
	)
	tests := []struct {
		name, path, accept string
		wantCode           int
		wantContentType    string
		wantMessage        string // of the 406 Status; go-restful's on its routes, else the handler's
	}{
		{"client-go default on /apis", "/apis", discovery.AcceptV2 + "," + discovery.AcceptV1, http.StatusOK, aggregatedJSON, ""},
		{"client-go default on /api", "/api", discovery.AcceptV2 + "," + discovery.AcceptV1, http.StatusOK, aggregatedJSON, ""},
		{"client-go nopeer", "/apis", discovery.AcceptV2NoPeer + "," + discovery.AcceptV2 + "," + discovery.AcceptV1, http.StatusOK, aggregatedJSON, ""},
		{"protobuf aggregated", "/apis", aggregatedPB, http.StatusOK, aggregatedPB, ""},
		{"legacy", "/apis", discovery.AcceptV1, http.StatusOK, "application/json", ""},
		{"no Accept", "/api", "", http.StatusOK, "application/json", ""},
		{"yaml", "/apis/apps/v1", "application/yaml", http.StatusOK, "application/yaml", ""},
		{"removed v2beta1, then legacy", "/apis", "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json", http.StatusOK, "application/json", ""},
		{"removed v2beta1 only", "/apis", "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList", http.StatusNotAcceptable, "application/json", handler406},
		{"aggregated on a group-version", "/api/v1", discovery.AcceptV2 + "," + discovery.AcceptV1, http.StatusOK, "application/json", ""},
		{"aggregated only on a group-version", "/api/v1", discovery.AcceptV2, http.StatusNotAcceptable, "application/json", handler406},
		{"Table", "/apis", "application/json;as=Table;v=v1;g=meta.k8s.io", http.StatusNotAcceptable, "application/json", handler406},
		{"unknown type on a go-restful route", "/apis/apps/v1", "text/html", http.StatusNotAcceptable, "application/json", restful406},
		{"unknown type on the aggregator's /apis", "/apis", "text/html", http.StatusNotAcceptable, "application/json", handler406},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := getRaw(t, srv, http.MethodGet, tt.path, map[string]string{"Accept": tt.accept})
			if resp.code != tt.wantCode || resp.header.Get("Content-Type") != tt.wantContentType {
				t.Errorf("GET %s (Accept %q) = %d %q, want %d %q", tt.path, tt.accept, resp.code, resp.header.Get("Content-Type"), tt.wantCode, tt.wantContentType)
			}
			if tt.wantMessage != "" {
				var st metav1.Status
				if err := json.Unmarshal(resp.body, &st); err != nil || st.Message != tt.wantMessage {
					t.Errorf("GET %s (Accept %q) message = %q (%v), want %q", tt.path, tt.accept, st.Message, err, tt.wantMessage)
				}
			}
			isGVK, err := discovery.ContentTypeIsGVK(resp.header.Get("Content-Type"), internaldiscovery.AggregatedGVK)
			if wantGVK := tt.wantContentType == aggregatedJSON; err != nil || isGVK != wantGVK {
				t.Errorf("ContentTypeIsGVK(%q) = %v, %v; want %v", resp.header.Get("Content-Type"), isGVK, err, wantGVK)
			}
		})
	}
}

// TestDiscoveryAggregatedETag checks the cache validation of the
// aggregated form: a stable quoted ETag, and 304 for If-None-Match.
func TestDiscoveryAggregatedETag(t *testing.T) {
	t.Parallel()
	srv := Start(t)
	accept := map[string]string{"Accept": discovery.AcceptV2}
	first := getRaw(t, srv, http.MethodGet, "/apis", accept)
	etag := first.header.Get("ETag")
	if first.code != http.StatusOK || !strings.HasPrefix(etag, `"`) {
		t.Fatalf("GET /apis = %d with ETag %q, want 200 with a quoted ETag", first.code, etag)
	}
	if got := first.header.Get("Vary"); got != "Accept" {
		t.Errorf("GET /apis Vary = %q, want Accept", got)
	}
	again := getRaw(t, srv, http.MethodGet, "/apis", map[string]string{"Accept": discovery.AcceptV2, "If-None-Match": etag})
	if again.code != http.StatusNotModified || len(again.body) != 0 {
		t.Errorf("GET /apis with If-None-Match = %d (%d bytes), want 304 with no body", again.code, len(again.body))
	}
}

// TestDiscoveryNotServed checks that unserved versions of served groups
// fall through to the 404 Status, an unserved group to the plain-text 404
// (no go-restful web service has its root path: routes_root.go), and that
// discovery only answers GET.
func TestDiscoveryNotServed(t *testing.T) {
	t.Parallel()
	srv := Start(t)
	for _, path := range []string{"/apis/example.com", "/apis/example.com/v1", "/apis//", "//api/v1"} {
		resp := getRaw(t, srv, http.MethodGet, path, nil)
		if resp.code != http.StatusNotFound || string(resp.body) != "404 page not found\n" {
			t.Errorf("GET %s = %d %q, want 404 \"404 page not found\\n\"", path, resp.code, resp.body)
		}
	}
	tests := []struct {
		method, path string
		wantCode     int
		wantReason   metav1.StatusReason
	}{
		{http.MethodGet, "/apis/batch/v1beta1", http.StatusNotFound, metav1.StatusReasonNotFound},
		{http.MethodGet, "/apis/apps/v2", http.StatusNotFound, metav1.StatusReasonNotFound},
		{http.MethodGet, "/api/v2", http.StatusNotFound, metav1.StatusReasonNotFound},
		{http.MethodPost, "/api", http.StatusMethodNotAllowed, metav1.StatusReasonMethodNotAllowed},
		{http.MethodDelete, "/apis/apps/v1", http.StatusMethodNotAllowed, metav1.StatusReasonMethodNotAllowed},
		{http.MethodPut, "/version", http.StatusMethodNotAllowed, metav1.StatusReasonMethodNotAllowed},
	}
	for _, tt := range tests {
		resp := getRaw(t, srv, tt.method, tt.path, nil)
		var st metav1.Status
		if err := json.Unmarshal(resp.body, &st); err != nil {
			t.Errorf("%s %s body = %q, want a Status: %v", tt.method, tt.path, resp.body, err)
			continue
		}
		if resp.code != tt.wantCode || st.Reason != tt.wantReason || st.Kind != "Status" {
			t.Errorf("%s %s = %d %s %q, want %d Status %q", tt.method, tt.path, resp.code, st.Kind, st.Reason, tt.wantCode, tt.wantReason)
		}
	}
}

// TestServerVersion checks /version through client-go.
func TestServerVersion(t *testing.T) {
	t.Parallel()
	srv := Start(t)
	got, err := newDiscoveryClient(t, srv, false).ServerVersion()
	if err != nil {
		t.Fatalf("ServerVersion() = %v", err)
	}
	want := &version.Info{
		Major: "1", Minor: "37", EmulationMajor: "1", EmulationMinor: "37",
		MinCompatibilityMajor: "1", MinCompatibilityMinor: "36",
		GitVersion: "v1.37.2+lwsim", GoVersion: runtime.Version(), Compiler: runtime.Compiler,
		Platform: runtime.GOOS + "/" + runtime.GOARCH,
	}
	// The VCS stamp depends on how the test binary was built.
	opt := cmpopts.IgnoreFields(version.Info{}, "GitCommit", "GitTreeState", "BuildDate")
	if diff := cmp.Diff(want, got, opt); diff != "" {
		t.Errorf("ServerVersion() mismatch (-want +got):\n%s", diff)
	}
}

// TestHealth checks the health endpoints' plain-text answers.
func TestHealth(t *testing.T) {
	t.Parallel()
	srv := Start(t)
	tests := []struct {
		path     string
		wantCode int
		wantBody string
	}{
		{"/healthz", http.StatusOK, "ok"},
		{"/livez", http.StatusOK, "ok"},
		{"/readyz", http.StatusOK, "ok"},
		{"/healthz/ping", http.StatusOK, "ok"},
		{"/readyz/shutdown", http.StatusOK, "ok"},
		{"/livez?verbose", http.StatusOK, verboseHealthBody("livez", "", "") + "livez check passed\n"},
		{"/readyz?verbose&exclude=log&exclude=nope", http.StatusOK, verboseHealthBody("readyz", "log", "") +
			"warn: some health checks cannot be excluded: no matches for \"nope\"\nreadyz check passed\n"},
	}
	for _, tt := range tests {
		resp := getRaw(t, srv, http.MethodGet, tt.path, nil)
		if resp.code != tt.wantCode || string(resp.body) != tt.wantBody {
			t.Errorf("GET %s = %d %q, want %d %q", tt.path, resp.code, resp.body, tt.wantCode, tt.wantBody)
		}
		if ct := resp.header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain") {
			t.Errorf("GET %s Content-Type = %q, want text/plain", tt.path, ct)
		}
	}
	if resp := getRaw(t, srv, http.MethodGet, "/healthz/nope", nil); resp.code != http.StatusNotFound {
		t.Errorf("GET /healthz/nope = %d, want 404", resp.code)
	}
}

// verboseHealthBody is the verbose list of endpoint's checks
// (healthCheckNames, pinned to kube-apiserver's by the conformance case
// HealthChecksVerbose), with check excluded marked so and check failed
// failing.
func verboseHealthBody(endpoint, excluded, failed string) string {
	var b strings.Builder
	for _, name := range healthCheckNames(endpoint) {
		switch name {
		case excluded:
			b.WriteString("[+]" + name + " excluded: ok\n")
		case failed:
			b.WriteString("[-]" + name + " failed: reason withheld\n")
		default:
			b.WriteString("[+]" + name + " ok\n")
		}
	}
	return b.String()
}

// TestReadyzShutdown checks that readyz fails its shutdown check once Close
// has begun, as kube-apiserver's does during graceful termination. The
// server is driven through its Handler, as nothing listens after Close.
func TestReadyzShutdown(t *testing.T) {
	t.Parallel()
	s, err := New(Config{})
	if err != nil {
		t.Fatalf("New() = %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("Close() = %v", err)
	}
	tests := []struct {
		path     string
		wantBody string
	}{
		{"/readyz", verboseHealthBody("readyz", "", "shutdown") + "readyz check failed\n"},
		{"/readyz/shutdown", "internal server error: process is shutting down\n"},
	}
	for _, tt := range tests {
		rec := httptest.NewRecorder()
		s.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, tt.path, nil))
		if rec.Code != http.StatusInternalServerError || rec.Body.String() != tt.wantBody {
			t.Errorf("GET %s after Close = %d %q, want 500 %q", tt.path, rec.Code, rec.Body.String(), tt.wantBody)
		}
	}
	rec := httptest.NewRecorder()
	s.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/livez", nil))
	if rec.Code != http.StatusOK {
		t.Errorf("GET /livez after Close = %d, want 200", rec.Code)
	}
}

// TestKubectlDiscovery runs kubectl's own discovery (aggregated, with its
// disk cache) and version query against the fake.
func TestKubectlDiscovery(t *testing.T) {
	if _, err := exec.LookPath(kubectlPath); err != nil {
		t.Skipf("kubectl discovery test skipped: %s is not usable here: %v", kubectlPath, err)
	}
	t.Parallel()
	srv := Start(t)
	k := newKubectl(t, srv)
	// kubectl lists each group-resource once, in its preferred version.
	var want []string
	for gvr := range srv.resources.byGVR {
		if gr := gvr.GroupResource().String(); !slices.Contains(want, gr) {
			want = append(want, gr)
		}
	}
	got := strings.Fields(k.run(t, "api-resources", "-o", "name"))
	if diff := cmp.Diff(want, got, cmpopts.SortSlices(func(a, b string) bool { return a < b })); diff != "" {
		t.Errorf("kubectl api-resources -o name mismatch (-want +got):\n%s", diff)
	}
	var v struct {
		ServerVersion version.Info `json:"serverVersion"`
	}
	if err := json.Unmarshal([]byte(k.run(t, "version", "-o", "json")), &v); err != nil {
		t.Fatalf("kubectl version -o json: %v", err)
	}
	if v.ServerVersion.GitVersion != kubeGitVersion {
		t.Errorf("kubectl version server gitVersion = %q, want %q", v.ServerVersion.GitVersion, kubeGitVersion)
	}
}

// TestDiscoveryOtherVersionsOfBuiltinKinds serves versions kube-apiserver
// does not serve by default: their kinds are described as kube-apiserver
// describes them in its default version (scope, short names, categories,
// status, storage version hash), not guessed.
func TestDiscoveryOtherVersionsOfBuiltinKinds(t *testing.T) {
	t.Parallel()
	srv := Start(t, withGroupVersions(
		schema.GroupVersion{Group: "batch", Version: "v1beta1"},
		schema.GroupVersion{Group: "resource.k8s.io", Version: "v1beta1"}))
	_, lists, err := newDiscoveryClient(t, srv, true).ServerGroupsAndResources()
	if err != nil {
		t.Fatalf("ServerGroupsAndResources() = %v", err)
	}
	byGV := resourcesByGV(lists)
	tests := []struct {
		gv   string
		want metav1.APIResource
	}{
		{"batch/v1beta1", metav1.APIResource{Name: "cronjobs", SingularName: "cronjob", Namespaced: true, Kind: "CronJob", Verbs: allVerbs,
			ShortNames: []string{"cj"}, Categories: []string{"all"}, StorageVersionHash: "sd5LIXh4Fjs="}},
		{"batch/v1beta1", metav1.APIResource{Name: "cronjobs/status", Namespaced: true, Kind: "CronJob", Verbs: metav1.Verbs{"get", "patch", "update"}}},
		{"resource.k8s.io/v1beta1", metav1.APIResource{Name: "deviceclasses", SingularName: "deviceclass", Kind: "DeviceClass", Verbs: allVerbs, StorageVersionHash: "Yk2PTc1Ybxk="}},
	}
	for _, tt := range tests {
		i := slices.IndexFunc(byGV[tt.gv], func(r metav1.APIResource) bool { return r.Name == tt.want.Name })
		if i < 0 {
			t.Errorf("discovery of %s lacks %q", tt.gv, tt.want.Name)
			continue
		}
		if diff := cmp.Diff(tt.want, byGV[tt.gv][i], cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("discovery of %s %q mismatch (-want +got):\n%s", tt.gv, tt.want.Name, diff)
		}
	}
	// A cluster-scoped kind has no namespaced path.
	resp := getRaw(t, srv, http.MethodGet, "/apis/resource.k8s.io/v1beta1/namespaces/default/deviceclasses", nil)
	if resp.code != http.StatusNotFound {
		t.Errorf("GET namespaced deviceclasses = %d, want 404", resp.code)
	}
}
