package fakeapiserver

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	clocktesting "k8s.io/utils/clock/testing"
	"pgregory.net/rapid"

	"github.com/lw-sim/lw-sim/faults"
	"github.com/lw-sim/lw-sim/watchcheck"
)

// The server's watch machine under rapid: every check runs a fresh server
// in one testing/synctest bubble (virtual time: bookmarks, timeouts and
// fault windows fire as the machine advances the clock, and a seed replays
// the same run), with random writes to two resources in two namespaces
// (label transitions included), watches from every kind of start point
// with and without bookmarks, label and field selectors, compaction, restarts and the
// stream faults. A recording transport keeps every stream the server
// serves; after every action, at a quiescent point (synctest.Wait), each
// stream is checked with watchcheck against the history of the writes,
// and every open stream no fault touched must have delivered all of it.

// chaosResources are the resources the machine writes and watches.
var chaosResources = []string{"configmaps", "secrets"}

// chaosNamespaces are the namespaces it writes in; "default" is seeded.
var chaosNamespaces = []string{"default", "ns2"}

// chaosWatch is one watch the machine opened.
type chaosWatch struct {
	w *rawWatch
	// faulted is set when a stream fault or a delay could touch it, so
	// it may legitimately lag behind the history.
	faulted bool
	// expired is whether the watch's start RV was out of the watch
	// window when it was opened (the model's [watchChaos.resumeFloor]):
	// then it must get the 410 ERROR, and otherwise never.
	expired bool
	// bookmarks is allowWatchBookmarks; withheld is set when a
	// WithholdBookmarks fault could touch the stream.
	bookmarks, withheld bool
	// instance is the apiserver instance that serves it.
	instance string
	// base is the RV the stream starts at (the current RV for a start
	// at "", "0", the current RV or a watch-list). dueRV is the current
	// RV at the last advance of at least a bookmark interval during
	// which the stream was open: a periodic bookmark fell due then, so
	// the stream has delivered everything up to dueRV.
	base, dueRV int64
}

// watchChaos is the machine's state. hist is the model: every write per
// resource, as its responses reported it.
type watchChaos struct {
	t       testing.TB
	b       *bubble
	clk     *clocktesting.FakeClock
	rec     *watchcheck.Transport
	hist    map[string]watchcheck.History
	live    map[string]map[string]string // resource → key → uid
	watches []*chaosWatch
	gen     int
	// The model of the watch window: the HistoryMinEvents the server
	// runs with, the highest RV compacted to, and the current RV at the
	// last restart.
	minEvents          int
	compacted, restart int64
	// The model of the second apiserver instance (the machine writes
	// through the first, which no fault touches): the current RV at its
	// last restart, and whether its cache lags or is frozen now.
	instRestart int64
	instStale   bool
}

// chaosInstances are the machine's apiserver instances; the Instance
// action faults the second.
var chaosInstances = []string{"apiserver-0", "apiserver-1"}

func newWatchChaos(t testing.TB, rt *rapid.T, wrap func(http.RoundTripper) http.RoundTripper) *watchChaos {
	minEvents := rapid.SampledFrom([]int{3, 100}).Draw(rt, "historyMinEvents")
	// The server runs on a fake clock that only Advance moves, so
	// rapid's shrink deadline (read from the bubble's clock) is not eaten
	// by the machine's virtual minutes. Interval
	// compaction is off (the Compact action compacts), as the fake
	// clock's ticker cannot be stopped cleanly.
	clk := clocktesting.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	b := newBubble(t, WithClock(clk), WithConfig(func(c *Config) {
		c.Watch.HistoryMinEvents = minEvents
		c.Watch.HistoryMinAge = -1
		c.Compaction.Interval = -1
		c.APIServers.Count = len(chaosInstances)
	}))
	b.cs = b.pinned(t, chaosInstances[0])
	m := &watchChaos{t: t, b: b, clk: clk, rec: &watchcheck.Transport{}, hist: map[string]watchcheck.History{}, live: map[string]map[string]string{}, minEvents: minEvents}
	b.http.Transport = m.rec.Wrap(wrap(b.http.Transport))
	if _, err := b.cs.CoreV1().Namespaces().Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "ns2"}}, metav1.CreateOptions{}); err != nil {
		rt.Fatalf("Create(namespace ns2): %v", err)
	}
	for _, r := range chaosResources {
		m.live[r] = map[string]string{}
	}
	return m
}

// chaosStats counts what the checks saw, so a run shows it exercised
// bookmarks, initial events and 410s rather than passing vacuously.
type chaosStats struct {
	streams                       int
	events, bookmarks, initialEnd int
	expired                       int
	// long counts the streams that delivered 3 or more changes after
	// their start point: the bugs of a stream's later events (an event
	// dropped, two swapped) show only on those.
	long int
}

func (cs *chaosStats) add(streams []watchcheck.Stream) {
	for _, s := range streams {
		cs.streams++
		if len(changesOf(s.Events)) >= 3 {
			cs.long++
		}
		for _, e := range s.Events {
			switch {
			case e.InitialEventsEnd:
				cs.initialEnd++
			case e.Type == watch.Bookmark:
				cs.bookmarks++
			case e.Type == watch.Error && e.Code == 410:
				cs.expired++
			default:
				cs.events++
			}
		}
	}
}

// close stops every watch and the server.
func (m *watchChaos) close() {
	for _, w := range m.watches {
		w.w.stop()
	}
	m.b.close(m.t)
	synctest.Wait()
	// Each check moves the bubble's clock on, so rapid's 30 s shrink
	// budget (read from that clock) bounds a shrink to some hundreds of
	// checks even when the failing schedule has no Advance left (a 410
	// mutant shrinks to a write, a compaction and a watch).
	time.Sleep(100 * time.Millisecond)
}

// Write makes a burst of writes (rapid picks actions uniformly, and the
// watches need changes to deliver).
func (m *watchChaos) Write(rt *rapid.T) {
	for range rapid.IntRange(1, 4).Draw(rt, "burst") {
		m.write(rt)
	}
}

// write creates, relabels or deletes one object of a random resource.
func (m *watchChaos) write(rt *rapid.T) {
	res := rapid.SampledFrom(chaosResources).Draw(rt, "resource")
	ns := rapid.SampledFrom(chaosNamespaces).Draw(rt, "namespace")
	name := rapid.SampledFrom([]string{"a", "b", "c"}).Draw(rt, "name")
	key := ns + "/" + name
	lbls := map[string]string{"app": rapid.SampledFrom([]string{"x", "y"}).Draw(rt, "app")}
	uid, exists := m.live[res][key]
	ctx := context.Background()
	change := watchcheck.Change{Key: key, Labels: lbls}
	var meta metav1.Object
	var err error
	switch {
	case exists && rapid.IntRange(0, 2).Draw(rt, "delete") == 0:
		if res == "configmaps" {
			err = m.b.cs.CoreV1().ConfigMaps(ns).Delete(ctx, name, metav1.DeleteOptions{})
		} else {
			err = m.b.cs.CoreV1().Secrets(ns).Delete(ctx, name, metav1.DeleteOptions{})
		}
		if err != nil {
			rt.Fatalf("Delete(%s %s): %v", res, key, err)
		}
		// The machine is the only writer: the delete took the current RV.
		var prev watchcheck.Change
		for _, c := range m.hist[res] {
			if c.Key == key {
				prev = c
			}
		}
		change = watchcheck.Change{RV: m.b.srv.store.CurrentRV(), Key: key, UID: uid, Deleted: true, Labels: prev.Labels, Fields: prev.Fields}
		delete(m.live[res], key)
		m.hist[res] = append(m.hist[res], change)
		return
	case res == "configmaps":
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: lbls}, Data: map[string]string{"n": strconv.Itoa(m.gen)}}
		if exists {
			meta, err = m.b.cs.CoreV1().ConfigMaps(ns).Update(ctx, cm, metav1.UpdateOptions{})
		} else {
			meta, err = m.b.cs.CoreV1().ConfigMaps(ns).Create(ctx, cm, metav1.CreateOptions{})
		}
	default:
		// A Secret's type is a per-kind field label, and immutable: it
		// changes only from one life of a name to the next.
		typ := rapid.SampledFrom([]corev1.SecretType{corev1.SecretTypeOpaque, "example.com/x"}).Draw(rt, "secretType")
		for _, c := range m.hist[res] {
			if exists && c.Key == key {
				typ = corev1.SecretType(c.Fields["type"])
			}
		}
		sec := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: lbls}, Type: typ, StringData: map[string]string{"n": strconv.Itoa(m.gen)}}
		if exists {
			meta, err = m.b.cs.CoreV1().Secrets(ns).Update(ctx, sec, metav1.UpdateOptions{})
		} else {
			meta, err = m.b.cs.CoreV1().Secrets(ns).Create(ctx, sec, metav1.CreateOptions{})
		}
	}
	m.gen++
	if err != nil {
		rt.Fatalf("write %s %s: %v", res, key, err)
	}
	rv, _ := strconv.ParseInt(meta.GetResourceVersion(), 10, 64)
	change.RV, change.UID = rv, string(meta.GetUID())
	change.Labels = maps.Clone(meta.GetLabels())
	change.Fields = watchcheck.FieldsOfObject(meta.(runtime.Object))
	m.live[res][key] = change.UID
	m.hist[res] = append(m.hist[res], change)
}

// Watch opens a watch of a random resource and scope from a random start
// point: "" or "0", the current RV, an RV of the history (maybe compacted
// away: then the 410), or a watch-list (sendInitialEvents).
func (m *watchChaos) Watch(rt *rapid.T) {
	res := rapid.SampledFrom(chaosResources).Draw(rt, "resource")
	path := "/api/v1/" + res
	if ns := rapid.SampledFrom([]string{"", "default", "ns2"}).Draw(rt, "scope"); ns != "" {
		path = "/api/v1/namespaces/" + ns + "/" + res
	}
	q := url.Values{"watch": {"true"}}
	// An explicit timeout: the default is randomised, which a replay
	// could not repeat.
	q.Set("timeoutSeconds", strconv.Itoa(rapid.SampledFrom([]int{90, 600, 1800}).Draw(rt, "timeout")))
	if rapid.Bool().Draw(rt, "selector") {
		q.Set("labelSelector", "app=x")
	}
	// Field selectors: the metadata fields every kind has, and a
	// Secret's type.
	fieldSelectors := []string{"", "", "metadata.name=a", "metadata.namespace=default,metadata.name!=b"}
	if res == "secrets" {
		fieldSelectors = append(fieldSelectors, "type=example.com/x", "type!=example.com/x")
	}
	if f := rapid.SampledFrom(fieldSelectors).Draw(rt, "fieldSelector"); f != "" {
		q.Set("fieldSelector", f)
	}
	bookmarks := rapid.Bool().Draw(rt, "bookmarks")
	cw := &chaosWatch{base: m.b.srv.store.CurrentRV(), instance: rapid.SampledFrom(chaosInstances).Draw(rt, "instance")}
	// A stale cache holds a watch's changes back until it heals: no
	// liveness check for the watches it serves.
	cw.faulted = cw.instance != chaosInstances[0] && m.instStale
	switch start := rapid.SampledFrom([]string{"unset", "0", "current", "history", "watchList"}).Draw(rt, "start"); start {
	case "0":
		q.Set("resourceVersion", "0")
	case "current":
		q.Set("resourceVersion", formatRV(cw.base))
		cw.expired = cw.base < m.resumeFloorOn(res, cw.instance)
	case "history":
		h := m.hist[res]
		if len(h) == 0 {
			rt.Skip("no history")
		}
		cw.base = h[rapid.IntRange(0, len(h)-1).Draw(rt, "from")].RV
		q.Set("resourceVersion", formatRV(cw.base))
		cw.expired = cw.base < m.resumeFloorOn(res, cw.instance)
	case "watchList":
		bookmarks = true
		q.Set("sendInitialEvents", "true")
		q.Set("resourceVersionMatch", "NotOlderThan")
		if h := m.hist[res]; len(h) > 0 && rapid.Bool().Draw(rt, "watchListRV") {
			q.Set("resourceVersion", formatRV(h[rapid.IntRange(0, len(h)-1).Draw(rt, "from")].RV))
		}
	}
	if bookmarks {
		q.Set("allowWatchBookmarks", "true")
	}
	cw.bookmarks = bookmarks
	req, err := http.NewRequest(http.MethodGet, m.b.srv.URL()+path+"?"+q.Encode(), nil)
	if err != nil {
		rt.Fatal(err)
	}
	req.Header.Set(APIServerHeader, cw.instance)
	cw.w = m.b.openWatchRequest(nopCleanup{m.t}, req)
	if cw.w.resp.StatusCode != 200 {
		rt.Fatalf("WATCH %s?%s: HTTP %d", path, q.Encode(), cw.w.resp.StatusCode)
	}
	m.watches = append(m.watches, cw)
}

// resumeFloor is the model of the watch window (watch_window.go, after
// the cacher's watch_cache_history.go): the RV below which a watch of res
// gets the 410. Nothing older than the last compaction or restart is
// served; and of the events after the compaction, the window holds the
// newest minEvents (the machine turns the age rule off).
func (m *watchChaos) resumeFloor(res string) int64 {
	floor := max(m.compacted, m.restart)
	var retained []int64
	for _, c := range m.hist[res] {
		if c.RV > m.compacted {
			retained = append(retained, c.RV)
		}
	}
	if n := len(retained); n > m.minEvents {
		floor = max(floor, retained[n-m.minEvents]-1)
	}
	return floor
}

// resumeFloorOn is resumeFloor on one instance: no watch resumes below
// its last restart either.
func (m *watchChaos) resumeFloorOn(res, instance string) int64 {
	floor := m.resumeFloor(res)
	if instance != chaosInstances[0] {
		floor = max(floor, m.instRestart)
	}
	return floor
}

// Instance faults the second apiserver instance: its cache lags a few
// writes or freezes (its watches then wait for it, and stay out of the
// liveness checks), heals, or the instance restarts (its watches end, and
// no watch resumes on it below the current RV).
func (m *watchChaos) Instance(rt *rapid.T) {
	name := chaosInstances[1]
	var err error
	switch rapid.SampledFrom([]string{"lag", "freeze", "heal", "restart"}).Draw(rt, "instanceFault") {
	case "lag":
		err = m.b.srv.LagAPIServer(name, APIServerLag{Events: int64(rapid.IntRange(1, 3).Draw(rt, "lag"))})
		m.instStale = true
	case "freeze":
		err = m.b.srv.FreezeAPIServer(name, true)
		m.instStale = true
	case "heal":
		err = m.b.srv.HealAPIServer(name)
		m.instStale = false
	case "restart":
		m.instRestart = m.b.srv.store.CurrentRV()
		_, err = m.b.srv.RestartAPIServer(name)
	}
	if err != nil {
		rt.Fatalf("fault on %s: %v", name, err)
	}
	if m.instStale {
		for _, w := range m.watches {
			if w.instance == name {
				w.faulted = true
			}
		}
	}
	synctest.Wait()
}

// Advance moves virtual time on: bookmarks fall due, timeouts and fault
// windows end.
func (m *watchChaos) Advance(rt *rapid.T) {
	d := rapid.SampledFrom([]time.Duration{time.Second, 10 * time.Second, 61 * time.Second, 61 * time.Second, 5 * time.Minute}).Draw(rt, "advance")
	m.clk.Step(d)
	// The bubble's clock moves a little too: rapid reads it for its
	// 30 s shrink budget, which this spreads over some thousands of
	// advances (with a still clock a failure would shrink unbounded).
	time.Sleep(10 * time.Millisecond)
	synctest.Wait()
	if d >= bookmarkInterval {
		// Every watch open throughout had its bookmark timer fire,
		// with no write since: a bookmark at the current RV was due.
		rv := m.b.srv.store.CurrentRV()
		for _, w := range m.watches {
			w.dueRV = rv
		}
	}
}

// bookmarkInterval is the server's default, which the machine runs with.
const bookmarkInterval = time.Minute

// Compact compacts the store at a random RV of a resource's history.
func (m *watchChaos) Compact(rt *rapid.T) {
	h := m.hist[rapid.SampledFrom(chaosResources).Draw(rt, "resource")]
	if len(h) == 0 {
		rt.Skip("no history")
	}
	rv := h[rapid.IntRange(0, len(h)-1).Draw(rt, "compactTo")].RV
	if err := m.b.srv.Compact(rv); err != nil {
		rt.Fatalf("Compact: %v", err)
	}
	m.compacted = max(m.compacted, rv)
}

// Fault injects a fault of the fault API: a stream fault on the open
// streams (some last a window of virtual time), or a kube-apiserver
// restart, which ends every watch. A restart is one fault kind among
// several rather than an action of its own: as an action it came every
// sixth step, so few watches lived through more than a write or two,
// and a bug that shows only on a stream's third change was found late
// (the "an event dropped" mutant at check 232 in one search).
func (m *watchChaos) Fault(rt *rapid.T) {
	f := faults.Fault{Kind: rapid.SampledFrom([]faults.Kind{faults.CutWatch, faults.EndWatch, faults.HangWatch, faults.DelayEvents, faults.WithholdBookmarks, faults.Restart}).Draw(rt, "fault")}
	if f.Kind == faults.Restart {
		if _, err := m.b.srv.Faults().RestartAPIServer(); err != nil {
			rt.Fatalf("RestartAPIServer: %v", err)
		}
		m.restart = m.b.srv.store.CurrentRV()
		return
	}
	if rapid.Bool().Draw(rt, "afterEvents") {
		f.Trigger.Events = rapid.IntRange(1, 3).Draw(rt, "events")
	}
	switch f.Kind {
	case faults.HangWatch, faults.WithholdBookmarks:
		f.Window = faults.Duration(rapid.SampledFrom([]time.Duration{10 * time.Second, 2 * time.Minute}).Draw(rt, "window"))
	case faults.DelayEvents:
		f.Delay = faults.Duration(5 * time.Second)
		f.Window = faults.Duration(time.Minute)
	}
	if _, err := m.b.srv.Faults().Add(f); err != nil {
		rt.Fatalf("Add(%+v): %v", f, err)
	}
	switch f.Kind {
	case faults.WithholdBookmarks:
		for _, w := range m.watches {
			w.withheld = true
		}
		return
	case faults.CutWatch, faults.EndWatch:
		// Withheld bookmarks lose no change event (above), and a cut
		// or an end ends the stream it hits right after the events
		// before it: a stream such a fault attached to is either over
		// or has delivered every change, so it stays under the
		// liveness checks.
		return
	}
	for _, w := range m.watches {
		w.faulted = true
	}
}

// Check runs at every quiescent point: every stream served keeps the
// guarantees, and every open, untouched stream has delivered all of its
// history.
func (m *watchChaos) Check(rt *rapid.T) {
	synctest.Wait()
	streams := m.rec.Streams()
	if len(streams) != len(m.watches) || m.rec.Skipped() != 0 {
		rt.Fatalf("recorded %d streams (%d skipped) for %d watches", len(streams), m.rec.Skipped(), len(m.watches))
	}
	// The guarantees of every stream first, then liveness: a broken
	// guarantee is the more precise report.
	for _, s := range streams {
		h := m.hist[s.Resource]
		if err := watchcheck.Check(h, s); err != nil {
			rt.Fatalf("history of %s:\n%s\n%v", s.Resource, formatHistory(h), err)
		}
	}
	for i, s := range streams {
		m.checkExpiry(rt, m.watches[i], s)
	}
	for i, s := range streams {
		h := m.hist[s.Resource]
		if m.watches[i].faulted || isDone(m.watches[i].w) {
			continue
		}
		m.checkBookmarked(rt, m.watches[i], s)
		want, ok := watchcheck.Expected(h, s)
		if !ok {
			continue
		}
		got := changesOf(s.Events)
		if diff := cmp.Diff(want, got, cmpopts.EquateEmpty(), cmpopts.IgnoreFields(watchcheck.Event{}, "Labels", "Fields")); diff != "" {
			rt.Fatalf("open stream %s is not caught up at a quiescent point (-want +got):\n%s", s.Name, diff)
		}
	}
	if n := m.b.srv.WatchStats().StaleDropped; n != 0 {
		rt.Fatalf("WatchStats.StaleDropped = %d", n)
	}
}

// checkExpiry: a watch gets the 410 "too old resource version" ERROR, as
// its first and only event, exactly when the model says its start RV was
// out of the watch window (the ERROR is written as the watch opens, so it
// is there at the next quiescent point). Neither a 410 for an RV the
// window holds nor a stream that serves an expired RV is caught by the
// guarantees: an ERROR may end any stream, and an empty one shows no gap.
func (m *watchChaos) checkExpiry(rt *rapid.T, w *chaosWatch, s watchcheck.Stream) {
	got410 := slices.ContainsFunc(s.Events, func(e watchcheck.Event) bool { return e.Type == watch.Error && e.Code == 410 })
	switch {
	case w.expired && (len(s.Events) != 1 || !got410):
		rt.Fatalf("stream %s from rv %d, below the window's floor, delivered %+v; want the 410 ERROR alone (expired)", s.Name, w.base, s.Events)
	case !w.expired && got410:
		rt.Fatalf("stream %s from rv %d, which the window holds, got the 410 ERROR (expired); events %+v", s.Name, w.base, s.Events)
	}
}

// checkBookmarked: an open stream with bookmarks, untouched by faults
// that stall it or withhold bookmarks, was sent a bookmark when its timer
// fired, so it has delivered everything up to the RV that was current
// then (the bookmarks are live, not just safe when they come).
func (m *watchChaos) checkBookmarked(rt *rapid.T, w *chaosWatch, s watchcheck.Stream) {
	if !w.bookmarks || w.withheld || w.dueRV == 0 {
		return
	}
	reached := w.base
	for _, e := range s.Events {
		reached = max(reached, e.RV)
	}
	if reached < w.dueRV {
		rt.Fatalf("open stream %s with bookmarks reached rv %d after a bookmark interval, want rv %d (bookmarked); events %+v", s.Name, reached, w.dueRV, s.Events)
	}
}

// changesOf are the change events after the start point (after an
// initial-events-end bookmark, if any).
func changesOf(events []watchcheck.Event) []watchcheck.Event {
	if i := slices.IndexFunc(events, func(e watchcheck.Event) bool { return e.InitialEventsEnd }); i >= 0 {
		events = events[i+1:]
	}
	var out []watchcheck.Event
	for _, e := range events {
		if e.Type == watch.Added || e.Type == watch.Modified || e.Type == watch.Deleted {
			out = append(out, e)
		}
	}
	return out
}

func isDone(w *rawWatch) bool {
	select {
	case <-w.done:
		return true
	default:
		return false
	}
}

func formatHistory(h watchcheck.History) string {
	s := ""
	for _, c := range h {
		s += fmt.Sprintf("  rv %d %s uid %s deleted=%v labels=%v\n", c.RV, c.Key, c.UID, c.Deleted, c.Labels)
	}
	return s
}

// nopCleanup is a testing.TB whose Cleanup does nothing: the machine stops
// its watches itself at the end of each check, not at the end of the test.
type nopCleanup struct{ testing.TB }

func (nopCleanup) Cleanup(func()) {}

func noWrap(rt http.RoundTripper) http.RoundTripper { return rt }

// inBubble hides testing.T's Deadline from rapid, which reads it to bound
// its run and panics inside a synctest bubble (virtual time has no
// deadline to compare with).
type inBubble struct{ testing.TB }

// TestRapidWatchChaos runs the machine; every check is one run on a fresh
// server, all in one synctest bubble.
func TestRapidWatchChaos(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var stats chaosStats
		rapid.Check(inBubble{t}, func(rt *rapid.T) {
			m := newWatchChaos(t, rt, noWrap)
			defer m.close()
			rt.Repeat(rapid.StateMachineActions(m))
			stats.add(m.rec.Streams())
		})
		t.Logf("checked %d streams (%d with 3 or more changes after their start): %d change events, %d bookmarks, %d initial-events-end bookmarks, %d expired", stats.streams, stats.long, stats.events, stats.bookmarks, stats.initialEnd, stats.expired)
		if stats.bookmarks == 0 || stats.initialEnd == 0 || stats.expired == 0 {
			t.Errorf("the machine never exercised bookmarks, watch-lists or 410s: %+v", stats)
		}
	})
}
