package fakeapiserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"

	"github.com/lw-sim/lw-sim/fakeapiserver/internal/openapi"
)

// TestCRDOpenAPIDocuments checks the v3 document built for a CRD (it was
// compared with kube-apiserver v1.37.2's for the same CRD: identical) and
// the v2 definitions of its versions; TestCRDOpenAPIServed reads the v3
// document over HTTP too.
func TestCRDOpenAPIDocuments(t *testing.T) {
	t.Parallel()
	srv := Start(t)
	if _, ok, err := openapi.CustomResourceV3(srv.establishedCRDs(), widgetGVR.GroupVersion(), nil); ok || err != nil {
		t.Fatalf("v3 document before the CRD exists: ok %v err %v", ok, err)
	}
	installCRD(t, srv, testWidgetCRD())

	doc, ok, err := openapi.CustomResourceV3(srv.establishedCRDs(), widgetGVR.GroupVersion(), nil)
	if err != nil || !ok {
		t.Fatalf("v3 document: ok %v err %v", ok, err)
	}
	var paths []string
	for p := range doc.Paths.Paths {
		paths = append(paths, p)
	}
	want := []string{
		"/apis/example.com/v1/namespaces/{namespace}/widgets",
		"/apis/example.com/v1/namespaces/{namespace}/widgets/{name}",
		"/apis/example.com/v1/namespaces/{namespace}/widgets/{name}/scale",
		"/apis/example.com/v1/namespaces/{namespace}/widgets/{name}/status",
		"/apis/example.com/v1/widgets",
	}
	if diff := cmp.Diff(want, paths, cmpopts.SortSlices(func(a, b string) bool { return a < b })); diff != "" {
		t.Errorf("v3 paths (-want +got):\n%s", diff)
	}
	widget, ok := doc.Components.Schemas["com.example.v1.Widget"]
	if !ok {
		t.Fatalf("v3 schemas %v lack com.example.v1.Widget", keys(doc.Components.Schemas))
	}
	size := widget.Properties["spec"].Properties["size"]
	if size.Maximum == nil || *size.Maximum != 10 {
		t.Errorf("spec.size maximum = %v, want 10", size.Maximum)
	}
	gvk, _ := widget.Extensions["x-kubernetes-group-version-kind"].([]any)
	if len(gvk) != 1 {
		t.Errorf("x-kubernetes-group-version-kind = %v, want one entry", widget.Extensions["x-kubernetes-group-version-kind"])
	}
	if _, ok, _ := openapi.CustomResourceV3(srv.establishedCRDs(), schema.GroupVersion{Group: "example.com", Version: "v2"}, nil); ok {
		t.Errorf("a v3 document for a version the CRD does not serve")
	}

	var v2 struct {
		Definitions map[string]any `json:"definitions"`
	}
	if err := json.Unmarshal(getRaw(t, srv, http.MethodGet, "/openapi/v2", nil).body, &v2); err != nil {
		t.Fatal(err)
	}
	for _, def := range []string{"com.example.v1.Widget", "com.example.v1beta1.Widget", "com.example.v1.WidgetList"} {
		if _, ok := v2.Definitions[def]; !ok {
			t.Errorf("/openapi/v2 definitions lack %s", def)
		}
	}
}

// keys returns a map's keys.
func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// TestCRDOpenAPIServed reads a CRD's documents over HTTP as client-go and
// kubectl do: /openapi/v3 lists its group-version with the CRD's schema,
// /openapi/v2 has its definitions, and both withdraw them when the CRD is
// deleted.
func TestCRDOpenAPIServed(t *testing.T) {
	t.Parallel()
	srv := Start(t)
	installCRD(t, srv, testWidgetCRD())
	client := newOpenAPIClient(t, srv)
	paths, err := client.Paths()
	if err != nil {
		t.Fatal(err)
	}
	gv, ok := paths["apis/example.com/v1"]
	if !ok {
		t.Fatalf("/openapi/v3 paths %v lack apis/example.com/v1", keys(paths))
	}
	if _, ok := paths["apis/example.com/v1beta1"]; !ok {
		t.Errorf("/openapi/v3 paths lack apis/example.com/v1beta1")
	}
	body, err := gv.Schema("application/json")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Components struct {
			Schemas map[string]struct {
				Properties map[string]struct {
					Properties map[string]struct {
						Maximum *float64 `json:"maximum"`
					} `json:"properties"`
				} `json:"properties"`
			} `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		t.Fatal(err)
	}
	if m := doc.Components.Schemas["com.example.v1.Widget"].Properties["spec"].Properties["size"].Maximum; m == nil || *m != 10 {
		t.Errorf("served v3 spec.size maximum = %v, want 10", m)
	}
	v2 := getRaw(t, srv, http.MethodGet, "/openapi/v2", nil)
	if v2.code != http.StatusOK || !bytes.Contains(v2.body, []byte(`"com.example.v1.Widget"`)) {
		t.Errorf("/openapi/v2 = %d, lacks com.example.v1.Widget", v2.code)
	}

	crds := apiextensionsclient.NewForConfigOrDie(srv.RESTConfig()).ApiextensionsV1().CustomResourceDefinitions()
	if err := crds.Delete(t.Context(), "widgets.example.com", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	paths, err = newOpenAPIClient(t, srv).Paths()
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := paths["apis/example.com/v1"]; ok {
		t.Errorf("/openapi/v3 still lists apis/example.com/v1 after the CRD is deleted")
	}
	v2 = getRaw(t, srv, http.MethodGet, "/openapi/v2", nil)
	if bytes.Contains(v2.body, []byte(`"com.example.v1.Widget"`)) {
		t.Errorf("/openapi/v2 still has com.example.v1.Widget after the CRD is deleted")
	}
}

// TestCRDOpenAPIV2FollowsChanges checks /openapi/v2, which is built only
// when asked for, against CRD changes made while nobody asked: it serves
// the CRD's latest schema with a new ETag, validates its own ETag, and
// stays consistent while CRDs change under concurrent readers.
func TestCRDOpenAPIV2FollowsChanges(t *testing.T) {
	t.Parallel()
	srv := Start(t)
	first := getRaw(t, srv, http.MethodGet, "/openapi/v2", nil)
	etag := first.header.Get("Etag")
	if first.code != http.StatusOK || etag == "" {
		t.Fatalf("GET /openapi/v2 = %d with ETag %q, want 200 and an ETag", first.code, etag)
	}
	installCRD(t, srv, testWidgetCRD())
	crds := apiextensionsclient.NewForConfigOrDie(srv.RESTConfig()).ApiextensionsV1().CustomResourceDefinitions()
	crd, err := crds.Get(t.Context(), "widgets.example.com", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"].Properties["size"] = apiextensionsv1.JSONSchemaProps{Type: "integer", Maximum: ptr.To(7.0)}
	if _, err := crds.Update(t.Context(), crd, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}

	got := getRaw(t, srv, http.MethodGet, "/openapi/v2", map[string]string{"If-None-Match": etag})
	if got.code != http.StatusOK || got.header.Get("Etag") == etag {
		t.Fatalf("GET /openapi/v2 after a CRD create and update = %d with ETag %q, want 200 and an ETag other than %q", got.code, got.header.Get("Etag"), etag)
	}
	var doc struct {
		Definitions map[string]struct {
			Properties map[string]struct {
				Properties map[string]struct {
					Maximum *float64 `json:"maximum"`
				} `json:"properties"`
			} `json:"properties"`
		} `json:"definitions"`
	}
	if err := json.Unmarshal(got.body, &doc); err != nil {
		t.Fatal(err)
	}
	widget, ok := doc.Definitions["com.example.v1.Widget"]
	if !ok {
		t.Fatalf("/openapi/v2 lacks com.example.v1.Widget")
	}
	if m := widget.Properties["spec"].Properties["size"].Maximum; m == nil || *m != 7 {
		t.Errorf("/openapi/v2 spec.size maximum = %v, want the updated 7", m)
	}
	etag = got.header.Get("Etag")
	if again := getRaw(t, srv, http.MethodGet, "/openapi/v2", map[string]string{"If-None-Match": etag}); again.code != http.StatusNotModified {
		t.Errorf("GET /openapi/v2 with its current ETag = %d, want 304", again.code)
	}

	// Readers racing a CRD's removal and re-creation (run with -race).
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	client := &http.Client{Transport: tr}
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for range 4 {
		wg.Go(func() {
			resp, err := client.Get(srv.URL() + "/openapi/v2")
			if err != nil {
				errs <- err
				return
			}
			defer resp.Body.Close()
			if _, err := io.Copy(io.Discard, resp.Body); err != nil || resp.StatusCode != http.StatusOK {
				errs <- fmt.Errorf("GET /openapi/v2 = %d, %v", resp.StatusCode, err)
			}
		})
	}
	if err := crds.Delete(t.Context(), "widgets.example.com", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if v2 := getRaw(t, srv, http.MethodGet, "/openapi/v2", nil); bytes.Contains(v2.body, []byte(`"com.example.v1.Widget"`)) {
		t.Errorf("/openapi/v2 still has com.example.v1.Widget after the CRD is deleted")
	}
}
