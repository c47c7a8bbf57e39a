package conformance

import (
	"context"
	"maps"
	"net"
	"net/http"
	"strconv"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/lw-sim/lw-sim/faultproxy"
	"github.com/lw-sim/lw-sim/watchcheck"
)

// watchcheckCases are the cases of this file, in the order [Cases] runs them.
func watchcheckCases() []Case {
	return []Case{
		{Name: "WatchStreamGuarantees", Run: runWatchStreamGuarantees},
		{Name: "WatchStreamGuaranteesThroughProxy", Run: runWatchStreamGuaranteesThroughProxy},
	}
}

// runWatchStreamGuarantees: watches of every start point (from a list RV,
// with a label selector across transitions, with field selectors, replayed
// from an old RV, a watch-list), recorded on the wire by watchcheck.Transport while objects
// are created, relabelled and deleted, keep etcd's six watch guarantees
// and the per-object rules against the history of the writes.
func runWatchStreamGuarantees(ctx context.Context, t *testing.T, target Target) {
	checkWatchStreamGuarantees(ctx, t, target, target.RESTConfig())
}

// runWatchStreamGuaranteesThroughProxy: the same streams, recorded through
// lw-sim's fault proxy (package faultproxy, `lw-sim proxy`) in front of the
// target with no fault armed, keep the same guarantees: the proxy forwards
// watch streams without losing, repeating or reordering an event.
func runWatchStreamGuaranteesThroughProxy(ctx context.Context, t *testing.T, target Target) {
	checkWatchStreamGuarantees(ctx, t, target, startFaultProxy(t, target))
}

// startFaultProxy serves a fault proxy to target on loopback until the test
// ends and returns a client config for it (the proxy adds the upstream's
// credentials itself).
func startFaultProxy(t *testing.T, target Target) *rest.Config {
	t.Helper()
	_, cfg := serveFaultProxy(t, target)
	return cfg
}

// serveFaultProxy is startFaultProxy that also returns the proxy, to add
// faults to it.
func serveFaultProxy(t *testing.T, target Target) (*faultproxy.Proxy, *rest.Config) {
	t.Helper()
	p, err := faultproxy.New(faultproxy.Config{Upstream: target.RESTConfig()})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := &http.Server{Handler: p.Handler(), ReadHeaderTimeout: 30 * time.Second}
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = hs.Serve(ln) // returns at Close below
	}()
	t.Cleanup(func() {
		p.Close() // releases streams before the server waits for nothing
		_ = hs.Close()
		<-done
	})
	return p, &rest.Config{Host: "http://" + ln.Addr().String(), QPS: -1}
}

// checkWatchStreamGuarantees is runWatchStreamGuarantees with the client
// configuration base (the target's, or a proxy's in front of it).
func checkWatchStreamGuarantees(ctx context.Context, t *testing.T, target Target, base *rest.Config) {
	e := setup(ctx, t, target)
	var rec watchcheck.Transport
	cfg := rest.CopyConfig(base)
	cfg.ContentType, cfg.AcceptContentTypes = "application/json", "application/json"
	cfg.WrapTransport = rec.Wrap
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	cms := cs.CoreV1().ConfigMaps(e.ns)
	start, err := cms.List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	drain := &watchDrain{}
	defer drain.stop()
	open := func(opts metav1.ListOptions) {
		opts.AllowWatchBookmarks = true
		w, err := cms.Watch(ctx, opts)
		if err != nil {
			t.Fatalf("Watch(%+v): %v", opts, err)
		}
		drain.add(w)
	}
	open(metav1.ListOptions{ResourceVersion: start.ResourceVersion})
	open(metav1.ListOptions{ResourceVersion: start.ResourceVersion, LabelSelector: "app=x"})
	// Field selectors: the stream of one name, and a label and a field
	// selector together.
	open(metav1.ListOptions{ResourceVersion: start.ResourceVersion, FieldSelector: "metadata.name=a"})
	open(metav1.ListOptions{ResourceVersion: start.ResourceVersion, LabelSelector: "app=x", FieldSelector: "metadata.name!=b"})

	var h watchcheck.History
	write := func(name, app string, create bool) {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"app": app}}}
		var got *corev1.ConfigMap
		if create {
			got, err = cms.Create(ctx, cm, metav1.CreateOptions{})
		} else {
			got, err = cms.Update(ctx, cm, metav1.UpdateOptions{})
		}
		if err != nil {
			t.Fatalf("write %s: %v", name, err)
		}
		rv, _ := strconv.ParseInt(got.ResourceVersion, 10, 64)
		h = append(h, watchcheck.Change{RV: rv, Key: e.ns + "/" + name, UID: string(got.UID), Labels: maps.Clone(got.Labels)})
	}
	// A DELETE of a ConfigMap answers with a Status, without the RV: the
	// delete's RV is read from the unfiltered watch's DELETED event below
	// (and checked to fall after the object's last write).
	del := func(name string) {
		if err := cms.Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
			t.Fatalf("delete %s: %v", name, err)
		}
		h = append(h, watchcheck.Change{Key: e.ns + "/" + name, Deleted: true})
	}
	write("a", "x", true)
	write("b", "y", true)
	middle := h[len(h)-1].RV
	write("a", "y", false)
	write("b", "x", false)
	del("a")
	write("c", "x", true)
	open(metav1.ListOptions{ResourceVersion: strconv.FormatInt(middle, 10), LabelSelector: "app=x"})
	sendInitial := true
	open(metav1.ListOptions{SendInitialEvents: &sendInitial, ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan})
	write("c", "y", false)
	del("b")

	// Wait until the unfiltered watch has all 8 changes, then date the
	// deletes from it.
	var streams []watchcheck.Stream
	if !eventually(ctx, 30*time.Second, func() bool {
		streams = rec.Streams()
		return len(streams) == 6 && countChanges(streams[0]) == len(h)
	}) {
		t.Fatalf("the unfiltered watch did not deliver %d changes: %+v", len(h), streams)
	}
	for i, c := range h {
		if !c.Deleted {
			continue
		}
		for _, ev := range streams[0].Events {
			if ev.Type == watch.Deleted && ev.Key == c.Key && (i == 0 || ev.RV > h[i-1].RV) {
				h[i].RV, h[i].UID = ev.RV, ev.UID
				break
			}
		}
		if h[i].RV == 0 || (i+1 < len(h) && h[i+1].RV <= h[i].RV) {
			t.Fatalf("no DELETED event dates the delete of %s between its neighbours: %+v", c.Key, streams[0].Events)
		}
	}
	if err := h.Validate(); err != nil {
		t.Fatal(err)
	}
	// Every other stream must catch up too (its whole projection).
	if !eventually(ctx, 30*time.Second, func() bool {
		streams = rec.Streams()
		for _, s := range streams {
			want, ok := watchcheck.Expected(h, s)
			if !ok || countChanges(s) < len(want)+initialCount(s) {
				return false
			}
		}
		return true
	}) {
		t.Fatalf("streams did not catch up: %+v", streams)
	}
	if err := watchcheck.Check(h, streams...); err != nil {
		t.Fatal(err)
	}
}

// countChanges counts a stream's ADDED, MODIFIED and DELETED events.
func countChanges(s watchcheck.Stream) int {
	n := 0
	for _, e := range s.Events {
		if e.Type == watch.Added || e.Type == watch.Modified || e.Type == watch.Deleted {
			n++
		}
	}
	return n
}

// initialCount counts the initial events before the initial-events-end
// bookmark.
func initialCount(s watchcheck.Stream) int {
	for i, e := range s.Events {
		if e.InitialEventsEnd {
			return i
		}
	}
	return 0
}

// watchDrain reads watches so that their bodies are read (and recorded)
// and stops them at the end.
type watchDrain struct {
	mu sync.Mutex
	ws []watch.Interface
	wg sync.WaitGroup
}

func (d *watchDrain) add(w watch.Interface) {
	d.mu.Lock()
	d.ws = append(d.ws, w)
	d.mu.Unlock()
	d.wg.Go(func() {
		for range w.ResultChan() {
		}
	})
}

func (d *watchDrain) stop() {
	d.mu.Lock()
	for _, w := range d.ws {
		w.Stop()
	}
	d.mu.Unlock()
	d.wg.Wait()
}
