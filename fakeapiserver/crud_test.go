package fakeapiserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"
)

// writeResp is one HTTP exchange made without client-go, so tests can
// compare status codes, headers and bodies byte for byte.
type writeResp struct {
	code   int
	header http.Header
	body   []byte
}

// doWrite sends one request to srv; hdr holds extra headers (name, value pairs).
func doWrite(t testing.TB, srv *Server, method, path string, body []byte, hdr ...string) writeResp {
	t.Helper()
	req, err := http.NewRequestWithContext(context.Background(), method, srv.URL()+path, bytes.NewReader(body))
	if err != nil {
		t.Fatalf("NewRequest(%s %s): %v", method, path, err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		if hdr[i+1] == "" {
			req.Header.Del(hdr[i])
			continue
		}
		req.Header.Set(hdr[i], hdr[i+1])
	}
	if tok := srv.RESTConfig().BearerToken; tok != "" && req.Header.Get("Authorization") == "" {
		req.Header.Set("Authorization", "Bearer "+tok)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: read body: %v", method, path, err)
	}
	return writeResp{code: resp.StatusCode, header: resp.Header, body: data}
}

// status decodes a JSON Status body strictly enough to compare it whole.
func (r writeResp) status(t testing.TB) metav1.Status {
	t.Helper()
	var st metav1.Status
	if err := json.Unmarshal(r.body, &st); err != nil {
		t.Fatalf("decode Status %q: %v", r.body, err)
	}
	return st
}

// failure builds the Status a Failure response must equal.
func wantFailure(code int32, reason metav1.StatusReason, msg string, details *metav1.StatusDetails) metav1.Status {
	return metav1.Status{
		TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   metav1.StatusFailure, Code: code, Reason: reason, Message: msg, Details: details,
	}
}

// mustJSON marshals v or fails the test.
func mustJSON(t testing.TB, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("json.Marshal: %v", err)
	}
	return b
}

// rvOf parses an object's resourceVersion.
func rvOf(t testing.TB, m metav1.Object) int64 {
	t.Helper()
	n, err := strconv.ParseInt(m.GetResourceVersion(), 10, 64)
	if err != nil {
		t.Fatalf("resourceVersion %q: %v", m.GetResourceVersion(), err)
	}
	return n
}

// nextEvent receives one watch event (only a hang fails it).
func nextEvent(t testing.TB, w watch.Interface) watch.Event {
	t.Helper()
	select {
	case ev, ok := <-w.ResultChan():
		if !ok {
			t.Fatalf("watch closed early")
		}
		return ev
	case <-hangGuard(t):
		t.Fatalf("no watch event before the test's deadline")
	}
	return watch.Event{}
}

// kindCase is one kind exercised generically through the dynamic client.
type kindCase struct {
	gvr        schema.GroupVersionResource
	namespaced bool
	obj        map[string]any // the object to create, without metadata
	mutate     func(u *unstructured.Unstructured)
}

func TestCRUDKindsDynamic(t *testing.T) {
	t.Parallel()
	srv := Start(t)
	dyn, err := dynamic.NewForConfig(srv.RESTConfig())
	if err != nil {
		t.Fatalf("dynamic.NewForConfig: %v", err)
	}
	setLabel := func(u *unstructured.Unstructured) { u.SetLabels(map[string]string{"changed": "yes"}) }
	cases := map[string]kindCase{
		"pods": {gvr: corev1.SchemeGroupVersion.WithResource("pods"), namespaced: true,
			obj: map[string]any{"apiVersion": "v1", "kind": "Pod", "spec": map[string]any{"containers": []any{map[string]any{"name": "c", "image": "nginx"}}}}, mutate: setLabel},
		"configmaps": {gvr: corev1.SchemeGroupVersion.WithResource("configmaps"), namespaced: true,
			obj:    map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "data": map[string]any{"k": "v"}},
			mutate: func(u *unstructured.Unstructured) { u.Object["data"] = map[string]any{"k": "v2"} }},
		"secrets": {gvr: corev1.SchemeGroupVersion.WithResource("secrets"), namespaced: true,
			obj: map[string]any{"apiVersion": "v1", "kind": "Secret", "stringData": nil, "data": map[string]any{"k": "dg=="}}, mutate: setLabel},
		"services": {gvr: corev1.SchemeGroupVersion.WithResource("services"), namespaced: true,
			obj: map[string]any{"apiVersion": "v1", "kind": "Service", "spec": map[string]any{"ports": []any{map[string]any{"port": int64(80)}}}}, mutate: setLabel},
		"namespaces": {gvr: corev1.SchemeGroupVersion.WithResource("namespaces"),
			obj: map[string]any{"apiVersion": "v1", "kind": "Namespace"}, mutate: setLabel},
		"nodes": {gvr: corev1.SchemeGroupVersion.WithResource("nodes"),
			obj: map[string]any{"apiVersion": "v1", "kind": "Node"}, mutate: setLabel},
		"deployments": {gvr: appsv1.SchemeGroupVersion.WithResource("deployments"), namespaced: true,
			obj: map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "spec": map[string]any{
				"selector": map[string]any{"matchLabels": map[string]any{"app": "x"}},
				"template": map[string]any{"metadata": map[string]any{"labels": map[string]any{"app": "x"}},
					"spec": map[string]any{"containers": []any{map[string]any{"name": "c", "image": "nginx"}}}}}},
			mutate: func(u *unstructured.Unstructured) {
				_ = unstructured.SetNestedField(u.Object, int64(3), "spec", "replicas")
			}},
		"leases": {gvr: schema.GroupVersionResource{Group: "coordination.k8s.io", Version: "v1", Resource: "leases"}, namespaced: true,
			obj: map[string]any{"apiVersion": "coordination.k8s.io/v1", "kind": "Lease", "spec": map[string]any{"holderIdentity": "a"}},
			mutate: func(u *unstructured.Unstructured) {
				_ = unstructured.SetNestedField(u.Object, "b", "spec", "holderIdentity")
			}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var ri dynamic.ResourceInterface = dyn.Resource(tc.gvr)
			if tc.namespaced {
				ri = dyn.Resource(tc.gvr).Namespace("default")
			}
			testCRUDCycle(t, ri, tc)
		})
	}
}

// testCRUDCycle creates, reads, updates, lists and deletes one object,
// checking the metadata rules at each step.
func testCRUDCycle(t *testing.T, ri dynamic.ResourceInterface, tc kindCase) {
	ctx := t.Context()
	u := &unstructured.Unstructured{Object: tc.obj}
	u.SetName("obj-" + tc.gvr.Resource)
	created, err := ri.Create(ctx, u, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	if created.GetUID() == "" || created.GetCreationTimestamp().Time.IsZero() || created.GetResourceVersion() == "" {
		t.Fatalf("Create: uid=%q creationTimestamp=%v rv=%q, want all set", created.GetUID(), created.GetCreationTimestamp(), created.GetResourceVersion())
	}
	if created.GetCreationTimestamp().Nanosecond() != 0 {
		t.Errorf("Create: creationTimestamp %v has sub-second precision", created.GetCreationTimestamp())
	}
	got, err := ri.Get(ctx, created.GetName(), metav1.GetOptions{})
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	if diff := cmp.Diff(created.Object, got.Object); diff != "" {
		t.Errorf("Get mismatch with Create response (-create +get):\n%s", diff)
	}
	tc.mutate(got)
	updated, err := ri.Update(ctx, got, metav1.UpdateOptions{})
	if err != nil {
		t.Fatalf("Update: %v", err)
	}
	if rvOf(t, updated) != rvOf(t, created)+1 {
		t.Errorf("Update rv = %s, want %d", updated.GetResourceVersion(), rvOf(t, created)+1)
	}
	if updated.GetUID() != created.GetUID() || !updated.GetCreationTimestamp().Time.Equal(created.GetCreationTimestamp().Time) {
		t.Errorf("Update changed uid or creationTimestamp: %q %v, want %q %v", updated.GetUID(), updated.GetCreationTimestamp(), created.GetUID(), created.GetCreationTimestamp())
	}
	list, err := ri.List(ctx, metav1.ListOptions{FieldSelector: "metadata.name=" + created.GetName()})
	if err != nil {
		t.Fatalf("List: %v", err)
	}
	if len(list.Items) != 1 || list.Items[0].GetResourceVersion() != updated.GetResourceVersion() {
		t.Errorf("List = %d items, want the updated object", len(list.Items))
	}
	if err := ri.Delete(ctx, created.GetName(), metav1.DeleteOptions{}); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	after, err := ri.Get(ctx, created.GetName(), metav1.GetOptions{})
	if tc.gvr.Resource == "namespaces" {
		// Namespaces stay Terminating: there is no namespace controller.
		phase, _, _ := unstructured.NestedString(after.Object, "status", "phase")
		if err != nil || phase != "Terminating" || after.GetDeletionTimestamp() == nil {
			t.Errorf("Get after Delete = phase %q, deletionTimestamp %v, err %v; want Terminating", phase, after.GetDeletionTimestamp(), err)
		}
		return
	}
	if !apierrors.IsNotFound(err) {
		t.Errorf("Get after Delete err = %v, want NotFound", err)
	}
}

func TestCreateTypedPodProtobuf(t *testing.T) {
	t.Parallel()
	srv := Start(t)
	cs := srv.Clientset()
	pod, err := cs.CoreV1().Pods("default").Create(t.Context(), newTestPod("p1", "busybox"), metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("Create(pod): %v", err)
	}
	if pod.Generation != 1 {
		t.Errorf("Create(pod) generation = %d, want 1", pod.Generation)
	}
	if pod.Status.Phase != corev1.PodPending || pod.Status.QOSClass != corev1.PodQOSBestEffort {
		t.Errorf("Create(pod) status = %+v, want Pending/BestEffort", pod.Status)
	}
	cm, err := cs.CoreV1().ConfigMaps("default").Create(t.Context(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "c", Generation: 7}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("Create(configmap): %v", err)
	}
	if cm.Generation != 0 {
		t.Errorf("Create(configmap) generation = %d, want 0 (configmaps do not track it)", cm.Generation)
	}
	// Spec changes bump the pod's generation, metadata changes don't.
	pod.Labels = map[string]string{"a": "b"}
	pod, err = cs.CoreV1().Pods("default").Update(t.Context(), pod, metav1.UpdateOptions{})
	if err != nil || pod.Generation != 1 {
		t.Fatalf("Update(labels) generation = %d, err %v; want 1", pod.Generation, err)
	}
	pod.Spec.ActiveDeadlineSeconds = new(int64(5))
	pod, err = cs.CoreV1().Pods("default").Update(t.Context(), pod, metav1.UpdateOptions{})
	if err != nil || pod.Generation != 2 {
		t.Fatalf("Update(spec) generation = %d, err %v; want 2", pod.Generation, err)
	}
}

// testPod is a minimal valid pod.
func newTestPod(name, image string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: image}}},
	}
}

func TestGenerateName(t *testing.T) {
	t.Parallel()
	srv := Start(t)
	cm, err := srv.Clientset().CoreV1().ConfigMaps("default").Create(t.Context(),
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{GenerateName: "gen-"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("Create(generateName): %v", err)
	}
	if !strings.HasPrefix(cm.Name, "gen-") || len(cm.Name) != len("gen-")+5 || cm.GenerateName != "gen-" {
		t.Errorf("Create(generateName) name = %q generateName = %q, want gen-<5 chars>, gen-", cm.Name, cm.GenerateName)
	}
	for _, c := range strings.TrimPrefix(cm.Name, "gen-") {
		if !strings.ContainsRune("bcdfghjklmnpqrstvwxz2456789", c) {
			t.Errorf("generated suffix %q has %q outside the apiserver alphabet", cm.Name, c)
		}
	}
	long := strings.Repeat("a", 70)
	cm, err = srv.Clientset().CoreV1().ConfigMaps("default").Create(t.Context(),
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{GenerateName: long}}, metav1.CreateOptions{})
	if err != nil || len(cm.Name) != 63 {
		t.Errorf("Create(generateName of 70) = %q, %v; want 58+5 characters", cm.GetName(), err)
	}
}

func TestUpdateConflictAndUnconditional(t *testing.T) {
	t.Parallel()
	srv := Start(t)
	cms := srv.Clientset().CoreV1().ConfigMaps("default")
	cm, err := cms.Create(t.Context(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cm-a"}, Data: map[string]string{"k": "v"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	stale := cm.DeepCopy()
	cm.Data["k"] = "v2"
	if cm, err = cms.Update(t.Context(), cm, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("Update: %v", err)
	}
	stale.Data["k"] = "v3"
	_, err = cms.Update(t.Context(), stale, metav1.UpdateOptions{})
	want := wantFailure(409, metav1.StatusReasonConflict,
		`Operation cannot be fulfilled on configmaps "cm-a": the object has been modified; please apply your changes to the latest version and try again`,
		&metav1.StatusDetails{Name: "cm-a", Kind: "configmaps"})
	if diff := cmp.Diff(want, statusOfErr(t, err)); diff != "" {
		t.Errorf("Update(stale rv) status mismatch (-want +got):\n%s", diff)
	}
	stale.ResourceVersion = ""
	got, err := cms.Update(t.Context(), stale, metav1.UpdateOptions{})
	if err != nil || got.Data["k"] != "v3" || rvOf(t, got) != rvOf(t, cm)+1 {
		t.Errorf("Update(empty rv) = %v rv %s, %v; want unconditional success at rv %d", got.Data, got.ResourceVersion, err, rvOf(t, cm)+1)
	}
}

// statusOfErr extracts the Status of a client-go API error.
func statusOfErr(t testing.TB, err error) metav1.Status {
	t.Helper()
	var se apierrors.APIStatus
	if err == nil || !errors.As(err, &se) {
		t.Fatalf("err = %v, want an API status error", err)
	}
	st := se.Status()
	st.TypeMeta = metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}
	return st
}

func TestNoOpUpdateBumpsNothing(t *testing.T) {
	t.Parallel()
	srv := Start(t)
	cms := srv.Clientset().CoreV1().ConfigMaps("default")
	cm, err := cms.Create(t.Context(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "same"}, Data: map[string]string{"k": "v"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	w, err := cms.Watch(t.Context(), metav1.ListOptions{ResourceVersion: cm.ResourceVersion})
	if err != nil {
		t.Fatalf("Watch: %v", err)
	}
	defer w.Stop()
	same, err := cms.Update(t.Context(), cm.DeepCopy(), metav1.UpdateOptions{})
	if err != nil || same.ResourceVersion != cm.ResourceVersion {
		t.Fatalf("no-op Update rv = %q, %v; want unchanged %q", same.ResourceVersion, err, cm.ResourceVersion)
	}
	patched, err := cms.Patch(t.Context(), "same", types.MergePatchType, []byte(`{"data":{"k":"v"}}`), metav1.PatchOptions{})
	if err != nil || patched.ResourceVersion != cm.ResourceVersion {
		t.Fatalf("no-op Patch rv = %q, %v; want unchanged %q", patched.ResourceVersion, err, cm.ResourceVersion)
	}
	cm.Data["k"] = "v2"
	changed, err := cms.Update(t.Context(), cm, metav1.UpdateOptions{})
	if err != nil {
		t.Fatalf("Update: %v", err)
	}
	ev := nextEvent(t, w)
	if got := ev.Object.(*corev1.ConfigMap); ev.Type != watch.Modified || got.ResourceVersion != changed.ResourceVersion {
		t.Errorf("first event = %s rv %s, want MODIFIED rv %s (no event for no-op writes)", ev.Type, got.ResourceVersion, changed.ResourceVersion)
	}
	if rvOf(t, changed) != rvOf(t, cm)+1 {
		t.Errorf("Update after no-ops rv = %s, want %d", changed.ResourceVersion, rvOf(t, cm)+1)
	}
}

func TestStatusSubresource(t *testing.T) {
	t.Parallel()
	srv := Start(t)
	cs := srv.Clientset()
	ctx := t.Context()
	pods := cs.CoreV1().Pods("default")
	pod, err := pods.Create(ctx, newTestPod("st", "nginx"), metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	// The main resource ignores status changes ...
	pod.Status.Phase = corev1.PodRunning
	pod.Labels = map[string]string{"x": "y"}
	pod, err = pods.Update(ctx, pod, metav1.UpdateOptions{})
	if err != nil || pod.Status.Phase != corev1.PodPending || pod.Labels["x"] != "y" {
		t.Fatalf("Update(main) = phase %q labels %v, %v; want Pending with the new label", pod.Status.Phase, pod.Labels, err)
	}
	// ... and /status changes status and metadata, not the spec (as the
	// pod status strategy, which resets the spec and ownerReferences).
	pod.Status.Phase = corev1.PodRunning
	pod.Labels = nil
	pod.Spec.ActiveDeadlineSeconds = ptr.To[int64](5)
	pod, err = pods.UpdateStatus(ctx, pod, metav1.UpdateOptions{})
	if err != nil || pod.Status.Phase != corev1.PodRunning || len(pod.Labels) != 0 || pod.Spec.ActiveDeadlineSeconds != nil {
		t.Fatalf("UpdateStatus = phase %q labels %v activeDeadlineSeconds %v, %v; want Running, the label removed, the spec kept",
			pod.Status.Phase, pod.Labels, pod.Spec.ActiveDeadlineSeconds, err)
	}

	deps := cs.AppsV1().Deployments("default")
	dep := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "d"}, Spec: appsv1.DeploymentSpec{
		Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"a": "b"}},
		Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"a": "b"}}, Spec: newTestPod("", "nginx").Spec},
	}}
	dep, err = deps.Create(ctx, dep, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("Create(deployment): %v", err)
	}
	dep.Status.Replicas = 5
	dep.Spec.Paused = true
	dep, err = deps.Update(ctx, dep, metav1.UpdateOptions{})
	if err != nil || dep.Status.Replicas != 0 || !dep.Spec.Paused || dep.Generation != 2 {
		t.Fatalf("Update(deployment) = status.replicas %d paused %v generation %d, %v; want 0, true, 2", dep.Status.Replicas, dep.Spec.Paused, dep.Generation, err)
	}
	// The deployment status strategy resets the labels too, not the
	// annotations.
	dep.Status.Replicas = 5
	dep.Spec.Paused = false
	dep.Labels = map[string]string{"x": "y"}
	dep.Annotations = map[string]string{"a": "b"}
	dep, err = deps.UpdateStatus(ctx, dep, metav1.UpdateOptions{})
	if err != nil || dep.Status.Replicas != 5 || !dep.Spec.Paused || dep.Generation != 2 || len(dep.Labels) != 0 || dep.Annotations["a"] != "b" {
		t.Fatalf("UpdateStatus(deployment) = status.replicas %d paused %v generation %d labels %v annotations %v, %v; want 5, true, 2, none, a=b",
			dep.Status.Replicas, dep.Spec.Paused, dep.Generation, dep.Labels, dep.Annotations, err)
	}
}

func TestPatchTypes(t *testing.T) {
	t.Parallel()
	srv := Start(t)
	pods := srv.Clientset().CoreV1().Pods("default")
	ctx := t.Context()
	pod, err := pods.Create(ctx, newTestPod("pp", "nginx"), metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	tests := []struct {
		name  string
		pt    types.PatchType
		patch string
		check func(*corev1.Pod) bool
	}{
		{"json", types.JSONPatchType, `[{"op":"add","path":"/metadata/labels","value":{"j":"1"}}]`, func(p *corev1.Pod) bool { return p.Labels["j"] == "1" }},
		{"merge", types.MergePatchType, `{"metadata":{"labels":{"m":"1"}}}`, func(p *corev1.Pod) bool { return p.Labels["m"] == "1" && p.Labels["j"] == "1" }},
		{"strategic merges containers by name", types.StrategicMergePatchType,
			`{"spec":{"containers":[{"name":"c","image":"nginx:2"}]}}`, func(p *corev1.Pod) bool {
				return len(p.Spec.Containers) == 1 && p.Spec.Containers[0].Image == "nginx:2"
			}},
	}
	rv := rvOf(t, pod)
	for _, tt := range tests {
		got, err := pods.Patch(ctx, "pp", tt.pt, []byte(tt.patch), metav1.PatchOptions{})
		if err != nil {
			t.Fatalf("Patch(%s): %v", tt.name, err)
		}
		rv++
		if !tt.check(got) || rvOf(t, got) != rv {
			t.Errorf("Patch(%s) = labels %v containers %v rv %s; want the change at rv %d", tt.name, got.Labels, got.Spec.Containers, got.ResourceVersion, rv)
		}
	}
	stale := `{"metadata":{"resourceVersion":"` + pod.ResourceVersion + `","labels":{"s":"1"}}}`
	_, err = pods.Patch(ctx, "pp", types.MergePatchType, []byte(stale), metav1.PatchOptions{})
	want := wantFailure(409, metav1.StatusReasonConflict,
		`Operation cannot be fulfilled on pods "pp": the object has been modified; please apply your changes to the latest version and try again`,
		&metav1.StatusDetails{Name: "pp", Kind: "pods"})
	if diff := cmp.Diff(want, statusOfErr(t, err)); diff != "" {
		t.Errorf("Patch(stale rv) status mismatch (-want +got):\n%s", diff)
	}
}

func TestDeletePreconditions(t *testing.T) {
	t.Parallel()
	srv := Start(t)
	cms := srv.Clientset().CoreV1().ConfigMaps("default")
	cm, err := cms.Create(t.Context(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cm-d"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	badRV, badUID := "1", types.UID("nope")
	tests := []struct {
		name string
		pre  metav1.Preconditions
		msg  string
	}{
		{"rv", metav1.Preconditions{ResourceVersion: &badRV},
			`Operation cannot be fulfilled on ConfigMap "cm-d": the ResourceVersion in the precondition (1) does not match the ResourceVersion in record (` + cm.ResourceVersion + `). The object might have been modified`},
		{"uid", metav1.Preconditions{UID: &badUID},
			`Operation cannot be fulfilled on ConfigMap "cm-d": the UID in the precondition (nope) does not match the UID in record (` + string(cm.UID) + `). The object might have been deleted and then recreated`},
	}
	for _, tt := range tests {
		err := cms.Delete(t.Context(), "cm-d", metav1.DeleteOptions{Preconditions: &tt.pre})
		want := wantFailure(409, metav1.StatusReasonConflict, tt.msg, &metav1.StatusDetails{Name: "cm-d", Kind: "ConfigMap"})
		if diff := cmp.Diff(want, statusOfErr(t, err)); diff != "" {
			t.Errorf("Delete(precondition %s) status mismatch (-want +got):\n%s", tt.name, diff)
		}
	}
	if err := cms.Delete(t.Context(), "cm-d", metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &cm.UID, ResourceVersion: &cm.ResourceVersion}}); err != nil {
		t.Errorf("Delete(matching preconditions) = %v", err)
	}
}

func TestDeleteSuccessStatusBody(t *testing.T) {
	t.Parallel()
	srv := Start(t)
	cm, err := srv.Clientset().CoreV1().ConfigMaps("default").Create(t.Context(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cm-b"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	resp := doWrite(t, srv, http.MethodDelete, "/api/v1/namespaces/default/configmaps/cm-b", nil)
	want := `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Success","details":{"name":"cm-b","kind":"configmaps","uid":"` + string(cm.UID) + `"}}` + "\n"
	if resp.code != http.StatusOK || string(resp.body) != want {
		t.Errorf("DELETE configmap = %d %s, want 200 %s", resp.code, resp.body, want)
	}
}

func TestFinalizers(t *testing.T) {
	t.Parallel()
	srv := Start(t)
	cms := srv.Clientset().CoreV1().ConfigMaps("default")
	ctx := t.Context()
	cm, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "fin", Finalizers: []string{"example.com/x"}}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	w, err := cms.Watch(ctx, metav1.ListOptions{ResourceVersion: cm.ResourceVersion})
	if err != nil {
		t.Fatalf("Watch: %v", err)
	}
	defer w.Stop()
	resp := doWrite(t, srv, http.MethodDelete, "/api/v1/namespaces/default/configmaps/fin", nil)
	var marked corev1.ConfigMap
	if err := json.Unmarshal(resp.body, &marked); err != nil || resp.code != 200 || marked.Kind != "ConfigMap" {
		t.Fatalf("DELETE with finalizer = %d %s, want 200 with the object", resp.code, resp.body)
	}
	if marked.DeletionTimestamp == nil || marked.DeletionGracePeriodSeconds == nil || *marked.DeletionGracePeriodSeconds != 0 || rvOf(t, &marked) != rvOf(t, cm)+1 {
		t.Errorf("DELETE with finalizer = %+v, want deletionTimestamp, grace 0, rv %d", marked.ObjectMeta, rvOf(t, cm)+1)
	}
	if ev := nextEvent(t, w); ev.Type != watch.Modified {
		t.Errorf("event after DELETE = %s, want MODIFIED", ev.Type)
	}
	got, err := cms.Patch(ctx, "fin", types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`), metav1.PatchOptions{})
	if err != nil || got.ResourceVersion != marked.ResourceVersion || len(got.Finalizers) != 0 {
		t.Fatalf("Patch(remove last finalizer) = rv %s finalizers %v, %v; want the request object at rv %s", got.ResourceVersion, got.Finalizers, err, marked.ResourceVersion)
	}
	ev := nextEvent(t, w)
	if ev.Type != watch.Deleted || rvOf(t, ev.Object.(*corev1.ConfigMap)) != rvOf(t, &marked)+1 {
		t.Errorf("event after last finalizer = %s rv %s, want DELETED rv %d", ev.Type, ev.Object.(*corev1.ConfigMap).ResourceVersion, rvOf(t, &marked)+1)
	}
	if _, err := cms.Get(ctx, "fin", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("Get after finalization err = %v, want NotFound", err)
	}
}

func TestPodGracefulDeletion(t *testing.T) {
	t.Parallel()
	srv := Start(t)
	pods := srv.Clientset().CoreV1().Pods("default")
	ctx := t.Context()
	unsched, err := pods.Create(ctx, newTestPod("unsched", "nginx"), metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	sched := newTestPod("sched", "nginx")
	sched.Spec.NodeName = "node-1"
	sched, err = pods.Create(ctx, sched, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	w, err := pods.Watch(ctx, metav1.ListOptions{ResourceVersion: sched.ResourceVersion})
	if err != nil {
		t.Fatalf("Watch: %v", err)
	}
	defer w.Stop()

	if err := pods.Delete(ctx, unsched.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatalf("Delete(unscheduled): %v", err)
	}
	for _, want := range []watch.EventType{watch.Modified, watch.Deleted} {
		if ev := nextEvent(t, w); ev.Type != want || ev.Object.(*corev1.Pod).Name != "unsched" {
			t.Errorf("unscheduled delete event = %s %s, want %s unsched", ev.Type, ev.Object.(*corev1.Pod).Name, want)
		}
	}

	if err := pods.Delete(ctx, sched.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatalf("Delete(scheduled): %v", err)
	}
	ev := nextEvent(t, w)
	p := ev.Object.(*corev1.Pod)
	if ev.Type != watch.Modified || p.DeletionGracePeriodSeconds == nil || *p.DeletionGracePeriodSeconds != 30 || p.Generation != 2 {
		t.Errorf("scheduled delete event = %s grace %v generation %d, want MODIFIED grace 30 generation 2", ev.Type, p.DeletionGracePeriodSeconds, p.Generation)
	}
	if _, err := pods.Get(ctx, sched.Name, metav1.GetOptions{}); err != nil {
		t.Errorf("Get(scheduled pod being deleted) = %v, want it still there", err)
	}
	if err := pods.Delete(ctx, sched.Name, *metav1.NewDeleteOptions(0)); err != nil {
		t.Fatalf("Delete(grace 0): %v", err)
	}
	for _, want := range []watch.EventType{watch.Modified, watch.Deleted} {
		if ev := nextEvent(t, w); ev.Type != want {
			t.Errorf("grace-0 delete event = %s, want %s", ev.Type, want)
		}
	}
}

func TestDeleteCollectionWithSelector(t *testing.T) {
	t.Parallel()
	srv := Start(t)
	cms := srv.Clientset().CoreV1().ConfigMaps("default")
	for _, n := range []string{"a", "b", "c"} {
		app := "keep"
		if n != "c" {
			app = "drop"
		}
		if _, err := cms.Create(t.Context(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: n, Labels: map[string]string{"app": app}}}, metav1.CreateOptions{}); err != nil {
			t.Fatalf("Create(%s): %v", n, err)
		}
	}
	if err := cms.DeleteCollection(t.Context(), metav1.DeleteOptions{}, metav1.ListOptions{LabelSelector: "app=drop"}); err != nil {
		t.Fatalf("DeleteCollection: %v", err)
	}
	list, err := cms.List(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatalf("List: %v", err)
	}
	var names []string
	for _, cm := range list.Items {
		names = append(names, cm.Name)
	}
	if diff := cmp.Diff([]string{"c"}, names); diff != "" {
		t.Errorf("List after DeleteCollection(app=drop) mismatch (-want +got):\n%s", diff)
	}
}

func TestNamespaceLifecycle(t *testing.T) {
	t.Parallel()
	srv := Start(t)
	cs := srv.Clientset()
	ctx := t.Context()
	_, err := cs.CoreV1().ConfigMaps("nonexist").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "x"}}, metav1.CreateOptions{})
	want := wantFailure(404, metav1.StatusReasonNotFound, `namespaces "nonexist" not found`, &metav1.StatusDetails{Name: "nonexist", Kind: "namespaces"})
	if diff := cmp.Diff(want, statusOfErr(t, err)); diff != "" {
		t.Errorf("Create in missing namespace status mismatch (-want +got):\n%s", diff)
	}
	ns, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "t1"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("Create(namespace): %v", err)
	}
	if ns.Status.Phase != corev1.NamespaceActive || !cmp.Equal(ns.Spec.Finalizers, []corev1.FinalizerName{corev1.FinalizerKubernetes}) {
		t.Errorf("Create(namespace) = phase %q finalizers %v, want Active [kubernetes]", ns.Status.Phase, ns.Spec.Finalizers)
	}
	if err := cs.CoreV1().Namespaces().Delete(ctx, "t1", metav1.DeleteOptions{}); err != nil {
		t.Fatalf("Delete(namespace): %v", err)
	}
	_, err = cs.CoreV1().ConfigMaps("t1").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{GenerateName: "g-"}}, metav1.CreateOptions{})
	want = wantFailure(403, metav1.StatusReasonForbidden, `configmaps "g-" is forbidden: unable to create new content in namespace t1 because it is being terminated`,
		&metav1.StatusDetails{Name: "g-", Kind: "configmaps", Causes: []metav1.StatusCause{{Type: "NamespaceTerminating", Message: "namespace t1 is being terminated", Field: "metadata.namespace"}}})
	if diff := cmp.Diff(want, statusOfErr(t, err)); diff != "" {
		t.Errorf("Create in terminating namespace status mismatch (-want +got):\n%s", diff)
	}
	err = cs.CoreV1().Namespaces().Delete(ctx, "default", metav1.DeleteOptions{})
	want = wantFailure(403, metav1.StatusReasonForbidden, `namespaces "default" is forbidden: this namespace may not be deleted`, &metav1.StatusDetails{Name: "default", Kind: "namespaces"})
	if diff := cmp.Diff(want, statusOfErr(t, err)); diff != "" {
		t.Errorf("Delete(default namespace) status mismatch (-want +got):\n%s", diff)
	}
}

// clientsetFor is a typed clientset with JSON bodies, for tests that want
// to contrast the encodings.
func clientsetFor(t testing.TB, srv *Server) kubernetes.Interface {
	t.Helper()
	cfg := srv.RESTConfig()
	cfg.ContentType = "application/json"
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatalf("NewForConfig: %v", err)
	}
	return cs
}

// TestPodDefaults pins the pod a real kube-apiserver v1.37 returns for a
// one-container pod, field by field, except what the ServiceAccount
// admission plugin adds for the token (volume, volumeMount), which lw-sim
// does not emulate.
func TestPodDefaults(t *testing.T) {
	t.Parallel()
	srv := Start(t)
	in := newTestPod("d", "nginx")
	in.Spec.Containers = append(in.Spec.Containers, corev1.Container{Name: "t", Image: "repo:5000/img:1.2",
		Ports: []corev1.ContainerPort{{ContainerPort: 80}}, ReadinessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Port: intstr.FromInt32(80)}}}})
	got, err := clientsetFor(t, srv).CoreV1().Pods("default").Create(t.Context(), in, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	grace, zero, secs := int64(30), int32(0), int64(300)
	preempt, links := corev1.PreemptLowerPriority, true
	common := corev1.Container{TerminationMessagePath: "/dev/termination-log", TerminationMessagePolicy: corev1.TerminationMessageReadFile}
	c0, c1 := common, common
	c0.Name, c0.Image, c0.ImagePullPolicy = "c", "nginx", corev1.PullAlways
	c1.Name, c1.Image, c1.ImagePullPolicy = "t", "repo:5000/img:1.2", corev1.PullIfNotPresent
	c1.Ports = []corev1.ContainerPort{{ContainerPort: 80, Protocol: corev1.ProtocolTCP}}
	c1.ReadinessProbe = &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/", Port: intstr.FromInt32(80), Scheme: corev1.URISchemeHTTP}},
		TimeoutSeconds: 1, PeriodSeconds: 10, SuccessThreshold: 1, FailureThreshold: 3}
	want := corev1.PodSpec{
		Containers:                    []corev1.Container{c0, c1},
		RestartPolicy:                 corev1.RestartPolicyAlways,
		TerminationGracePeriodSeconds: &grace,
		DNSPolicy:                     corev1.DNSClusterFirst,
		ServiceAccountName:            "default",
		DeprecatedServiceAccount:      "default",
		SecurityContext:               &corev1.PodSecurityContext{},
		SchedulerName:                 corev1.DefaultSchedulerName,
		Tolerations: []corev1.Toleration{
			{Key: corev1.TaintNodeNotReady, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: &secs},
			{Key: corev1.TaintNodeUnreachable, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: &secs},
		},
		Priority:           &zero,
		EnableServiceLinks: &links,
		PreemptionPolicy:   &preempt,
	}
	if diff := cmp.Diff(want, got.Spec); diff != "" {
		t.Errorf("Create(pod) spec mismatch with kube-apiserver defaults (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(corev1.PodStatus{Phase: corev1.PodPending, QOSClass: corev1.PodQOSBestEffort}, got.Status); diff != "" {
		t.Errorf("Create(pod) status mismatch (-want +got):\n%s", diff)
	}
	// Defaults apply to update bodies too: a body without the defaulted
	// fields is the stored pod again, not a (forbidden) spec change.
	// Admission-added fields are not re-added on update, so they stay.
	sparse := got.DeepCopy()
	sparse.ResourceVersion = ""
	sparse.Spec.RestartPolicy, sparse.Spec.Containers[0].ImagePullPolicy = "", ""
	upd, err := clientsetFor(t, srv).CoreV1().Pods("default").Update(t.Context(), sparse, metav1.UpdateOptions{})
	if err != nil || upd.Spec.RestartPolicy != corev1.RestartPolicyAlways || upd.Spec.Containers[0].ImagePullPolicy != corev1.PullAlways {
		t.Errorf("Update(sparse pod) restartPolicy %q, %v; want the defaults applied", upd.Spec.RestartPolicy, err)
	}
}
