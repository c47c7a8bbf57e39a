package fakeapiserver

import (
	"crypto/sha512"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	batchv1 "k8s.io/api/batch/v1"
	batchv1beta1 "k8s.io/api/batch/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/openapi"
	"k8s.io/client-go/openapi3"
	"k8s.io/kube-openapi/pkg/spec3"

	internalopenapi "github.com/lw-sim/lw-sim/fakeapiserver/internal/openapi"
)

// widgetGV is a user-registered group-version with no upstream OpenAPI
// document, so its document is generated.
var widgetGV = schema.GroupVersion{Group: "example.com", Version: "v1"}

// testWidget is a user kind served as example.com/v1 Widget. Its Go type
// name differs from its kind, as an unstructured kind's would.
type testWidget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              map[string]string `json:"spec,omitempty"`
}

func (w *testWidget) DeepCopyObject() runtime.Object {
	out := &testWidget{TypeMeta: w.TypeMeta, Spec: maps.Clone(w.Spec)}
	w.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	return out
}

// testWidgetList is the list kind of testWidget.
type testWidgetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []testWidget `json:"items"`
}

func (l *testWidgetList) DeepCopyObject() runtime.Object {
	out := &testWidgetList{TypeMeta: l.TypeMeta, ListMeta: *l.ListMeta.DeepCopy()}
	for _, w := range l.Items {
		out.Items = append(out.Items, *w.DeepCopyObject().(*testWidget))
	}
	return out
}

// withWidgets serves example.com/v1 Widget and the extra built-in
// group-versions besides the defaults.
func withWidgets(extra ...schema.GroupVersion) Option {
	return WithConfig(func(cfg *Config) {
		cfg.Scheme = newDefaultScheme()
		cfg.Scheme.AddKnownTypeWithName(widgetGV.WithKind("Widget"), &testWidget{})
		cfg.Scheme.AddKnownTypeWithName(widgetGV.WithKind("WidgetList"), &testWidgetList{})
		cfg.GroupVersions = slices.Concat(DefaultGroupVersions, []schema.GroupVersion{widgetGV}, extra)
	})
}

// newOpenAPIClient is client-go's OpenAPI v3 client for srv, as kubectl
// builds it from its discovery client.
func newOpenAPIClient(t *testing.T, srv *Server) openapi.Client {
	t.Helper()
	return newDiscoveryClient(t, srv, false).OpenAPIV3()
}

// TestOpenAPIV3Paths checks the /openapi/v3 root through client-go: the
// server-wide documents and one per served group and group-version.
func TestOpenAPIV3Paths(t *testing.T) {
	t.Parallel()
	defaults := []string{"api", "apis", "version"}
	for _, gv := range DefaultGroupVersions {
		defaults = append(defaults, internalopenapi.GroupVersionPath(gv))
		if gv.Group != "" && !slices.Contains(defaults, "apis/"+gv.Group) {
			defaults = append(defaults, "apis/"+gv.Group)
		}
	}
	tests := []struct {
		name string
		opts []Option
		want []string
	}{
		{name: "defaults", want: defaults},
		{name: "batch/v1beta1", opts: []Option{withGroupVersions(batchv1beta1.SchemeGroupVersion)},
			want: append(slices.Clone(defaults), "apis/batch/v1beta1")},
		{name: "user group", opts: []Option{withWidgets()},
			want: append(slices.Clone(defaults), "apis/example.com", "apis/example.com/v1")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := Start(t, tt.opts...)
			paths, err := newOpenAPIClient(t, srv).Paths()
			if err != nil {
				t.Fatalf("Paths() = %v", err)
			}
			got := slices.Sorted(maps.Keys(paths))
			slices.Sort(tt.want)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Paths() mismatch (-want +got):\n%s", diff)
			}
			for p, gv := range paths {
				u, err := url.Parse(gv.ServerRelativeURL())
				if err != nil || u.Path != "/openapi/v3/"+p || len(u.Query().Get("hash")) != 2*sha512.Size {
					t.Errorf("Paths()[%q] URL = %q (%v), want /openapi/v3/%s?hash=<SHA-512>", p, gv.ServerRelativeURL(), err, p)
				}
			}
		})
	}
}

// TestOpenAPIV3FieldValidation checks, with the logic of kubectl's
// query-param verifier (cli-runtime resource/query_param_verifier_v3.go),
// that every served kind's document says its writes take fieldValidation,
// for the embedded upstream documents and the generated ones alike; else
// kubectl create would demand --validate=false.
func TestOpenAPIV3FieldValidation(t *testing.T) {
	t.Parallel()
	srv := Start(t, withWidgets(batchv1.SchemeGroupVersion))
	root := openapi3.NewRoot(newOpenAPIClient(t, srv))
	tests := []struct {
		gvk      schema.GroupVersionKind
		postPath string
	}{
		{schema.GroupVersionKind{Version: "v1", Kind: "Pod"}, "/api/v1/namespaces/{namespace}/pods"},
		{schema.GroupVersionKind{Version: "v1", Kind: "Namespace"}, "/api/v1/namespaces"},
		{schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}, "/api/v1/namespaces/{namespace}/configmaps"},
		{schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}, "/apis/apps/v1/namespaces/{namespace}/deployments"},
		{schema.GroupVersionKind{Group: "coordination.k8s.io", Version: "v1", Kind: "Lease"}, "/apis/coordination.k8s.io/v1/namespaces/{namespace}/leases"},
		{schema.GroupVersionKind{Group: "batch", Version: "v1", Kind: "Job"}, "/apis/batch/v1/namespaces/{namespace}/jobs"},
		{widgetGV.WithKind("Widget"), "/apis/example.com/v1/namespaces/{namespace}/widgets"},
	}
	// Parsing api/v1's 2 MB document is slow under -race: parse each once.
	docs := map[schema.GroupVersion]*spec3.OpenAPI{}
	for _, tt := range tests {
		t.Run(tt.gvk.Kind, func(t *testing.T) {
			doc, ok := docs[tt.gvk.GroupVersion()]
			if !ok {
				var err error
				if doc, err = root.GVSpec(tt.gvk.GroupVersion()); err != nil {
					t.Fatalf("GVSpec(%s) = %v", tt.gvk.GroupVersion(), err)
				}
				docs[tt.gvk.GroupVersion()] = doc
			}
			if doc.Paths == nil {
				t.Fatalf("GVSpec(%s) has no paths", tt.gvk.GroupVersion())
			}
			if !patchSupportsParam(doc, tt.gvk, "fieldValidation") {
				t.Errorf("GVSpec(%s): no PATCH operation for %s takes fieldValidation", tt.gvk.GroupVersion(), tt.gvk.Kind)
			}
			item, ok := doc.Paths.Paths[tt.postPath]
			if !ok || item.Post == nil {
				t.Fatalf("GVSpec(%s) has no POST %s", tt.gvk.GroupVersion(), tt.postPath)
			}
			var names []string
			for _, p := range item.Post.Parameters {
				names = append(names, p.Name)
			}
			if !slices.Contains(names, "fieldValidation") {
				t.Errorf("POST %s parameters = %v, want fieldValidation among them", tt.postPath, names)
			}
		})
	}
}

// patchSupportsParam is cli-runtime's supportsQueryParamV3: the first PATCH
// operation whose x-kubernetes-group-version-kind is gvk decides.
func patchSupportsParam(doc *spec3.OpenAPI, gvk schema.GroupVersionKind, param string) bool {
	for _, item := range doc.Paths.Paths {
		op := item.Patch
		if op == nil {
			continue
		}
		var ext map[string]string
		if err := op.Extensions.GetObject("x-kubernetes-group-version-kind", &ext); err != nil ||
			ext["group"] != gvk.Group || ext["version"] != gvk.Version || ext["kind"] != gvk.Kind {
			continue
		}
		for _, p := range op.Parameters {
			if p.Name == param {
				return true
			}
		}
		return false
	}
	return false
}

// TestOpenAPIV3GeneratedSchemas checks the component schemas of generated
// documents: named as kube-apiserver names them, objects that keep unknown
// fields, and tagged with their kind.
func TestOpenAPIV3GeneratedSchemas(t *testing.T) {
	t.Parallel()
	srv := Start(t, withWidgets(batchv1beta1.SchemeGroupVersion))
	root := openapi3.NewRoot(newOpenAPIClient(t, srv))
	tests := []struct {
		gvk    schema.GroupVersionKind
		name   string
		reason string
	}{
		{batchv1beta1.SchemeGroupVersion.WithKind("CronJob"), "io.k8s.api.batch.v1beta1.CronJob", "named after its Go type, as kube-openapi's definition namer does"},
		{batchv1beta1.SchemeGroupVersion.WithKind("CronJobList"), "io.k8s.api.batch.v1beta1.CronJobList", "list kinds get their own schema"},
		{widgetGV.WithKind("Widget"), "com.example.v1.Widget", "a Go type named differently from its kind is named like a CRD's schema"},
		{widgetGV.WithKind("WidgetList"), "com.example.v1.WidgetList", ""},
	}
	for _, tt := range tests {
		doc, err := root.GVSpecAsMap(tt.gvk.GroupVersion())
		if err != nil {
			t.Fatalf("GVSpecAsMap(%s) = %v", tt.gvk.GroupVersion(), err)
		}
		schemas, _ := doc["components"].(map[string]any)["schemas"].(map[string]any)
		got, ok := schemas[tt.name].(map[string]any)
		if !ok {
			t.Errorf("GVSpecAsMap(%s) lacks schema %q (%s); has %v", tt.gvk.GroupVersion(), tt.name, tt.reason, slices.Sorted(maps.Keys(schemas)))
			continue
		}
		want := map[string]any{
			"type":                                 "object",
			"x-kubernetes-preserve-unknown-fields": true,
			"x-kubernetes-group-version-kind": []any{
				map[string]any{"group": tt.gvk.Group, "version": tt.gvk.Version, "kind": tt.gvk.Kind},
			},
		}
		for k := range got {
			if _, ok := want[k]; !ok {
				delete(got, k)
			}
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("schema %q mismatch (-want +got):\n%s", tt.name, diff)
		}
	}
}

// TestOpenAPIV3Caching checks handler3's caching contract on raw HTTP: the
// root's URLs carry the document's SHA-512, a current hash makes the
// response immutable, a stale one redirects, and ETags validate.
func TestOpenAPIV3Caching(t *testing.T) {
	t.Parallel()
	srv := Start(t)
	paths, err := newOpenAPIClient(t, srv).Paths()
	if err != nil {
		t.Fatalf("Paths() = %v", err)
	}
	for _, p := range []string{"api/v1", "apis/apps/v1", "version"} {
		u := paths[p].ServerRelativeURL()
		doc := getRaw(t, srv, http.MethodGet, u, map[string]string{"Accept": "application/json"})
		hash := fmt.Sprintf("%X", sha512.Sum512(doc.body))
		if doc.code != http.StatusOK || !strings.HasSuffix(u, "?hash="+hash) {
			t.Errorf("GET %s = %d, body hash %s; want 200 and the hash of the body", u, doc.code, hash)
		}
		wantHeaders := map[string]string{
			"Content-Type":  "application/json",
			"Cache-Control": "public, immutable",
			"Etag":          strconv.Quote(hash),
			"Vary":          "Accept",
		}
		gotHeaders := map[string]string{}
		for k := range wantHeaders {
			gotHeaders[k] = doc.header.Get(k)
		}
		if diff := cmp.Diff(wantHeaders, gotHeaders); diff != "" {
			t.Errorf("GET %s headers mismatch (-want +got):\n%s", u, diff)
		}
		stale := getRaw(t, srv, http.MethodGet, "/openapi/v3/"+p+"?hash=0123", nil)
		if stale.code != http.StatusMovedPermanently || stale.header.Get("Location") != u {
			t.Errorf("GET %s with a stale hash = %d to %q, want 301 to %q", p, stale.code, stale.header.Get("Location"), u)
		}
		cached := getRaw(t, srv, http.MethodGet, "/openapi/v3/"+p, map[string]string{"If-None-Match": strconv.Quote(hash)})
		if cached.code != http.StatusNotModified {
			t.Errorf("GET %s with If-None-Match = %d, want 304", p, cached.code)
		}
	}
	root := getRaw(t, srv, http.MethodGet, "/openapi/v3", nil)
	again := getRaw(t, srv, http.MethodGet, "/openapi/v3", map[string]string{"If-None-Match": root.header.Get("Etag")})
	if root.code != http.StatusOK || again.code != http.StatusNotModified {
		t.Errorf("GET /openapi/v3 = %d, then with If-None-Match = %d; want 200, 304", root.code, again.code)
	}
}

// TestOpenAPIErrors checks the Status errors of the OpenAPI endpoints.
func TestOpenAPIErrors(t *testing.T) {
	t.Parallel()
	srv := Start(t)
	tests := []struct {
		path, accept string
		wantCode     int
		reason       string
	}{
		{"/openapi/v2", "", http.StatusOK, "served as kube-apiserver does"},
		{"/openapi/v2", "text/plain", http.StatusNotAcceptable, "JSON or protobuf only"},
		{"/openapi/v3/apis/batch/v1beta1", "", http.StatusNotFound, "batch/v1beta1 is not served"},
		{"/openapi/v3/apis/apps", "", http.StatusOK, "group documents are served"},
		{"/openapi/v3/api/v1", "application/com.github.proto-openapi.spec.v3@v1.0+protobuf", http.StatusOK, "the protobuf form is served"},
		{"/openapi/v3/api/v1", "text/plain", http.StatusNotAcceptable, "JSON or protobuf only"},
		{"/openapi/v3/api/v1", "application/com.github.proto-openapi.spec.v3@v1.0+protobuf, application/json", http.StatusOK, "JSON is acceptable second"},
		{"/openapi/v3/api/v1", "*/*", http.StatusOK, ""},
	}
	for _, tt := range tests {
		resp := getRaw(t, srv, http.MethodGet, tt.path, map[string]string{"Accept": tt.accept})
		if resp.code != tt.wantCode {
			t.Errorf("GET %s (Accept %q) = %d, want %d (%s)", tt.path, tt.accept, resp.code, tt.wantCode, tt.reason)
		}
		// kube-openapi's handlers answer errors with an empty body.
		if resp.code != http.StatusOK && len(resp.body) != 0 {
			t.Errorf("GET %s (Accept %q) body = %.200q, want none", tt.path, tt.accept, resp.body)
		}
	}
}

// kubectlJob is a batch/v1 Job, whose OpenAPI document is kube-apiserver's.
const kubectlJob = `apiVersion: batch/v1
kind: Job
metadata:
  name: job-1
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: c
        image: busybox
`

// TestKubectlCreateJob checks that kubectl create -f, without
// --validate=false, accepts a Job and explains it from the served OpenAPI.
func TestKubectlCreateJob(t *testing.T) {
	if _, err := exec.LookPath(kubectlPath); err != nil {
		t.Skipf("kubectl test skipped: %s is not usable here: %v", kubectlPath, err)
	}
	t.Parallel()
	srv := Start(t)
	k := newKubectl(t, srv)
	file := filepath.Join(k.home, "job.yaml")
	if err := os.WriteFile(file, []byte(kubectlJob), 0o600); err != nil {
		t.Fatal(err)
	}
	if got, want := strings.TrimSpace(k.run(t, "create", "-f", file)), "job.batch/job-1 created"; got != want {
		t.Errorf("kubectl create -f job.yaml = %q, want %q", got, want)
	}
	if got, want := strings.TrimSpace(k.run(t, "explain", "jobs", "--output", "plaintext")), "GROUP:      batch"; !strings.HasPrefix(got, want) {
		t.Errorf("kubectl explain jobs = %.100q, want it to start with %q", got, want)
	}
}
