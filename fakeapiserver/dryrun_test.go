package fakeapiserver

import (
	"strconv"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
)

// dryAll is the only dryRun value the API accepts.
var dryAll = []string{metav1.DryRunAll}

// TestDryRunWrites: every write verb with dryRun=All answers as the real
// write would, yet stores nothing, consumes no resourceVersion and sends no
// watch event.
func TestDryRunWrites(t *testing.T) {
	t.Parallel()
	srv := Start(t)
	cs := clientsetFor(t, srv)
	ctx := t.Context()
	cms := cs.CoreV1().ConfigMaps("default")
	base, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "a", Labels: map[string]string{"x": "y"}}, Data: map[string]string{"k": "v"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w, err := cms.Watch(ctx, metav1.ListOptions{ResourceVersion: base.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()

	created, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "b"}}, metav1.CreateOptions{DryRun: dryAll})
	if err != nil || created.ResourceVersion != "" || created.UID == "" || created.CreationTimestamp.IsZero() {
		t.Errorf("dry-run create = rv %q uid %q created %v, %v; want no rv, a uid and a creation time", created.ResourceVersion, created.UID, created.CreationTimestamp, err)
	}
	if _, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "a"}}, metav1.CreateOptions{DryRun: dryAll}); !apierrors.IsAlreadyExists(err) {
		t.Errorf("dry-run create of an existing name = %v, want AlreadyExists", err)
	}
	if _, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "Bad"}}, metav1.CreateOptions{DryRun: dryAll}); !apierrors.IsInvalid(err) {
		t.Errorf("dry-run create of an invalid name = %v, want Invalid", err)
	}
	upd := base.DeepCopy()
	upd.Data["k"] = "w"
	got, err := cms.Update(ctx, upd, metav1.UpdateOptions{DryRun: dryAll})
	if err != nil || got.Data["k"] != "w" || got.ResourceVersion != base.ResourceVersion {
		t.Errorf("dry-run update = data %v rv %s, %v; want the new data at rv %s", got.Data, got.ResourceVersion, err, base.ResourceVersion)
	}
	got, err = cms.Patch(ctx, "a", types.MergePatchType, []byte(`{"data":{"k":"p"}}`), metav1.PatchOptions{DryRun: dryAll})
	if err != nil || got.Data["k"] != "p" || got.ResourceVersion != base.ResourceVersion {
		t.Errorf("dry-run patch = data %v rv %s, %v; want the patched data at rv %s", got.Data, got.ResourceVersion, err, base.ResourceVersion)
	}
	if err := cms.Delete(ctx, "a", metav1.DeleteOptions{DryRun: dryAll}); err != nil {
		t.Errorf("dry-run delete = %v", err)
	}
	if err := cms.DeleteCollection(ctx, metav1.DeleteOptions{DryRun: dryAll}, metav1.ListOptions{}); err != nil {
		t.Errorf("dry-run deletecollection = %v", err)
	}

	cur, err := cms.Get(ctx, "a", metav1.GetOptions{})
	if err != nil || cur.ResourceVersion != base.ResourceVersion || cur.Data["k"] != "v" {
		t.Errorf("configmap after dry runs = %v, %v; want unchanged at rv %s", cur, err, base.ResourceVersion)
	}
	if _, err := cms.Get(ctx, "b", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("Get(b) after a dry-run create = %v, want NotFound", err)
	}
	// The next real write is the next event, at the next resourceVersion.
	if _, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "c"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	select {
	case ev := <-w.ResultChan():
		m := ev.Object.(*corev1.ConfigMap)
		if ev.Type != watch.Added || m.Name != "c" || m.ResourceVersion != next(t, base.ResourceVersion) {
			t.Errorf("first event after the dry runs = %s %s rv %s, want ADDED c at rv %s", ev.Type, m.Name, m.ResourceVersion, next(t, base.ResourceVersion))
		}
	case <-hangGuard(t):
		t.Fatal("no event for the real create")
	}
}

// next is the resourceVersion after rv.
func next(t *testing.T, rv string) string {
	t.Helper()
	n, err := parseResourceVersion(rv)
	if err != nil {
		t.Fatal(err)
	}
	return strconv.FormatInt(n+1, 10)
}

// TestDryRunPodDelete: a dry-run delete of a scheduled pod answers the pod
// marked for deletion at its current resourceVersion, and leaves it alone.
func TestDryRunPodDelete(t *testing.T) {
	t.Parallel()
	srv := Start(t)
	cs := clientsetFor(t, srv)
	ctx := t.Context()
	p := newTestPod("p", "nginx")
	p.Spec.NodeName = "node-1"
	pod, err := cs.CoreV1().Pods("default").Create(ctx, p, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var out corev1.Pod
	err = cs.CoreV1().RESTClient().Delete().Namespace("default").Resource("pods").Name("p").
		Body(&metav1.DeleteOptions{DryRun: dryAll}).Do(ctx).Into(&out)
	if err != nil || out.DeletionTimestamp == nil || out.DeletionGracePeriodSeconds == nil || *out.DeletionGracePeriodSeconds != 30 ||
		out.ResourceVersion != pod.ResourceVersion || out.Generation != pod.Generation+1 {
		t.Errorf("dry-run delete = deletionTimestamp %v grace %v rv %s generation %d, %v; want marked with grace 30 at rv %s, generation %d",
			out.DeletionTimestamp, out.DeletionGracePeriodSeconds, out.ResourceVersion, out.Generation, err, pod.ResourceVersion, pod.Generation+1)
	}
	cur, err := cs.CoreV1().Pods("default").Get(ctx, "p", metav1.GetOptions{})
	if err != nil || cur.DeletionTimestamp != nil || cur.ResourceVersion != pod.ResourceVersion {
		t.Errorf("pod after dry-run delete = %v, %v; want untouched", cur, err)
	}
}

// TestDryRunInvalidValue: a dryRun other than All is the options' 422.
func TestDryRunInvalidValue(t *testing.T) {
	t.Parallel()
	srv := Start(t)
	cs := clientsetFor(t, srv)
	_, err := cs.CoreV1().ConfigMaps("default").Create(t.Context(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "a"}}, metav1.CreateOptions{DryRun: []string{"Foo"}})
	wantInvalid(t, "dryRun=Foo", err, "CreateOptions", "", `CreateOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: ["Foo"]: supported values: "All"`,
		metav1.StatusCause{Type: "FieldValueNotSupported", Message: `Unsupported value: ["Foo"]: supported values: "All"`, Field: "dryRun"})
}

// TestDryRunSubresources: dry-run writes through /status, /scale and
// pods/binding answer as the write would and change nothing.
func TestDryRunSubresources(t *testing.T) {
	t.Parallel()
	srv := Start(t)
	cs := clientsetFor(t, srv)
	ctx := t.Context()
	pod, err := cs.CoreV1().Pods("default").Create(ctx, newTestPod("p", "nginx"), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	st := pod.DeepCopy()
	st.Status.Phase = corev1.PodRunning
	got, err := cs.CoreV1().Pods("default").UpdateStatus(ctx, st, metav1.UpdateOptions{DryRun: dryAll})
	if err != nil || got.Status.Phase != corev1.PodRunning || got.ResourceVersion != pod.ResourceVersion {
		t.Errorf("dry-run UpdateStatus = phase %s rv %s, %v; want Running at rv %s", got.Status.Phase, got.ResourceVersion, err, pod.ResourceVersion)
	}
	b := &corev1.Binding{ObjectMeta: metav1.ObjectMeta{Name: "p"}, Target: corev1.ObjectReference{Name: "node-1"}}
	if err := cs.CoreV1().Pods("default").Bind(ctx, b, metav1.CreateOptions{DryRun: dryAll}); err != nil {
		t.Errorf("dry-run Bind = %v", err)
	}
	if cur, err := cs.CoreV1().Pods("default").Get(ctx, "p", metav1.GetOptions{}); err != nil || cur.ResourceVersion != pod.ResourceVersion || cur.Spec.NodeName != "" {
		t.Errorf("pod after dry runs = rv %s node %q, %v; want untouched at rv %s", cur.ResourceVersion, cur.Spec.NodeName, err, pod.ResourceVersion)
	}

	d := mustCreateDeployment(t, ctx, cs, "web", 1)
	sc, err := cs.AppsV1().Deployments("default").GetScale(ctx, "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sc.Spec.Replicas = 4
	out, err := cs.AppsV1().Deployments("default").UpdateScale(ctx, "web", sc, metav1.UpdateOptions{DryRun: dryAll})
	if err != nil || out.Spec.Replicas != 4 || out.ResourceVersion != d.ResourceVersion {
		t.Errorf("dry-run UpdateScale = %d replicas at rv %s, %v; want 4 at rv %s", out.Spec.Replicas, out.ResourceVersion, err, d.ResourceVersion)
	}
	if cur, err := cs.AppsV1().Deployments("default").Get(ctx, "web", metav1.GetOptions{}); err != nil || *cur.Spec.Replicas != 1 || cur.ResourceVersion != d.ResourceVersion {
		t.Errorf("deployment after a dry-run scale = %d replicas rv %s, %v; want 1 at rv %s", *cur.Spec.Replicas, cur.ResourceVersion, err, d.ResourceVersion)
	}
}
