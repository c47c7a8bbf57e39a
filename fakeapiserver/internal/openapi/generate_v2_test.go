package openapi

import (
	"encoding/json"
	"maps"
	"regexp"
	"strings"
	"testing"

	openapi_v2 "github.com/google/gnostic-models/openapiv2"
	"github.com/google/go-cmp/cmp"
	batchv1beta1 "k8s.io/api/batch/v1beta1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/kube-openapi/pkg/util/proto"
	"k8s.io/kube-openapi/pkg/util/proto/validation"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

// TestGeneratedV2Part: the v2 part of a generated document defines its
// kinds with their group-version-kind, every reference in it resolves to a
// definition of the part or of the captured base, and its operations carry
// the body parameter and the responses of the v3 ones.
func TestGeneratedV2Part(t *testing.T) {
	gv := batchv1beta1.SchemeGroupVersion
	cronJobs := fakeResource{gvr: gv.WithResource("cronjobs"), kind: "CronJob", namespaced: true, status: true,
		newObj: func() runtime.Object { return &batchv1beta1.CronJob{} }, newList: func() runtime.Object { return &batchv1beta1.CronJobList{} }}
	part, err := generatedV2Part(Generate(gv, []Resource{cronJobs}))()
	if err != nil {
		t.Fatal(err)
	}
	def, ok := part.Definitions["io.k8s.api.batch.v1beta1.CronJob"]
	if !ok {
		t.Fatalf("definitions %v lack io.k8s.api.batch.v1beta1.CronJob", keys(part.Definitions))
	}
	if gvk, _ := json.Marshal(def.Extensions[extGroupVersionKind]); string(gvk) != `[{"group":"batch","kind":"CronJob","version":"v1beta1"}]` {
		t.Errorf("CronJob x-kubernetes-group-version-kind = %s", gvk)
	}
	c, err := capturedOpenAPIV2()
	if err != nil {
		t.Fatal(err)
	}
	raw, err := json.Marshal(part)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range regexp.MustCompile(`"\$ref":"([^"]*)"`).FindAllStringSubmatch(string(raw), -1) {
		name, found := strings.CutPrefix(m[1], v2RefPrefix)
		_, inPart := part.Definitions[name]
		_, inBase := c.base.Definitions[name]
		if !found || (!inPart && !inBase) {
			t.Errorf("reference %q resolves to no definition", m[1])
		}
	}
	patch := part.Paths["/apis/batch/v1beta1/namespaces/{namespace}/cronjobs/{name}"].Patch
	if patch == nil || len(patch.Parameters) == 0 || patch.Parameters[0].In != "body" || patch.Parameters[0].Schema == nil ||
		patch.Responses.StatusCodeResponses[200].Schema.Ref.String() != v2RefPrefix+"io.k8s.api.batch.v1beta1.CronJob" {
		t.Errorf("PATCH cronjob = %+v, want a body parameter and a 200 of the CronJob", patch)
	}
	// A definition the captured document has too is the captured one, so
	// composing parts in any order gives one document.
	for _, name := range []string{metaSchemaPrefix + "DeleteOptions", metaSchemaPrefix + "ObjectMeta", metaSchemaPrefix + "APIResourceList"} {
		captured, _ := json.Marshal(c.definitions[name])
		got, _ := json.Marshal(part.Definitions[name])
		if diff := cmp.Diff(string(captured), string(got)); diff != "" {
			t.Errorf("%s differs from the captured one (-captured +part):\n%s", name, diff)
		}
	}
}

// keys lists a definitions map's names.
func keys(d spec.Definitions) []string {
	var out []string
	for k := range d {
		out = append(out, k)
	}
	return out
}

// TestGeneratedV2PartKubectlValidation: kubectl's v2 validation
// (kube-openapi's proto validation, as kubectl create -f of a List runs
// it) accepts a CronJob with a spec against the converted definition. It
// refused the spec as an unknown field while the open object kept its
// properties.
func TestGeneratedV2PartKubectlValidation(t *testing.T) {
	gv := batchv1beta1.SchemeGroupVersion
	cronJobs := fakeResource{gvr: gv.WithResource("cronjobs"), kind: "CronJob", namespaced: true,
		newObj: func() runtime.Object { return &batchv1beta1.CronJob{} }, newList: func() runtime.Object { return &batchv1beta1.CronJobList{} }}
	part, err := generatedV2Part(Generate(gv, []Resource{cronJobs}))()
	if err != nil {
		t.Fatal(err)
	}
	c, err := capturedOpenAPIV2()
	if err != nil {
		t.Fatal(err)
	}
	defs := spec.Definitions{}
	maps.Copy(defs, c.base.Definitions)
	maps.Copy(defs, part.Definitions)
	raw, err := json.Marshal(&spec.Swagger{SwaggerProps: spec.SwaggerProps{Swagger: "2.0",
		Info: &spec.Info{InfoProps: spec.InfoProps{Title: "t", Version: "v"}}, Paths: &spec.Paths{}, Definitions: defs}})
	if err != nil {
		t.Fatal(err)
	}
	doc, err := openapi_v2.ParseDocument(raw)
	if err != nil {
		t.Fatalf("parse the v2 document: %v", err)
	}
	models, err := proto.NewOpenAPIData(doc)
	if err != nil {
		t.Fatalf("kubectl's model of the v2 document: %v", err)
	}
	model := models.LookupModel("io.k8s.api.batch.v1beta1.CronJob")
	if model == nil {
		t.Fatal("no model io.k8s.api.batch.v1beta1.CronJob")
	}
	cronJob := map[string]any{"apiVersion": "batch/v1beta1", "kind": "CronJob", "metadata": map[string]any{"name": "nightly"},
		"spec": map[string]any{"schedule": "@daily"}}
	if errs := validation.ValidateModel(cronJob, model, "CronJob"); len(errs) > 0 {
		t.Errorf("kubectl validation of a CronJob = %v, want none", errs)
	}
}
