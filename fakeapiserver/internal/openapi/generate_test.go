package openapi

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	batchv1beta1 "k8s.io/api/batch/v1beta1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/kube-openapi/pkg/spec3"
)

// fakeResource is a served resource as Generate sees it.
type fakeResource struct {
	gvr               schema.GroupVersionResource
	kind              string
	newObj, newList   func() runtime.Object
	namespaced        bool
	status, returnDel bool
}

var _ Resource = fakeResource{}

func (r fakeResource) GroupVersionResource() schema.GroupVersionResource { return r.gvr }
func (r fakeResource) GroupVersionKind() schema.GroupVersionKind {
	return r.gvr.GroupVersion().WithKind(r.kind)
}
func (r fakeResource) ListGroupVersionKind() schema.GroupVersionKind {
	return r.gvr.GroupVersion().WithKind(r.kind + "List")
}
func (r fakeResource) NewObject() runtime.Object { return r.newObj() }
func (r fakeResource) NewList() runtime.Object   { return r.newList() }
func (r fakeResource) Namespaced() bool          { return r.namespaced }
func (r fakeResource) HasStatus() bool           { return r.status }
func (r fakeResource) DeleteReturnsObject() bool { return r.returnDel }

// TestGenerate checks a generated document's paths, operation ids and
// schema names for a namespaced typed kind with a status and a
// cluster-scoped unstructured one.
func TestGenerate(t *testing.T) {
	gv := batchv1beta1.SchemeGroupVersion
	cronJobs := fakeResource{gvr: gv.WithResource("cronjobs"), kind: "CronJob", namespaced: true, status: true,
		newObj: func() runtime.Object { return &batchv1beta1.CronJob{} }, newList: func() runtime.Object { return &batchv1beta1.CronJobList{} }}
	gadgets := fakeResource{gvr: gv.WithResource("gadgets"), kind: "Gadget", returnDel: true,
		newObj: func() runtime.Object { return &unstructured.Unstructured{} }, newList: func() runtime.Object { return &unstructured.UnstructuredList{} }}
	doc := Generate(gv, []Resource{cronJobs, gadgets})

	wantPaths := []string{
		"/apis/batch/v1beta1/",
		"/apis/batch/v1beta1/cronjobs",
		"/apis/batch/v1beta1/gadgets",
		"/apis/batch/v1beta1/gadgets/{name}",
		"/apis/batch/v1beta1/namespaces/{namespace}/cronjobs",
		"/apis/batch/v1beta1/namespaces/{namespace}/cronjobs/{name}",
		"/apis/batch/v1beta1/namespaces/{namespace}/cronjobs/{name}/status",
	}
	var paths []string
	for p := range doc.Paths.Paths {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	if diff := cmp.Diff(wantPaths, paths); diff != "" {
		t.Errorf("Generate() paths mismatch (-want +got):\n%s", diff)
	}
	item := doc.Paths.Paths["/apis/batch/v1beta1/namespaces/{namespace}/cronjobs/{name}"]
	if got, want := item.Patch.OperationId, "patchBatchV1beta1NamespacedCronJob"; got != want {
		t.Errorf("PATCH operationId = %q, want %q", got, want)
	}
	if !hasParam(item.Patch, "fieldValidation") {
		t.Errorf("PATCH lacks the fieldValidation parameter kubectl looks for")
	}
	for _, name := range []string{"io.k8s.api.batch.v1beta1.CronJob", "io.k8s.api.batch.v1beta1.CronJobList", "batch.v1beta1.Gadget", "batch.v1beta1.GadgetList"} {
		if _, ok := doc.Components.Schemas[name]; !ok {
			t.Errorf("Generate() schemas lack %s", name)
		}
	}
	deleted := doc.Paths.Paths["/apis/batch/v1beta1/gadgets/{name}"].Delete.Responses.StatusCodeResponses[200].Content["application/json"].Schema.Ref.String()
	if want := "#/components/schemas/batch.v1beta1.Gadget"; deleted != want {
		t.Errorf("gadget DELETE response = %q, want the object %q", deleted, want)
	}
}

// hasParam reports whether op takes the named parameter.
func hasParam(op *spec3.Operation, name string) bool {
	return slices.ContainsFunc(op.Parameters, func(p *spec3.Parameter) bool { return p.Name == name })
}

func TestGroupVersionPath(t *testing.T) {
	tests := []struct {
		gv   schema.GroupVersion
		want string
	}{
		{schema.GroupVersion{Version: "v1"}, "api/v1"},
		{schema.GroupVersion{Group: "apps", Version: "v1"}, "apis/apps/v1"},
	}
	for _, tt := range tests {
		if got := GroupVersionPath(tt.gv); got != tt.want {
			t.Errorf("GroupVersionPath(%v) = %q, want %q", tt.gv, got, tt.want)
		}
	}
}
