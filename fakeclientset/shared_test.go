package fakeclientset_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/cache"

	"github.com/lw-sim/lw-sim/fakeapiserver"
	"github.com/lw-sim/lw-sim/fakeclientset"
)

func fakeapiserverConfig() fakeapiserver.Config { return fakeapiserver.Config{} }

var configMapsGVR = corev1.SchemeGroupVersion.WithResource("configmaps")

// TestOneServerManyClients: a typed clientset, a dynamic client, a
// metadata client and a clientset built from RESTConfig share one server.
func TestOneServerManyClients(t *testing.T) {
	ctx := context.Background()
	srv := fakeclientset.NewServer(t, fakeapiserverConfig())
	typed := srv.NewClientset(t, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "typed"}})
	dyn := srv.NewSimpleDynamicClient(t, scheme.Scheme, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "dynamic"}})
	md := srv.NewSimpleMetadataClient(t, runtime.NewScheme(), &metav1.PartialObjectMetadata{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"}, ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "metadata"}})
	real, err := kubernetes.NewForConfig(srv.RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"dynamic", "metadata", "typed"}

	tl, err := typed.CoreV1().ConfigMaps("ns").List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatalf("typed List: %v", err)
	}
	dl, err := dyn.Resource(configMapsGVR).Namespace("ns").List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatalf("dynamic List: %v", err)
	}
	ml, err := md.Resource(configMapsGVR).Namespace("ns").List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatalf("metadata List: %v", err)
	}
	rl, err := real.CoreV1().ConfigMaps("ns").List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatalf("real List: %v", err)
	}
	got := map[string][]string{}
	for _, i := range tl.Items {
		got["typed"] = append(got["typed"], i.Name)
	}
	for _, i := range dl.Items {
		got["dynamic"] = append(got["dynamic"], i.GetName())
	}
	for _, i := range ml.Items {
		got["metadata"] = append(got["metadata"], i.Name)
	}
	for _, i := range rl.Items {
		got["real"] = append(got["real"], i.Name)
	}
	wantAll := map[string][]string{"typed": want, "dynamic": want, "metadata": want, "real": want}
	if diff := cmp.Diff(wantAll, got); diff != "" {
		t.Errorf("configmaps each client lists (-want +got):\n%s", diff)
	}
	if tl.ResourceVersion != rl.ResourceVersion || dl.GetResourceVersion() != rl.ResourceVersion {
		t.Errorf("list resourceVersions typed %s, dynamic %s, real %s; want one store's", tl.ResourceVersion, dl.GetResourceVersion(), rl.ResourceVersion)
	}
}

// TestDynamicClient: writes and reads through the fake dynamic client are
// the server's, with actions recorded, and a dynamic informer syncs with
// WatchList.
func TestDynamicClient(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	dyn := fakeclientset.NewSimpleDynamicClient(t, runtime.NewScheme())
	cm := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": "c", "namespace": "default"}, "data": map[string]any{"k": "v"}}}
	created, err := dyn.Resource(configMapsGVR).Namespace("default").Create(ctx, cm, metav1.CreateOptions{})
	if err != nil || created.GetUID() == "" {
		t.Fatalf("Create = %v, %v; want the server's object", created, err)
	}
	if _, err := dyn.Resource(configMapsGVR).Namespace("nope").Create(ctx, cm, metav1.CreateOptions{}); err == nil {
		t.Error("Create in a missing namespace succeeded, want the server's 400 (namespace mismatch) or 404")
	}
	factory := dynamicinformer.NewDynamicSharedInformerFactory(dyn, 0)
	inf := factory.ForResource(configMapsGVR).Informer()
	defer factory.Shutdown()
	defer cancel()
	factory.Start(ctx.Done())
	if !cache.WaitForCacheSync(ctx.Done(), inf.HasSynced) {
		t.Fatal("dynamic informer did not sync")
	}
	if _, ok, _ := inf.GetStore().GetByKey("default/c"); !ok {
		t.Error("dynamic informer does not have default/c")
	}
	var verbs []string
	for _, a := range dyn.Actions() {
		verbs = append(verbs, a.GetVerb())
	}
	if diff := cmp.Diff([]string{"create", "create", "watch"}, verbs); diff != "" {
		t.Errorf("dynamic client actions (-want +got):\n%s", diff)
	}
}

// TestMetadataClientWatch: the metadata client's watch carries
// PartialObjectMetadata.
func TestMetadataClientWatch(t *testing.T) {
	ctx := context.Background()
	md := fakeclientset.NewSimpleMetadataClient(t, runtime.NewScheme())
	w, err := md.Resource(configMapsGVR).Namespace("default").Watch(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatalf("Watch: %v", err)
	}
	defer w.Stop()
	real, err := kubernetes.NewForConfig(md.Server().RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := real.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "m"}}, metav1.CreateOptions{}); err != nil {
		t.Fatalf("Create: %v", err)
	}
	ev := nextEvent(t, w)
	p, ok := ev.Object.(*metav1.PartialObjectMetadata)
	if !ok || p.Name != "m" || p.Kind != "ConfigMap" {
		t.Errorf("event object = %#v, want PartialObjectMetadata of ConfigMap m", ev.Object)
	}
}

// TestDiscoveryIsTheServers: Discovery answers with the server's
// resources and version.
func TestDiscoveryIsTheServers(t *testing.T) {
	cs := fakeclientset.NewClientset(t)
	list, err := cs.Discovery().ServerResourcesForGroupVersion("apps/v1")
	if err != nil {
		t.Fatalf("ServerResourcesForGroupVersion: %v", err)
	}
	found := false
	for _, r := range list.APIResources {
		found = found || r.Name == "deployments/scale"
	}
	if !found {
		t.Errorf("apps/v1 resources %v lack deployments/scale", list.APIResources)
	}
	v, err := cs.Discovery().ServerVersion()
	if err != nil || v.GitVersion != fakeapiserver.Version().GitVersion {
		t.Errorf("ServerVersion = %v, %v; want %s", v, err, fakeapiserver.Version().GitVersion)
	}
}
