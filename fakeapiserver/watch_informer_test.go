package fakeapiserver

import (
	"context"
	"math/rand/v2"
	"net/http"
	"sort"
	"strconv"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/consistencydetector"
)

// init turns on client-go's watch-list consistency detector for this test
// binary, as KUBE_WATCHLIST_INCONSISTENCY_DETECTOR=true would: client-go
// reads that variable in its own init, before any code of this package runs,
// so setting the environment from a test is too late. With it, every
// watch-list a Reflector completes is followed by a LIST at the same RV
// with resourceVersionMatch=Exact, and client-go panics if they differ.
func init() {
	consistencydetector.SetDataConsistencyDetectionForWatchListEnabledForTest(true)
}

// noWatchList hides watch-list support from the Reflector, which is what
// KUBE_FEATURE_WatchListClient=false does for the whole process: it LISTs,
// then watches from the list's RV.
type noWatchList struct{ *cache.ListWatch }

func (noWatchList) IsWatchListSemanticsUnSupported() bool { return true }

// requestLog counts the requests a client makes, by kind.
type requestLog struct {
	rt http.RoundTripper
	mu sync.Mutex
	n  map[string]int
}

func (l *requestLog) RoundTrip(r *http.Request) (*http.Response, error) {
	q := r.URL.Query()
	kind := "list"
	switch {
	case q.Get("watch") == "true" && q.Get("sendInitialEvents") == "true":
		kind = "watch-list"
	case q.Get("watch") == "true":
		kind = "watch"
	case q.Get("resourceVersionMatch") == "Exact":
		kind = "list-exact"
	}
	l.mu.Lock()
	l.n[kind]++
	l.mu.Unlock()
	return l.rt.RoundTrip(r)
}

func (l *requestLog) count(kind string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.n[kind]
}

// rvGuard fails the test when an informer handler sees an object with an RV
// below one it already saw for that key.
type rvGuard struct {
	t    *testing.T
	mu   sync.Mutex
	last map[string]int64
}

func (g *rvGuard) see(obj any) {
	if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = d.Obj
	}
	m, err := meta.Accessor(obj)
	if err != nil {
		g.t.Errorf("handler got %T: %v", obj, err)
		return
	}
	rv, _ := strconv.ParseInt(m.GetResourceVersion(), 10, 64)
	g.mu.Lock()
	defer g.mu.Unlock()
	if rv < g.last[m.GetName()] {
		g.t.Errorf("handler saw %s at rv %d after rv %d", m.GetName(), rv, g.last[m.GetName()])
	}
	g.last[m.GetName()] = rv
}

// objState is what the convergence check compares.
type objState struct{ Name, RV, Data string }

func stateOf(objs []runtime.Object) []objState {
	var out []objState
	for _, o := range objs {
		cm := o.(*corev1.ConfigMap)
		out = append(out, objState{cm.Name, cm.ResourceVersion, cm.Data["k"]})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// TestWatchInformerConverges runs a SharedInformer against the fake for
// 40 virtual minutes of writes, with watch timeouts (the Reflector asks for
// 5-10 minutes), bookmarks every minute and forced 410s (compaction of the
// store and of the watch window every 7 minutes), in both Reflector modes.
// The informer's store must end equal to the server's state, and no handler
// may see an object's RV go backwards.
func TestWatchInformerConverges(t *testing.T) {
	for _, watchList := range []bool{true, false} {
		t.Run("WatchListClient="+strconv.FormatBool(watchList), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) { runInformer(t, watchList) })
		})
	}
}

func runInformer(t *testing.T, watchList bool) {
	b := startBubble(t)
	rl := &requestLog{n: map[string]int{}}
	cfg := *b.rest
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { rl.rt = rt; return rl })
	cs, err := kubernetes.NewForConfig(&cfg)
	if err != nil {
		t.Fatal(err)
	}
	cms := cs.CoreV1().ConfigMaps("default")
	gate := &watchGate{}
	lw := &cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
			return cms.List(ctx, o)
		},
		WatchFuncWithContext: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
			gate.wait()
			return cms.Watch(ctx, o)
		},
	}
	var lwi cache.ListerWatcher = lw
	if !watchList {
		lwi = noWatchList{lw}
	}
	inf := cache.NewSharedIndexInformerWithOptions(lwi, &corev1.ConfigMap{}, cache.SharedIndexInformerOptions{})
	guard := &rvGuard{t: t, last: map[string]int64{}}
	if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { guard.see(obj) },
		UpdateFunc: func(_, obj any) { guard.see(obj) },
		DeleteFunc: func(obj any) { guard.see(obj) },
	}); err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		b.mustCreate(t, configMap("default", "seed"+strconv.Itoa(i), "0", nil))
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { inf.RunWithContext(ctx) })
	defer func() { cancel(); wg.Wait() }()
	if !cache.WaitForCacheSync(ctx.Done(), inf.HasSynced) {
		t.Fatal("informer never synced")
	}

	rng := rand.New(rand.NewPCG(1, uint64(len(t.Name()))))
	start := time.Now()
	for step := 0; time.Since(start) < 40*time.Minute; step++ {
		time.Sleep(time.Duration(1+rng.IntN(20)) * time.Second)
		b.randomWrite(t, rng, 12, step)
		if step%40 == 39 { // about every 7 minutes, an outage:
			// new watches wait, open ones end (a watch-cache re-list), writes
			// go on, both the store and the watch window are compacted past
			// what the informer has, then the informer re-watches: 410.
			gate.hold()
			b.srv.CompactWatchHistory()
			synctest.Wait()
			b.mustCreate(t, configMap("default", "outage"+strconv.Itoa(step), "v", nil))
			if err := b.srv.Compact(b.srv.store.CurrentRV()); err != nil {
				t.Fatal(err)
			}
			b.srv.CompactWatchHistory()
			gate.release()
		}
	}
	time.Sleep(time.Minute) // let the informer catch up
	synctest.Wait()

	list, err := cms.List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var want []runtime.Object
	for i := range list.Items {
		want = append(want, &list.Items[i])
	}
	var got []runtime.Object
	for _, o := range inf.GetStore().List() {
		got = append(got, o.(runtime.Object))
	}
	if diff := cmp.Diff(stateOf(want), stateOf(got)); diff != "" {
		t.Errorf("informer store mismatch with the server (-server +informer):\n%s", diff)
	}
	st := b.srv.WatchStats()
	t.Logf("requests: %v; watch stats: %+v", rl.n, st)
	if st.Expired == 0 {
		t.Errorf("no watch got the 410; the test did not exercise re-lists")
	}
	wantMode := map[bool]string{true: "watch-list", false: "list"}[watchList]
	if rl.count(wantMode) == 0 || (!watchList && rl.count("watch-list") > 0) {
		t.Errorf("requests %v: want the %s mode", rl.n, wantMode)
	}
	if watchList && rl.count("list-exact") == 0 {
		t.Errorf("requests %v: the consistency detector never listed", rl.n)
	}
}

// watchGate holds new watches while an outage is staged.
type watchGate struct {
	mu     sync.Mutex
	closed chan struct{} // nil when open
}

func (g *watchGate) hold() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.closed = make(chan struct{})
}

func (g *watchGate) release() {
	g.mu.Lock()
	defer g.mu.Unlock()
	close(g.closed)
	g.closed = nil
}

func (g *watchGate) wait() {
	g.mu.Lock()
	c := g.closed
	g.mu.Unlock()
	if c != nil {
		<-c
	}
}

// randomWrite makes one random write among configmaps cm0..cm<names-1> in
// default: a create where the name is free, else a delete (one in three) or
// an update of its data to step.
func (b *bubble) randomWrite(t *testing.T, rng *rand.Rand, names, step int) {
	t.Helper()
	name := "cm" + strconv.Itoa(rng.IntN(names))
	cur, err := b.cs.CoreV1().ConfigMaps("default").Get(context.Background(), name, metav1.GetOptions{})
	switch {
	case err != nil:
		b.mustCreate(t, configMap("default", name, strconv.Itoa(step), nil))
	case rng.IntN(3) == 0:
		b.mustDelete(t, "default", name)
	default:
		cur.Data = map[string]string{"k": strconv.Itoa(step)}
		b.mustUpdate(t, cur)
	}
}
