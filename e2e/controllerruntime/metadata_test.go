package controllerruntime

import (
	"context"
	"net/http"
	"sync"
	"testing"

	"github.com/go-logr/logr/testr"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/lw-sim/lw-sim/fakeapiserver"
	"github.com/lw-sim/lw-sim/internal/testdeadline"
)

// metadataReconciler records the labels of the PartialObjectMetadata it
// reads from the manager's metadata cache, by object name.
type metadataReconciler struct {
	cache client.Reader
	kind  metav1.TypeMeta

	mu     sync.Mutex
	labels map[string]map[string]string // nil entry: the object is gone
}

// Reconcile implements reconcile.Reconciler.
func (r *metadataReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	m := &metav1.PartialObjectMetadata{TypeMeta: r.kind}
	err := r.cache.Get(ctx, req.NamespacedName, m)
	if err != nil && !apierrors.IsNotFound(err) {
		return ctrl.Result{}, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if err != nil {
		r.labels[req.Name] = nil
	} else {
		r.labels[req.Name] = m.Labels
	}
	return ctrl.Result{}, nil
}

// seen returns the labels last read for name and whether name was read.
func (r *metadataReconciler) seen(name string) (map[string]string, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	l, ok := r.labels[name]
	return l, ok
}

// TestManagerOnlyMetadata runs controllers built with builder.OnlyMetadata
// (controller-runtime's metadata informers and cache, which ask for
// PartialObjectMetadataList and PartialObjectMetadata watches in protobuf)
// over ConfigMaps and a custom resource: each reconciles on create, label
// change and delete, reading the object's metadata from the cache.
func TestManagerOnlyMetadata(t *testing.T) {
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

	cfg := srv.RESTConfig()
	lists := &listCounter{}
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { lists.rt = rt; return lists })
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme: scheme, Logger: testr.New(t),
		Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0",
		Controller: config.Controller{SkipNameValidation: ptr.To(true)},
	})
	if err != nil {
		t.Fatalf("NewManager: %v", err)
	}
	cms := &metadataReconciler{cache: mgr.GetCache(), kind: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"}, labels: map[string]map[string]string{}}
	if err := ctrl.NewControllerManagedBy(mgr).Named("configmap-metadata").
		For(&corev1.ConfigMap{}, builder.OnlyMetadata).Complete(cms); err != nil {
		t.Fatalf("build configmap controller: %v", err)
	}
	widgets := &metadataReconciler{cache: mgr.GetCache(), kind: metav1.TypeMeta{APIVersion: widgetGVK.GroupVersion().String(), Kind: widgetGVK.Kind}, labels: map[string]map[string]string{}}
	if err := ctrl.NewControllerManagedBy(mgr).Named("widget-metadata").
		For(newWidget(), builder.OnlyMetadata).Complete(widgets); err != nil {
		t.Fatalf("build widget controller: %v", err)
	}
	mgrCtx, stopMgr := context.WithCancel(ctx)
	mgrDone := make(chan error, 1)
	go func() { mgrDone <- mgr.Start(mgrCtx) }()
	defer func() {
		stopMgr()
		if err := <-mgrDone; err != nil {
			t.Errorf("manager: %v", err)
		}
	}()
	if !mgr.GetCache().WaitForCacheSync(ctx) {
		t.Fatal("manager cache did not sync")
	}
	synced := lists.count()

	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "a", Labels: map[string]string{"v": "1"}}}
	if err := direct.Create(ctx, cm); err != nil {
		t.Fatal(err)
	}
	waitLabels(ctx, t, cms, "a", "1")
	cm.Labels["v"] = "2"
	if err := direct.Update(ctx, cm); err != nil {
		t.Fatal(err)
	}
	waitLabels(ctx, t, cms, "a", "2")
	if err := direct.Delete(ctx, cm); err != nil {
		t.Fatal(err)
	}
	waitLabels(ctx, t, cms, "a", "")

	w := newWidgetKey(client.ObjectKey{Namespace: "default", Name: "w"})
	w.SetLabels(map[string]string{"v": "1"})
	if err := unstructured.SetNestedField(w.Object, int64(1), "spec", "size"); err != nil {
		t.Fatal(err)
	}
	if err := direct.Create(ctx, w); err != nil {
		t.Fatal(err)
	}
	waitLabels(ctx, t, widgets, "w", "1")
	if err := direct.Delete(ctx, w); err != nil {
		t.Fatal(err)
	}
	waitLabels(ctx, t, widgets, "w", "")
	// Each change came as a watch event: an informer whose watch failed
	// to decode (the objects sent in place of their metadata) would have
	// caught up by listing again.
	if n := lists.count() - synced; n != 0 {
		t.Errorf("the informers listed %d more times after they synced, want 0: their watches failed", n)
	}
}

// listCounter counts the LIST requests (GETs of a collection that are
// not watches) a client makes.
type listCounter struct {
	rt http.RoundTripper
	mu sync.Mutex
	n  int
}

func (c *listCounter) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Method == http.MethodGet && r.URL.Query().Get("watch") != "true" && r.URL.Query().Has("limit") {
		c.mu.Lock()
		c.n++
		c.mu.Unlock()
	}
	return c.rt.RoundTrip(r)
}

func (c *listCounter) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n
}

// waitLabels waits until r has read name with label v (v "" : gone).
func waitLabels(ctx context.Context, t *testing.T, r *metadataReconciler, name, v string) {
	t.Helper()
	poll(ctx, t, name+" reconciled with label v="+v, func(context.Context) (bool, error) {
		l, ok := r.seen(name)
		if v == "" {
			return ok && l == nil, nil
		}
		return ok && l["v"] == v, nil
	})
}
