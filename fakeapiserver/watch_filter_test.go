package fakeapiserver

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/lw-sim/lw-sim/internal/testdeadline"
)

// TestUnfilteredWatchDoesNotDecode: a watch without selectors sends a
// stored object's cached encoding without decoding the object (visible
// and eventWriter.cachedBytes), where it decoded every event it sent, only
// to send the encoding it already had. The server keeps no decoded object
// past its write (decodeEveryRead), so each event is cold, and the
// store's codecs count what they decode: a client-go watch replaying a
// namespace's history, in JSON or protobuf, decodes nothing once its
// encodings are cached, whether it finds the events encoded in the shared
// cache or, with a one-entry cache, builds them from each version's
// cached encoding; a label-selector watch, which must read the objects to
// filter them, decodes. A watch-list's initial events decode nothing
// either (the store's List returns each item's RV without it). The events
// are those of a server that keeps its objects decoded, but for what the
// two servers draw themselves (normalised).
func TestUnfilteredWatchDoesNotDecode(t *testing.T) {
	run := func(decodeEveryRead bool, encodeCacheEntries int) []any {
		srv := Start(t, WithConfig(func(c *Config) {
			c.decodeEveryRead, c.Watch.EncodeCacheEntries = decodeEveryRead, encodeCacheEntries
			c.Clock = clocktesting.NewFakeClock(applyEpoch) // no periodic reads beside the watches
		}))
		var out []any
		for _, contentType := range []string{runtime.ContentTypeJSON, runtime.ContentTypeProtobuf} {
			cfg := rest.CopyConfig(srv.RESTConfig())
			cfg.ContentType = contentType
			what := fmt.Sprintf("decodeEveryRead %t, encode cache %d, %s", decodeEveryRead, encodeCacheEntries, contentType)
			out = append(out, unfilteredWatchDecodes(t, srv, kubernetes.NewForConfigOrDie(cfg), what, decodeEveryRead)...)
		}
		return out
	}
	decoded := run(false, 0)
	for _, entries := range []int{0, 1} {
		if diff := cmp.Diff(decoded, run(true, entries)); diff != "" {
			t.Errorf("encode cache of %d entries: events differ (-decoded +decode every read):\n%s", entries, diff)
		}
	}
}

// unfilteredWatchDecodes makes TestUnfilteredWatchDoesNotDecode's writes
// in a namespace of their own, checks what its watches decode and answer
// (what names the case in failures; cold says every event is cold), and
// returns the events they saw, normalised.
func unfilteredWatchDecodes(t *testing.T, srv *Server, cs kubernetes.Interface, what string, cold bool) []any {
	t.Helper()
	ctx := t.Context()
	ns, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "lazy-"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cms := cs.CoreV1().ConfigMaps(ns.Name)
	for i := range 5 {
		if _, err := cms.Create(ctx, &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("cm-%d", i), Labels: map[string]string{"app": "a"}},
			Data:       map[string]string{"i": fmt.Sprint(i)},
		}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	for _, patch := range []string{`{"data":{"i":"x"}}`, `{"metadata":{"labels":{"app":"b"}}}`} {
		if _, err := cms.Patch(ctx, "cm-1", types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if err := cms.Delete(ctx, "cm-3", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	const events = 8 // 5 ADDED, 2 MODIFIED, 1 DELETED
	watchEvents := func(opts metav1.ListOptions) []any {
		t.Helper()
		opts.ResourceVersion = ns.ResourceVersion
		w, err := cms.Watch(ctx, opts)
		if err != nil {
			t.Fatal(err)
		}
		defer w.Stop()
		var out []any
		for range events {
			ev, ok := <-w.ResultChan()
			if !ok {
				t.Fatal("watch ended early")
			}
			out = append(out, string(ev.Type), normalised(ev.Object))
		}
		return out
	}
	decodes := func() int64 { return srv.storeCodecs.decodesOf(corev1.SchemeGroupVersion.WithKind("ConfigMap")) }
	// The first watch may encode (and decode) what no write's answer
	// encoded in its form; the next finds every event's encoding cached.
	first := watchEvents(metav1.ListOptions{})
	before := decodes()
	again := watchEvents(metav1.ListOptions{})
	if d := decodes() - before; d != 0 {
		t.Errorf("%s: an unfiltered watch of %d cached events decoded %d objects, want 0", what, events, d)
	}
	if diff := cmp.Diff(first, again); diff != "" {
		t.Errorf("%s: the second watch's events differ (-first +second):\n%s", what, diff)
	}
	before = decodes()
	selected := watchEvents(metav1.ListOptions{LabelSelector: "app"})
	if d := decodes() - before; cold && d == 0 {
		t.Errorf("%s: a label-selector watch of %d cold events decoded nothing: the decode count counts nothing", what, events)
	}
	if diff := cmp.Diff(first, selected); diff != "" {
		t.Errorf("%s: the label-selector watch's events differ (-unfiltered +selector):\n%s", what, diff)
	}
	// A watch-list's initial events (client-go's informers open one) are
	// sent from the versions' encodings too: the first may encode the
	// ADDED events of versions a MODIFIED event wrote, the next none.
	watchList := func() []any {
		t.Helper()
		w, err := cms.Watch(ctx, metav1.ListOptions{SendInitialEvents: new(true), AllowWatchBookmarks: true,
			ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan})
		if err != nil {
			t.Fatal(err)
		}
		defer w.Stop()
		var out []any
		for range 4 { // cm-0, cm-1 (modified), cm-2, cm-4
			ev, ok := <-w.ResultChan()
			if !ok || ev.Type != watch.Added {
				t.Fatalf("%s: watch-list: %s event (open %t), want ADDED", what, ev.Type, ok)
			}
			out = append(out, string(ev.Type), normalised(ev.Object))
		}
		if ev := <-w.ResultChan(); ev.Type != watch.Bookmark {
			t.Fatalf("%s: watch-list: %s event after the initial events, want the BOOKMARK", what, ev.Type)
		}
		return out
	}
	initial := watchList()
	before = decodes()
	if diff := cmp.Diff(initial, watchList()); diff != "" {
		t.Errorf("%s: the second watch-list's initial events differ (-first +second):\n%s", what, diff)
	}
	if d := decodes() - before; d != 0 {
		t.Errorf("%s: an unfiltered watch-list of 4 cached objects decoded %d, want 0", what, d)
	}
	return append(first, initial...)
}

// TestUnfilteredCustomWatchDoesNotDecode is TestUnfilteredWatchDoesNotDecode
// for custom resources: once a version's view is known to be its stored
// object (storedIsView), which its write found out (viewWritten), an
// unfiltered JSON watch sends the stored JSON without decoding it, from the shared cache of encoded events or (with
// a one-entry cache) from the version's. Its events are those of a server that keeps custom
// resources decoded, but for what the servers draw themselves (answerKey).
func TestUnfilteredCustomWatchDoesNotDecode(t *testing.T) {
	run := func(decoded bool, encodeCacheEntries int) []string {
		srv := Start(t, WithConfig(func(c *Config) {
			c.customResourcesDecoded, c.decodeEveryRead = decoded, !decoded
			c.Watch.EncodeCacheEntries = encodeCacheEntries
			c.Clock = clocktesting.NewFakeClock(applyEpoch)
		}))
		ctx := t.Context()
		installCRD(t, srv, testWidgetCRD())
		// The controllers write the group's APIServices after the CRD;
		// once they are in, the writes below are the only ones, at the
		// same RVs on both servers.
		waitForWidgetAPIServices(t, srv)
		ns, err := srv.Clientset().CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "lazy"}}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		widgets := dynamic.NewForConfigOrDie(srv.RESTConfig()).
			Resource(schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"}).Namespace(ns.Name)
		for i := range 3 {
			w := &unstructured.Unstructured{Object: map[string]any{
				"apiVersion": "example.com/v1", "kind": "Widget",
				"metadata": map[string]any{"name": fmt.Sprintf("w-%d", i)},
				"spec":     map[string]any{"color": "red", "size": int64(i + 1)},
			}}
			if _, err := widgets.Create(ctx, w, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := widgets.Patch(ctx, "w-1", types.MergePatchType, []byte(`{"spec":{"color":"blue"}}`), metav1.PatchOptions{}); err != nil {
			t.Fatal(err)
		}
		if err := widgets.Delete(ctx, "w-2", metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		const events = 5 // 3 ADDED, 1 MODIFIED, 1 DELETED
		watchEvents := func() []string {
			t.Helper()
			w, err := widgets.Watch(ctx, metav1.ListOptions{ResourceVersion: ns.ResourceVersion})
			if err != nil {
				t.Fatal(err)
			}
			defer w.Stop()
			var out []string
			for range events {
				ev, ok := <-w.ResultChan()
				if !ok {
					t.Fatal("watch ended early")
				}
				b, err := json.Marshal(ev.Object)
				if err != nil {
					t.Fatal(err)
				}
				out = append(out, string(ev.Type)+": "+answerKey(t, b, false))
			}
			return out
		}
		decodes := srv.storeCodecs.customDecodes.Load
		before := decodes()
		first := watchEvents()
		// Each create and update built its version's view (viewWritten),
		// so the first watch reads no stored object again but the
		// delete's copy (store.Delete's, with the delete's RV), which no
		// write builds a view of.
		wantFirst := int64(1)
		if decoded {
			wantFirst = 0 // nothing is ever decoded again
		}
		if d := decodes() - before; d != wantFirst {
			t.Errorf("decoded %t, encode cache %d: the first watch of %d custom resources' events decoded %d objects, want %d", decoded, encodeCacheEntries, events, d, wantFirst)
		}
		before = decodes()
		again := watchEvents()
		if d := decodes() - before; d != 0 {
			t.Errorf("decoded %t, encode cache %d: an unfiltered watch of %d custom resources' cached events decoded %d objects, want 0", decoded, encodeCacheEntries, events, d)
		}
		if diff := cmp.Diff(first, again); diff != "" {
			t.Errorf("decoded %t: the second watch's events differ (-first +second):\n%s", decoded, diff)
		}
		return first
	}
	decoded := run(true, 0)
	for _, entries := range []int{0, 1} {
		if diff := cmp.Diff(decoded, run(false, entries)); diff != "" {
			t.Errorf("encode cache of %d entries: events differ (-kept decoded +decode every read):\n%s", entries, diff)
		}
	}
}

// decodesOf is how many stored objects of kind gvk the codecs decoded
// (protobufCodec.decodes): a count of that kind's alone, which reads of
// other kinds beside a test (the controllers') do not move.
func (sc *storeCodecs) decodesOf(gvk schema.GroupVersionKind) int64 {
	var n int64
	sc.m.Range(func(k, c any) bool {
		if k.(codecKey).gvk == gvk {
			n += c.(*protobufCodec).decodes.Load()
		}
		return true
	})
	return n
}

// waitForWidgetAPIServices waits until the controllers have written the
// APIService of each served version of testWidgetCRD's group (they write
// them in one round, in no set order).
func waitForWidgetAPIServices(t *testing.T, srv *Server) {
	t.Helper()
	apiServices := dynamic.NewForConfigOrDie(srv.RESTConfig()).Resource(apiServicesGVR)
	for _, name := range []string{"v1.example.com", "v1beta1.example.com"} {
		waitForObject(t, apiServices, name)
	}
}

// waitForObject waits, on a watch, until the cluster-scoped object name
// of res exists.
func waitForObject(t *testing.T, res dynamic.ResourceInterface, name string) {
	t.Helper()
	ctx, cancel := testdeadline.Context(t) // only a hang fails the wait
	defer cancel()
	list, err := res.List(ctx, metav1.ListOptions{FieldSelector: "metadata.name=" + name})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Items) > 0 {
		return
	}
	w, err := res.Watch(ctx, metav1.ListOptions{FieldSelector: "metadata.name=" + name, ResourceVersion: list.GetResourceVersion()})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	for ev := range w.ResultChan() {
		if ev.Type == watch.Added {
			return
		}
	}
	t.Fatalf("watch for %s ended before it was added (a controller write the server's frozen clock never retried?)", name)
}
