package listwatch

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/tools/cache"
)

func TestPagedInitialList(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for i := range 5 {
		e.create(fmt.Sprintf("cm-%d", i))
	}
	c, rec, log := e.startClient(Options{PageSize: 2})
	e.waitConverged(c.Indexer())

	var pages []string
	for _, ev := range log.events {
		if ev.Kind == TracePage {
			pages = append(pages, fmt.Sprintf("items=%d continue=%v rv=%s", ev.Items, ev.Continue, ev.ListRV))
		}
	}
	_, rv := e.serverState()
	want := []string{
		fmt.Sprintf("items=2 continue=true rv=%d", rv),
		fmt.Sprintf("items=2 continue=true rv=%d", rv),
		fmt.Sprintf("items=1 continue=false rv=%d", rv),
	}
	if diff := cmp.Diff(want, pages); diff != "" {
		t.Errorf("List(limit=2) pages mismatch (-want +got):\n%s", diff)
	}
	if lists, _, _ := e.lw.counts(); lists != 1 {
		t.Errorf("LIST calls = %d, want 1", lists)
	}
	rec.checkOrder(t, true)
	if got := len(rec.byKey); got != 5 {
		t.Errorf("OnAdd keys = %d, want 5", got)
	}
}

// TestExpiredContinueFallsBackToFullList compacts the server between the
// first and second page: the continue token expires (410) and the pager
// re-lists once in full, as client-go's pager does.
func TestExpiredContinueFallsBackToFullList(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for i := range 5 {
		e.create(fmt.Sprintf("cm-%d", i))
	}
	first := true
	e.lw.beforePage = func(int) {
		if first {
			first = false
			e.update("cm-4") // a write after the token's RV, then compact past it
			e.compact()
		}
	}
	c, rec, log := e.startClient(Options{PageSize: 2})
	e.waitConverged(c.Indexer())
	if got := log.count(TraceFullList); got != 1 {
		t.Errorf("full re-lists = %d, want 1; trace:\n%s", got, log)
	}
	if lists, _, _ := e.lw.counts(); lists != 2 {
		t.Errorf("LIST calls = %d, want 2 (first page, then the full list)", lists)
	}
	rec.checkOrder(t, true)
}

func TestWatchResumesAfterCutWithoutRelist(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.create("a")
	c, rec, log := e.startClient(Options{})
	for i := range 3 {
		e.update("a")
		e.waitConverged(c.Indexer())
		e.lw.cut()
		e.lw.waitWatches(t, i+2)
	}
	e.create("b")
	e.waitConverged(c.Indexer())
	if lists, watches, _ := e.lw.counts(); lists != 1 || watches != 4 {
		t.Errorf("after 3 cuts: LIST calls = %d, WATCH calls = %d; want 1, 4; trace:\n%s", lists, watches, log)
	}
	rec.checkOrder(t, true)
}

// TestWatchStartsAtListRV checks the first watch asks for the list's RV,
// with bookmarks.
func TestWatchStartsAtListRV(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.create("a")
	_, rv := e.serverState()
	c, _, log := e.startClient(Options{})
	e.lw.waitWatches(t, 1)
	waitUntil(t, "watch-start trace", func() bool { return log.count(TraceWatchStart) > 0 })
	log.mu.Lock()
	var start TraceEvent
	for _, ev := range log.events {
		if ev.Kind == TraceWatchStart {
			start = ev
			break
		}
	}
	log.mu.Unlock()
	if want := fmt.Sprint(rv); start.RV != want || !strings.Contains(start.Reason, want) {
		t.Errorf("first watch = %v, want from list rv %s", start, want)
	}
	if got := c.LastSyncResourceVersion(); got < fmt.Sprint(rv) {
		t.Errorf("LastSyncResourceVersion() = %s, want >= %d", got, rv)
	}
}

// TestRelistAfter410 holds the client's re-watch while objects change and
// the server compacts, so the re-watch gets 410: the client relists once
// and reports the changes it missed, a delete as DeletedFinalStateUnknown.
func TestRelistAfter410(t *testing.T) {
	for _, mode := range []string{"http-410-at-connect", "error-event"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			for _, n := range []string{"a", "b", "c"} {
				e.create(n)
			}
			c, rec, log := e.startClient(Options{})
			e.lw.hold()
			e.lw.cut()
			e.del("a")
			e.update("b")
			e.create("d")
			if mode == "http-410-at-connect" {
				e.lw.watchErrs = append(e.lw.watchErrs, apierrors.NewResourceExpired("too old resource version (injected)"))
			} else {
				e.compact()
			}
			e.lw.release()
			e.waitConverged(c.Indexer())
			if lists, _, _ := e.lw.counts(); lists != 2 {
				t.Errorf("LIST calls = %d, want 2 (initial + one relist); trace:\n%s", lists, log)
			}
			want := map[string][]string{"default/a": {"add", "tombstone"}, "default/b": {"add", "update"},
				"default/c": {"add"}, "default/d": {"add"}}
			if diff := cmp.Diff(want, kinds(rec)); diff != "" {
				t.Errorf("handler calls mismatch (-want +got):\n%s", diff)
			}
			rec.checkOrder(t, true)
			if got := log.count(TraceRelist); got != 1 {
				t.Errorf("relists traced = %d, want 1", got)
			}
		})
	}
}

func kinds(r *recorder) map[string][]string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := map[string][]string{}
	for k, ds := range r.byKey {
		for _, d := range ds {
			out[k] = append(out[k], d.Kind)
		}
	}
	return out
}

// TestTransientErrorsRewatch: 500 at connect and a 500 ERROR event are
// retried from the same RV after a backoff, with no relist.
func TestTransientErrorsRewatch(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.create("a")
	c, _, log := e.startClient(Options{})
	e.lw.hold()
	e.lw.cut()
	e.lw.watchErrs = append(e.lw.watchErrs, apierrors.NewInternalError(fmt.Errorf("injected")))
	e.lw.eventErrs = append(e.lw.eventErrs, &metav1.Status{Status: metav1.StatusFailure, Code: 500, Reason: metav1.StatusReasonInternalError, Message: "injected"})
	e.update("a")
	e.lw.release()
	e.waitConverged(c.Indexer())
	if lists, _, _ := e.lw.counts(); lists != 1 {
		t.Errorf("LIST calls = %d, want 1; trace:\n%s", lists, log)
	}
	if got := log.count(TraceBackoff); got < 2 {
		t.Errorf("backoffs = %d, want >= 2; trace:\n%s", got, log)
	}
}

// TestRefusedResumeRelists: a 4xx other than 410/429 on re-watch means the
// server refuses to resume; the client relists.
func TestRefusedResumeRelists(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.create("a")
	c, _, _ := e.startClient(Options{})
	e.lw.hold()
	e.lw.cut()
	e.lw.watchErrs = append(e.lw.watchErrs, apierrors.NewForbidden(schema.GroupResource{Resource: "configmaps"}, "", fmt.Errorf("injected")))
	e.lw.release()
	e.update("a")
	e.waitConverged(c.Indexer())
	waitUntil(t, "relist", func() bool { lists, _, _ := e.lw.counts(); return lists == 2 })
}

func TestWatchList(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.create("a")
	e.create("b")
	c, rec, log := e.startClient(Options{WatchList: true})
	e.update("a")
	e.waitConverged(c.Indexer())
	if lists, watches, watchLists := e.lw.counts(); lists != 0 || watchLists != 1 || watches != 1 {
		t.Errorf("LIST, WATCH, watch-list calls = %d, %d, %d; want 0, 1, 1 (the stream continues as the watch); trace:\n%s",
			lists, watches, watchLists, log)
	}
	rec.checkOrder(t, true)
}

func TestWatchListFallsBackWhenRefused(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.create("a")
	e.lw.refuseWatchList = true
	c, _, log := e.startClient(Options{WatchList: true})
	e.update("a")
	e.waitConverged(c.Indexer())
	if got := log.count(TraceFallback); got != 1 {
		t.Errorf("fallbacks = %d, want 1", got)
	}
	if lists, _, watchLists := e.lw.counts(); lists != 1 || watchLists != 1 {
		t.Errorf("LIST, watch-list calls = %d, %d; want 1, 1", lists, watchLists)
	}
}

func TestDynamicAdapter(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.create("a")
	dc := dynamic.NewForConfigOrDie(e.srv.RESTConfig())
	lw := FromDynamic(dc.Resource(corev1.SchemeGroupVersion.WithResource("configmaps")).Namespace(e.ns))
	c := New(lw, Options{Backoff: fastBackoff})
	runClient(t, c)
	e.update("a")
	waitUntil(t, "dynamic store has the update", func() bool {
		want, _ := e.serverState()
		got := map[string]string{}
		for _, o := range c.Indexer().List() {
			u := o.(interface {
				GetNamespace() string
				GetName() string
				GetResourceVersion() string
			})
			got[u.GetNamespace()+"/"+u.GetName()] = u.GetResourceVersion()
		}
		for k, v := range want {
			if !strings.HasPrefix(v, got[k]+" ") {
				return false
			}
		}
		return len(got) == len(want)
	})
}

func TestIndexers(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.create("a")
	c, _, _ := e.startClient(Options{Indexers: cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc}})
	objs, err := c.Indexer().ByIndex(cache.NamespaceIndex, e.ns)
	if err != nil || len(objs) != 1 {
		t.Errorf("ByIndex(namespace, %s) = %d objects, %v; want 1, nil", e.ns, len(objs), err)
	}
}

func TestRunTwicePanics(t *testing.T) {
	t.Parallel()
	c := New(Funcs{}, Options{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	c.Run(ctx)
	defer func() {
		if recover() == nil {
			t.Error("second Run did not panic")
		}
	}()
	c.Run(ctx)
}
