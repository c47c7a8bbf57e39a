package fakeapiserver

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	"k8s.io/utils/ptr"
)

// TestCRDUpdateTakesEffect updates a CRD: a new served version that becomes
// the storage version (recorded in storedVersions), and a tighter schema;
// later requests see both, and old objects read through the new version.
func TestCRDUpdateTakesEffect(t *testing.T) {
	t.Parallel()
	srv := Start(t)
	crd := installCRD(t, srv, testWidgetCRD())
	ctx := context.Background()
	dc := dynamic.NewForConfigOrDie(srv.RESTConfig())
	v1 := dc.Resource(widgetGVR).Namespace("default")
	if _, err := v1.Create(ctx, widget("old"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	v2GVR := widgetGVR.GroupResource().WithVersion("v2")
	if _, err := dc.Resource(v2GVR).Namespace("default").List(ctx, metav1.ListOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("list v2 before it exists = %v, want 404", err)
	}

	v2 := *crd.Spec.Versions[0].DeepCopy()
	v2.Name = "v2"
	crd.Spec.Versions[0].Storage = false
	v2.Schema.OpenAPIV3Schema.Properties["spec"].Properties["size"] = apiextensionsv1.JSONSchemaProps{Type: "integer", Maximum: ptr.To(5.0)}
	crd.Spec.Versions = append(crd.Spec.Versions, v2)
	crds := apiextensionsclient.NewForConfigOrDie(srv.RESTConfig()).ApiextensionsV1().CustomResourceDefinitions()
	updated, err := crds.Update(ctx, crd, metav1.UpdateOptions{})
	if err != nil {
		t.Fatalf("update CRD: %v", err)
	}
	if updated.Generation != 2 {
		t.Errorf("generation after a spec change = %d, want 2", updated.Generation)
	}
	if diff := cmp.Diff([]string{"v1", "v2"}, updated.Status.StoredVersions); diff != "" {
		t.Errorf("storedVersions (-want +got):\n%s", diff)
	}

	w2 := dc.Resource(v2GVR).Namespace("default")
	old, err := w2.Get(ctx, "old", metav1.GetOptions{})
	if err != nil || old.GetAPIVersion() != "example.com/v2" {
		t.Fatalf("get old through v2 = %v, %v; want apiVersion example.com/v2", old, err)
	}
	big := widget("big")
	big.SetAPIVersion("example.com/v2")
	big.Object["spec"] = map[string]any{"size": int64(7)}
	_, err = w2.Create(ctx, big, metav1.CreateOptions{})
	if want := `Widget.example.com "big" is invalid: spec.size: Invalid value: 7: spec.size in body should be less than or equal to 5`; err == nil || err.Error() != want {
		t.Errorf("create through v2 with the new schema = %v, want %q", err, want)
	}
	big.Object["spec"] = map[string]any{"size": int64(4)}
	created, err := w2.Create(ctx, big, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create through v2: %v", err)
	}
	if created.GetAPIVersion() != "example.com/v2" {
		t.Errorf("created through v2 answers apiVersion %q", created.GetAPIVersion())
	}
	viaV1, err := v1.Get(ctx, "big", metav1.GetOptions{})
	if err != nil || viaV1.GetAPIVersion() != "example.com/v1" {
		t.Errorf("get through v1 = %v, %v; want apiVersion example.com/v1", viaV1, err)
	}
}

// TestCustomResourceListWatchSemantics: custom resources get the store's
// LIST and WATCH semantics: an exact read of a compacted RV is 410, a
// watch from it ends with an ERROR 410, and a WatchList (sendInitialEvents)
// sends the objects then the initial-events-end BOOKMARK.
func TestCustomResourceListWatchSemantics(t *testing.T) {
	t.Parallel()
	srv := Start(t)
	installCRD(t, srv, testWidgetCRD())
	ctx := context.Background()
	dyn := dynamic.NewForConfigOrDie(srv.RESTConfig()).Resource(widgetGVR).Namespace("default")
	first, err := dyn.Create(ctx, widget("a"), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := dyn.Create(ctx, widget("b"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	list, err := dyn.List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	current, err := parseResourceVersion(list.GetResourceVersion())
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Compact(current); err != nil {
		t.Fatal(err)
	}
	_, err = dyn.List(ctx, metav1.ListOptions{ResourceVersion: first.GetResourceVersion(), ResourceVersionMatch: metav1.ResourceVersionMatchExact})
	if !apierrors.IsResourceExpired(err) {
		t.Errorf("exact list at a compacted RV = %v, want 410", err)
	}
	w, err := dyn.Watch(ctx, metav1.ListOptions{ResourceVersion: first.GetResourceVersion()})
	if err != nil {
		t.Fatal(err)
	}
	ev, ok := <-w.ResultChan()
	if st, isStatus := ev.Object.(*metav1.Status); !ok || ev.Type != watch.Error || !isStatus || st.Code != 410 {
		t.Errorf("watch from a compacted RV: first event %v %v, want ERROR 410", ev.Type, ev.Object)
	}
	w.Stop()

	wl, err := dyn.Watch(ctx, metav1.ListOptions{SendInitialEvents: ptr.To(true), ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan, AllowWatchBookmarks: true})
	if err != nil {
		t.Fatal(err)
	}
	defer wl.Stop()
	var got []string
	for ev := range wl.ResultChan() {
		u := ev.Object.(*unstructured.Unstructured)
		got = append(got, string(ev.Type)+" "+u.GetName()+" "+u.GetAnnotations()[metav1.InitialEventsAnnotationKey])
		if ev.Type == watch.Bookmark {
			break
		}
	}
	if diff := cmp.Diff([]string{"ADDED a ", "ADDED b ", "BOOKMARK  true"}, got); diff != "" {
		t.Errorf("watch-list events (-want +got):\n%s", diff)
	}
}
