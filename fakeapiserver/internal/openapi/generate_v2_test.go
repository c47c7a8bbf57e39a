package openapi

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	batchv1beta1 "k8s.io/api/batch/v1beta1"
	"k8s.io/apimachinery/pkg/runtime"
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
}

// keys lists a definitions map's names.
func keys(d spec.Definitions) []string {
	var out []string
	for k := range d {
		out = append(out, k)
	}
	return out
}
