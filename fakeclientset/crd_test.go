package fakeclientset_test

import (
	"context"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	"github.com/lw-sim/lw-sim/fakeclientset"
)

var widgetsGVR = schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"}

// widgetCRD is a namespaced CRD whose objects keep any field.
func widgetCRD() *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": map[string]any{"name": "widgets.example.com"},
		"spec": map[string]any{
			"group": "example.com", "scope": "Namespaced",
			"names": map[string]any{"plural": "widgets", "singular": "widget", "kind": "Widget", "listKind": "WidgetList"},
			"versions": []any{map[string]any{"name": "v1", "served": true, "storage": true,
				"schema": map[string]any{"openAPIV3Schema": map[string]any{"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}},
		},
	}}
}

// TestCRDThroughRESTConfig: a client built from the server's RESTConfig
// (as a generated clientset of a CRD or controller-runtime would be)
// creates a CRD; the fake dynamic client on the same server then creates
// and lists its objects.
func TestCRDThroughRESTConfig(t *testing.T) {
	ctx := context.Background()
	srv := fakeclientset.NewServer(t, fakeapiserverConfig())
	real, err := dynamic.NewForConfig(srv.RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	crdGVR := schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}
	if _, err := real.Resource(crdGVR).Create(ctx, widgetCRD(), metav1.CreateOptions{}); err != nil {
		t.Fatalf("create CRD: %v", err)
	}
	dyn := srv.NewSimpleDynamicClientWithCustomListKinds(t, runtime.NewScheme(), map[schema.GroupVersionResource]string{widgetsGVR: "WidgetList"})
	w := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "example.com/v1", "kind": "Widget",
		"metadata": map[string]any{"name": "w1", "namespace": "default"}, "spec": map[string]any{"size": int64(3)}}}
	if _, err := dyn.Resource(widgetsGVR).Namespace("default").Create(ctx, w, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create widget: %v", err)
	}
	list, err := dyn.Resource(widgetsGVR).Namespace("default").List(ctx, metav1.ListOptions{})
	if err != nil || len(list.Items) != 1 || list.Items[0].GetUID() == "" {
		t.Errorf("List(widgets) = %v, %v; want the server's w1", list, err)
	}
}
