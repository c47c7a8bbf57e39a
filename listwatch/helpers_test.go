package listwatch

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"

	"github.com/lw-sim/lw-sim/fakeapiserver"
	"github.com/lw-sim/lw-sim/internal/kubewire"
	"github.com/lw-sim/lw-sim/internal/testdeadline"
)

// fastBackoff keeps fault tests on the real clock fast: 1 ms doubling to
// 20 ms. Backoff shapes are tested on a fake clock (backoff_test.go).
var fastBackoff = wait.Backoff{Duration: time.Millisecond, Factor: 2, Jitter: 1, Steps: 1 << 20, Cap: 20 * time.Millisecond}

// tb is the part of testing.TB that checks use, so rapid.T can run them.
type tb interface {
	Helper()
	Errorf(format string, args ...any)
	Fatalf(format string, args ...any)
	Logf(format string, args ...any)
}

// env is a fake apiserver, a clientset, the configmaps of one namespace
// behind a fault wrapper, and an oracle watch that records the server's
// history of that collection.
type env struct {
	t      tb
	tt     testing.TB // for Cleanup; the same test as t outside rapid
	srv    *fakeapiserver.Server
	cs     kubernetes.Interface
	ns     string
	lw     *faultLW
	oracle *oracle
	seq    int
	writes int // writes made, each one event in the collection
}

func newEnv(t testing.TB) *env {
	t.Helper()
	srv := fakeapiserver.Start(t)
	e := &env{t: t, tt: t, srv: srv, cs: srv.Clientset(), ns: "default"}
	e.lw = &faultLW{inner: FromTyped(e.cs.CoreV1().ConfigMaps(e.ns)), srv: srv}
	e.oracle = startOracle(t, e.cs, e.ns)
	return e
}

// create, update and del write through the clientset (real HTTP).
func (e *env) create(name string) {
	e.t.Helper()
	e.writes++
	e.seq++
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}, Data: map[string]string{"v": strconv.Itoa(e.seq)}}
	if _, err := e.cs.CoreV1().ConfigMaps(e.ns).Create(context.Background(), cm, metav1.CreateOptions{}); err != nil {
		e.t.Fatalf("Create(%s) = %v", name, err)
	}
}

func (e *env) update(name string) {
	e.t.Helper()
	e.writes++
	e.seq++
	// An empty resourceVersion is an unconditional update for core types.
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}, Data: map[string]string{"v": strconv.Itoa(e.seq)}}
	if _, err := e.cs.CoreV1().ConfigMaps(e.ns).Update(context.Background(), cm, metav1.UpdateOptions{}); err != nil {
		e.t.Fatalf("Update(%s) = %v", name, err)
	}
}

func (e *env) del(name string) {
	e.t.Helper()
	e.writes++
	if err := e.cs.CoreV1().ConfigMaps(e.ns).Delete(context.Background(), name, metav1.DeleteOptions{}); err != nil {
		e.t.Fatalf("Delete(%s) = %v", name, err)
	}
}

// serverState is the server's current collection: key → RV and data.
func (e *env) serverState() (map[string]string, uint64) {
	e.t.Helper()
	l, err := e.cs.CoreV1().ConfigMaps(e.ns).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		e.t.Fatalf("List = %v", err)
	}
	objs := make([]any, len(l.Items))
	for i := range l.Items {
		objs[i] = &l.Items[i]
	}
	rv, _ := strconv.ParseUint(l.ResourceVersion, 10, 64)
	return stateOf(objs), rv
}

// compact makes every RV up to the server's current one unreadable, once
// the oracle has seen all of history. It uses the fake's Server.Compact when
// the fake has it, else simulates compaction in the fault wrapper.
func (e *env) compact() {
	e.t.Helper()
	_, rv := e.serverState()
	e.oracle.waitFor(e.t, e.writes)
	if c, ok := any(e.srv).(interface{ Compact(int64) error }); ok {
		if err := c.Compact(int64(rv)); err != nil {
			e.t.Fatalf("Compact(%d) = %v", rv, err)
		}
		return
	}
	e.lw.mu.Lock()
	e.lw.floor = rv
	e.lw.mu.Unlock()
}

// stateOf maps objects to "key" → "rv data", for go-cmp.
func stateOf(objs []any) map[string]string {
	m := map[string]string{}
	for _, o := range objs {
		cm := o.(*corev1.ConfigMap)
		m[cm.Namespace+"/"+cm.Name] = cm.ResourceVersion + " " + cm.Data["v"]
	}
	return m
}

// waitConverged waits until store equals the server's state (guarantee 1)
// and fails with a go-cmp diff if it never does.
func (e *env) waitConverged(store cache.Store) {
	e.t.Helper()
	var diff string
	hung, cancel := testdeadline.BinaryContext() // only a hang fails the wait
	defer cancel()
	for hung.Err() == nil {
		want, _ := e.serverState()
		if diff = cmp.Diff(want, stateOf(store.List())); diff == "" {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	e.t.Fatalf("store != server state before the test's deadline (-server +store):\n%s", diff)
}

// faultLW wraps a ListerWatcher to count requests and inject faults: cut
// every open watch, hold new watches, fail the next watches with an error or
// an ERROR event, refuse watch-lists, run a hook before each LIST page, and
// simulate compaction (for a fake without Server.Compact).
//
// It predates the fake's fault API; faults_test.go and
// faults_schedule_test.go inject through Server.InjectFault instead, over
// real HTTP. The wrapper is still needed for what that API cannot express:
//   - a 410 Expired HTTP error at watch connect (the fake, like
//     kube-apiserver, answers an expired watch with 200 and an ERROR event);
//   - 4xx refusals: FailRequest takes only 429, 500, 503 and 504, so a 403
//     on re-watch (TestRefusedResumeRelists) and a 400 refusing watch-list
//     (TestWatchListFallsBackWhenRefused) stay here;
//   - a 5xx ERROR event inside a watch stream (TestTransientErrorsRewatch).
//
// TODO(issue 7): move cut, hold, compact and beforePage users
// (TestWatchResumesAfterCutWithoutRelist, TestExpiredContinueFallsBackToFullList,
// TestRelistAfter410/error-event, guarantees_test.go, rapid_test.go) to
// CutWatch, HangWatch+Remove, CompactStore and Latency on page 2; the fault
// tests already cover those branches through the fault API.
type faultLW struct {
	inner ListerWatcher
	srv   *fakeapiserver.Server

	// mu guards the fields below.
	mu sync.Mutex
	// lists counts LIST calls that start a list (no continue token),
	// including the pager's full re-list; pages counts every LIST call.
	lists, pages int
	// watches counts WATCH calls; watchLists those with sendInitialEvents.
	watches, watchLists int
	open                []watch.Interface
	held                chan struct{} // non-nil: Watch waits until closed
	watchErrs           []error
	eventErrs           []*metav1.Status
	refuseWatchList     bool
	beforePage          func(page int)
	floor               uint64
}

var _ ListerWatcher = (*faultLW)(nil)

func (f *faultLW) List(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
	f.mu.Lock()
	f.pages++
	if opts.Continue == "" {
		f.lists++
	}
	hook, floor := f.beforePage, f.floor
	f.mu.Unlock()
	if hook != nil && opts.Continue != "" {
		hook(2)
	}
	if floor > 0 && opts.Continue != "" && continueRV(opts.Continue) < floor {
		return nil, apierrors.NewResourceExpired("The provided continue parameter is too old (simulated compaction)")
	}
	return f.inner.List(ctx, opts)
}

func (f *faultLW) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	f.mu.Lock()
	f.watches++
	isWatchList := opts.SendInitialEvents != nil && *opts.SendInitialEvents
	if isWatchList {
		f.watchLists++
	}
	held := f.held
	f.mu.Unlock()
	if held != nil {
		select {
		case <-held:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if isWatchList && f.refuseWatchList {
		return nil, apierrors.NewBadRequest("sendInitialEvents is not supported (simulated)")
	}
	if len(f.watchErrs) > 0 {
		err := f.watchErrs[0]
		f.watchErrs = f.watchErrs[1:]
		return nil, err
	}
	rv, _ := strconv.ParseUint(opts.ResourceVersion, 10, 64)
	if len(f.eventErrs) > 0 || (f.floor > 0 && rv > 0 && rv < f.floor) {
		st := &metav1.Status{Status: metav1.StatusFailure, Code: 410, Reason: metav1.StatusReasonExpired,
			Message: fmt.Sprintf("too old resource version: %d (%d)", rv, f.floor)}
		if len(f.eventErrs) > 0 {
			st, f.eventErrs = f.eventErrs[0], f.eventErrs[1:]
		}
		return errorWatch(st), nil
	}
	w, err := f.inner.Watch(ctx, opts)
	if err == nil {
		f.open = append(f.open, w)
	}
	return w, err
}

// cut stops every open watch: the client sees its stream close, as after a
// connection reset or a server-side timeout.
func (f *faultLW) cut() {
	f.mu.Lock()
	open := f.open
	f.open = nil
	f.mu.Unlock()
	for _, w := range open {
		w.Stop()
	}
}

// hold makes new Watch calls wait until release.
func (f *faultLW) hold() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.held = make(chan struct{})
}

func (f *faultLW) release() {
	f.mu.Lock()
	defer f.mu.Unlock()
	close(f.held)
	f.held = nil
}

// counts returns (lists, watches, watchLists).
func (f *faultLW) counts() (int, int, int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.lists, f.watches, f.watchLists
}

// waitWatches waits until at least n WATCH calls were made and the last is
// open (or failed).
func (f *faultLW) waitWatches(t tb, n int) {
	t.Helper()
	waitUntil(t, fmt.Sprintf("%d watches", n), func() bool {
		f.mu.Lock()
		defer f.mu.Unlock()
		return f.watches >= n
	})
}

// errorWatch is a watch whose only event is an ERROR carrying st.
func errorWatch(st *metav1.Status) watch.Interface {
	ch := make(chan watch.Event, 1)
	ch <- watch.Event{Type: watch.Error, Object: st}
	close(ch)
	return watch.NewProxyWatcher(ch)
}

// continueRV decodes the RV of a continue token; 0 for none or rv -1.
func continueRV(token string) uint64 {
	c, err := kubewire.ParseContinue(token)
	if err != nil || c.RV < 0 {
		return 0
	}
	return uint64(c.RV)
}

// waitUntil polls cond until it holds; only a hang, one that would
// outlast the test binary (testdeadline), fails it.
func waitUntil(t tb, what string, cond func() bool) {
	t.Helper()
	hung, cancel := testdeadline.BinaryContext()
	defer cancel()
	for !cond() {
		if hung.Err() != nil {
			t.Fatalf("still waiting for %s at the test's deadline", what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// oracle records every event of one collection from a watch that starts
// before the test writes anything: the server's history, to check
// guarantee 3 against.
type oracle struct {
	stop func()
	// mu guards the fields below.
	mu     sync.Mutex
	events []watch.Event
}

func startOracle(t testing.TB, cs kubernetes.Interface, ns string) *oracle {
	t.Helper()
	l, err := cs.CoreV1().ConfigMaps(ns).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatalf("oracle: List = %v", err)
	}
	w, err := cs.CoreV1().ConfigMaps(ns).Watch(context.Background(), metav1.ListOptions{ResourceVersion: l.ResourceVersion})
	if err != nil {
		t.Fatalf("oracle: Watch = %v", err)
	}
	o := &oracle{}
	var wg sync.WaitGroup
	wg.Go(func() {
		for ev := range w.ResultChan() {
			o.mu.Lock()
			o.events = append(o.events, ev)
			o.mu.Unlock()
		}
	})
	o.stop = func() { w.Stop(); wg.Wait() }
	t.Cleanup(o.stop)
	return o
}

// waitFor waits until the oracle saw n events.
func (o *oracle) waitFor(t tb, n int) {
	t.Helper()
	waitUntil(t, fmt.Sprintf("oracle to see %d events", n), func() bool {
		o.mu.Lock()
		defer o.mu.Unlock()
		return len(o.events) >= n
	})
}

// version is one object version in the server's history: current from rv
// until end (the RV of the key's next event; 0 = still current).
type version struct {
	key     string
	rv, end uint64
}

// versions turns the oracle's history into versions.
func (o *oracle) versions() []version {
	o.mu.Lock()
	defer o.mu.Unlock()
	var out []version
	last := map[string]int{} // key → index in out of its current version
	for _, ev := range o.events {
		key, _ := cache.MetaNamespaceKeyFunc(ev.Object)
		rv, _ := objRV(ev.Object)
		if i, ok := last[key]; ok {
			out[i].end = rv
			delete(last, key)
		}
		if ev.Type == watch.Added || ev.Type == watch.Modified {
			last[key] = len(out)
			out = append(out, version{key: key, rv: rv})
		}
	}
	return out
}

func objRV(obj runtime.Object) (uint64, error) {
	acc, err := meta.Accessor(obj)
	if err != nil {
		return 0, err
	}
	return strconv.ParseUint(acc.GetResourceVersion(), 10, 64)
}

// delivery is one handler call seen by a recorder.
type delivery struct {
	Kind string // add, update, delete, tombstone
	RV   uint64
}

// recorder is a cache.ResourceEventHandler that records every call per key.
type recorder struct {
	// mu guards the fields below.
	mu    sync.Mutex
	byKey map[string][]delivery
}

func newRecorder() *recorder { return &recorder{byKey: map[string][]delivery{}} }

var _ cache.ResourceEventHandler = (*recorder)(nil)

func (r *recorder) OnAdd(obj any, _ bool) { r.record(obj, "add") }
func (r *recorder) OnUpdate(_, obj any)   { r.record(obj, "update") }
func (r *recorder) OnDelete(obj any)      { r.record(obj, "delete") }

func (r *recorder) record(obj any, kind string) {
	if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj, kind = t.Obj, "tombstone"
	}
	o := obj.(runtime.Object)
	key, _ := cache.MetaNamespaceKeyFunc(o)
	rv, _ := objRV(o)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.byKey[key] = append(r.byKey[key], delivery{Kind: kind, RV: rv})
}

// checkOrder checks guarantee 2 on what the handler saw: per key, versions
// in strictly increasing RV order (so each at most once); a tombstone
// repeats the last delivered version and ends it. It returns how many
// deliveries repeated the previous version's RV; with strict set, each one
// is an error.
func (r *recorder) checkOrder(t tb, strict bool) (repeats int) {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	for key, ds := range r.byKey {
		var last delivery
		for i, d := range ds {
			switch {
			case d.Kind == "tombstone" && (i == 0 || d.RV != last.RV || last.Kind == "delete" || last.Kind == "tombstone"):
				t.Errorf("%s: tombstone at rv %d does not close the last delivery %+v (all: %+v)", key, d.RV, last, ds)
			case d.Kind != "tombstone" && i > 0 && d.RV == last.RV && last.Kind != "delete" && last.Kind != "tombstone":
				repeats++
				if strict {
					t.Errorf("%s: version at rv %d delivered twice (all: %+v)", key, d.RV, ds)
				}
			case d.Kind != "tombstone" && i > 0 && d.RV <= last.RV:
				t.Errorf("%s: delivery %+v not after %+v (all: %+v)", key, d, last, ds)
			}
			last = d
		}
	}
	return repeats
}

// waitCaughtUp waits until the handler's deliveries add up to store's
// contents. A client updates its store before it calls the handler (a
// relist replaces the store, then delivers what changed), so a check
// that reads the deliveries as soon as the store has converged can catch
// the client between the two; it fails with a go-cmp diff if the handler
// never catches up.
func (r *recorder) waitCaughtUp(t tb, store cache.Store) {
	t.Helper()
	var diff string
	hung, cancel := testdeadline.BinaryContext() // only a hang fails the wait
	defer cancel()
	for hung.Err() == nil {
		if diff = cmp.Diff(rvsOf(stateOf(store.List())), r.view()); diff == "" {
			return
		}
		time.Sleep(2 * time.Millisecond)
	}
	t.Fatalf("handler deliveries never added up to the store before the test's deadline (-store +handler):\n%s", diff)
}

// checkNoLoss checks guarantee 3: every version current at some RV in held
// was delivered or superseded by a later delivery of the same key.
func (r *recorder) checkNoLoss(t tb, versions []version, held []uint64) {
	t.Helper()
	slices.Sort(held)
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, v := range versions {
		i, _ := slices.BinarySearch(held, v.rv)
		if i == len(held) || (v.end != 0 && held[i] >= v.end) {
			continue // the client never stood at an RV where v was current
		}
		if !slices.ContainsFunc(r.byKey[v.key], func(d delivery) bool { return d.RV >= v.rv }) {
			t.Errorf("lost change: %s at rv %d (current until %d, client held rv %d) never delivered nor superseded; deliveries %+v",
				v.key, v.rv, v.end, held[i], r.byKey[v.key])
		}
	}
}

// traceLog collects a client's trace and the RVs it held.
type traceLog struct {
	// mu guards the fields below.
	mu     sync.Mutex
	events []TraceEvent
}

func (l *traceLog) add(e TraceEvent) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.events = append(l.events, e)
}

// held returns every RV the client held, in order, and fails if it ever
// went backwards (guarantee 2).
func (l *traceLog) held(t tb) []uint64 {
	t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []uint64
	for _, e := range l.events {
		rv, _ := strconv.ParseUint(e.RV, 10, 64)
		if n := len(out); n > 0 && rv < out[n-1] {
			t.Errorf("client RV went backwards: %d after %d at %v", rv, out[n-1], e)
		}
		if n := len(out); rv != 0 && (n == 0 || out[n-1] != rv) {
			out = append(out, rv)
		}
	}
	return out
}

func (l *traceLog) count(kind TraceKind) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, e := range l.events {
		if e.Kind == kind {
			n++
		}
	}
	return n
}

func (l *traceLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := ""
	for _, e := range l.events {
		s += e.String() + "\n"
	}
	return s
}

// runClient starts c.Run in a goroutine and stops and joins it at cleanup.
func runClient(t testing.TB, c *Client) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { c.Run(ctx) })
	t.Cleanup(func() { cancel(); wg.Wait() })
	waitUntil(t, "HasSynced", c.HasSynced)
}

// startClient builds a listwatch client over e's fault wrapper with a
// recorder and a trace log, runs it and waits for its first sync.
func (e *env) startClient(opts Options) (*Client, *recorder, *traceLog) {
	e.t.Helper()
	rec, log := newRecorder(), &traceLog{}
	opts.Handler, opts.Trace = rec, log.add
	if opts.Backoff == (wait.Backoff{}) {
		opts.Backoff = fastBackoff
	}
	c := New(e.lw, opts)
	runClient(e.tt, c)
	return c, rec, log
}
