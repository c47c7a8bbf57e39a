package controllerruntime

import (
	"context"
	"fmt"
	"testing"

	"github.com/go-logr/logr/testr"
	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/lw-sim/lw-sim/fakeapiserver"
	"github.com/lw-sim/lw-sim/internal/testdeadline"
)

// widgetGVK is the kind served by widgetCRD.
var widgetGVK = schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"}

// fieldOwner is the field manager of the reconciler's applies.
const fieldOwner = "widget-controller"

// widgetCRD is a namespaced CRD with spec.size, status.observedSize and the
// status subresource.
func widgetCRD() *apiextensionsv1.CustomResourceDefinition {
	integer := apiextensionsv1.JSONSchemaProps{Type: "integer"}
	return &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "widgets.example.com"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "example.com",
			Scope: apiextensionsv1.NamespaceScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{
				Plural: "widgets", Singular: "widget", Kind: "Widget", ListKind: "WidgetList",
			},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{
				Name: "v1", Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
					Type: "object",
					Properties: map[string]apiextensionsv1.JSONSchemaProps{
						"spec":   {Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{"size": integer}},
						"status": {Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{"observedSize": integer}},
					},
				}},
				Subresources: &apiextensionsv1.CustomResourceSubresources{Status: &apiextensionsv1.CustomResourceSubresourceStatus{}},
			}},
		},
	}
}

// newWidget returns an empty Widget carrying its kind, as the unstructured
// client needs it.
func newWidget() *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(widgetGVK)
	return u
}

// widgetReconciler applies a ConfigMap "<widget>-size" holding spec.size,
// owned by the Widget, records spec.size as status.observedSize through
// the status subresource, and applies the label sizeLabel with the size to
// the Widget itself (client.Apply of a custom resource).
type widgetReconciler struct {
	client.Client
	// api reads from the API server, bypassing the informer cache.
	api client.Reader
}

// Reconcile implements reconcile.Reconciler. A Widget that is gone needs no
// work. A conflict on the status update (stale cache) is returned so the
// request is retried with the newer object.
func (r *widgetReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	w := newWidget()
	if err := r.Get(ctx, req.NamespacedName, w); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	size, _, err := unstructured.NestedInt64(w.Object, "spec", "size")
	if err != nil {
		return ctrl.Result{}, fmt.Errorf("widget %s: spec.size: %w", req, err)
	}
	if err := r.Apply(ctx, client.ApplyConfigurationFromUnstructured(childConfigMap(w, size)),
		client.FieldOwner(fieldOwner), client.ForceOwnership); err != nil {
		return ctrl.Result{}, fmt.Errorf("apply configmap of widget %s: %w", req, err)
	}
	observed, found, err := unstructured.NestedInt64(w.Object, "status", "observedSize")
	if err != nil || !found || observed != size {
		if err := unstructured.SetNestedField(w.Object, size, "status", "observedSize"); err != nil {
			return ctrl.Result{}, fmt.Errorf("widget %s: set status.observedSize: %w", req, err)
		}
		// Before the apply below: the update carries the resourceVersion
		// read, which the apply would make stale.
		if err := r.Status().Update(ctx, w, client.FieldOwner(fieldOwner)); err != nil {
			return ctrl.Result{}, fmt.Errorf("update status of widget %s: %w", req, err)
		}
	}
	// Apply only when the API server's copy lacks the label. An apply
	// creates a missing object, and the cache may still hold a Widget just
	// deleted: a reconcile woken by the child ConfigMap, applying from that
	// stale copy, would bring the Widget back with only this label, and it
	// would live on. The one apply that sets the label finishes before any
	// reader can see it, so no later reconcile applies again.
	current := newWidget()
	if err := r.api.Get(ctx, req.NamespacedName, current); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if current.GetLabels()[sizeLabel] == fmt.Sprint(size) {
		return ctrl.Result{}, nil
	}
	if err := r.Apply(ctx, client.ApplyConfigurationFromUnstructured(widgetLabel(w, size)),
		client.FieldOwner(fieldOwner), client.ForceOwnership); err != nil {
		return ctrl.Result{}, fmt.Errorf("apply label of widget %s: %w", req, err)
	}
	return ctrl.Result{}, nil
}

// sizeLabel is the Widget label the reconciler applies.
const sizeLabel = "example.com/size"

// widgetLabel is the apply configuration of the one Widget field the
// reconciler owns: sizeLabel set to size.
func widgetLabel(w *unstructured.Unstructured, size int64) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": widgetGVK.GroupVersion().String(),
		"kind":       widgetGVK.Kind,
		"metadata": map[string]any{
			"name":      w.GetName(),
			"namespace": w.GetNamespace(),
			"labels":    map[string]any{sizeLabel: fmt.Sprint(size)},
		},
	}}
}

// childConfigMap is the apply configuration of w's ConfigMap: only the fields
// the reconciler owns, with a controller owner reference to w.
func childConfigMap(w *unstructured.Unstructured, size int64) *unstructured.Unstructured {
	cm := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1",
		"kind":       "ConfigMap",
		"metadata": map[string]any{
			"name":      w.GetName() + "-size",
			"namespace": w.GetNamespace(),
			"ownerReferences": []any{map[string]any{
				"apiVersion": widgetGVK.GroupVersion().String(), "kind": widgetGVK.Kind,
				"name": w.GetName(), "uid": string(w.GetUID()), "controller": true,
			}},
		},
		"data": map[string]any{"size": fmt.Sprint(size)},
	}}
	return cm
}

// TestManagerReconcilesWidget runs a controller-runtime manager against the
// fake: the CRD is installed through controller-runtime's client, the
// manager's informer cache watches Widgets (and the owned ConfigMaps), and
// the reconciler server-side applies a child ConfigMap and updates the
// Widget's status subresource. The test follows a Widget through create,
// a spec change and delete.
func TestManagerReconcilesWidget(t *testing.T) {
	srv := fakeapiserver.Start(t)
	ctx, cancel := testdeadline.Context(t)
	defer cancel()

	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	if err := apiextensionsv1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	direct, err := client.New(srv.RESTConfig(), client.Options{Scheme: scheme})
	if err != nil {
		t.Fatalf("client.New: %v", err)
	}
	installCRD(ctx, t, direct)

	mgr, err := ctrl.NewManager(srv.RESTConfig(), ctrl.Options{
		Scheme:                 scheme,
		Logger:                 testr.New(t),
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		LeaderElection:         false,
		// Every test run builds a controller of the same name in one
		// process (-count=N); name uniqueness is a process-wide registry.
		Controller: config.Controller{SkipNameValidation: ptr.To(true)},
		// By default the manager's client reads unstructured objects from
		// the API; the reconciler is to read Widgets from the informer
		// cache, as a typed controller would.
		Client: client.Options{Cache: &client.CacheOptions{Unstructured: true}},
	})
	if err != nil {
		t.Fatalf("NewManager: %v", err)
	}
	if err := ctrl.NewControllerManagedBy(mgr).
		For(newWidget()).
		Owns(&corev1.ConfigMap{}).
		Complete(&widgetReconciler{Client: mgr.GetClient(), api: mgr.GetAPIReader()}); err != nil {
		t.Fatalf("build controller: %v", err)
	}
	mgrCtx, stopMgr := context.WithCancel(ctx)
	mgrDone := make(chan error, 1)
	go func() { mgrDone <- mgr.Start(mgrCtx) }()
	stopped := false
	stop := func() {
		if stopped {
			return
		}
		stopped = true
		stopMgr()
		if err := <-mgrDone; err != nil {
			t.Errorf("manager: %v", err)
		}
	}
	defer stop()
	if !mgr.GetCache().WaitForCacheSync(ctx) {
		t.Fatal("manager cache did not sync")
	}

	w := newWidget()
	w.SetNamespace("default")
	w.SetName("w1")
	if err := unstructured.SetNestedField(w.Object, int64(3), "spec", "size"); err != nil {
		t.Fatal(err)
	}
	if err := direct.Create(ctx, w); err != nil {
		t.Fatalf("create widget: %v", err)
	}
	key := client.ObjectKeyFromObject(w)
	// The cache itself, not the manager's client: a read served by the
	// API would not prove that the informer on the CRD follows the Widget.
	cached := mgr.GetCache()
	waitObserved(ctx, t, cached, key, 3)
	checkChild(ctx, t, direct, w, 3)

	patch := []byte(`{"spec":{"size":7}}`)
	if err := direct.Patch(ctx, newWidgetKey(key), client.RawPatch(types.MergePatchType, patch)); err != nil {
		t.Fatalf("patch widget: %v", err)
	}
	waitObserved(ctx, t, cached, key, 7)
	checkChild(ctx, t, direct, w, 7)

	if err := direct.Delete(ctx, newWidgetKey(key)); err != nil {
		t.Fatalf("delete widget: %v", err)
	}
	poll(ctx, t, "widget gone from the cache", func(ctx context.Context) (bool, error) {
		err := cached.Get(ctx, key, newWidget())
		if apierrors.IsNotFound(err) {
			return true, nil
		}
		return false, err
	})
	stop()
}

// newWidgetKey returns an empty Widget named by key.
func newWidgetKey(key client.ObjectKey) *unstructured.Unstructured {
	w := newWidget()
	w.SetNamespace(key.Namespace)
	w.SetName(key.Name)
	return w
}

// installCRD creates widgetCRD through c and waits until it is Established.
func installCRD(ctx context.Context, t *testing.T, c client.Client) {
	t.Helper()
	if err := c.Create(ctx, widgetCRD()); err != nil {
		t.Fatalf("create CRD: %v", err)
	}
	poll(ctx, t, "CRD Established", func(ctx context.Context) (bool, error) {
		crd := &apiextensionsv1.CustomResourceDefinition{}
		if err := c.Get(ctx, client.ObjectKey{Name: "widgets.example.com"}, crd); err != nil {
			return false, err
		}
		for _, cond := range crd.Status.Conditions {
			if cond.Type == apiextensionsv1.Established && cond.Status == apiextensionsv1.ConditionTrue {
				return true, nil
			}
		}
		return false, nil
	})
}

// waitObserved polls the manager's cached client until the Widget's
// status.observedSize and sizeLabel are want and its spec.size agrees, and
// checks that managedFields record the status update and the apply.
func waitObserved(ctx context.Context, t *testing.T, cached client.Reader, key client.ObjectKey, want int64) {
	t.Helper()
	var last map[string]any
	poll(ctx, t, fmt.Sprintf("status.observedSize = %d in the cache", want), func(ctx context.Context) (bool, error) {
		w := newWidget()
		if err := cached.Get(ctx, key, w); err != nil {
			return false, err
		}
		last = w.Object
		size, _, _ := unstructured.NestedInt64(w.Object, "spec", "size")
		observed, found, _ := unstructured.NestedInt64(w.Object, "status", "observedSize")
		label := w.GetLabels()[sizeLabel]
		return found && observed == want && size == want && label == fmt.Sprint(want), nil
	}, func() string { return fmt.Sprintf("last cached widget: %v", last) })
	w := &unstructured.Unstructured{Object: last}
	if !hasManagedFields(w.GetManagedFields(), metav1.ManagedFieldsOperationUpdate, "status", `"f:observedSize"`) {
		t.Errorf("widget managedFields: want an Update of subresource status by %q owning status.observedSize, got %+v", fieldOwner, w.GetManagedFields())
	}
	if !hasManagedFields(w.GetManagedFields(), metav1.ManagedFieldsOperationApply, "", `"f:labels"`, `"f:`+sizeLabel+`"`) {
		t.Errorf("widget managedFields: want one Apply by %q owning the %s label, got %+v", fieldOwner, sizeLabel, w.GetManagedFields())
	}
}

// hasManagedFields reports whether entries hold exactly one entry of
// fieldOwner with the operation and subresource whose fieldsV1 mention
// every one of fields.
func hasManagedFields(entries []metav1.ManagedFieldsEntry, op metav1.ManagedFieldsOperationType, subresource string, fields ...string) bool {
	var match []metav1.ManagedFieldsEntry
	for _, e := range entries {
		if e.Manager == fieldOwner && e.Operation == op && e.Subresource == subresource {
			match = append(match, e)
		}
	}
	return len(match) == 1 && match[0].FieldsV1 != nil && containsAll(string(match[0].FieldsV1.Raw), fields...)
}

// checkChild reads w's ConfigMap from the API and checks its data, its
// controller owner reference and that managedFields name fieldOwner as the
// applier of data.size.
func checkChild(ctx context.Context, t *testing.T, c client.Client, w *unstructured.Unstructured, size int64) {
	t.Helper()
	cm := &corev1.ConfigMap{}
	// The child was applied before the status update the caller waited
	// for, so it is there already: no polling.
	if err := c.Get(ctx, client.ObjectKey{Namespace: w.GetNamespace(), Name: w.GetName() + "-size"}, cm); err != nil {
		t.Fatalf("get child configmap: %v", err)
	}
	if diff := cmp.Diff(map[string]string{"size": fmt.Sprint(size)}, cm.Data); diff != "" {
		t.Errorf("child configmap data (-want +got):\n%s", diff)
	}
	if owner := metav1.GetControllerOf(cm); owner == nil || owner.UID != w.GetUID() || owner.Kind != "Widget" {
		t.Errorf("child configmap controller = %+v, want Widget %s (uid %s)", owner, w.GetName(), w.GetUID())
	}
	if !hasManagedFields(cm.ManagedFields, metav1.ManagedFieldsOperationApply, "", `"f:data"`, `"f:size"`, `"f:ownerReferences"`) {
		t.Errorf("child configmap managedFields: want one Apply by %q owning data.size and ownerReferences, got %+v", fieldOwner, cm.ManagedFields)
	}
}
