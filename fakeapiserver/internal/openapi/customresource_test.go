package openapi

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/clock"
)

// testCRD is a namespaced, established example.com CronTab CRD served in v1.
func testCRD() *apiextensionsv1.CustomResourceDefinition {
	names := apiextensionsv1.CustomResourceDefinitionNames{Plural: "crontabs", Singular: "crontab", Kind: "CronTab", ListKind: "CronTabList"}
	return &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "crontabs.example.com"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "example.com", Scope: apiextensionsv1.NamespaceScoped, Names: names,
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{
				Name: "v1", Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
					Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{"spec": {Type: "object"}},
				}},
			}},
		},
		Status: apiextensionsv1.CustomResourceDefinitionStatus{AcceptedNames: names},
	}
}

// TestCustomResourceV2PartSharedDefinitions checks that a CRD's v2 part
// carries the captured document's own version of the definitions both
// name (kube-apiserver keeps the static spec's on a conflict), so the
// composed document does not depend on the order parts are merged in.
func TestCustomResourceV2PartSharedDefinitions(t *testing.T) {
	gv := schema.GroupVersion{Group: "example.com", Version: "v1"}
	part := customResourceV2Part([]*apiextensionsv1.CustomResourceDefinition{testCRD()}, gv)
	if part == nil {
		t.Fatal("customResourceV2Part() = nil, want the CronTab part")
	}
	c, err := capturedOpenAPIV2()
	if err != nil {
		t.Fatal(err)
	}
	const deleteOptions = "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions"
	got, ok := part.Definitions[deleteOptions]
	if !ok {
		t.Fatalf("part definitions lack %s", deleteOptions)
	}
	if diff := cmp.Diff(c.definitions[deleteOptions].Extensions, got.Extensions); diff != "" {
		t.Errorf("%s extensions differ from the captured ones (-captured +part):\n%s", deleteOptions, diff)
	}
	if _, ok := part.Definitions["com.example.v1.CronTab"]; !ok {
		t.Errorf("part definitions lack com.example.v1.CronTab")
	}
	for name := range part.Definitions {
		if _, inBase := c.base.Definitions[name]; inBase {
			t.Errorf("part carries %s, which the base document has", name)
		}
	}
	if other := customResourceV2Part([]*apiextensionsv1.CustomResourceDefinition{testCRD()}, schema.GroupVersion{Group: "example.com", Version: "v2"}); other != nil {
		t.Errorf("customResourceV2Part(v2) = %v, want nil for a version no CRD serves", other)
	}
}

// TestCustomResourceV3 checks the merged v3 document of a CRD
// group-version and that an unserved group-version has none.
func TestCustomResourceV3(t *testing.T) {
	crds := []*apiextensionsv1.CustomResourceDefinition{testCRD()}
	doc, ok, err := CustomResourceV3(crds, schema.GroupVersion{Group: "example.com", Version: "v1"}, nil)
	if err != nil || !ok {
		t.Fatalf("CustomResourceV3(example.com/v1) = ok %v, err %v", ok, err)
	}
	if _, ok := doc.Paths.Paths["/apis/example.com/v1/namespaces/{namespace}/crontabs/{name}"]; !ok {
		t.Errorf("CustomResourceV3 paths lack the namespaced item path")
	}
	if _, ok, err := CustomResourceV3(crds, schema.GroupVersion{Group: "other.com", Version: "v1"}, nil); ok || err != nil {
		t.Errorf("CustomResourceV3(other.com/v1) = ok %v, err %v, want neither", ok, err)
	}
}

// TestSyncCustomResourcesLazyV3 checks the v3 document SyncCustomResources
// publishes for a CRD group-version, built when first asked for: listed
// in /openapi/v3 and served with the CRD's schema; and one that cannot be
// built (two CRDs of example.com/v1 with the same kind, whose schemas
// builder.MergeSpecsV3 refuses to merge) neither listed nor served, as
// when SyncCustomResources withdrew it before building it lazily.
func TestSyncCustomResourcesLazyV3(t *testing.T) {
	t.Parallel()
	gv := schema.GroupVersion{Group: "example.com", Version: "v1"}
	const docPath = "/openapi/v3/apis/example.com/v1"
	clash := testCRD()
	clash.Name, clash.Spec.Names.Plural, clash.Status.AcceptedNames.Plural = "crontabs2.example.com", "crontabs2", "crontabs2"
	for _, tc := range []struct {
		name   string
		crds   []*apiextensionsv1.CustomResourceDefinition
		listed bool
	}{
		{"one CRD", []*apiextensionsv1.CustomResourceDefinition{testCRD()}, true},
		{"clashing kinds", []*apiextensionsv1.CustomResourceDefinition{testCRD(), clash}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			svc, err := NewService(clock.RealClock{}, nil, noGenerate(t))
			if err != nil {
				t.Fatal(err)
			}
			svc.SyncCustomResources(tc.crds, []schema.GroupVersion{gv}, nil)
			get := func(path string) *httptest.ResponseRecorder {
				t.Helper()
				rec := httptest.NewRecorder()
				if !svc.Serve(rec, httptest.NewRequest(http.MethodGet, path, nil)) {
					t.Fatalf("Serve(%s) = false", path)
				}
				return rec
			}
			var root struct {
				Paths map[string]json.RawMessage `json:"paths"`
			}
			rec := get("/openapi/v3")
			if rec.Code != http.StatusOK {
				t.Fatalf("GET /openapi/v3: %d", rec.Code)
			}
			if err := json.Unmarshal(rec.Body.Bytes(), &root); err != nil {
				t.Fatal(err)
			}
			if _, ok := root.Paths["apis/example.com/v1"]; ok != tc.listed {
				t.Errorf("/openapi/v3 lists apis/example.com/v1: %v, want %v", ok, tc.listed)
			}
			rec = get(docPath)
			want := http.StatusNotFound
			if tc.listed {
				want = http.StatusOK
			}
			if rec.Code != want {
				t.Fatalf("GET %s: %d, want %d", docPath, rec.Code, want)
			}
			if tc.listed && !strings.Contains(rec.Body.String(), `"com.example.v1.CronTab"`) {
				t.Errorf("GET %s lacks the CronTab schema", docPath)
			}
		})
	}
}
