package fakeapiserver

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	appsv1ac "k8s.io/client-go/applyconfigurations/apps/v1"
	autoscalingv1ac "k8s.io/client-go/applyconfigurations/autoscaling/v1"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	metav1ac "k8s.io/client-go/applyconfigurations/meta/v1"
	"k8s.io/client-go/dynamic"
	clocktesting "k8s.io/utils/clock/testing"
)

// applyEpoch is the fake clock's time in these tests, so managedFields
// times are known exactly.
var applyEpoch = time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)

// fieldsEntry is a managedFields entry reduced to what tests compare,
// fieldsV1 as a decoded JSON value.
type fieldsEntry struct {
	Manager, Operation, APIVersion, Subresource, FieldsType string
	Time                                                    time.Time
	Fields                                                  any
}

// entriesOf reduces managedFields for comparison.
func entriesOf(t testing.TB, mf []metav1.ManagedFieldsEntry) []fieldsEntry {
	t.Helper()
	out := []fieldsEntry{}
	for _, e := range mf {
		fe := fieldsEntry{Manager: e.Manager, Operation: string(e.Operation), APIVersion: e.APIVersion,
			Subresource: e.Subresource, FieldsType: e.FieldsType}
		if e.Time != nil {
			fe.Time = e.Time.UTC()
		}
		if e.FieldsV1 != nil {
			if err := json.Unmarshal(e.FieldsV1.Raw, &fe.Fields); err != nil {
				t.Fatalf("fieldsV1 of %s: %v", e.Manager, err)
			}
		}
		out = append(out, fe)
	}
	return out
}

// jsonValue decodes a JSON literal for use in an expected fieldsEntry.
func jsonValue(t testing.TB, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("bad JSON literal %s: %v", s, err)
	}
	return v
}

// checkEntries fails the test if mf differs from want.
func checkEntries(t testing.TB, what string, mf []metav1.ManagedFieldsEntry, want []fieldsEntry) {
	t.Helper()
	if diff := cmp.Diff(want, entriesOf(t, mf)); diff != "" {
		t.Errorf("%s: managedFields (-want +got):\n%s", what, diff)
	}
}

// entry builds an expected entry of a core/v1 object at applyEpoch.
func entry(t testing.TB, manager, op, fields string) fieldsEntry {
	return fieldsEntry{Manager: manager, Operation: op, APIVersion: "v1", FieldsType: "FieldsV1", Time: applyEpoch, Fields: jsonValue(t, fields)}
}

func TestApplyTypedCreateUpdateConflictForce(t *testing.T) {
	t.Parallel()
	clk := clocktesting.NewFakeClock(applyEpoch)
	srv := Start(t, WithClock(clk))
	cs := srv.Clientset()
	ctx := context.Background()
	cms := cs.CoreV1().ConfigMaps("default")

	cm, err := cms.Apply(ctx, corev1ac.ConfigMap("cfg", "default").WithData(map[string]string{"a": "1"}), metav1.ApplyOptions{FieldManager: "alice"})
	if err != nil {
		t.Fatalf("apply (create): %v", err)
	}
	checkEntries(t, "after create", cm.ManagedFields, []fieldsEntry{entry(t, "alice", "Apply", `{"f:data":{"f:a":{}}}`)})
	if cm.UID == "" || cm.CreationTimestamp.IsZero() {
		t.Errorf("apply-created object lacks uid or creationTimestamp: %+v", cm.ObjectMeta)
	}

	clk.Step(time.Minute)
	cm, err = cms.Apply(ctx, corev1ac.ConfigMap("cfg", "default").WithData(map[string]string{"a": "1", "b": "2"}), metav1.ApplyOptions{FieldManager: "alice"})
	if err != nil {
		t.Fatalf("apply (update): %v", err)
	}
	if diff := cmp.Diff(map[string]string{"a": "1", "b": "2"}, cm.Data); diff != "" {
		t.Errorf("data after update (-want +got):\n%s", diff)
	}
	want := entry(t, "alice", "Apply", `{"f:data":{"f:a":{},"f:b":{}}}`)
	want.Time = applyEpoch.Add(time.Minute)
	checkEntries(t, "after update", cm.ManagedFields, []fieldsEntry{want})

	_, err = cms.Apply(ctx, corev1ac.ConfigMap("cfg", "default").WithData(map[string]string{"a": "changed"}), metav1.ApplyOptions{FieldManager: "bob"})
	wantStatus := wantFailure(http.StatusConflict, metav1.StatusReasonConflict, `Apply failed with 1 conflict: conflict with "alice": .data.a`,
		&metav1.StatusDetails{Causes: []metav1.StatusCause{{Type: metav1.CauseTypeFieldManagerConflict, Message: `conflict with "alice"`, Field: ".data.a"}}})
	if diff := cmp.Diff(wantStatus, statusOfErr(t, err)); diff != "" {
		t.Errorf("conflicting apply (-want +got):\n%s", diff)
	}

	w, err := cms.Watch(ctx, metav1.ListOptions{ResourceVersion: cm.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	cm, err = cms.Apply(ctx, corev1ac.ConfigMap("cfg", "default").WithData(map[string]string{"a": "changed"}), metav1.ApplyOptions{FieldManager: "bob", Force: true})
	if err != nil {
		t.Fatalf("forced apply: %v", err)
	}
	ev := nextEvent(t, w)
	if got, ok := ev.Object.(*corev1.ConfigMap); !ok || ev.Type != watch.Modified {
		t.Errorf("watch event = %s %T, want MODIFIED ConfigMap", ev.Type, ev.Object)
	} else if diff := cmp.Diff(cm.ManagedFields, got.ManagedFields); diff != "" {
		t.Errorf("WATCH managedFields differ from the apply response (-apply +watch):\n%s", diff)
	}
	if cm.Data["a"] != "changed" || cm.Data["b"] != "2" {
		t.Errorf("data after forced apply = %v, want a=changed b=2", cm.Data)
	}
	bob := entry(t, "bob", "Apply", `{"f:data":{"f:a":{}}}`)
	bob.Time = want.Time
	alice := entry(t, "alice", "Apply", `{"f:data":{"f:b":{}}}`)
	alice.Time = want.Time
	checkEntries(t, "after force", cm.ManagedFields, []fieldsEntry{alice, bob})

	got, err := cms.Get(ctx, "cfg", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(cm.ManagedFields, got.ManagedFields); diff != "" {
		t.Errorf("GET managedFields differ from the apply response (-apply +get):\n%s", diff)
	}
	list, err := cms.List(ctx, metav1.ListOptions{})
	if err != nil || len(list.Items) != 1 {
		t.Fatalf("list: %v, %d items", err, len(list.Items))
	}
	if diff := cmp.Diff(cm.ManagedFields, list.Items[0].ManagedFields); diff != "" {
		t.Errorf("LIST managedFields differ from the apply response (-apply +list):\n%s", diff)
	}
}

func TestApplyStatusCodesAndErrors(t *testing.T) {
	t.Parallel()
	srv := Start(t)
	const path = "/api/v1/namespaces/default/configmaps/x"
	apply := func(query, body string) writeResp {
		return doWrite(t, srv, http.MethodPatch, path+query, []byte(body), "Content-Type", string(types.ApplyYAMLPatchType))
	}
	body := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  k: v\n"
	if r := apply("?fieldManager=m", body); r.code != http.StatusCreated {
		t.Fatalf("first apply: code %d, want 201: %s", r.code, r.body)
	}
	if r := apply("?fieldManager=m", body); r.code != http.StatusOK {
		t.Fatalf("second apply: code %d, want 200: %s", r.code, r.body)
	}

	cases := []struct {
		name, path, query, contentType, body string
		want                                 metav1.Status
	}{
		{"missing fieldManager", path, "", "", body, wantFailure(422, metav1.StatusReasonInvalid,
			`PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch`,
			&metav1.StatusDetails{Group: "meta.k8s.io", Kind: "PatchOptions", Causes: []metav1.StatusCause{{Type: metav1.CauseTypeFieldValueRequired, Message: "Required value: is required for apply patch", Field: "fieldManager"}}})},
		{"force on a merge patch", path, "?force=true", "application/merge-patch+json", `{}`, wantFailure(422, metav1.StatusReasonInvalid,
			`PatchOptions.meta.k8s.io "" is invalid: force: Forbidden: may not be specified for non-apply patch`,
			&metav1.StatusDetails{Group: "meta.k8s.io", Kind: "PatchOptions", Causes: []metav1.StatusCause{{Type: metav1.CauseType("FieldValueForbidden"), Message: "Forbidden: may not be specified for non-apply patch", Field: "force"}}})},
		{"other apiVersion", path, "?fieldManager=m", "", "apiVersion: v2\nkind: ConfigMap\nmetadata:\n  name: x\n",
			wantFailure(400, metav1.StatusReasonBadRequest, "invalid object type: /v2, Kind=ConfigMap", nil)},
		{"other kind", path, "?fieldManager=m", "", "apiVersion: v1\nkind: Secret\nmetadata:\n  name: x\n",
			wantFailure(400, metav1.StatusReasonBadRequest, "invalid object type: /v1, Kind=Secret", nil)},
		{"other name", path, "?fieldManager=m", "", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: other\n",
			wantFailure(400, metav1.StatusReasonBadRequest, "the name of the object (other) does not match the name on the URL (x)", nil)},
		{"managedFields in the body", path, "?fieldManager=m", "", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n  managedFields: []\n",
			wantFailure(400, metav1.StatusReasonBadRequest, "metadata.managedFields must be nil", nil)},
		{"bad YAML", path, "?fieldManager=m", "", "a: [", wantFailure(400, metav1.StatusReasonBadRequest,
			"error encoding patch: yaml: line 1: did not find expected node content", nil)},
		{"status of a missing pod", "/api/v1/namespaces/default/pods/nope/status", "?fieldManager=m", "", "apiVersion: v1\nkind: Pod\nmetadata:\n  name: nope\n",
			wantFailure(404, metav1.StatusReasonNotFound, `pods "nope" not found`, &metav1.StatusDetails{Name: "nope", Kind: "pods"})},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ct := tc.contentType
			if ct == "" {
				ct = string(types.ApplyYAMLPatchType)
			}
			r := doWrite(t, srv, http.MethodPatch, tc.path+tc.query, []byte(tc.body), "Content-Type", ct)
			if diff := cmp.Diff(tc.want, r.status(t)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestManagedFieldsOnCreateUpdatePatch(t *testing.T) {
	t.Parallel()
	clk := clocktesting.NewFakeClock(applyEpoch)
	srv := Start(t, WithClock(clk))
	const coll = "/api/v1/namespaces/default/configmaps"
	decode := func(r writeResp) *corev1.ConfigMap {
		t.Helper()
		cm := &corev1.ConfigMap{}
		if err := json.Unmarshal(r.body, cm); err != nil || r.code >= 300 {
			t.Fatalf("code %d, decode %v: %s", r.code, err, r.body)
		}
		return cm
	}

	// The manager defaults to the User-Agent's prefix before "/".
	cm := decode(doWrite(t, srv, http.MethodPost, coll, []byte(`{"metadata":{"name":"c","labels":{"l":"1"}},"data":{"a":"1"}}`), "User-Agent", "my-tool/1.2 (linux)"))
	checkEntries(t, "create", cm.ManagedFields, []fieldsEntry{entry(t, "my-tool", "Update", `{"f:data":{".":{},"f:a":{}},"f:metadata":{"f:labels":{".":{},"f:l":{}}}}`)})

	clk.Step(time.Second)
	cm.Data["b"] = "2"
	cm.ManagedFields = nil // a client that does not know managedFields keeps them
	cm = decode(doWrite(t, srv, http.MethodPut, coll+"/c?fieldManager=editor", mustJSON(t, cm)))
	ed := entry(t, "editor", "Update", `{"f:data":{"f:b":{}}}`)
	ed.Time = applyEpoch.Add(time.Second)
	checkEntries(t, "update", cm.ManagedFields, []fieldsEntry{entry(t, "my-tool", "Update", `{"f:data":{".":{},"f:a":{}},"f:metadata":{"f:labels":{".":{},"f:l":{}}}}`), ed})

	clk.Step(time.Second)
	cm = decode(doWrite(t, srv, http.MethodPatch, coll+"/c", []byte(`{"data":{"a":"x"}}`), "Content-Type", "application/merge-patch+json", "User-Agent", "patcher"))
	p := entry(t, "patcher", "Update", `{"f:data":{"f:a":{}}}`)
	p.Time = applyEpoch.Add(2 * time.Second)
	checkEntries(t, "merge patch", cm.ManagedFields, []fieldsEntry{entry(t, "my-tool", "Update", `{"f:data":{},"f:metadata":{"f:labels":{".":{},"f:l":{}}}}`), ed, p})

	// A JSON patch is recorded like the others.
	clk.Step(time.Second)
	cm = decode(doWrite(t, srv, http.MethodPatch, coll+"/c?fieldManager=jsonpatcher", []byte(`[{"op":"add","path":"/data/j","value":"1"}]`),
		"Content-Type", "application/json-patch+json"))
	jp := entry(t, "jsonpatcher", "Update", `{"f:data":{"f:j":{}}}`)
	jp.Time = applyEpoch.Add(3 * time.Second)
	checkEntries(t, "json patch", cm.ManagedFields, []fieldsEntry{entry(t, "my-tool", "Update", `{"f:data":{},"f:metadata":{"f:labels":{".":{},"f:l":{}}}}`), ed, p, jp})

	// Sent managedFields replace the stored ones on the main resource.
	sent := cm.ManagedFields[len(cm.ManagedFields)-1].DeepCopy()
	sent.Manager = "renamed"
	cm.ManagedFields = []metav1.ManagedFieldsEntry{*sent}
	cm = decode(doWrite(t, srv, http.MethodPut, coll+"/c?fieldManager=x", mustJSON(t, cm)))
	jp.Manager = "renamed"
	checkEntries(t, "replaced", cm.ManagedFields, []fieldsEntry{jp})

	// A list of one empty entry (what JSON can carry of an empty list)
	// resets them. An object without managedFields is not tracked by
	// updates (the skip-non-applied manager) until an apply.
	cm.ManagedFields = []metav1.ManagedFieldsEntry{{}}
	cm = decode(doWrite(t, srv, http.MethodPut, coll+"/c?fieldManager=reset", mustJSON(t, cm)))
	checkEntries(t, "reset", cm.ManagedFields, []fieldsEntry{})
	cm.Data["c"] = "3"
	cm = decode(doWrite(t, srv, http.MethodPut, coll+"/c?fieldManager=after-reset", mustJSON(t, cm)))
	checkEntries(t, "update after reset", cm.ManagedFields, []fieldsEntry{})

	// A no-op update changes nothing, managedFields times included.
	clk.Step(time.Second)
	rv := cm.ResourceVersion
	cm = decode(doWrite(t, srv, http.MethodPut, coll+"/c?fieldManager=reset", mustJSON(t, cm)))
	if cm.ResourceVersion != rv {
		t.Errorf("no-op update moved resourceVersion %s -> %s", rv, cm.ResourceVersion)
	}
}

func TestSeededNamespaceManagedFields(t *testing.T) {
	t.Parallel()
	clk := clocktesting.NewFakeClock(applyEpoch)
	srv := Start(t, WithClock(clk))
	ns, err := srv.Clientset().CoreV1().Namespaces().Get(context.Background(), "default", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	checkEntries(t, "namespace default", ns.ManagedFields, []fieldsEntry{entry(t, "kube-apiserver", "Update",
		`{"f:metadata":{"f:labels":{".":{},"f:kubernetes.io/metadata.name":{}}}}`)})
}

func TestApplyStatusSubresource(t *testing.T) {
	t.Parallel()
	clk := clocktesting.NewFakeClock(applyEpoch)
	srv := Start(t, WithClock(clk))
	ctx := context.Background()
	deps := srv.Clientset().AppsV1().Deployments("default")
	labels := map[string]string{"app": "web"}
	spec := appsv1ac.DeploymentSpec().WithReplicas(1).
		WithSelector(metav1ac.LabelSelector().WithMatchLabels(labels)).
		WithTemplate(corev1ac.PodTemplateSpec().WithLabels(labels).
			WithSpec(corev1ac.PodSpec().WithContainers(corev1ac.Container().WithName("web").WithImage("nginx"))))

	// Status in a main-resource apply is dropped and not owned.
	d, err := deps.Apply(ctx, appsv1ac.Deployment("web", "default").WithSpec(spec).
		WithStatus(appsv1ac.DeploymentStatus().WithReplicas(7)), metav1.ApplyOptions{FieldManager: "deployer"})
	if err != nil {
		t.Fatalf("apply: %v", err)
	}
	if d.Status.Replicas != 0 {
		t.Errorf("main-resource apply set status.replicas=%d", d.Status.Replicas)
	}
	if len(d.ManagedFields) != 1 || d.ManagedFields[0].Subresource != "" {
		t.Fatalf("managedFields after main apply: %+v", d.ManagedFields)
	}
	mainFields := string(d.ManagedFields[0].FieldsV1.Raw)

	// A status apply owns status only, recorded with subresource "status";
	// the spec in it is ignored.
	d, err = deps.ApplyStatus(ctx, appsv1ac.Deployment("web", "default").
		WithSpec(appsv1ac.DeploymentSpec().WithReplicas(5)).
		WithStatus(appsv1ac.DeploymentStatus().WithReplicas(3)), metav1.ApplyOptions{FieldManager: "controller"})
	if err != nil {
		t.Fatalf("apply status: %v", err)
	}
	if d.Status.Replicas != 3 || *d.Spec.Replicas != 1 {
		t.Errorf("after status apply: spec.replicas=%d status.replicas=%d, want 1 and 3", *d.Spec.Replicas, d.Status.Replicas)
	}
	want := []fieldsEntry{ // same operation and time: ordered by manager
		{Manager: "controller", Operation: "Apply", APIVersion: "apps/v1", Subresource: "status", FieldsType: "FieldsV1", Time: applyEpoch,
			Fields: jsonValue(t, `{"f:status":{"f:replicas":{}}}`)},
		{Manager: "deployer", Operation: "Apply", APIVersion: "apps/v1", FieldsType: "FieldsV1", Time: applyEpoch, Fields: jsonValue(t, mainFields)},
	}
	checkEntries(t, "after status apply", d.ManagedFields, want)

	// A status update with a label change keeps the labels (reset) and is
	// recorded under the status subresource.
	d.Status.ReadyReplicas = 1
	d, err = deps.UpdateStatus(ctx, d, metav1.UpdateOptions{FieldManager: "kubelet-ish"})
	if err != nil {
		t.Fatalf("update status: %v", err)
	}
	last := d.ManagedFields[len(d.ManagedFields)-1]
	if last.Manager != "kubelet-ish" || last.Subresource != "status" || last.Operation != metav1.ManagedFieldsOperationUpdate {
		t.Errorf("status update entry = %+v", last)
	}
}

func TestApplyDynamic(t *testing.T) {
	t.Parallel()
	srv := Start(t)
	dc, err := dynamic.NewForConfig(srv.RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	ri := dc.Resource(schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}).Namespace("default")
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": "dyn"},
		"data":     map[string]any{"k": "v"},
	}}
	got, err := ri.Apply(ctx, "dyn", u, metav1.ApplyOptions{FieldManager: "dyn-mgr"})
	if err != nil {
		t.Fatalf("dynamic apply: %v", err)
	}
	if mf := got.GetManagedFields(); len(mf) != 1 || mf[0].Manager != "dyn-mgr" || mf[0].Operation != metav1.ManagedFieldsOperationApply {
		t.Errorf("managedFields = %+v", mf)
	}
	u.Object["data"] = map[string]any{"k": "other"}
	_, err = ri.Apply(ctx, "dyn", u, metav1.ApplyOptions{FieldManager: "second"})
	if !apierrors.IsConflict(err) {
		t.Fatalf("second manager's apply: err = %v, want a conflict", err)
	}
	got, err = ri.Apply(ctx, "dyn", u, metav1.ApplyOptions{FieldManager: "second", Force: true})
	if err != nil {
		t.Fatalf("forced: %v", err)
	}
	if v, _, _ := unstructured.NestedString(got.Object, "data", "k"); v != "other" {
		t.Errorf("data.k = %q after force, want other", v)
	}
}

func TestApplyClusterScopedCreate(t *testing.T) {
	t.Parallel()
	srv := Start(t)
	ns, err := srv.Clientset().CoreV1().Namespaces().Apply(context.Background(),
		corev1ac.Namespace("applied").WithLabels(map[string]string{"team": "a"}), metav1.ApplyOptions{FieldManager: "ns-applier"})
	if err != nil {
		t.Fatalf("apply namespace: %v", err)
	}
	if ns.Status.Phase != corev1.NamespaceActive || ns.UID == "" {
		t.Errorf("applied namespace = phase %q uid %q, want Active with a uid", ns.Status.Phase, ns.UID)
	}
	if len(ns.ManagedFields) != 1 || ns.ManagedFields[0].Manager != "ns-applier" || ns.ManagedFields[0].Operation != metav1.ManagedFieldsOperationApply {
		t.Errorf("managedFields = %+v", ns.ManagedFields)
	}
}

func TestManagedFieldsScaleSubresource(t *testing.T) {
	t.Parallel()
	clk := clocktesting.NewFakeClock(applyEpoch)
	srv := Start(t, WithClock(clk))
	ctx := context.Background()
	deps := srv.Clientset().AppsV1().Deployments("default")
	labels := map[string]string{"app": "web"}
	_, err := deps.Apply(ctx, appsv1ac.Deployment("web", "default").WithSpec(appsv1ac.DeploymentSpec().WithReplicas(1).
		WithSelector(metav1ac.LabelSelector().WithMatchLabels(labels)).
		WithTemplate(corev1ac.PodTemplateSpec().WithLabels(labels).
			WithSpec(corev1ac.PodSpec().WithContainers(corev1ac.Container().WithName("web").WithImage("nginx"))))),
		metav1.ApplyOptions{FieldManager: "deployer"})
	if err != nil {
		t.Fatal(err)
	}
	sc, err := deps.GetScale(ctx, "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sc.Spec.Replicas = 3
	if _, err := deps.UpdateScale(ctx, "web", sc, metav1.UpdateOptions{FieldManager: "scaler"}); err != nil {
		t.Fatalf("update scale: %v", err)
	}
	// The applier of spec.replicas conflicts with the scaler; forced, the
	// applier of the Scale takes it over.
	_, err = deps.ApplyScale(ctx, "web", autoscalingv1ac.Scale().WithSpec(autoscalingv1ac.ScaleSpec().WithReplicas(5)), metav1.ApplyOptions{FieldManager: "hpa"})
	if !apierrors.IsConflict(err) {
		t.Fatalf("scale apply over the scaler's replicas: err = %v, want a conflict", err)
	}
	if _, err := deps.ApplyScale(ctx, "web", autoscalingv1ac.Scale().WithSpec(autoscalingv1ac.ScaleSpec().WithReplicas(5)), metav1.ApplyOptions{FieldManager: "hpa", Force: true}); err != nil {
		t.Fatalf("forced scale apply: %v", err)
	}
	d, err := deps.Get(ctx, "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if *d.Spec.Replicas != 5 {
		t.Errorf("spec.replicas = %d, want 5", *d.Spec.Replicas)
	}
	var hpa *metav1.ManagedFieldsEntry
	for i, e := range d.ManagedFields {
		switch e.Manager {
		case "hpa":
			hpa = &d.ManagedFields[i]
		case "scaler":
			t.Errorf("scaler keeps an entry after losing its only field: %+v", e)
		case "deployer":
			if strings.Contains(string(e.FieldsV1.Raw), `"f:replicas"`) {
				t.Errorf("deployer still owns spec.replicas: %s", e.FieldsV1.Raw)
			}
		}
	}
	want := &metav1.ManagedFieldsEntry{Manager: "hpa", Operation: metav1.ManagedFieldsOperationApply, APIVersion: "apps/v1", Subresource: "scale",
		FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:spec":{"f:replicas":{}}}`)}}
	if diff := cmp.Diff(want, hpa); diff != "" {
		t.Errorf("hpa entry (-want +got; as on kube-apiserver, entries converted back from the Scale carry no time):\n%s", diff)
	}
}
