package fakeapiserver

import (
	"context"
	"net/http"
	"sort"
	"strconv"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/metadata/metadatainformer"
	"k8s.io/client-go/tools/cache"
)

var (
	configMapsGVR = schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}
	widgetsGVR    = schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"}
)

// TestMetadataInformer runs client-go's metadata informers (the metadata
// client asks for PartialObjectMetadataList and PartialObjectMetadata,
// protobuf first) over a built-in resource and a custom resource, in both
// Reflector modes: each syncs, follows creates, updates and deletes, and
// ends holding exactly the metadata of the server's objects, as the typed
// and dynamic clients read them.
func TestMetadataInformer(t *testing.T) {
	for _, watchList := range []bool{true, false} {
		t.Run("WatchListClient="+strconv.FormatBool(watchList), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) { runMetadataInformers(t, watchList) })
		})
	}
}

func runMetadataInformers(t *testing.T, watchList bool) {
	b := startBubble(t)
	ctx := context.Background()
	if _, err := apiextensionsclient.NewForConfigOrDie(b.rest).ApiextensionsV1().CustomResourceDefinitions().Create(ctx, testWidgetCRD(), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	dyn := dynamic.NewForConfigOrDie(b.rest)
	b.mustCreate(t, configMap("default", "a", "1", nil))
	b.mustCreate(t, configMap("default", "b", "1", nil))
	mustCreateWidget(t, dyn, "w1")

	rl := &requestLog{n: map[string]int{}}
	cfg := *b.rest
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { rl.rt = rt; return rl })
	mc := metadata.NewForConfigOrDie(&cfg)
	cmInf, cmEvents := metadataInformer(t, mc, configMapsGVR, watchList)
	wInf, wEvents := metadataInformer(t, mc, widgetsGVR, watchList)
	runCtx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() { cmInf.RunWithContext(runCtx) })
	wg.Go(func() { wInf.RunWithContext(runCtx) })
	defer func() { cancel(); wg.Wait() }()
	if !cache.WaitForCacheSync(runCtx.Done(), cmInf.HasSynced, wInf.HasSynced) {
		t.Fatal("metadata informers never synced")
	}

	b.mustUpdateLabels(t, "a", map[string]string{"tier": "web"})
	b.mustCreate(t, configMap("default", "c", "1", nil))
	b.mustDelete(t, "default", "b")
	mustCreateWidget(t, dyn, "w2")
	if err := dyn.Resource(widgetsGVR).Namespace("default").Delete(ctx, "w1", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	synctest.Wait()

	checkInformerMetadata(t, cmInf, b.serverMetadata(t, dyn, configMapsGVR))
	checkInformerMetadata(t, wInf, b.serverMetadata(t, dyn, widgetsGVR))
	wantCM := []string{"ADDED a", "ADDED b", "MODIFIED a", "ADDED c", "DELETED b"}
	if diff := cmp.Diff(wantCM, cmEvents.get(2)); diff != "" {
		t.Errorf("configmap handler events (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"ADDED w1", "ADDED w2", "DELETED w1"}, wEvents.get(1)); diff != "" {
		t.Errorf("widget handler events (-want +got):\n%s", diff)
	}
	if got := cmInf.GetStore().List(); len(got) > 0 {
		if _, ok := got[0].(*metav1.PartialObjectMetadata); !ok {
			t.Errorf("informer holds %T, want *PartialObjectMetadata", got[0])
		}
	}
	wantMode := map[bool]string{true: "watch-list", false: "list"}[watchList]
	if rl.count(wantMode) == 0 || (!watchList && rl.count("watch-list") > 0) {
		t.Errorf("requests %v: want the %s mode", rl.n, wantMode)
	}
}

// metadataInformer is an informer of gvr in default over the metadata
// client: the metadatainformer package's own (watch-list when the
// Reflector uses it), or one whose lister-watcher hides watch-list so the
// Reflector LISTs and then watches. The handler records what it sees.
func metadataInformer(t *testing.T, mc metadata.Interface, gvr schema.GroupVersionResource, watchList bool) (cache.SharedIndexInformer, *eventLog) {
	t.Helper()
	var inf cache.SharedIndexInformer
	if watchList {
		inf = metadatainformer.NewFilteredMetadataInformer(mc, gvr, "default", 0, cache.Indexers{}, nil).Informer()
	} else {
		res := mc.Resource(gvr).Namespace("default")
		lw := &cache.ListWatch{
			ListWithContextFunc: func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
				return res.List(ctx, o)
			},
			WatchFuncWithContext: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
				return res.Watch(ctx, o)
			},
		}
		inf = cache.NewSharedIndexInformer(noWatchList{lw}, &metav1.PartialObjectMetadata{}, 0, cache.Indexers{})
	}
	log := &eventLog{}
	if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { log.add(t, "ADDED", obj) },
		UpdateFunc: func(_, obj any) { log.add(t, "MODIFIED", obj) },
		DeleteFunc: func(obj any) { log.add(t, "DELETED", obj) },
	}); err != nil {
		t.Fatal(err)
	}
	return inf, log
}

// eventLog records "<TYPE> <name>" of the objects an informer's handler
// gets, failing on any that is not a PartialObjectMetadata.
type eventLog struct {
	mu     sync.Mutex
	events []string
}

func (l *eventLog) add(t *testing.T, typ string, obj any) {
	if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = d.Obj
	}
	p, ok := obj.(*metav1.PartialObjectMetadata)
	if !ok {
		t.Errorf("handler got %T, want *PartialObjectMetadata", obj)
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.events = append(l.events, typ+" "+p.Name)
}

// get returns the events so far, the first initial ones sorted: a
// watch-list's initial objects reach the handler in the order of the
// Reflector's temporary store, a map.
func (l *eventLog) get(initial int) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := append([]string(nil), l.events...)
	sort.Strings(out[:min(initial, len(out))])
	return out
}

// serverMetadata is the ObjectMeta of every object of gvr in default as
// the dynamic client reads it, by name.
func (b *bubble) serverMetadata(t *testing.T, dyn dynamic.Interface, gvr schema.GroupVersionResource) []metav1.ObjectMeta {
	t.Helper()
	list, err := dyn.Resource(gvr).Namespace("default").List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var out []metav1.ObjectMeta
	for i := range list.Items {
		out = append(out, objectMetaOf(&list.Items[i]))
	}
	return out
}

// objectMetaOf is an unstructured object's ObjectMeta, as the metadata
// forms carry it.
func objectMetaOf(u *unstructured.Unstructured) metav1.ObjectMeta {
	return meta.AsPartialObjectMetadata(u).ObjectMeta
}

// checkInformerMetadata compares an informer's store with want.
func checkInformerMetadata(t *testing.T, inf cache.SharedIndexInformer, want []metav1.ObjectMeta) {
	t.Helper()
	var got []metav1.ObjectMeta
	for _, o := range inf.GetStore().List() {
		got = append(got, o.(*metav1.PartialObjectMetadata).ObjectMeta)
	}
	byName := cmpopts.SortSlices(func(a, b metav1.ObjectMeta) bool { return a.Name < b.Name })
	if diff := cmp.Diff(want, got, byName, cmpEquateTimes); diff != "" {
		t.Errorf("informer metadata mismatch with the server (-server +informer):\n%s", diff)
	}
}

// cmpEquateTimes compares times to the second, the wire's resolution.
var cmpEquateTimes = cmp.Comparer(func(a, b metav1.Time) bool { return a.Unix() == b.Unix() })

// mustCreateWidget creates Widget name in default.
func mustCreateWidget(t *testing.T, dyn dynamic.Interface, name string) {
	t.Helper()
	w := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "example.com/v1", "kind": "Widget",
		"metadata": map[string]any{"name": name}, "spec": map[string]any{"size": int64(2)},
	}}
	if _, err := dyn.Resource(widgetsGVR).Namespace("default").Create(context.Background(), w, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create widget %s: %v", name, err)
	}
}

// mustUpdateLabels sets configmap name's labels.
func (b *bubble) mustUpdateLabels(t *testing.T, name string, labels map[string]string) {
	t.Helper()
	cm, err := b.cs.CoreV1().ConfigMaps("default").Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cm.Labels = labels
	b.mustUpdate(t, cm)
}
