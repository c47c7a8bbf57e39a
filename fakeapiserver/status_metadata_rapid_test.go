package fakeapiserver

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	"pgregory.net/rapid"

	"github.com/lw-sim/lw-sim/internal/testdeadline"
)

// statusMetaKind is one kind the status metadata model writes, with the
// metadata its status strategy keeps (keepStatusMetadata, confirmed by
// the StatusMetadata* conformance cases).
type statusMetaKind struct {
	gvr                 schema.GroupVersionResource
	body                func(name string) *unstructured.Unstructured
	labels, annotations bool
}

// statusMetaKinds: a Pod keeps both, a Deployment only annotations, a
// ReplicaSet both, a FlowSchema neither.
var statusMetaKinds = []statusMetaKind{
	{gvr: schema.GroupVersionResource{Version: "v1", Resource: "pods"}, labels: true, annotations: true, body: func(name string) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Pod", "metadata": map[string]any{"name": name},
			"spec": map[string]any{"containers": []any{map[string]any{"name": "c", "image": "busybox"}}}}}
	}},
	{gvr: schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}, annotations: true, body: workloadBody("Deployment")},
	{gvr: schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "replicasets"}, labels: true, annotations: true, body: workloadBody("ReplicaSet")},
	{gvr: schema.GroupVersionResource{Group: "flowcontrol.apiserver.k8s.io", Version: "v1", Resource: "flowschemas"}, body: func(name string) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{"apiVersion": "flowcontrol.apiserver.k8s.io/v1", "kind": "FlowSchema", "metadata": map[string]any{"name": name},
			"spec": map[string]any{"priorityLevelConfiguration": map[string]any{"name": "global-default"}, "matchingPrecedence": int64(9000)}}}
	}},
}

// workloadBody is a minimal apps/v1 workload of kind.
func workloadBody(kind string) func(string) *unstructured.Unstructured {
	return func(name string) *unstructured.Unstructured {
		labels := map[string]any{"app": name}
		return &unstructured.Unstructured{Object: map[string]any{"apiVersion": "apps/v1", "kind": kind, "metadata": map[string]any{"name": name},
			"spec": map[string]any{"selector": map[string]any{"matchLabels": labels}, "template": map[string]any{
				"metadata": map[string]any{"labels": labels}, "spec": map[string]any{"containers": []any{map[string]any{"name": "c", "image": "busybox"}}}}}}}
	}
}

// statusMetaKeys and statusMetaValues are what the model writes: few, so
// writes overwrite and remove each other's keys.
var (
	statusMetaKeys   = []string{"example.com/a", "example.com/b", "example.com/c"}
	statusMetaValues = []string{"x", "y"}
)

// statusMetaMachine writes the labels and annotations of one object
// through its status subresource (PUT and merge patch by two managers)
// and checks the stored metadata against a model: a write changes what
// the kind's status strategy keeps and nothing else. After every write,
// whatever managedFields claim under metadata.labels and
// metadata.annotations exists on the object.
type statusMetaMachine struct {
	kind        statusMetaKind
	res         dynamic.ResourceInterface
	name        string
	labels      map[string]string
	annotations map[string]string
	// cur is the object as the last Check read it.
	cur *unstructured.Unstructured
}

// drawMap draws a map over statusMetaKeys; with nulls, a key may map to
// "" for a merge patch's null.
func drawMap(t *rapid.T, what string, nulls bool) map[string]string {
	m := map[string]string{}
	for _, k := range statusMetaKeys {
		switch rapid.IntRange(0, 2).Draw(t, what+" "+k) {
		case 1:
			m[k] = rapid.SampledFrom(statusMetaValues).Draw(t, what+" value of "+k)
		case 2:
			if nulls {
				m[k] = ""
			}
		}
	}
	return m
}

// Update PUTs the stored object with new labels and annotations to /status.
func (m *statusMetaMachine) Update(t *rapid.T) {
	labels, annotations := drawMap(t, "labels", false), drawMap(t, "annotations", false)
	manager := rapid.SampledFrom([]string{"alice", "bob"}).Draw(t, "manager")
	cur := m.cur.DeepCopy()
	cur.SetLabels(labels)
	cur.SetAnnotations(annotations)
	if _, err := m.res.UpdateStatus(context.Background(), cur, metav1.UpdateOptions{FieldManager: manager}); err != nil {
		t.Fatalf("PUT status by %s, labels %v annotations %v: %v", manager, labels, annotations, err)
	}
	if m.kind.labels {
		m.labels = labels
	}
	if m.kind.annotations {
		m.annotations = annotations
	}

}

// Patch merge-patches labels and annotations ("" is null) through /status.
func (m *statusMetaMachine) Patch(t *rapid.T) {
	labels, annotations := drawMap(t, "labels", true), drawMap(t, "annotations", true)
	manager := rapid.SampledFrom([]string{"alice", "bob"}).Draw(t, "manager")
	body, err := json.Marshal(map[string]any{"metadata": map[string]any{"labels": nullable(labels), "annotations": nullable(annotations)}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.res.Patch(context.Background(), m.name, types.MergePatchType, body, metav1.PatchOptions{FieldManager: manager}, "status"); err != nil {
		t.Fatalf("PATCH status by %s %s: %v", manager, body, err)
	}
	if m.kind.labels {
		mergeInto(m.labels, labels)
	}
	if m.kind.annotations {
		mergeInto(m.annotations, annotations)
	}

}

// nullable turns "" values into JSON nulls.
func nullable(m map[string]string) map[string]any {
	out := map[string]any{}
	for k, v := range m {
		out[k] = v
		if v == "" {
			out[k] = nil
		}
	}
	return out
}

// mergeInto applies a merge patch of m ("" deletes) to dst.
func mergeInto(dst, m map[string]string) {
	for k, v := range m {
		if v == "" {
			delete(dst, k)
		} else {
			dst[k] = v
		}
	}
}

// Check compares the stored labels and annotations with the model and
// the managedFields claims with the stored keys.
func (m *statusMetaMachine) Check(t *rapid.T) {
	obj, err := m.res.Get(context.Background(), m.name, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get: %v", err)
	}
	m.cur = obj
	got := map[string]map[string]string{"labels": orEmpty(obj.GetLabels()), "annotations": orEmpty(obj.GetAnnotations())}
	want := map[string]map[string]string{"labels": m.labels, "annotations": m.annotations}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("stored metadata (-want +got):\n%s", diff)
	}
	for _, e := range obj.GetManagedFields() {
		claimed, err := claimedKeys(e)
		if err != nil {
			t.Fatal(err)
		}
		for field, keys := range claimed {
			for _, k := range keys {
				if _, ok := got[field][k]; !ok {
					t.Fatalf("managedFields entry of %s (%s) claims metadata.%s[%s], which the object lacks: %v", e.Manager, e.Subresource, field, k, got[field])
				}
			}
		}
	}
}

// orEmpty is m, or an empty map for nil.
func orEmpty(m map[string]string) map[string]string {
	if m == nil {
		return map[string]string{}
	}
	return m
}

// claimedKeys returns the label and annotation keys an entry owns.
func claimedKeys(e metav1.ManagedFieldsEntry) (map[string][]string, error) {
	var f struct {
		Metadata map[string]map[string]any `json:"f:metadata"`
	}
	if e.FieldsV1 == nil {
		return nil, nil
	}
	if err := json.Unmarshal(e.FieldsV1.Raw, &f); err != nil {
		return nil, fmt.Errorf("fieldsV1 of %s: %w", e.Manager, err)
	}
	out := map[string][]string{}
	for _, field := range []string{"labels", "annotations"} {
		for k := range f.Metadata["f:"+field] {
			if k != "." {
				out[field] = append(out[field], k[len("f:"):])
			}
		}
	}
	return out, nil
}

// TestStatusMetadataModel runs a few random status writes of labels and
// annotations on each kind of statusMetaKinds against statusMetaMachine
// (a short sequence per run: a longer one finds nothing more and costs
// seconds under -race).
func TestStatusMetadataModel(t *testing.T) {
	t.Parallel()
	srv := Start(t)
	dyn, err := dynamic.NewForConfig(srv.RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	hung, stop := testdeadline.Context(t)
	defer stop()
	rapid.Check(t, func(rt *rapid.T) {
		kind := rapid.SampledFrom(statusMetaKinds).Draw(rt, "kind")
		var res dynamic.ResourceInterface = dyn.Resource(kind.gvr)
		if kind.gvr.Resource != "flowschemas" {
			res = dyn.Resource(kind.gvr).Namespace("default")
		}
		const name = "subject"
		if err := res.Delete(context.Background(), name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			rt.Fatalf("delete between runs: %v", err)
		}
		created, err := res.Create(context.Background(), kind.body(name), metav1.CreateOptions{FieldManager: "creator"})
		if err != nil {
			rt.Fatalf("create: %v", err)
		}
		if kind.gvr.Resource == "flowschemas" {
			// The APF config controller writes the new FlowSchema's
			// Dangling condition (apf_status.go): the model's writes start
			// after it, as they would on a cluster.
			awaitStatusWrite(hung, rt, res, created)
		}
		m := &statusMetaMachine{kind: kind, res: res, name: name, labels: map[string]string{}, annotations: map[string]string{}}
		m.Check(rt)
		for range rapid.IntRange(1, 6).Draw(rt, "writes") {
			if rapid.Bool().Draw(rt, "PUT") {
				m.Update(rt)
			} else {
				m.Patch(rt)
			}
			m.Check(rt)
		}
	})
}

// awaitStatusWrite waits for the MODIFIED event of the server's own
// status write on obj, until ctx ends (a hang: testdeadline).
func awaitStatusWrite(ctx context.Context, t *rapid.T, res dynamic.ResourceInterface, obj *unstructured.Unstructured) {
	w, err := res.Watch(ctx, metav1.ListOptions{FieldSelector: "metadata.name=" + obj.GetName(), ResourceVersion: obj.GetResourceVersion()})
	if err != nil {
		t.Fatalf("watch %s: %v", obj.GetName(), err)
	}
	defer w.Stop()
	select {
	case ev := <-w.ResultChan():
		if ev.Type != watch.Modified {
			t.Fatalf("watch %s: %s, want the status write's MODIFIED", obj.GetName(), ev.Type)
		}
	case <-ctx.Done():
		t.Fatalf("no status write on %s: %v", obj.GetName(), ctx.Err())
	}
}
