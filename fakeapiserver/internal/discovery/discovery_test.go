package discovery

import (
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
)

// fakeTable serves fixed resources by group-version.
type fakeTable struct {
	gvs       []schema.GroupVersion
	resources map[schema.GroupVersion][]Resource
	custom    map[schema.GroupVersion]bool
}

var _ Table = fakeTable{}

func (t fakeTable) GroupVersions() []schema.GroupVersion { return t.gvs }
func (t fakeTable) Resources(gv schema.GroupVersion) ([]Resource, bool) {
	return t.resources[gv], t.custom[gv]
}

var (
	appsV1     = schema.GroupVersion{Group: "apps", Version: "v1"}
	exampleV1  = schema.GroupVersion{Group: "example.com", Version: "v1"}
	exampleV1b = schema.GroupVersion{Group: "example.com", Version: "v1beta1"}
	coreV1     = schema.GroupVersion{Version: "v1"}
	batchV1    = schema.GroupVersion{Group: "batch", Version: "v1"}
	widgets    = CustomResource{Kind: exampleV1.WithKind("Widget"), Plural: "widgets", Singular: "widget", Namespaced: true,
		StorageVersion: "v1", Status: true, Scale: true}
	deployments = Resource{
		Entry: metav1.APIResource{Name: "deployments", Namespaced: true, Kind: "Deployment", Verbs: StoredVerbs()},
		Subresources: []metav1.APIResource{
			{Name: "deployments/status", Namespaced: true, Kind: "Deployment", Verbs: StatusVerbs()},
			{Name: "deployments/scale", Namespaced: true, Group: "autoscaling", Version: "v1", Kind: "Scale", Verbs: StatusVerbs()},
		},
	}
	controllerRevisions = Resource{Entry: metav1.APIResource{Name: "controllerrevisions", Namespaced: true, Kind: "ControllerRevision", Verbs: StoredVerbs()}}
)

func testTable() fakeTable {
	return fakeTable{
		gvs: []schema.GroupVersion{coreV1, exampleV1b, batchV1, appsV1, exampleV1},
		resources: map[schema.GroupVersion][]Resource{
			appsV1:    {controllerRevisions, deployments},
			exampleV1: {widgets.Resource()},
		},
		custom: map[schema.GroupVersion]bool{exampleV1: true},
	}
}

// TestGroupOrder checks /apis: groups by kube-apiserver's priority (a
// user group last), versions newest first.
func TestGroupOrder(t *testing.T) {
	var got []string
	for _, g := range APIGroupList(testTable()).Groups {
		for _, v := range g.Versions {
			got = append(got, v.GroupVersion)
		}
		got = append(got, "preferred "+g.PreferredVersion.Version)
	}
	want := []string{"apps/v1", "preferred v1", "batch/v1", "preferred v1", "example.com/v1", "example.com/v1beta1", "preferred v1"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("APIGroupList() order mismatch (-want +got):\n%s", diff)
	}
	if g, ok := APIGroup(testTable(), "core"); ok {
		t.Errorf("APIGroup(core) = %v, want none: core is /api", g)
	}
}

// TestAPIResourceListLayout checks that a built-in list is sorted by name
// with subresources, and a CRD's keeps the discovery controller's order.
func TestAPIResourceListLayout(t *testing.T) {
	names := func(gv schema.GroupVersion) []string {
		var out []string
		for _, r := range APIResourceList(testTable(), gv).APIResources {
			out = append(out, r.Name)
		}
		return out
	}
	if diff := cmp.Diff([]string{"controllerrevisions", "deployments", "deployments/scale", "deployments/status"}, names(appsV1)); diff != "" {
		t.Errorf("apps/v1 resources mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"widgets", "widgets/status", "widgets/scale"}, names(exampleV1)); diff != "" {
		t.Errorf("example.com/v1 resources mismatch (-want +got):\n%s", diff)
	}
	if list := APIResourceList(testTable(), batchV1); list.APIResources == nil || list.APIVersion != "v1" {
		t.Errorf("empty list = %+v, want non-nil resources and apiVersion v1", list)
	}
	if list := APIResourceList(testTable(), coreV1); list.APIVersion != "" {
		t.Errorf("core list apiVersion = %q, want none", list.APIVersion)
	}
}

// TestCustomResourceVerbs checks the discovery controller's verb order and
// what a terminating CRD loses.
func TestCustomResourceVerbs(t *testing.T) {
	if got, want := widgets.Resource().Entry.Verbs, (metav1.Verbs{"delete", "deletecollection", "get", "list", "patch", "create", "update", "watch"}); !cmp.Equal(want, got) {
		t.Errorf("verbs = %v, want %v", got, want)
	}
	terminating := widgets
	terminating.Terminating = true
	if got, want := terminating.Resource().Entry.Verbs, (metav1.Verbs{"delete", "deletecollection", "get", "list", "watch"}); !cmp.Equal(want, got) {
		t.Errorf("terminating verbs = %v, want %v", got, want)
	}
}

// TestAggregated checks the v2 form: subresources folded into their parent,
// a built-in kind without group and version, a custom one with them.
func TestAggregated(t *testing.T) {
	list := Aggregated(testTable(), false)
	byGroup := map[string][]apidiscoveryv2.APIResourceDiscovery{}
	for _, g := range list.Items {
		byGroup[g.Name] = g.Versions[0].Resources
	}
	deploy := byGroup["apps"][1]
	if deploy.Resource != "deployments" || len(deploy.Subresources) != 2 || deploy.ResponseKind.Group != "" {
		t.Errorf("apps deployments = %+v, want two subresources and a bare kind", deploy)
	}
	if got := deploy.Subresources[0].ResponseKind; got.Group != "autoscaling" || got.Kind != "Scale" {
		t.Errorf("deployments/scale kind = %+v, want autoscaling/v1 Scale", got)
	}
	widget := byGroup["example.com"][0]
	want := &metav1.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"}
	if diff := cmp.Diff(want, widget.ResponseKind); diff != "" {
		t.Errorf("widgets responseKind mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want, widget.Subresources[0].ResponseKind); diff != "" {
		t.Errorf("widgets/status responseKind mismatch (-want +got):\n%s", diff)
	}
}

// TestWriteAggregatedETag checks the ETag, its 304 and the Content-Type
// parameters client-go checks.
func TestWriteAggregatedETag(t *testing.T) {
	info, _ := runtime.SerializerInfoForMediaType(serializer.NewCodecFactory(runtime.NewScheme()).SupportedMediaTypes(), runtime.ContentTypeJSON)
	write := func(ifNoneMatch string) *httptest.ResponseRecorder {
		w := httptest.NewRecorder()
		r := httptest.NewRequest(http.MethodGet, "/apis", nil)
		if ifNoneMatch != "" {
			r.Header.Set("If-None-Match", ifNoneMatch)
		}
		if err := WriteAggregated(w, r, info, Aggregated(testTable(), false)); err != nil {
			t.Fatalf("WriteAggregated() = %v", err)
		}
		return w
	}
	first := write("")
	etag := first.Header().Get("ETag")
	if first.Code != http.StatusOK || len(etag) != 2+128 || first.Header().Get("Content-Type") != "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList" {
		t.Fatalf("first response = %d, ETag %q, Content-Type %q", first.Code, etag, first.Header().Get("Content-Type"))
	}
	if again := write(etag); again.Code != http.StatusNotModified || again.Body.Len() != 0 {
		t.Errorf("with If-None-Match = %d (%d bytes), want 304 and no body", again.Code, again.Body.Len())
	}
	if other := write(`"stale"`); other.Code != http.StatusOK {
		t.Errorf("with a stale If-None-Match = %d, want 200", other.Code)
	}
}

// TestBuiltin checks the decoded captured discovery: resources apart from
// their subresources.
func TestBuiltin(t *testing.T) {
	builtin, err := Builtin()
	if err != nil {
		t.Fatal(err)
	}
	core, ok := builtin[coreV1]
	if !ok {
		t.Fatal("Builtin() lacks core/v1")
	}
	for _, r := range core.Resources {
		if r.Name == "pods/status" {
			t.Errorf("core/v1 Resources include pods/status, a subresource")
		}
	}
	var subs []string
	for _, s := range core.Subresources["pods"] {
		subs = append(subs, s.Name)
	}
	if !slices.Contains(subs, "pods/status") || !slices.Contains(subs, "pods/eviction") {
		t.Errorf("core/v1 pods subresources = %v, want pods/status and pods/eviction among them", subs)
	}
}
