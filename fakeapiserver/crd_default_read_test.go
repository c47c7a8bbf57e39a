package fakeapiserver

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/metadata"
)

// TestCustomResourceDefaultsOnRead: a default added to a CRD after an
// object was stored shows on every read of the object (GET, LIST, a new
// WATCH, through every served version), while the store keeps the object
// as written; the next write that changes nothing else stores the
// defaulted form (a new RV, the generation kept: the spec did not change
// as read), and the one after is a no-op. The metadata view is untouched.
func TestCustomResourceDefaultsOnRead(t *testing.T) {
	t.Parallel()
	srv := Start(t)
	crd := installCRD(t, srv, testWidgetCRD())
	ctx := context.Background()
	dc := dynamic.NewForConfigOrDie(srv.RESTConfig())
	v1 := dc.Resource(widgetGVR).Namespace("default")
	w := widget("w")
	delete(w.Object["spec"].(map[string]any), "color")
	stored, err := v1.Create(ctx, w, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	addColorDefault(t, srv, crd)

	got, err := v1.Get(ctx, "w", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	checkColor(t, "GET", got, stored.GetResourceVersion())
	list, err := v1.List(ctx, metav1.ListOptions{})
	if err != nil || len(list.Items) != 1 {
		t.Fatalf("LIST = %v, %v", list, err)
	}
	checkColor(t, "LIST", &list.Items[0], stored.GetResourceVersion())
	beta, err := dc.Resource(widgetGVR.GroupResource().WithVersion("v1beta1")).Namespace("default").Get(ctx, "w", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	checkColor(t, "GET v1beta1", beta, stored.GetResourceVersion())
	for _, opts := range []metav1.ListOptions{
		{ResourceVersion: "1"}, // replays the create
		{SendInitialEvents: ptrTrue(), ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan, AllowWatchBookmarks: true},
	} {
		w, err := v1.Watch(ctx, opts)
		if err != nil {
			t.Fatal(err)
		}
		ev := <-w.ResultChan()
		w.Stop()
		u, ok := ev.Object.(*unstructured.Unstructured)
		if ev.Type != watch.Added || !ok {
			t.Fatalf("WATCH %+v: first event %s %T", opts, ev.Type, ev.Object)
		}
		checkColor(t, "WATCH", u, stored.GetResourceVersion())
	}
	if raw := rawSpec(t, srv, "w"); raw["color"] != nil {
		t.Errorf("stored spec %v: a read wrote the default", raw)
	}
	partial, err := metadata.NewForConfigOrDie(srv.RESTConfig()).Resource(widgetGVR).Namespace("default").Get(ctx, "w", metav1.GetOptions{})
	if err != nil || partial.ResourceVersion != stored.GetResourceVersion() {
		t.Fatalf("metadata GET = %v, %v", partial, err)
	}

	patched, err := v1.Patch(ctx, "w", types.MergePatchType, []byte(`{}`), metav1.PatchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if patched.GetResourceVersion() == stored.GetResourceVersion() || patched.GetGeneration() != 1 {
		t.Errorf("first empty patch: rv %s (was %s), generation %d; want a new RV and generation 1", patched.GetResourceVersion(), stored.GetResourceVersion(), patched.GetGeneration())
	}
	if raw := rawSpec(t, srv, "w"); raw["color"] != "blue" {
		t.Errorf("stored spec after a write %v, want the default stored", raw)
	}
	again, err := v1.Patch(ctx, "w", types.MergePatchType, []byte(`{}`), metav1.PatchOptions{})
	if err != nil || again.GetResourceVersion() != patched.GetResourceVersion() {
		t.Errorf("second empty patch: rv %s, %v; want the no-op's %s", again.GetResourceVersion(), err, patched.GetResourceVersion())
	}
}

// addColorDefault updates the widget CRD: spec.color defaults to blue.
func addColorDefault(t *testing.T, srv *Server, crd *apiextensionsv1.CustomResourceDefinition) {
	t.Helper()
	spec := crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"]
	color := spec.Properties["color"]
	color.Default = &apiextensionsv1.JSON{Raw: []byte(`"blue"`)}
	spec.Properties["color"] = color
	crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"] = spec
	crds := apiextensionsclient.NewForConfigOrDie(srv.RESTConfig()).ApiextensionsV1().CustomResourceDefinitions()
	if _, err := crds.Update(context.Background(), crd, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("update CRD: %v", err)
	}
}

// checkColor fails unless u carries the new default, at rv.
func checkColor(t *testing.T, what string, u *unstructured.Unstructured, rv string) {
	t.Helper()
	color, _, _ := unstructured.NestedString(u.Object, "spec", "color")
	if diff := cmp.Diff([]string{"blue", rv}, []string{color, u.GetResourceVersion()}); diff != "" {
		t.Errorf("%s: spec.color and resourceVersion (-want +got):\n%s", what, diff)
	}
}

// rawSpec is widget name's spec as the store holds it.
func rawSpec(t *testing.T, srv *Server, name string) map[string]any {
	t.Helper()
	obj, err := srv.store.Get("widgets.example.com", "default/"+name, 0)
	if err != nil {
		t.Fatal(err)
	}
	spec, _, _ := unstructured.NestedMap(obj.(*unstructured.Unstructured).Object, "spec")
	return spec
}

func ptrTrue() *bool { b := true; return &b }
