package fakeapiserver

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/tools/cache"
)

// widget is a Widget named name in namespace default.
func widget(name string) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "example.com/v1", "kind": "Widget",
		"metadata": map[string]any{"name": name, "namespace": "default"},
		"spec":     map[string]any{"color": "red"},
	}}
}

// TestCustomResourceInformerAndCRDDeletion runs client-go's dynamic
// informer on a custom resource: it syncs, sees ADDED, MODIFIED and DELETED,
// and when the CRD is deleted a DELETED for every remaining object; a plain
// watch gets the same DELETEDs and then ends, the CRD goes through the
// finalizer's status writes, and its resource is gone from discovery.
func TestCustomResourceInformerAndCRDDeletion(t *testing.T) {
	t.Parallel()
	srv := Start(t)
	installCRD(t, srv, testWidgetCRD())
	ctx := context.Background()
	dc := dynamic.NewForConfigOrDie(srv.RESTConfig())
	widgets := dc.Resource(widgetGVR).Namespace("default")
	for _, n := range []string{"a", "b", "c"} {
		if _, err := widgets.Create(ctx, widget(n), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}

	events := make(chan string, 100)
	factory := dynamicinformer.NewFilteredDynamicSharedInformerFactory(dc, 0, "default", nil)
	inf := factory.ForResource(widgetGVR).Informer()
	name := func(obj any) string {
		if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
			obj = d.Obj
		}
		return obj.(*unstructured.Unstructured).GetName()
	}
	if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { events <- "ADDED " + name(obj) },
		UpdateFunc: func(_, obj any) { events <- "MODIFIED " + name(obj) },
		DeleteFunc: func(obj any) { events <- "DELETED " + name(obj) },
	}); err != nil {
		t.Fatal(err)
	}
	infCtx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() { inf.RunWithContext(infCtx) })
	defer func() { cancel(); wg.Wait() }()
	if !cache.WaitForCacheSync(infCtx.Done(), inf.HasSynced) {
		t.Fatal("informer never synced")
	}
	// The initial list's ADDED events come in the informer's own order.
	expectEventSet(t, events, "ADDED a", "ADDED b", "ADDED c")

	cur, err := widgets.Get(ctx, "a", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cur.SetLabels(map[string]string{"x": "y"})
	if _, err := widgets.Update(ctx, cur, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := widgets.Delete(ctx, "b", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	expectEvents(t, events, "MODIFIED a", "DELETED b")

	list, err := widgets.List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w, err := widgets.Watch(ctx, metav1.ListOptions{ResourceVersion: list.GetResourceVersion()})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	crds := apiextensionsclient.NewForConfigOrDie(srv.RESTConfig()).ApiextensionsV1().CustomResourceDefinitions()
	crdList, err := crds.List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	crdWatch, err := crds.Watch(ctx, metav1.ListOptions{ResourceVersion: crdList.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	defer crdWatch.Stop()

	deleted, err := crds.Get(ctx, "widgets.example.com", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := crds.Delete(ctx, "widgets.example.com", metav1.DeleteOptions{}); err != nil {
		t.Fatalf("delete CRD: %v", err)
	}
	expectEventSet(t, events, "DELETED a", "DELETED c")

	// The plain watch sees both DELETEDs, then the server ends it.
	var got []string
	for ev := range w.ResultChan() {
		got = append(got, fmt.Sprintf("%s %s", ev.Type, name(ev.Object)))
	}
	if diff := cmp.Diff([]string{"DELETED a", "DELETED c"}, got); diff != "" {
		t.Errorf("watch events until the end (-want +got):\n%s", diff)
	}

	// The CRD's own events: the mark, the finalizer's progress, the delete.
	want := []string{
		"MODIFIED [customresourcecleanup.apiextensions.k8s.io] Terminating=True InstanceDeletionPending",
		"MODIFIED [customresourcecleanup.apiextensions.k8s.io] Terminating=True InstanceDeletionInProgress",
		"DELETED [customresourcecleanup.apiextensions.k8s.io] Terminating=True InstanceDeletionInProgress",
	}
	got = nil
	for len(got) < len(want) {
		select {
		case ev := <-crdWatch.ResultChan():
			crd := ev.Object.(*apiextensionsv1.CustomResourceDefinition)
			last := crd.Status.Conditions[len(crd.Status.Conditions)-1]
			got = append(got, fmt.Sprintf("%s %v %s=%s %s", ev.Type, crd.Finalizers, last.Type, last.Status, last.Reason))
		case <-hangGuard(t):
			t.Fatalf("CRD watch: got %v, want %v", got, want)
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("CRD events (-want +got):\n%s", diff)
	}

	if _, err := crds.Get(ctx, deleted.Name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("get CRD after delete = %v, want 404", err)
	}
	if _, err := widgets.Get(ctx, "a", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("get widget after CRD delete = %v, want 404", err)
	}
	disc := discovery.NewDiscoveryClientForConfigOrDie(srv.RESTConfig())
	if _, err := disc.ServerResourcesForGroupVersion("example.com/v1"); !apierrors.IsNotFound(err) {
		t.Errorf("discovery of example.com/v1 after CRD delete = %v, want 404", err)
	}

	// The same CRD can be created again, empty.
	installCRD(t, srv, testWidgetCRD())
	if l, err := widgets.List(ctx, metav1.ListOptions{}); err != nil || len(l.Items) != 0 {
		t.Errorf("list after re-creating the CRD = %v, %v; want empty", l, err)
	}
}

// expectEvents reads len(want) events and compares them.
func expectEvents(t *testing.T, events <-chan string, want ...string) {
	t.Helper()
	var got []string
	for len(got) < len(want) {
		select {
		case ev := <-events:
			got = append(got, ev)
		case <-hangGuard(t):
			t.Fatalf("events: got %v, want %v", got, want)
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}

// expectEventSet is expectEvents for events whose order is not defined.
func expectEventSet(t *testing.T, events <-chan string, want ...string) {
	t.Helper()
	var got []string
	for len(got) < len(want) {
		select {
		case ev := <-events:
			got = append(got, ev)
		case <-hangGuard(t):
			t.Fatalf("events: got %v, want %v", got, want)
		}
	}
	if diff := cmp.Diff(want, got, cmpopts.SortSlices(func(a, b string) bool { return a < b })); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}

// TestCRDDeletionWaitsForFinalizers: a custom resource with a finalizer
// keeps its deleted CRD Terminating; removing the finalizer deletes the
// object and then the CRD.
func TestCRDDeletionWaitsForFinalizers(t *testing.T) {
	t.Parallel()
	srv := Start(t)
	installCRD(t, srv, testWidgetCRD())
	ctx := context.Background()
	widgets := dynamic.NewForConfigOrDie(srv.RESTConfig()).Resource(widgetGVR).Namespace("default")
	w := widget("f")
	w.SetFinalizers([]string{"example.com/keep"})
	if _, err := widgets.Create(ctx, w, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	crds := apiextensionsclient.NewForConfigOrDie(srv.RESTConfig()).ApiextensionsV1().CustomResourceDefinitions()
	if err := crds.Delete(ctx, "widgets.example.com", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	crd, err := crds.Get(ctx, "widgets.example.com", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("CRD with a finalizing object: %v, want it Terminating", err)
	}
	if c := crd.Status.Conditions[len(crd.Status.Conditions)-1]; c.Type != apiextensionsv1.Terminating || c.Reason != "InstanceDeletionInProgress" {
		t.Errorf("last condition %v, want Terminating InstanceDeletionInProgress", c)
	}
	f, err := widgets.Get(ctx, "f", metav1.GetOptions{})
	if err != nil || f.GetDeletionTimestamp() == nil {
		t.Fatalf("object f = %v, %v; want it marked for deletion", f, err)
	}
	if _, err := widgets.Patch(ctx, "f", types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`), metav1.PatchOptions{}); err != nil {
		t.Fatalf("remove finalizer: %v", err)
	}
	if _, err := crds.Get(ctx, "widgets.example.com", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("CRD after its last object went = %v, want 404", err)
	}
}
