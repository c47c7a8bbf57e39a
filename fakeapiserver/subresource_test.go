package fakeapiserver

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
)

// TestScaleSubresource: GET, PUT and PATCH of deployments/scale read and
// write spec.replicas with the Deployment's resourceVersion semantics, and
// a scale is a MODIFIED event of the Deployment.
func TestScaleSubresource(t *testing.T) {
	t.Parallel()
	srv := Start(t)
	cs := clientsetFor(t, srv)
	ctx := t.Context()
	deps := cs.AppsV1().Deployments("default")
	d := mustCreateDeployment(t, ctx, cs, "web", 2)

	sc, err := deps.GetScale(ctx, "web", metav1.GetOptions{})
	want := &autoscalingv1.Scale{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default", UID: d.UID, ResourceVersion: d.ResourceVersion, CreationTimestamp: d.CreationTimestamp},
		Spec:       autoscalingv1.ScaleSpec{Replicas: 2},
		Status:     autoscalingv1.ScaleStatus{Selector: "app=web"},
	}
	if err != nil {
		t.Fatalf("GetScale = %v", err)
	}
	if diff := cmp.Diff(want, sc); diff != "" {
		t.Errorf("GetScale mismatch (-want +got):\n%s", diff)
	}

	w, err := deps.Watch(ctx, metav1.ListOptions{ResourceVersion: d.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	sc.Spec.Replicas = 5
	up, err := deps.UpdateScale(ctx, "web", sc, metav1.UpdateOptions{})
	if err != nil || up.Spec.Replicas != 5 || up.ResourceVersion == d.ResourceVersion {
		t.Fatalf("UpdateScale(5) = %v, %v; want 5 replicas at a new rv", up, err)
	}
	select {
	case ev := <-w.ResultChan():
		got := ev.Object.(*appsv1.Deployment)
		if ev.Type != watch.Modified || *got.Spec.Replicas != 5 || got.ResourceVersion != up.ResourceVersion || got.Generation != d.Generation+1 {
			t.Errorf("event = %s replicas %d rv %s generation %d, want MODIFIED 5 at rv %s, generation %d", ev.Type, *got.Spec.Replicas, got.ResourceVersion, got.Generation, up.ResourceVersion, d.Generation+1)
		}
	case <-hangGuard(t):
		t.Fatal("no event for the scale")
	}

	// The stale scale (old resourceVersion) conflicts like the Deployment.
	_, err = deps.UpdateScale(ctx, "web", sc, metav1.UpdateOptions{})
	if !apierrors.IsConflict(err) || err.Error() != `Operation cannot be fulfilled on deployments.apps "web": the object has been modified; please apply your changes to the latest version and try again` {
		t.Errorf("UpdateScale(stale rv) = %v, want the Deployment's 409", err)
	}
	var patched autoscalingv1.Scale
	err = cs.AppsV1().RESTClient().Patch(types.MergePatchType).Namespace("default").Resource("deployments").Name("web").SubResource("scale").
		Body([]byte(`{"spec":{"replicas":7}}`)).Do(ctx).Into(&patched)
	if err != nil || patched.Spec.Replicas != 7 || patched.Status.Selector != "app=web" {
		t.Errorf("PATCH scale {replicas: 7} = %+v, %v; want a Scale of 7", patched, err)
	}
	neg := up.DeepCopy()
	neg.ResourceVersion, neg.Spec.Replicas = "", -1
	_, err = deps.UpdateScale(ctx, "web", neg, metav1.UpdateOptions{})
	wantInvalid(t, "scale to -1", err, "Scale", "web", `Scale.autoscaling "web" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0`,
		metav1.StatusCause{Type: "FieldValueInvalid", Message: "Invalid value: -1: must be greater than or equal to 0", Field: "spec.replicas"})
	if _, err := deps.GetScale(ctx, "nope", metav1.GetOptions{}); !apierrors.IsNotFound(err) || err.Error() != `deployments.apps "nope" not found` {
		t.Errorf("GetScale(missing) = %v, want deployments.apps NotFound", err)
	}

	rs := &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Name: "rs"}, Spec: appsv1.ReplicaSetSpec{
		Selector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "app", Operator: metav1.LabelSelectorOpIn, Values: []string{"a", "b"}}}},
		Template: testTemplate(map[string]string{"app": "a"})}}
	if _, err := cs.AppsV1().ReplicaSets("default").Create(ctx, rs, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if sc, err := cs.AppsV1().ReplicaSets("default").GetScale(ctx, "rs", metav1.GetOptions{}); err != nil || sc.Spec.Replicas != 1 || sc.Status.Selector != "app in (a,b)" {
		t.Errorf("ReplicaSet GetScale = %v, %v; want 1 replica (the default) and selector app in (a,b)", sc, err)
	}
}

// TestEviction: an Eviction deletes the pod as DELETE does (graceful for a
// scheduled pod) after marking it DisruptionTarget, and answers 201 with a
// Success Status; a dry run changes nothing.
func TestEviction(t *testing.T) {
	t.Parallel()
	srv := Start(t)
	cs := clientsetFor(t, srv)
	ctx := t.Context()
	p := newTestPod("p", "nginx")
	p.Spec.NodeName = "node-1"
	if _, err := cs.CoreV1().Pods("default").Create(ctx, p, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	ev := &policyv1.Eviction{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "default"}}
	if err := cs.PolicyV1().Evictions("default").Evict(ctx, &policyv1.Eviction{ObjectMeta: ev.ObjectMeta, DeleteOptions: &metav1.DeleteOptions{DryRun: dryAll}}); err != nil {
		t.Fatalf("dry-run Evict = %v", err)
	}
	if cur, _ := cs.CoreV1().Pods("default").Get(ctx, "p", metav1.GetOptions{}); cur.DeletionTimestamp != nil || len(cur.Status.Conditions) != 0 {
		t.Errorf("pod after a dry-run eviction = deletionTimestamp %v conditions %v, want untouched", cur.DeletionTimestamp, cur.Status.Conditions)
	}
	res := cs.PolicyV1().RESTClient().Post().AbsPath("/api/v1/namespaces/default/pods/p/eviction").Body(ev).Do(ctx)
	var code int
	res.StatusCode(&code)
	raw, err := res.Raw()
	if err != nil || code != 201 || string(raw) != `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Success","code":201}`+"\n" && string(raw) != `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Success","code":201}` {
		t.Errorf("POST eviction = %d %s, %v; want 201 with a Success Status", code, raw, err)
	}
	cur, err := cs.CoreV1().Pods("default").Get(ctx, "p", metav1.GetOptions{})
	if err != nil || cur.DeletionTimestamp == nil || len(cur.Status.Conditions) != 1 || cur.Status.Conditions[0].Type != corev1.DisruptionTarget ||
		cur.Status.Conditions[0].Reason != "EvictionByEvictionAPI" {
		t.Errorf("pod after eviction = deletionTimestamp %v conditions %v, %v; want marked for deletion with DisruptionTarget", cur.DeletionTimestamp, cur.Status.Conditions, err)
	}
	err = cs.PolicyV1().Evictions("default").Evict(ctx, &policyv1.Eviction{ObjectMeta: metav1.ObjectMeta{Name: "nope", Namespace: "default"}})
	if !apierrors.IsNotFound(err) || err.Error() != `pods "nope" not found` {
		t.Errorf("Evict(missing pod) = %v, want pods NotFound", err)
	}
}

// TestBinding: a Binding sets spec.nodeName and PodScheduled; binding a
// bound pod is the registry's 409.
func TestBinding(t *testing.T) {
	t.Parallel()
	srv := Start(t)
	cs := clientsetFor(t, srv)
	ctx := t.Context()
	pod, err := cs.CoreV1().Pods("default").Create(ctx, newTestPod("p", "nginx"), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b := &corev1.Binding{ObjectMeta: metav1.ObjectMeta{Name: "p", Annotations: map[string]string{"a": "b"}}, Target: corev1.ObjectReference{Kind: "Node", Name: "node-1"}}
	if err := cs.CoreV1().Pods("default").Bind(ctx, b, metav1.CreateOptions{}); err != nil {
		t.Fatalf("Bind = %v", err)
	}
	got, err := cs.CoreV1().Pods("default").Get(ctx, "p", metav1.GetOptions{})
	if err != nil || got.Spec.NodeName != "node-1" || got.Annotations["a"] != "b" || got.Generation != pod.Generation ||
		len(got.Status.Conditions) != 1 || got.Status.Conditions[0].Type != corev1.PodScheduled || got.Status.Conditions[0].Status != corev1.ConditionTrue {
		t.Errorf("pod after Bind = node %q annotations %v generation %d conditions %v, %v", got.Spec.NodeName, got.Annotations, got.Generation, got.Status.Conditions, err)
	}
	err = cs.CoreV1().Pods("default").Bind(ctx, b, metav1.CreateOptions{})
	if !apierrors.IsConflict(err) || err.Error() != `Operation cannot be fulfilled on pods/binding "p": pod p is already assigned to node "node-1"` {
		t.Errorf("Bind(bound pod) = %v, want the 409", err)
	}
}

// TestSubresourceDiscovery: the subresources appear in discovery as the
// real server lists them.
func TestSubresourceDiscovery(t *testing.T) {
	t.Parallel()
	srv := Start(t)
	cs := clientsetFor(t, srv)
	find := func(gv, name string) *metav1.APIResource {
		list, err := cs.Discovery().ServerResourcesForGroupVersion(gv)
		if err != nil {
			t.Fatalf("discovery %s: %v", gv, err)
		}
		for i := range list.APIResources {
			if list.APIResources[i].Name == name {
				return &list.APIResources[i]
			}
		}
		return nil
	}
	for _, tc := range []struct {
		gv   string
		want metav1.APIResource
	}{
		{"apps/v1", metav1.APIResource{Name: "deployments/scale", Namespaced: true, Group: "autoscaling", Version: "v1", Kind: "Scale", Verbs: metav1.Verbs{"get", "patch", "update"}}},
		{"apps/v1", metav1.APIResource{Name: "statefulsets/scale", Namespaced: true, Group: "autoscaling", Version: "v1", Kind: "Scale", Verbs: metav1.Verbs{"get", "patch", "update"}}},
		{"v1", metav1.APIResource{Name: "pods/eviction", Namespaced: true, Group: "policy", Version: "v1", Kind: "Eviction", Verbs: metav1.Verbs{"create"}}},
		{"v1", metav1.APIResource{Name: "pods/binding", Namespaced: true, Kind: "Binding", Verbs: metav1.Verbs{"create"}}},
	} {
		got := find(tc.gv, tc.want.Name)
		if got == nil {
			t.Errorf("%s: %s not listed", tc.gv, tc.want.Name)
			continue
		}
		if diff := cmp.Diff(tc.want, *got); diff != "" {
			t.Errorf("%s %s mismatch (-want +got):\n%s", tc.gv, tc.want.Name, diff)
		}
	}
}
