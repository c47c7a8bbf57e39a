package fakeapiserver

import (
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
)

// newEvent is a valid core/v1 Event ns/name.
func newEvent(ns, name string) *corev1.Event {
	return &corev1.Event{
		ObjectMeta:     metav1.ObjectMeta{Namespace: ns, Name: name},
		InvolvedObject: corev1.ObjectReference{Kind: "ConfigMap", Namespace: ns, Name: "cm", APIVersion: "v1"},
		Reason:         "Tested", Message: "m", Type: corev1.EventTypeNormal,
	}
}

// newEventsV1 is a valid events.k8s.io/v1 Event ns/name.
func newEventsV1(ns, name string) *eventsv1.Event {
	return &eventsv1.Event{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		EventTime:  metav1.NewMicroTime(time.Date(2026, 1, 2, 3, 4, 5, 6000, time.UTC)),
		Regarding:  corev1.ObjectReference{Kind: "ConfigMap", Namespace: ns, Name: "cm", APIVersion: "v1"},
		Type:       corev1.EventTypeNormal, Reason: "Tested", Action: "Test", Note: "n",
		ReportingController: "example.com/tester", ReportingInstance: "tester-1",
	}
}

// createEvent creates a core/v1 Event through client-go and returns its RV.
func createEvent(tb testing.TB, cs kubernetes.Interface, ev *corev1.Event) int64 {
	tb.Helper()
	got, err := cs.CoreV1().Events(ev.Namespace).Create(tb.Context(), ev, metav1.CreateOptions{})
	if err != nil {
		tb.Fatalf("create event %s/%s = %v", ev.Namespace, ev.Name, err)
	}
	return mustParseRV(tb, got.ResourceVersion)
}

// eventNames lists the core Events' names.
func eventNames(items []corev1.Event) []string {
	out := make([]string, 0, len(items))
	for _, it := range items {
		out = append(out, it.Name)
	}
	return out
}

// eventsV1Names lists the events.k8s.io Events' names.
func eventsV1Names(items []eventsv1.Event) []string {
	out := make([]string, 0, len(items))
	for _, it := range items {
		out = append(out, it.Name)
	}
	return out
}

// TestLaggingInstanceServesEventsFromStorage: events have no watch cache,
// so on an instance whose cache lags the reads a cache serves are fresh for
// events (both APIs) while a ConfigMap LIST at resourceVersion "0" is
// stale, an RV the cache has not reached does not wait, and a watch gets
// every event at once.
func TestLaggingInstanceServesEventsFromStorage(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b, fresh, stale, _ := lagged(t) // ConfigMaps a, b, c; the stale cache has a
		if err := b.srv.FreezeAPIServer("apiserver-1", true); err != nil {
			t.Fatal(err) // and keeps it so through the writes below
		}
		createEvent(t, fresh, newEvent("t1", "e1"))
		last := createEvent(t, fresh, newEvent("t1", "e2"))
		if _, err := fresh.EventsV1().Events("t1").Create(t.Context(), newEventsV1("t1", "v1"), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}

		cms, err := stale.CoreV1().ConfigMaps("t1").List(t.Context(), metav1.ListOptions{ResourceVersion: "0"})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]string{"a"}, cmNames(cms.Items)); diff != "" {
			t.Errorf("stale ConfigMaps List(rv=0) (-want +got):\n%s", diff)
		}
		evs, err := stale.CoreV1().Events("t1").List(t.Context(), metav1.ListOptions{ResourceVersion: "0"})
		if err != nil {
			t.Fatal(err)
		}
		// One storage for both APIs (builtin_conversion.go): each lists
		// the three.
		if diff := cmp.Diff([]string{"e1", "e2", "v1"}, eventNames(evs.Items)); diff != "" {
			t.Errorf("Events List(rv=0) on the lagging instance (-want +got):\n%s", diff)
		}
		v1, err := stale.EventsV1().Events("t1").List(t.Context(), metav1.ListOptions{ResourceVersion: "0"})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]string{"e1", "e2", "v1"}, eventsV1Names(v1.Items)); diff != "" {
			t.Errorf("events.k8s.io List(rv=0) on the lagging instance (-want +got):\n%s", diff)
		}
		if _, err := stale.CoreV1().Events("t1").Get(t.Context(), "e2", metav1.GetOptions{ResourceVersion: "0"}); err != nil {
			t.Errorf("Events Get(e2, rv=0) on the lagging instance = %v, want e2", err)
		}
		start := time.Now()
		nt, err := stale.CoreV1().Events("t1").List(t.Context(), metav1.ListOptions{
			ResourceVersion: formatRV(last), ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan})
		if err != nil {
			t.Fatal(err)
		}
		if waited := time.Since(start); waited != 0 {
			t.Errorf("Events List NotOlderThan %d waited %v, want no wait", last, waited)
		}
		if diff := cmp.Diff([]string{"e1", "e2", "v1"}, eventNames(nt.Items)); diff != "" {
			t.Errorf("Events List NotOlderThan (-want +got):\n%s", diff)
		}
		page, err := stale.CoreV1().Events("t1").List(t.Context(), metav1.ListOptions{ResourceVersion: "0", Limit: 1})
		if err != nil {
			t.Fatal(err)
		}
		if len(page.Items) != 1 || page.Continue == "" {
			t.Errorf("Events List(rv=0, limit=1) = %v, continue %q; want one item and a token (etcd pages rv=0)", eventNames(page.Items), page.Continue)
		}

		w, err := stale.CoreV1().Events("t1").Watch(t.Context(), metav1.ListOptions{ResourceVersion: formatRV(last - 2)})
		if err != nil {
			t.Fatal(err)
		}
		defer w.Stop()
		var got []string
		for range 2 {
			ev := <-w.ResultChan()
			got = append(got, string(ev.Type)+" "+ev.Object.(*corev1.Event).Name)
		}
		if diff := cmp.Diff([]string{"ADDED e1", "ADDED e2"}, got); diff != "" {
			t.Errorf("Events watch on the lagging instance (-want +got):\n%s", diff)
		}
	})
}

// TestFrozenAndPartitionedInstanceEvents: a frozen cache does not hold
// back events; a partition cuts events off entirely (every read needs
// etcd, resourceVersion "0" too) while ConfigMaps at "0" still come from
// the cache; an events watch opened before the partition gets nothing
// while it lasts and the missed event once it heals.
func TestFrozenAndPartitionedInstanceEvents(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := startBubble(t, withAPIServers(2, BalanceRoundRobin))
		fresh, cut := b.pinned(t, "apiserver-0"), b.pinned(t, "apiserver-1")
		ensureNamespace(t, fresh, "t1")
		createCM(t, fresh, newCM("t1", "a", 0, nil))
		if err := b.srv.FreezeAPIServer("apiserver-1", true); err != nil {
			t.Fatal(err)
		}
		rv := createEvent(t, fresh, newEvent("t1", "e1"))
		if _, err := cut.CoreV1().Events("t1").Get(t.Context(), "e1", metav1.GetOptions{ResourceVersion: "0"}); err != nil {
			t.Errorf("Events Get(e1, rv=0) on the frozen instance = %v, want e1", err)
		}
		w, err := cut.CoreV1().Events("t1").Watch(t.Context(), metav1.ListOptions{ResourceVersion: formatRV(rv)})
		if err != nil {
			t.Fatal(err)
		}
		defer w.Stop()
		if err := b.srv.PartitionAPIServer("apiserver-1", true); err != nil {
			t.Fatal(err)
		}
		createEvent(t, fresh, newEvent("t1", "e2"))
		if _, err := cut.CoreV1().Events("t1").List(t.Context(), metav1.ListOptions{ResourceVersion: "0"}); !apierrors.IsTimeout(err) {
			t.Errorf("Events List(rv=0) on the partitioned instance = %v, want 504 Timeout", err)
		}
		if _, err := cut.EventsV1().Events("t1").Get(t.Context(), "e1", metav1.GetOptions{ResourceVersion: "0"}); !apierrors.IsTimeout(err) {
			t.Errorf("events.k8s.io Get(e1, rv=0) on the partitioned instance = %v, want 504 Timeout", err)
		}
		if _, err := cut.CoreV1().ConfigMaps("t1").Get(t.Context(), "a", metav1.GetOptions{ResourceVersion: "0"}); err != nil {
			t.Errorf("ConfigMaps Get(a, rv=0) from the partitioned instance's cache = %v, want a", err)
		}
		synctest.Wait()
		select {
		case ev := <-w.ResultChan():
			t.Fatalf("events watch on the partitioned instance sent %s", ev.Type)
		default:
		}
		if err := b.srv.HealAPIServer("apiserver-1"); err != nil {
			t.Fatal(err)
		}
		ev := <-w.ResultChan()
		if e, ok := ev.Object.(*corev1.Event); ev.Type != watch.Added || !ok || e.Name != "e2" {
			t.Errorf("events watch after healing = %s %v, want ADDED e2", ev.Type, ev.Object)
		}
	})
}

// TestEventsWatchHasNoWindow: a watch of events from an old RV replays
// every event after it, however many and however old (no watch cache
// window: only compaction bounds etcd's history), where a ConfigMap watch
// from as far back gets the cacher's 410; once compacted, it is etcd's
// 410 message. A restart of the instance ends its events watches but
// leaves no floor.
func TestEventsWatchHasNoWindow(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := startBubble(t, withAPIServers(1, BalanceRoundRobin))
		cs := b.cs
		ensureNamespace(t, cs, "t1")
		// Open watches stamp the events as they pass (watch_window.go).
		ew, err := cs.CoreV1().Events("t1").Watch(t.Context(), metav1.ListOptions{ResourceVersion: formatRV(b.srv.store.CurrentRV())})
		if err != nil {
			t.Fatal(err)
		}
		defer ew.Stop()
		cw, err := cs.CoreV1().ConfigMaps("t1").Watch(t.Context(), metav1.ListOptions{ResourceVersion: formatRV(b.srv.store.CurrentRV())})
		if err != nil {
			t.Fatal(err)
		}
		defer cw.Stop()
		const n = 150 // more than the window's 100 newest, in each half
		first := createEvent(t, cs, newEvent("t1", "e-0"))
		firstCM := createCM(t, cs, newCM("t1", "c-0", 0, nil))
		for i := 1; i < n; i++ {
			createEvent(t, cs, newEvent("t1", "e-"+formatRV(int64(i))))
			createCM(t, cs, newCM("t1", "c-"+formatRV(int64(i)), 0, nil))
		}
		synctest.Wait()
		time.Sleep(80 * time.Second) // virtual: past the window's 75 s
		for i := n; i < 2*n; i++ {
			createEvent(t, cs, newEvent("t1", "e-"+formatRV(int64(i))))
			createCM(t, cs, newCM("t1", "c-"+formatRV(int64(i)), 0, nil))
		}
		synctest.Wait()

		cmOld, err := cs.CoreV1().ConfigMaps("t1").Watch(t.Context(), metav1.ListOptions{ResourceVersion: formatRV(firstCM - 1)})
		if err != nil {
			t.Fatal(err)
		}
		ev := <-cmOld.ResultChan()
		cmOld.Stop()
		if st, ok := ev.Object.(*metav1.Status); ev.Type != watch.Error || !ok || st.Code != http.StatusGone {
			t.Errorf("ConfigMap watch from %d = %s %v, want the window's ERROR 410", firstCM-1, ev.Type, ev.Object)
		}

		old, err := cs.CoreV1().Events("t1").Watch(t.Context(), metav1.ListOptions{ResourceVersion: formatRV(first - 1)})
		if err != nil {
			t.Fatal(err)
		}
		for i := range 2 * n {
			ev := <-old.ResultChan()
			if e, ok := ev.Object.(*corev1.Event); ev.Type != watch.Added || !ok || e.Name != "e-"+formatRV(int64(i)) {
				t.Fatalf("event %d of the events watch from %d = %s %v, want ADDED e-%d", i, first-1, ev.Type, ev.Object, i)
			}
		}
		if _, err := b.srv.RestartAPIServer(""); err != nil {
			t.Fatal(err)
		}
		for ev := range old.ResultChan() {
			t.Errorf("events watch after the restart sent %s, want its end", ev.Type)
		}
		again, err := cs.CoreV1().Events("t1").Watch(t.Context(), metav1.ListOptions{ResourceVersion: formatRV(first - 1)})
		if err != nil {
			t.Fatal(err)
		}
		if ev := <-again.ResultChan(); ev.Type != watch.Added {
			t.Errorf("events watch from %d after the restart = %s %v, want ADDED (no restart floor)", first-1, ev.Type, ev.Object)
		}
		again.Stop()

		if err := b.srv.Compact(first + 10); err != nil {
			t.Fatal(err)
		}
		gone, err := cs.CoreV1().Events("t1").Watch(t.Context(), metav1.ListOptions{ResourceVersion: formatRV(first - 1)})
		if err != nil {
			t.Fatal(err)
		}
		defer gone.Stop()
		ev = <-gone.ResultChan()
		want := &metav1.Status{Status: metav1.StatusFailure, Code: http.StatusGone, Reason: metav1.StatusReasonExpired,
			Message: "The resourceVersion for the provided watch is too old."}
		st, _ := ev.Object.(*metav1.Status)
		if st != nil {
			st.TypeMeta = metav1.TypeMeta{}
		}
		if diff := cmp.Diff(want, st); ev.Type != watch.Error || diff != "" {
			t.Errorf("events watch from %d after compaction at %d = %s (-want +got):\n%s", first-1, first+10, ev.Type, diff)
		}
	})
}
