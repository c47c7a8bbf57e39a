package listwatch

import (
	"context"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"

	"github.com/lw-sim/lw-sim/fakeapiserver"
	"github.com/lw-sim/lw-sim/fakeapiserver/fakeapiservertest"
	"github.com/lw-sim/lw-sim/faults"
)

// The fault tests (faults_test.go) run inside testing/synctest bubbles
// (STYLE 23): the fake apiserver, both clients and every HTTP connection
// (net.Pipe, through fakeapiservertest.PipeListener) live in the bubble, so
// backoffs, bookmark cadence, watch timeouts and hangs play out in virtual
// time and synctest.Wait tells when everything is idle. Faults are injected
// with the server's real fault API (Server.InjectFault, Server.Faults) and
// reach the clients as real HTTP responses and streams.

const (
	// writerAgent is the User-Agent of the test's own writes and reads;
	// faults never match it.
	writerAgent = "lw-sim-test-writer"
	// subjectAgent is the User-Agent of the client under test; faults match
	// it, so they hit the client and not the test.
	subjectAgent = "lw-sim-client-under-test"
	// faultNS is the namespace the clients list and watch.
	faultNS = "default"
	// convergeWithin bounds, in virtual time, how long a client may take to
	// converge once the faults are over: the largest backoff (30 s, doubled
	// by jitter) plus a watch timeout (10 min) with room to spare.
	convergeWithin = 15 * time.Minute
)

// subjectMatch selects the requests and streams of the client under test.
var subjectMatch = faults.Match{UserAgent: subjectAgent}

// watchMatch selects the client's watches; listMatch its LISTs.
var (
	watchMatch = faults.Match{UserAgent: subjectAgent, Verbs: []string{"watch"}}
	listMatch  = faults.Match{UserAgent: subjectAgent, Verbs: []string{"list"}}
)

// faultEnv is a fake apiserver serving in the current synctest bubble and a
// clientset for the test's own writes.
type faultEnv struct {
	t   *testing.T
	srv *fakeapiserver.Server
	rc  *rest.Config // over the pipe listener
	cs  kubernetes.Interface
	seq int
}

// startFaultEnv starts a server in the calling bubble; Cleanup (which
// synctest runs in the bubble, after the clients' cleanups registered
// later) closes it.
func startFaultEnv(t *testing.T) *faultEnv {
	t.Helper()
	srv, err := fakeapiserver.New(fakeapiserver.Config{})
	if err != nil {
		t.Fatalf("fakeapiserver.New: %v", err)
	}
	ln := fakeapiservertest.NewPipeListener()
	done := srv.ServeBackground(ln)
	t.Cleanup(func() {
		// Shutdown chain: Close ends every watch (hung ones too) and closes
		// every connection → Serve returns → the clients' transport read
		// loops see EOF and exit, so the bubble ends with no goroutine.
		if err := srv.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	rc := srv.RESTConfig()
	rc.Dial = ln.DialContext
	fe := &faultEnv{t: t, srv: srv, rc: rc}
	fe.cs = fe.clientset(writerAgent, 0)
	return fe
}

// clientset returns a clientset that sends agent as its User-Agent; a
// non-zero timeout is rest.Config.Timeout, the http.Client's deadline on
// every request, watches included.
func (fe *faultEnv) clientset(agent string, timeout time.Duration) kubernetes.Interface {
	fe.t.Helper()
	cfg := rest.CopyConfig(fe.rc)
	cfg.UserAgent, cfg.Timeout = agent, timeout
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		fe.t.Fatalf("NewForConfig: %v", err)
	}
	return cs
}

// create, update and del write one ConfigMap of ns through the API; each
// write gets a new "v" so go-cmp sees every version.
func (fe *faultEnv) create(ns, name string) string {
	fe.t.Helper()
	fe.seq++
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}, Data: map[string]string{"v": strconv.Itoa(fe.seq)}}
	got, err := fe.cs.CoreV1().ConfigMaps(ns).Create(context.Background(), cm, metav1.CreateOptions{})
	if err != nil {
		fe.t.Fatalf("Create(%s/%s) = %v", ns, name, err)
	}
	return got.ResourceVersion
}

func (fe *faultEnv) update(ns, name string) string {
	fe.t.Helper()
	fe.seq++
	// An empty resourceVersion is an unconditional update for core types.
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}, Data: map[string]string{"v": strconv.Itoa(fe.seq)}}
	got, err := fe.cs.CoreV1().ConfigMaps(ns).Update(context.Background(), cm, metav1.UpdateOptions{})
	if err != nil {
		fe.t.Fatalf("Update(%s/%s) = %v", ns, name, err)
	}
	return got.ResourceVersion
}

func (fe *faultEnv) del(ns, name string) {
	fe.t.Helper()
	if err := fe.cs.CoreV1().ConfigMaps(ns).Delete(context.Background(), name, metav1.DeleteOptions{}); err != nil {
		fe.t.Fatalf("Delete(%s/%s) = %v", ns, name, err)
	}
}

// createNamespace creates ns.
func (fe *faultEnv) createNamespace(ns string) {
	fe.t.Helper()
	if _, err := fe.cs.CoreV1().Namespaces().Create(context.Background(),
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		fe.t.Fatalf("Create(namespace %s) = %v", ns, err)
	}
}

// state is the server's current collection, as stateOf renders it.
func (fe *faultEnv) state() map[string]string {
	fe.t.Helper()
	l, err := fe.cs.CoreV1().ConfigMaps(faultNS).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		fe.t.Fatalf("List = %v", err)
	}
	objs := make([]any, len(l.Items))
	for i := range l.Items {
		objs[i] = &l.Items[i]
	}
	return stateOf(objs)
}

// diff compares s's store with the server's state.
func (fe *faultEnv) diff(s *subject) string {
	return cmp.Diff(fe.state(), stateOf(s.store.List()))
}

// converge lets virtual time run until s's store equals the server's state
// (guarantee 1) and returns how much virtual time that took; it fails with
// a go-cmp diff after within.
func (fe *faultEnv) converge(s *subject, within time.Duration) time.Duration {
	fe.t.Helper()
	start := time.Now()
	for step := time.Duration(0); ; step = min(max(2*step, 100*time.Millisecond), maxConvergeStep) {
		time.Sleep(step)
		synctest.Wait()
		d := fe.diff(s)
		if d == "" {
			return time.Since(start)
		}
		if time.Since(start) >= within {
			fe.t.Fatalf("%s: store != server state after %v of virtual time, calls %+v (-server +store):\n%s%s", s.name, within, s.lw.calls(), d, s.traceText())
		}
	}
}

// maxConvergeStep is the coarsest step of converge's polling of virtual
// time: fine enough to time a resume, coarse enough that a 30-minute wait
// costs a few hundred polls of wall time.
const maxConvergeStep = 5 * time.Second

// waitSynced lets virtual time run until s has synced.
func (fe *faultEnv) waitSynced(s *subject) {
	fe.t.Helper()
	start := time.Now()
	for synctest.Wait(); !s.synced(); synctest.Wait() {
		if time.Since(start) > convergeWithin {
			fe.t.Fatalf("%s: not synced after %v of virtual time%s", s.name, convergeWithin, s.traceText())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// recordsOf counts the server's fault records by kind.
func (fe *faultEnv) recordsOf() map[faults.Kind]int {
	out := map[faults.Kind]int{}
	for _, r := range fe.srv.Faults().Records() {
		out[r.Kind]++
	}
	return out
}

// fired is how often the fault id fired.
func (fe *faultEnv) fired(id string) int {
	for _, f := range fe.srv.Faults().Faults() {
		if f.ID == id {
			return f.Fired
		}
	}
	fe.t.Fatalf("no fault %s", id)
	return 0
}

// countLW counts the calls a client makes through a ListerWatcher. It
// injects nothing: the faults come from the server.
type countLW struct {
	inner ListerWatcher

	// mu guards the fields below.
	mu sync.Mutex
	// lists counts LISTs that start a list (no continue token), the pager's
	// full re-list included; watches counts WATCH calls, watchLists those
	// with sendInitialEvents.
	lists, watches, watchLists int
}

var _ ListerWatcher = (*countLW)(nil)

func (c *countLW) List(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
	if opts.Continue == "" {
		c.mu.Lock()
		c.lists++
		c.mu.Unlock()
	}
	return c.inner.List(ctx, opts)
}

func (c *countLW) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	c.mu.Lock()
	c.watches++
	if opts.SendInitialEvents != nil && *opts.SendInitialEvents {
		c.watchLists++
	}
	c.mu.Unlock()
	return c.inner.Watch(ctx, opts)
}

// calls is a snapshot of a countLW's counters.
type calls struct{ Lists, Watches, WatchLists int }

// syncs is how often the client fetched the whole collection.
func (c calls) syncs() int { return c.Lists + c.WatchLists }

func (c *countLW) calls() calls {
	c.mu.Lock()
	defer c.mu.Unlock()
	return calls{Lists: c.lists, Watches: c.watches, WatchLists: c.watchLists}
}

// subjectKind is which client a fault test runs.
type subjectKind string

const (
	// listwatchClient is this package's Client.
	listwatchClient subjectKind = "listwatch"
	// informerClient is client-go's SharedIndexInformer as it is by default
	// in v0.37: its Reflector syncs by watch-list (WatchListClient on).
	informerClient subjectKind = "informer"
	// informerListClient is the informer with watch-list hidden (as
	// KUBE_FEATURE_WatchListClient=false): LIST at RV "0", then WATCH.
	informerListClient subjectKind = "informer-list"
)

// subject is a client under test fed by the fake server over real HTTP.
type subject struct {
	name   subjectKind
	store  cache.Store
	rec    *recorder
	log    *traceLog // listwatch only: the informer has no trace
	lw     *countLW
	synced func() bool

	// mu guards the field below.
	mu sync.Mutex
	// errs are the errors the informer's Reflector ended ListAndWatch with.
	errs []error
}

func (s *subject) noteError(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.errs = append(s.errs, err)
}

// subjectOptions tunes startSubject.
type subjectOptions struct {
	// pageSize is listwatch's Options.PageSize.
	pageSize int64
	// timeout is the client's rest.Config.Timeout (0: none).
	timeout time.Duration
	// minWatchTimeout is listwatch's Options.MinWatchTimeout.
	minWatchTimeout time.Duration
}

// startSubject starts a client of kind on the namespace faultNS, with
// subjectAgent as its User-Agent; it does not wait for the first sync. The
// client is stopped and joined at Cleanup, before the server closes.
//
// listwatch runs with its defaults (DefaultBackoff, 5-10 min watches): in
// virtual time they cost nothing and keep the test honest.
func (fe *faultEnv) startSubject(kind subjectKind, so subjectOptions) *subject {
	fe.t.Helper()
	clw := &countLW{inner: FromTyped(fe.clientset(subjectAgent, so.timeout).CoreV1().ConfigMaps(faultNS))}
	s := &subject{name: kind, rec: newRecorder(), lw: clw}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	switch kind {
	case listwatchClient:
		s.log = &traceLog{}
		c := New(clw, Options{Handler: s.rec, Trace: s.log.add, PageSize: so.pageSize, MinWatchTimeout: so.minWatchTimeout})
		s.store, s.synced = c.Indexer(), c.HasSynced
		wg.Go(func() { c.Run(ctx) })
	default:
		var src cache.ListerWatcher = ToCache(clw)
		if kind == informerListClient {
			src = noWatchList{ToCache(clw)}
		}
		inf := cache.NewSharedIndexInformer(src, &corev1.ConfigMap{}, 0, cache.Indexers{})
		if _, err := inf.AddEventHandler(s.rec); err != nil {
			fe.t.Fatalf("AddEventHandler = %v", err)
		}
		// The default handler reports through utilruntime.HandleError,
		// whose rate limiter stamped real time at init; in a bubble,
		// where time starts in 2000, it sleeps for the difference (decades:
		// apimachinery runtime.go rudimentaryErrorBackoff.OnError sleeps
		// when the clock went backwards, despite its comment). Recording
		// the error keeps the Reflector's own backoff the only delay.
		if err := inf.SetWatchErrorHandlerWithContext(func(_ context.Context, _ *cache.Reflector, err error) {
			s.noteError(err)
		}); err != nil {
			fe.t.Fatalf("SetWatchErrorHandlerWithContext = %v", err)
		}
		s.store, s.synced = inf.GetStore(), inf.HasSynced
		wg.Go(func() { inf.RunWithContext(ctx) })
	}
	fe.t.Cleanup(func() { cancel(); wg.Wait() })
	return s
}

// noWatchList hides watch-list support from the Reflector, as
// KUBE_FEATURE_WatchListClient=false does for the whole process.
type noWatchList struct{ *cache.ListWatch }

func (noWatchList) IsWatchListSemanticsUnSupported() bool { return true }

// mark is a position in a subject's trace.
func (s *subject) mark() int {
	if s.log == nil {
		return 0
	}
	s.log.mu.Lock()
	defer s.log.mu.Unlock()
	return len(s.log.events)
}

// decisions are the run-loop decisions in s's trace from mark on: watch
// starts and ends, relists, backoffs, list errors, full lists and completed
// lists, each as "kind: reason" (reasons of watch-start carry the RV).
// Pages, applied events and bookmarks are left out.
func (s *subject) decisions(from int) []string {
	s.log.mu.Lock()
	defer s.log.mu.Unlock()
	var out []string
	for _, e := range s.log.events[from:] {
		switch e.Kind {
		case TraceWatchStart, TraceWatchEnd, TraceRelist, TraceBackoff, TraceFullList:
			out = append(out, string(e.Kind)+": "+e.Reason)
		case TraceListed, TraceListError, TraceFallback:
			out = append(out, string(e.Kind))
		}
	}
	return out
}

// traceText is s's trace for a failure message ("" for the informer).
func (s *subject) traceText() string {
	if s.log == nil {
		return ""
	}
	return "\ntrace:\n" + s.log.String()
}

// hasPrefixes reports whether got has len(want) entries, each starting with
// the matching entry of want (reasons end with error texts and RVs that a
// test does not pin).
func hasPrefixes(got, want []string) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if !strings.HasPrefix(got[i], want[i]) {
			return false
		}
	}
	return true
}

// snapshot returns a copy of the events so far.
func (l *traceLog) snapshot() []TraceEvent {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]TraceEvent(nil), l.events...)
}
