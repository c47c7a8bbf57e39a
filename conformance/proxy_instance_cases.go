package conformance

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/typed/core/v1"

	"github.com/lw-sim/lw-sim/faults"
)

// proxyInstanceCases are the cases of this file, in the order [Cases] runs
// them.
func proxyInstanceCases() []Case {
	return []Case{
		{Name: "ProxyInstanceFaultsThroughProxy", Run: runProxyInstanceFaultsThroughProxy},
	}
}

// tooOldRE reads the watch cache's 410 message.
var tooOldRE = regexp.MustCompile(`^too old resource version: (\d+) \((\d+)\)$`)

// runProxyInstanceFaultsThroughProxy: lw-sim's fault proxy in front of the
// target plays one apiserver instance under the instance faults. Frozen,
// then healed, a watch through it gets the writes made meanwhile, in
// order. Partitioned, a write and a GET without resourceVersion get the
// 504 Timeout of a storage that never answers, while a cache read (LIST at
// resourceVersion 0) is served; healed, writes pass. Restarted, its open
// watch ends without an ERROR, and a watch from before the restart gets
// the watch cache's ERROR 410 "too old resource version: N (M)", M being
// the target's RV at the restart (at least the last write's), from which a
// watch goes on.
func runProxyInstanceFaultsThroughProxy(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	p, cfg := serveFaultProxy(t, target)
	addFault := func(f faults.Fault) {
		t.Helper()
		if _, err := p.Faults().Add(f); err != nil {
			t.Fatalf("Add(%s): %v", f.Kind, err)
		}
	}
	direct := kubernetes.NewForConfigOrDie(target.RESTConfig()).CoreV1().ConfigMaps(e.ns)
	proxied := kubernetes.NewForConfigOrDie(cfg).CoreV1().ConfigMaps(e.ns)
	start, err := proxied.List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w, err := proxied.Watch(ctx, metav1.ListOptions{ResourceVersion: start.ResourceVersion, AllowWatchBookmarks: true})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()

	addFault(faults.Fault{Kind: faults.FreezeAPIServer})
	rvA := createCM(ctx, t, direct, "a")
	rvB := createCM(ctx, t, direct, "b")
	addFault(faults.Fault{Kind: faults.HealAPIServer})
	expectAdded(ctx, t, w, []string{"a", "b"})

	addFault(faults.Fault{Kind: faults.PartitionAPIServer})
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "c"}}
	if _, err := proxied.Create(ctx, cm, metav1.CreateOptions{}); !isStorageTimeout(err) {
		t.Errorf("create through the partitioned proxy: %v, want the 504 Timeout %q", err, "Timeout: request did not complete within the allotted timeout")
	}
	if _, err := proxied.Get(ctx, "a", metav1.GetOptions{}); !isStorageTimeout(err) {
		t.Errorf("GET without resourceVersion through the partitioned proxy: %v, want the 504 Timeout", err)
	}
	if l, err := proxied.List(ctx, metav1.ListOptions{ResourceVersion: "0"}); err != nil || len(l.Items) != 2 {
		t.Errorf("LIST at resourceVersion 0 through the partitioned proxy: %v, %d items, want a and b", err, lenItems(l))
	}
	addFault(faults.Fault{Kind: faults.HealAPIServer})
	got, err := proxied.Create(ctx, cm, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create through the healed proxy: %v", err)
	}
	rvC := mustParseRV(t, got.ResourceVersion)
	expectAdded(ctx, t, w, []string{"c"})

	addFault(faults.Fault{Kind: faults.RestartAPIServer})
	for ev := range w.ResultChan() {
		if ev.Type == watch.Error {
			t.Errorf("the open watch got %+v at the restart, want a clean end", ev.Object)
		}
	}
	old, err := proxied.Watch(ctx, metav1.ListOptions{ResourceVersion: strconv.FormatInt(rvA, 10)})
	if err != nil {
		t.Fatal(err)
	}
	ev, ok := <-old.ResultChan()
	old.Stop()
	if !ok || ev.Type != watch.Error {
		t.Fatalf("watch from rv %d (before the restart) got %+v, want the ERROR 410", rvA, ev)
	}
	st, _ := ev.Object.(*metav1.Status)
	if st == nil || st.Code != 410 || st.Reason != metav1.StatusReasonExpired {
		t.Fatalf("watch from before the restart: %+v, want 410 Expired", ev.Object)
	}
	m := tooOldRE.FindStringSubmatch(st.Message)
	if m == nil || m[1] != strconv.FormatInt(rvA, 10) {
		t.Fatalf("410 message %q, want \"too old resource version: %d (M)\"", st.Message, rvA)
	}
	restartRV, _ := strconv.ParseInt(m[2], 10, 64)
	if restartRV < rvC || restartRV < rvB {
		t.Errorf("restart rv %d is below the last write's %d", restartRV, rvC)
	}
	after, err := proxied.Watch(ctx, metav1.ListOptions{ResourceVersion: m[2]})
	if err != nil {
		t.Fatal(err)
	}
	defer after.Stop()
	createCM(ctx, t, direct, "d")
	expectAdded(ctx, t, after, []string{"d"})
}

// createCM creates an empty ConfigMap and returns its RV.
func createCM(ctx context.Context, t *testing.T, cms v1.ConfigMapInterface, name string) int64 {
	t.Helper()
	got, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create %s: %v", name, err)
	}
	return mustParseRV(t, got.ResourceVersion)
}

// expectAdded reads w until it has seen ADDED events for names, in that
// order, with bookmarks in between never ahead of an event (RVs never go
// down); anything else fails.
func expectAdded(ctx context.Context, t *testing.T, w watch.Interface, names []string) {
	t.Helper()
	var last int64
	for _, want := range names {
		for {
			var ev watch.Event
			var ok bool
			select {
			case ev, ok = <-w.ResultChan():
			case <-ctx.Done():
				t.Fatalf("waiting for ADDED %s: %v", want, ctx.Err())
			}
			if !ok {
				t.Fatalf("watch ended before ADDED %s", want)
			}
			o, isCM := ev.Object.(*corev1.ConfigMap)
			if !isCM {
				t.Fatalf("event %s %+v, want ADDED %s", ev.Type, ev.Object, want)
			}
			rv := mustParseRV(t, o.ResourceVersion)
			if rv < last {
				t.Fatalf("%s at rv %d after rv %d: out of order", ev.Type, rv, last)
			}
			last = rv
			if ev.Type == watch.Bookmark {
				continue
			}
			if ev.Type != watch.Added || o.Name != want {
				t.Fatalf("event %s %s, want ADDED %s", ev.Type, o.Name, want)
			}
			break
		}
	}
}

// isStorageTimeout reports the 504 of a partitioned instance.
func isStorageTimeout(err error) bool {
	var se *apierrors.StatusError
	if !errors.As(err, &se) {
		return false
	}
	s := se.Status()
	return s.Code == 504 && s.Reason == metav1.StatusReasonTimeout && s.Message == "Timeout: request did not complete within the allotted timeout"
}

// lenItems is the number of items of l (0 for nil).
func lenItems(l *corev1.ConfigMapList) int {
	if l == nil {
		return 0
	}
	return len(l.Items)
}

// mustParseRV parses an object's RV.
func mustParseRV(t *testing.T, rv string) int64 {
	t.Helper()
	n, err := strconv.ParseInt(rv, 10, 64)
	if err != nil {
		t.Fatal(fmt.Errorf("rv %q: %w", rv, err))
	}
	return n
}
