package crfake_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/lw-sim/lw-sim/fakeclientset"
	"github.com/lw-sim/lw-sim/fakeclientset/crfake"
)

// Every testing.TB is a crfake.TB (so is Ginkgo's GinkgoT()).
var _ crfake.TB = testing.TB(nil)

func newPod(ns, name string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{"app": name}},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "busybox"}}},
	}
}

func newDeployment(ns, name string, replicas int32) *appsv1.Deployment {
	labels := map[string]string{"app": name}
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To(replicas),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "busybox"}}},
			},
		},
	}
}

// TestCRUD: every verb is the real request: a create gets the server's
// uid and defaults, list, get, the three patch types and an update move
// the resourceVersion, delete removes.
func TestCRUD(t *testing.T) {
	ctx := context.Background()
	c := crfake.NewClientBuilder(t).WithObjects(&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "ns"}}).Build()

	pod := newPod("ns", "a")
	if err := c.Create(ctx, pod); err != nil {
		t.Fatalf("Create: %v", err)
	}
	if pod.UID == "" || pod.Spec.RestartPolicy != corev1.RestartPolicyAlways {
		t.Errorf("created pod uid %q restartPolicy %q, want the server's uid and default", pod.UID, pod.Spec.RestartPolicy)
	}
	var list corev1.PodList
	if err := c.List(ctx, &list, client.InNamespace("ns"), client.MatchingLabels{"app": "a"}); err != nil || len(list.Items) != 1 {
		t.Fatalf("List = %d items, %v; want 1", len(list.Items), err)
	}

	rv := pod.ResourceVersion
	patched := pod.DeepCopy()
	patched.Labels["merge"] = "yes"
	if err := c.Patch(ctx, patched, client.MergeFrom(pod)); err != nil {
		t.Fatalf("merge Patch: %v", err)
	}
	before := patched.DeepCopy()
	patched.Labels["strategic"] = "yes"
	if err := c.Patch(ctx, patched, client.StrategicMergeFrom(before)); err != nil {
		t.Fatalf("strategic Patch: %v", err)
	}
	ac := corev1ac.Pod("a", "ns").WithLabels(map[string]string{"applied": "yes"})
	if err := c.Apply(ctx, ac, client.FieldOwner("test"), client.ForceOwnership); err != nil {
		t.Fatalf("Apply: %v", err)
	}
	var got corev1.Pod
	if err := c.Get(ctx, client.ObjectKeyFromObject(pod), &got); err != nil {
		t.Fatalf("Get: %v", err)
	}
	want := map[string]string{"app": "a", "merge": "yes", "strategic": "yes", "applied": "yes"}
	if diff := cmp.Diff(want, got.Labels); diff != "" {
		t.Errorf("labels after the patches (-want +got):\n%s", diff)
	}
	if got.ResourceVersion == rv {
		t.Errorf("resourceVersion %s did not move", rv)
	}

	got.Annotations = map[string]string{"updated": "yes"}
	if err := c.Update(ctx, &got); err != nil {
		t.Fatalf("Update: %v", err)
	}
	if err := c.Delete(ctx, &got, client.GracePeriodSeconds(0)); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	if err := c.Get(ctx, client.ObjectKeyFromObject(pod), &got); !apierrors.IsNotFound(err) {
		t.Errorf("Get after Delete = %v, want NotFound", err)
	}
}

// TestConflict: an update with a stale resourceVersion is the server's
// 409, as controller-runtime's fake also answers.
func TestConflict(t *testing.T) {
	ctx := context.Background()
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "c"}}
	c := crfake.NewClientBuilder(t).WithObjects(cm).Build()
	var a, b corev1.ConfigMap
	if err := c.Get(ctx, client.ObjectKeyFromObject(cm), &a); err != nil {
		t.Fatal(err)
	}
	a.DeepCopyInto(&b)
	a.Data = map[string]string{"k": "a"}
	if err := c.Update(ctx, &a); err != nil {
		t.Fatalf("first Update: %v", err)
	}
	b.Data = map[string]string{"k": "b"}
	err := c.Update(ctx, &b)
	if !apierrors.IsConflict(err) {
		t.Fatalf("stale Update = %v, want Conflict", err)
	}
	const msg = `Operation cannot be fulfilled on configmaps "c": the object has been modified; please apply your changes to the latest version and try again`
	if err.Error() != msg {
		t.Errorf("conflict message:\n%s\nwant\n%s", err, msg)
	}
	base := b.DeepCopy()
	b.Labels = map[string]string{"patched": "yes"}
	if err := c.Patch(ctx, &b, client.MergeFromWithOptions(base, client.MergeFromWithOptimisticLock{})); !apierrors.IsConflict(err) {
		t.Errorf("optimistic-lock Patch with a stale resourceVersion = %v, want Conflict", err)
	}
}

// TestSeed: objects seed in namespaces that do not exist yet (they are
// created first), keep their status, and a Namespace given among them is
// created before the objects in it whatever the order.
func TestSeed(t *testing.T) {
	ctx := context.Background()
	pod := newPod("missing", "p")
	pod.Status = corev1.PodStatus{Phase: corev1.PodRunning}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "later", Labels: map[string]string{"given": "yes"}}}
	c := crfake.NewClientBuilder(t).
		WithObjects(pod).
		WithLists(&corev1.ConfigMapList{Items: []corev1.ConfigMap{{ObjectMeta: metav1.ObjectMeta{Namespace: "later", Name: "c"}}}}).
		WithRuntimeObjects(ns).
		Build()
	var got corev1.Pod
	if err := c.Get(ctx, client.ObjectKeyFromObject(pod), &got); err != nil {
		t.Fatalf("Get seeded pod: %v", err)
	}
	if got.Status.Phase != corev1.PodRunning {
		t.Errorf("seeded pod phase %q, want Running (status kept)", got.Status.Phase)
	}
	var gotNS corev1.Namespace
	if err := c.Get(ctx, client.ObjectKey{Name: "later"}, &gotNS); err != nil || gotNS.Labels["given"] != "yes" {
		t.Errorf("namespace later = %v, %v; want the given one", gotNS.Labels, err)
	}
	var cm corev1.ConfigMap
	if err := c.Get(ctx, client.ObjectKey{Namespace: "later", Name: "c"}, &cm); err != nil {
		t.Errorf("Get config map of the list: %v", err)
	}
	// A create in a namespace that does not exist is the server's 404.
	if err := c.Create(ctx, newPod("nowhere", "x")); !apierrors.IsNotFound(err) {
		t.Errorf("Create in a missing namespace = %v, want NotFound", err)
	}
}

// TestSeedInvalid: an object the server refuses fails Build with the
// server's error.
func TestSeedInvalid(t *testing.T) {
	ft := &fatalRecorder{T: t}
	func() {
		defer func() { _ = recover() }()
		crfake.NewClientBuilder(ft).WithObjects(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "p"}}).Build()
	}()
	const want = `crfake: fakeclientset: seed Pod ns/p: Pod "p" is invalid: spec.containers: Required value`
	if ft.fatal != want {
		t.Errorf("Build failed with\n%q\nwant\n%q", ft.fatal, want)
	}
}

// fatalRecorder records Fatalf and stops the builder by panicking.
type fatalRecorder struct {
	*testing.T
	fatal string
}

func (f *fatalRecorder) Fatalf(format string, args ...any) {
	f.fatal = sprintf(format, args...)
	panic("fatal")
}

// TestStatusSubresource: a built-in kind has its status subresource
// without WithStatusSubresource: Update leaves status, Status().Update
// leaves the spec.
func TestStatusSubresource(t *testing.T) {
	ctx := context.Background()
	c := crfake.NewClientBuilder(t).WithObjects(newDeployment("ns", "d", 1)).Build()
	var d appsv1.Deployment
	if err := c.Get(ctx, client.ObjectKey{Namespace: "ns", Name: "d"}, &d); err != nil {
		t.Fatal(err)
	}
	d.Spec.Replicas = ptr.To[int32](3)
	d.Status.Replicas = 7
	if err := c.Update(ctx, &d); err != nil {
		t.Fatalf("Update: %v", err)
	}
	if d.Status.Replicas != 0 || *d.Spec.Replicas != 3 {
		t.Errorf("after Update: spec.replicas %d status.replicas %d, want 3 and 0 (status not written)", *d.Spec.Replicas, d.Status.Replicas)
	}
	if d.Generation != 2 {
		t.Errorf("generation %d after a spec change, want 2", d.Generation)
	}
	d.Spec.Replicas = ptr.To[int32](5)
	d.Status.Replicas = 3
	if err := c.Status().Update(ctx, &d); err != nil {
		t.Fatalf("Status().Update: %v", err)
	}
	if d.Status.Replicas != 3 || *d.Spec.Replicas != 3 {
		t.Errorf("after Status().Update: spec.replicas %d status.replicas %d, want 3 and 3 (spec not written)", *d.Spec.Replicas, d.Status.Replicas)
	}
	patch := client.MergeFrom(d.DeepCopy())
	d.Status.ObservedGeneration = d.Generation
	if err := c.Status().Patch(ctx, &d, patch); err != nil || d.Status.ObservedGeneration != 2 {
		t.Errorf("Status().Patch = %v, observedGeneration %d; want 2", err, d.Status.ObservedGeneration)
	}
}

// TestWatch: a watch from a list's resourceVersion sees the writes after
// it, in order, with the server's events.
func TestWatch(t *testing.T) {
	ctx := context.Background()
	c := crfake.NewClientBuilder(t).WithObjects(&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "ns"}}).Build()
	var list corev1.ConfigMapList
	if err := c.List(ctx, &list, client.InNamespace("ns")); err != nil {
		t.Fatal(err)
	}
	w, err := c.Watch(ctx, &corev1.ConfigMapList{}, client.InNamespace("ns"), &client.ListOptions{Raw: &metav1.ListOptions{ResourceVersion: list.ResourceVersion}})
	if err != nil {
		t.Fatalf("Watch: %v", err)
	}
	defer w.Stop()
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "c"}}
	if err := c.Create(ctx, cm); err != nil {
		t.Fatal(err)
	}
	cm.Data = map[string]string{"k": "v"}
	if err := c.Update(ctx, cm); err != nil {
		t.Fatal(err)
	}
	if err := c.Delete(ctx, cm); err != nil {
		t.Fatal(err)
	}
	var got []watch.EventType
	for ev := range w.ResultChan() {
		got = append(got, ev.Type)
		if len(got) == 3 {
			break
		}
	}
	if diff := cmp.Diff([]watch.EventType{watch.Added, watch.Modified, watch.Deleted}, got); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}

// TestInterceptor: WithInterceptorFuncs runs the funcs instead of the
// calls, and the client they get reaches the server.
func TestInterceptor(t *testing.T) {
	ctx := context.Background()
	var creates atomic.Int32
	c := crfake.NewClientBuilder(t).
		WithObjects(&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "ns"}}).
		WithInterceptorFuncs(interceptor.Funcs{
			Create: func(ctx context.Context, cl client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
				creates.Add(1)
				return cl.Create(ctx, obj, opts...)
			},
			Delete: func(context.Context, client.WithWatch, client.Object, ...client.DeleteOption) error {
				return apierrors.NewForbidden(corev1.Resource("configmaps"), "c", nil)
			},
		}).Build()
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "c"}}
	if err := c.Create(ctx, cm); err != nil || cm.UID == "" {
		t.Fatalf("Create = %v (uid %q), want the server's object", err, cm.UID)
	}
	if creates.Load() != 1 {
		t.Errorf("interceptor saw %d creates, want 1", creates.Load())
	}
	if err := c.Delete(ctx, cm); !apierrors.IsForbidden(err) {
		t.Errorf("Delete = %v, want the interceptor's Forbidden", err)
	}
	if srv := crfake.ServerOf(c); srv == nil {
		t.Error("ServerOf(the intercepted client) = nil")
	}
}

// TestIndex: a field selector on an indexed field is answered by the
// index, as by a manager's cache; AddIndex adds one after Build, through
// the interceptor; a field with no index is the server's: its own field
// selectors work, any other is its 400.
func TestIndex(t *testing.T) {
	ctx := context.Background()
	byReplicas := func(o client.Object) []string {
		return []string{sprintf("%d", *o.(*appsv1.Deployment).Spec.Replicas)}
	}
	c := crfake.NewClientBuilder(t).
		WithObjects(newDeployment("ns", "one", 1), newDeployment("ns", "two", 2), newDeployment("other", "two", 2)).
		WithIndex(&appsv1.Deployment{}, "spec.replicas", byReplicas).
		WithInterceptorFuncs(interceptor.Funcs{}).
		Build()
	var list appsv1.DeploymentList
	if err := c.List(ctx, &list, client.MatchingFields{"spec.replicas": "2"}); err != nil {
		t.Fatalf("List by index: %v", err)
	}
	if got := names(list.Items); !cmp.Equal(got, []string{"other/two", "ns/two"}) && !cmp.Equal(got, []string{"ns/two", "other/two"}) {
		t.Errorf("List by index = %v, want ns/two and other/two", got)
	}
	if err := c.List(ctx, &list, client.InNamespace("ns"), client.MatchingFields{"spec.replicas": "2", "metadata.name": "two"}); err != nil || len(list.Items) != 1 {
		t.Errorf("List by index and server field = %v, %v; want ns/two", names(list.Items), err)
	}
	if err := crfake.AddIndex(c, &appsv1.Deployment{}, "spec.paused", func(client.Object) []string { return []string{"false"} }); err != nil {
		t.Fatalf("AddIndex: %v", err)
	}
	if err := crfake.AddIndex(c, &appsv1.Deployment{}, "spec.paused", byReplicas); err == nil {
		t.Error("AddIndex of an indexed field succeeded, want an error")
	}
	if err := c.List(ctx, &list, client.MatchingFields{"spec.paused": "false"}); err != nil || len(list.Items) != 3 {
		t.Errorf("List by the added index = %v, %v; want all three", names(list.Items), err)
	}
	err := c.List(ctx, &list, client.MatchingFields{"spec.template.spec.schedulerName": "x"})
	if !apierrors.IsBadRequest(err) {
		t.Errorf("List by a field with no index and no server selector = %v, want the server's BadRequest", err)
	}
}

func names(deps []appsv1.Deployment) []string {
	out := make([]string, 0, len(deps))
	for _, d := range deps {
		out = append(out, d.Namespace+"/"+d.Name)
	}
	return out
}

// TestCustomKind: a kind registered in the scheme and nowhere else gets a
// CRD: seeded, listed, written; WithStatusSubresource gives it a status
// subresource, so Update leaves status.
func TestCustomKind(t *testing.T) {
	ctx := context.Background()
	w := &Widget{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "w"}, Spec: WidgetSpec{Size: 1}, Status: WidgetStatus{ObservedSize: 1}}
	c := crfake.NewClientBuilder(t).WithScheme(widgetScheme()).WithStatusSubresource(&Widget{}).WithObjects(w).Build()
	var got Widget
	if err := c.Get(ctx, client.ObjectKeyFromObject(w), &got); err != nil {
		t.Fatalf("Get: %v", err)
	}
	if got.Spec.Size != 1 || got.Status.ObservedSize != 1 || got.Generation != 1 {
		t.Errorf("seeded widget %+v %+v generation %d, want size 1, observed 1, generation 1", got.Spec, got.Status, got.Generation)
	}
	got.Spec.Size = 2
	got.Status.ObservedSize = 9
	if err := c.Update(ctx, &got); err != nil {
		t.Fatalf("Update: %v", err)
	}
	if got.Status.ObservedSize != 1 || got.Generation != 2 {
		t.Errorf("after Update: observed %d generation %d, want 1 (status not written) and 2", got.Status.ObservedSize, got.Generation)
	}
	got.Status.ObservedSize = 2
	if err := c.Status().Update(ctx, &got); err != nil || got.Status.ObservedSize != 2 {
		t.Errorf("Status().Update = %v, observed %d; want 2", err, got.Status.ObservedSize)
	}
	var list WidgetList
	if err := c.List(ctx, &list, client.InNamespace("ns")); err != nil || len(list.Items) != 1 {
		t.Errorf("List = %d, %v; want 1", len(list.Items), err)
	}
}

// TestSharedTracker: WithObjectTracker of a fakeclientset clientset's
// tracker puts the client on the clientset's server.
func TestSharedTracker(t *testing.T) {
	ctx := context.Background()
	cs := fakeclientset.NewClientset(t, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "c"}})
	c := crfake.NewClientBuilder(t).WithObjectTracker(cs.Tracker()).Build()
	var cm corev1.ConfigMap
	if err := c.Get(ctx, types.NamespacedName{Namespace: "ns", Name: "c"}, &cm); err != nil {
		t.Errorf("Get through the shared server: %v", err)
	}
	if crfake.ServerOf(c) != cs.Server() {
		t.Error("the client is not on the clientset's server")
	}
}

// TestManagedFields: returned objects have no managedFields unless
// WithReturnManagedFields, as with controller-runtime's fake; the server
// keeps them either way. (A create that sets no field but the name has
// none: the server drops an empty entry.)
func TestManagedFields(t *testing.T) {
	ctx := context.Background()
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "c"}, Data: map[string]string{"k": "v"}}
	for _, keep := range []bool{false, true} {
		b := crfake.NewClientBuilder(t).WithObjects(cm.DeepCopy())
		if keep {
			b = b.WithReturnManagedFields()
		}
		c := b.Build()
		var got corev1.ConfigMap
		if err := c.Get(ctx, client.ObjectKeyFromObject(cm), &got); err != nil {
			t.Fatal(err)
		}
		if has := len(got.ManagedFields) > 0; has != keep {
			t.Errorf("WithReturnManagedFields %v: Get has managedFields %v", keep, has)
		}
	}
}

// TestWithCRDs: a CRD given with WithCRDs is installed instead of a
// generated one: its scope (cluster) and its schema (size at most 10) are
// the server's rules for the kind.
func TestWithCRDs(t *testing.T) {
	ctx := context.Background()
	crd := &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "widgets.example.com"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "example.com",
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "widgets", Singular: "widget", Kind: "Widget", ListKind: "WidgetList"},
			Scope: apiextensionsv1.ClusterScoped,
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{
				Name: "v1", Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
					Type: "object",
					Properties: map[string]apiextensionsv1.JSONSchemaProps{
						"spec":   {Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{"size": {Type: "integer", Maximum: ptr.To(10.0)}}},
						"status": {Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{"observedSize": {Type: "integer"}}},
					},
				}},
			}},
		},
	}
	c := crfake.NewClientBuilder(t).WithScheme(widgetScheme()).WithCRDs(crd).
		WithObjects(&Widget{ObjectMeta: metav1.ObjectMeta{Name: "w"}, Spec: WidgetSpec{Size: 1}}).Build()
	var got Widget
	if err := c.Get(ctx, client.ObjectKey{Name: "w"}, &got); err != nil || got.Namespace != "" {
		t.Fatalf("Get cluster-scoped widget = namespace %q, %v", got.Namespace, err)
	}
	err := c.Create(ctx, &Widget{ObjectMeta: metav1.ObjectMeta{Name: "big"}, Spec: WidgetSpec{Size: 11}})
	if !apierrors.IsInvalid(err) {
		t.Errorf("Create of a widget the schema refuses = %v, want the server's 422", err)
	}
}

// TestCustomKindWithoutList: a kind whose list type the scheme lacks (as
// tests register only the type they need) still gets a CRD.
func TestCustomKindWithoutList(t *testing.T) {
	ctx := context.Background()
	s := runtime.NewScheme()
	s.AddKnownTypes(widgetGV, &Widget{})
	metav1.AddToGroupVersion(s, widgetGV)
	c := crfake.NewClientBuilder(t).WithScheme(s).WithObjects(&Widget{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "w"}}).Build()
	var got Widget
	if err := c.Get(ctx, client.ObjectKey{Namespace: "ns", Name: "w"}, &got); err != nil || got.UID == "" {
		t.Errorf("Get = uid %q, %v; want the seeded widget", got.UID, err)
	}
}
