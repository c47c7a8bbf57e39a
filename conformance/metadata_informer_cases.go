package conformance

import (
	"context"
	"net/http"
	"sort"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/metadata/metadatainformer"
	"k8s.io/client-go/tools/cache"
)

// metadataInformerCases are the cases of this file, in the order [Cases] runs them.
func metadataInformerCases() []Case {
	return []Case{
		{Name: "MetadataInformer", Run: runMetadataInformer},
		{Name: "MetadataCustomResource", Run: runMetadataCustomResource},
	}
}

// configMapsGVR is core/v1 configmaps.
var configMapsGVR = schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}

// runMetadataInformer: client-go's metadata informer (a watch-list of
// PartialObjectMetadata in protobuf, as client-go v0.37 asks by default)
// syncs and follows creates, updates and deletes until its store holds
// the metadata of the server's objects.
func runMetadataInformer(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	e.create(ctx, "a", nil)
	e.create(ctx, "b", nil)
	mc, err := metadata.NewForConfig(target.RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	inf := metadatainformer.NewFilteredMetadataInformer(mc, configMapsGVR, e.ns, 0, cache.Indexers{}, nil).Informer()
	seen := &seenNames{}
	if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { seen.add(t, "ADDED", obj) },
		UpdateFunc: func(_, obj any) { seen.add(t, "MODIFIED", obj) },
		DeleteFunc: func(obj any) { seen.add(t, "DELETED", obj) },
	}); err != nil {
		t.Fatal(err)
	}
	runCtx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() { inf.RunWithContext(runCtx) })
	defer func() { cancel(); wg.Wait() }()
	if !cache.WaitForCacheSync(runCtx.Done(), inf.HasSynced) {
		t.Fatal("metadata informer never synced")
	}
	e.update(ctx, "a", "2", map[string]string{"tier": "web"})
	e.create(ctx, "c", nil)
	e.del(ctx, "b")
	want := objectMetas(t, e.list(ctx).Items)
	var got []metav1.ObjectMeta
	waitOn(ctx, nil, false, eventTimeout, func() bool {
		got = got[:0]
		for _, o := range inf.GetStore().List() {
			got = append(got, o.(*metav1.PartialObjectMetadata).ObjectMeta)
		}
		sort.Slice(got, func(i, j int) bool { return got[i].Name < got[j].Name })
		return cmp.Equal(want, got)
	})
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("informer store (-server +informer):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"ADDED a", "ADDED b", "MODIFIED a", "ADDED c", "DELETED b"}, seen.get(2)); diff != "" {
		t.Errorf("handler events (-want +got):\n%s", diff)
	}
}

// seenNames records "<TYPE> <name>" of what a metadata informer's handler
// gets; anything but a PartialObjectMetadata fails the case.
type seenNames struct {
	mu     sync.Mutex
	events []string
}

func (s *seenNames) add(t *testing.T, typ string, obj any) {
	if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = d.Obj
	}
	p, ok := obj.(*metav1.PartialObjectMetadata)
	if !ok {
		t.Errorf("handler got %T, want *PartialObjectMetadata", obj)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.events = append(s.events, typ+" "+p.Name)
}

// get returns the events so far, the first initial ones sorted: a
// watch-list's initial objects reach the handler in the order of the
// Reflector's temporary store, a map.
func (s *seenNames) get(initial int) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := append([]string(nil), s.events...)
	sort.Strings(out[:min(initial, len(out))])
	return out
}

// runMetadataCustomResource: custom resources have the metadata forms
// too, protobuf included although their objects have none: the LIST, the
// metadata client's protobuf answers and a watch; a GET as
// PartialObjectMetadataList is the real 500 (an unstructured object passes
// the list check and fails to iterate) and a LIST as PartialObjectMetadata
// the 406 naming the unstructured list.
func runMetadataCustomResource(ctx context.Context, t *testing.T, target Target) {
	ce := setupCRD(ctx, t, target)
	ce.createWidget(ctx, "a", object{"size": 2})
	ce.createWidget(ctx, "b", object{"size": 3})
	var full list
	r := ce.c.do(ctx, t, request{Path: ce.widgets()})
	r.mustCode(t, http.StatusOK, "list widgets")
	r.decode(t, &full)
	var partial list
	r = ce.c.do(ctx, t, request{Path: ce.widgets(), Accept: metaAccept("PartialObjectMetadataList", "v1")})
	r.mustCode(t, http.StatusOK, "list widgets as PartialObjectMetadataList")
	r.decode(t, &partial)
	checkPartialList(t, "widgets", partial, "v1", full.Items)

	mc, err := metadata.NewForConfig(target.RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	gvr := schema.GroupVersionResource{Group: ce.group, Version: "v1", Resource: "widgets"}
	l, err := mc.Resource(gvr).Namespace(ce.ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatalf("metadata List of widgets: %v", err)
	}
	var got []metav1.ObjectMeta
	for _, item := range l.Items {
		got = append(got, item.ObjectMeta)
	}
	if diff := cmp.Diff(objectMetas(t, full.Items), got); diff != "" {
		t.Errorf("metadata List of widgets (-JSON +metadata client):\n%s", diff)
	}
	r = ce.c.do(ctx, t, request{Path: ce.widgets(), Accept: metadataClientListAccept})
	if ct := r.Header.Get("Content-Type"); r.Code != http.StatusOK || ct != "application/vnd.kubernetes.protobuf" {
		t.Errorf("list widgets with the metadata client's Accept: %d, Content-Type %q; want 200 protobuf", r.Code, ct)
	}

	w := ce.c.watch(ctx, t, request{Path: ce.widgets(), Accept: metaAccept("PartialObjectMetadata", "v1"), Query: q("resourceVersion", partial.Metadata.ResourceVersion)})
	created := ce.createWidget(ctx, "c", object{"size": 4})
	if ev := w.mustNext(ctx, "widget event as PartialObjectMetadata"); ev.Type != "ADDED" || !cmp.Equal(partialOf(created, "v1"), ev.Object) {
		t.Errorf("widget event %s %v, want ADDED %v", ev.Type, ev.Object, partialOf(created, "v1"))
	}

	r = ce.c.do(ctx, t, request{Path: ce.widgets() + "/a", Accept: metaAccept("PartialObjectMetadataList", "v1")})
	checkStatus(t, "GET a widget as PartialObjectMetadataList", r, statusShape{Status: metav1.StatusFailure, Code: http.StatusInternalServerError, Message: "content is not a list"})
	r = ce.c.do(ctx, t, request{Path: ce.widgets(), Accept: metaAccept("PartialObjectMetadata", "v1")})
	checkStatus(t, "LIST widgets as PartialObjectMetadata", r, wantStatus(http.StatusNotAcceptable, metav1.StatusReasonNotAcceptable,
		"you requested PartialObjectMetadata, but the requested object is a list (*unstructured.UnstructuredList)", nil))
}
