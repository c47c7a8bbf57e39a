package listwatch

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/consistencydetector"
	"pgregory.net/rapid"

	"github.com/lw-sim/lw-sim/fakeapiserver"
	"github.com/lw-sim/lw-sim/fakeapiserver/fakeapiservertest"
	"github.com/lw-sim/lw-sim/faults"
	"github.com/lw-sim/lw-sim/scenarios/scenariofile"
	"github.com/lw-sim/lw-sim/watchcheck"
)

// The client state machine: one drawn schedule of writes, faults from the
// whole fault API and virtual time, played against one fake server that
// five clients watch at once, so they see the same history: this package's
// client (LIST+WATCH and watch-list), a bare client-go Reflector (into a
// store that reports to a handler), and SharedIndexInformer, whose
// Reflector syncs by watch-list (the default) or by LIST+WATCH, in half
// the checks with the watch-list consistency detector on, as
// KUBE_WATCHLIST_INCONSISTENCY_DETECTOR does. (The bare Reflector keeps
// its default watch error handler, utilruntime.HandleError, whose rate
// limiter would sleep for decades in a bubble: TestMain removes it.) Each
// check runs in its own testing/synctest bubble (virtual time, and
// synctest fails the check if any goroutine is left), every step settles
// before the next, and the clients' random draws are seeded from the
// check, so a seed replays the same run; rapid itself runs outside, on
// real time.
//
// At every quiescent point (faults cleared, virtual time run on until
// each store equals the server): the ones the schedule draws between its
// steps, and the one after it. Per client, of everything since the start:
//
//	store       the store equals the server's state (go-cmp diff)
//	order       per object, handler deliveries have increasing RVs, none
//	            twice (the informers may repeat a version on a relist)
//	handler     applying the handler's deliveries gives the server's state:
//	            no version lost, deletes included
//	streams     every stream the server served keeps watchcheck's guarantees
//	relists     (this package's client) a LIST or watch-list after the
//	            first is forced: by a 410 or refusal, by a failed LIST, by
//	            a watch-list that failed or ended before its end bookmark
//	resume      (this package's client) a re-watch with no LIST between
//	            starts from the highest RV the previous stream delivered
//	            (event or bookmark)
//
// The informers relist on any watch error (the Reflector ends
// ListAndWatch on a cut, a very short watch or a 5xx at connect), so the
// last two are not asked of them.

// chaosAgent prefixes every subject's User-Agent; faults match it.
const chaosAgent = "lw-sim-chaos-subject"

// chaosSubjectAgent is the User-Agent of one subject. The closing slash keeps
// it from being a substring of another's (faults match a substring:
// "listwatch" is in "listwatch-watchlist").
func chaosSubjectAgent(kind string) string { return chaosAgent + "/" + kind + "/" }

// chaosKinds are the clients of each check.
var chaosKinds = []string{"listwatch", "listwatch-watchlist", "reflector", "informer", "informer-list"}

// chaosSubject is one client under test and what it did on the wire.
type chaosSubject struct {
	kind   string
	store  cache.Store
	rec    *recorder
	synced func() bool
	wire   *wireLog
	trans  *watchcheck.Transport
}

// wireLog records a client's requests in order.
type wireLog struct {
	next http.RoundTripper

	// mu guards the field below.
	mu   sync.Mutex
	reqs []wireRequest
}

// wireRequest is one request: its kind (list, watch, watch-list,
// list-exact, page), start RV, status and whether its body broke.
type wireRequest struct {
	Kind    string
	StartRV int64
	Status  int
	Broken  bool
}

func (l *wireLog) RoundTrip(r *http.Request) (*http.Response, error) {
	q := r.URL.Query()
	wr := wireRequest{Kind: "list"}
	switch {
	case q.Get("watch") == "true" && q.Get("sendInitialEvents") == "true":
		wr.Kind = "watch-list"
	case q.Get("watch") == "true":
		wr.Kind = "watch"
	case q.Get("resourceVersionMatch") == "Exact":
		wr.Kind = "list-exact"
	case q.Get("continue") != "":
		wr.Kind = "page"
	}
	wr.StartRV, _ = strconv.ParseInt(q.Get("resourceVersion"), 10, 64)
	resp, err := l.next.RoundTrip(r)
	if err == nil {
		wr.Status = resp.StatusCode
	}
	l.mu.Lock()
	i := len(l.reqs)
	l.reqs = append(l.reqs, wr)
	l.mu.Unlock()
	if err == nil && wr.Kind != "watch" && wr.Kind != "watch-list" {
		resp.Body = &brokenBody{ReadCloser: resp.Body, mark: func() { l.markBroken(i) }}
	}
	return resp, err
}

func (l *wireLog) markBroken(i int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.reqs[i].Broken = true
}

func (l *wireLog) snapshot() []wireRequest {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.reqs)
}

// brokenBody calls mark when reading the body fails (a cut LIST).
type brokenBody struct {
	io.ReadCloser
	mark func()
}

func (b *brokenBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err != nil && err != io.EOF {
		b.mark()
	}
	return n, err
}

// chaosRun is one check: a server in the current bubble and its clients.
type chaosRun struct {
	t    *testing.T
	srv  *fakeapiserver.Server
	rc   *rest.Config
	cs   kubernetes.Interface
	hist watchcheck.History
	live map[string]string // key → uid
	seq  int
	subs []*chaosSubject
	// steps is the schedule as drawn, as scenario file steps, for the
	// failure file.
	steps []scenariofile.Step
	// seed seeds the clients' random draws (watch timeouts, backoff
	// jitter): this package's clients' through Options.Rand, client-go's
	// through math/rand's global source (seedGlobalRand).
	seed uint64
	// points counts the quiescent points reached so far; final is set at
	// the one after the schedule.
	points int
	final  bool
}

// chaosAPIServers is how many apiserver instances the server runs: the
// machine's own client is pinned to the first, which no fault touches, so
// its writes and reads of the truth always work; each subject spreads its
// requests over all of them in turn (instanceRotation), as a client behind
// a round-robin load balancer, so its list and its watches meet caches
// that lag, freeze, restart and lose the store differently.
const chaosAPIServers = 3

// faultedAPIServers are the instances the instance faults draw from.
var faultedAPIServers = []string{"apiserver-1", "apiserver-2"}

// instanceRotation sends each request of one client to the next instance
// in turn, by the server's [fakeapiserver.APIServerHeader]: the client's
// own round robin, so which instance a request meets depends on that
// client's requests alone, and a seed replays.
type instanceRotation struct {
	next http.RoundTripper
	// mu guards n.
	mu sync.Mutex
	n  int
}

func (r *instanceRotation) RoundTrip(req *http.Request) (*http.Response, error) {
	r.mu.Lock()
	i := r.n % chaosAPIServers
	r.n++
	r.mu.Unlock()
	req = req.Clone(req.Context())
	req.Header.Set(fakeapiserver.APIServerHeader, "apiserver-"+strconv.Itoa(i))
	return r.next.RoundTrip(req)
}

// pinned sends every request to one instance.
type pinned struct {
	name string
	next http.RoundTripper
}

func (p pinned) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	req.Header.Set(fakeapiserver.APIServerHeader, p.name)
	return p.next.RoundTrip(req)
}

// startChaosRun starts the server; t.Cleanup (in the bubble) stops it.
func startChaosRun(t *testing.T, minEvents int) *chaosRun {
	srv, err := fakeapiserver.New(fakeapiserver.Config{
		Watch:      fakeapiserver.WatchConfig{HistoryMinEvents: minEvents, HistoryMinAge: -1},
		APIServers: fakeapiserver.APIServersConfig{Count: chaosAPIServers},
	})
	if err != nil {
		t.Fatalf("fakeapiserver.New: %v", err)
	}
	ln := fakeapiservertest.NewPipeListener()
	done := srv.ServeBackground(ln)
	t.Cleanup(func() {
		if err := srv.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	rc := srv.RESTConfig()
	rc.Dial = ln.DialContext
	own := rest.CopyConfig(rc)
	own.WrapTransport = func(rt http.RoundTripper) http.RoundTripper { return pinned{name: "apiserver-0", next: rt} }
	cs, err := kubernetes.NewForConfig(own)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CoreV1().Namespaces().Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: chaosOtherNS}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	return &chaosRun{t: t, srv: srv, rc: rc, cs: cs, live: map[string]string{}}
}

// startSubject starts one client; t.Cleanup stops and joins it before the
// server closes (cleanups run last-in first-out).
func (r *chaosRun) startSubject(kind string, mut clientMutant) *chaosSubject {
	s := &chaosSubject{kind: kind, rec: newRecorder(), trans: &watchcheck.Transport{}}
	cfg := rest.CopyConfig(r.rc)
	cfg.UserAgent = chaosSubjectAgent(kind)
	cfg.ContentType, cfg.AcceptContentTypes = "application/json", "application/json"
	cfg.WrapTransport = func(rt http.RoundTripper) http.RoundTripper {
		s.wire = &wireLog{next: s.trans.Wrap(&instanceRotation{next: rt})}
		return s.wire
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		r.t.Fatal(err)
	}
	var lw ListerWatcher = FromTyped(cs.CoreV1().ConfigMaps(faultNS))
	var handler cache.ResourceEventHandler = s.rec
	if mut.wrapLW != nil {
		lw = mut.wrapLW(lw)
	}
	if mut.wrapHandler != nil {
		handler = mut.wrapHandler(handler)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	// See startSubject in faults_harness_test.go: the default handler,
	// HandleError, sleeps for decades in a bubble.
	noteErr := func(context.Context, *cache.Reflector, error) {}
	switch kind {
	case "listwatch", "listwatch-watchlist":
		c := New(lw, Options{Handler: handler, WatchList: kind == "listwatch-watchlist", PageSize: 2, Rand: rand.New(rand.NewPCG(r.seed, uint64(len(r.subs))))})
		s.store, s.synced = c.Indexer(), c.HasSynced
		wg.Go(func() { c.Run(ctx) })
	case "reflector":
		store := cache.NewStore(cache.MetaNamespaceKeyFunc)
		refl := cache.NewReflectorWithOptions(ToCache(lw), &corev1.ConfigMap{}, handlerStore{store, handler}, cache.ReflectorOptions{})
		s.store = store
		s.synced = func() bool { return refl.LastSyncResourceVersion() != "" }
		wg.Go(func() { refl.RunWithContext(ctx) })
	default:
		var src cache.ListerWatcher = ToCache(lw)
		if kind == "informer-list" {
			src = noWatchList{ToCache(lw)}
		}
		inf := cache.NewSharedIndexInformer(src, &corev1.ConfigMap{}, 0, cache.Indexers{})
		if _, err := inf.AddEventHandler(handler); err != nil {
			r.t.Fatal(err)
		}
		_ = inf.SetWatchErrorHandlerWithContext(noteErr)
		s.store, s.synced = inf.GetStore(), inf.HasSynced
		wg.Go(func() { inf.RunWithContext(ctx) })
	}
	r.t.Cleanup(func() { cancel(); wg.Wait() })
	r.subs = append(r.subs, s)
	return s
}

// handlerStore is a bare Reflector's store that also calls a handler, so
// its deliveries are recorded like the informers'.
type handlerStore struct {
	cache.Store
	h cache.ResourceEventHandler
}

func (s handlerStore) Add(obj any) error {
	if err := s.Store.Add(obj); err != nil {
		return err
	}
	s.h.OnAdd(obj, false)
	return nil
}

func (s handlerStore) Update(obj any) error {
	if err := s.Store.Update(obj); err != nil {
		return err
	}
	s.h.OnUpdate(nil, obj)
	return nil
}

func (s handlerStore) Delete(obj any) error {
	if err := s.Store.Delete(obj); err != nil {
		return err
	}
	s.h.OnDelete(obj)
	return nil
}

// Replace delivers what a relist changed, as the informer's DeltaFIFO
// does: an add or update per listed object, a tombstone per object gone.
func (s handlerStore) Replace(list []any, rv string) error {
	old := map[string]any{}
	for _, o := range s.Store.List() {
		k, _ := cache.MetaNamespaceKeyFunc(o)
		old[k] = o
	}
	if err := s.Store.Replace(list, rv); err != nil {
		return err
	}
	for _, o := range list {
		k, _ := cache.MetaNamespaceKeyFunc(o)
		if prev, ok := old[k]; ok {
			delete(old, k)
			s.h.OnUpdate(prev, o)
			continue
		}
		s.h.OnAdd(o, true)
	}
	for _, o := range old {
		s.h.OnDelete(cache.DeletedFinalStateUnknown{Obj: o})
	}
	return nil
}

// write makes one drawn write to faultNS.
func (r *chaosRun) write(rt *rapid.T) {
	name := rapid.SampledFrom([]string{"a", "b", "c", "d"}).Draw(rt, "name")
	_, exists := r.live[faultNS+"/"+name]
	r.writeKey(rt, name, exists && rapid.IntRange(0, 2).Draw(rt, "delete") == 0)
}

// writeKey creates or updates faultNS/name, or deletes it (it must
// exist), recorded in the history.
func (r *chaosRun) writeKey(rt *rapid.T, name string, del bool) {
	key := faultNS + "/" + name
	uid, exists := r.live[key]
	ctx := context.Background()
	cms := r.cs.CoreV1().ConfigMaps(faultNS)
	if del {
		if err := cms.Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
			rt.Fatalf("Delete(%s): %v", key, err)
		}
		l, err := cms.List(ctx, metav1.ListOptions{Limit: 1})
		if err != nil {
			rt.Fatalf("List: %v", err)
		}
		rv, _ := strconv.ParseInt(l.ResourceVersion, 10, 64)
		r.hist = append(r.hist, watchcheck.Change{RV: rv, Key: key, UID: uid, Deleted: true})
		delete(r.live, key)
		r.steps = append(r.steps, scenariofile.Step{Delete: &scenariofile.Write{Name: name}})
		r.settle()
		return
	}
	r.seq++
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}, Data: map[string]string{"v": strconv.Itoa(r.seq)}}
	var got *corev1.ConfigMap
	var err error
	if exists {
		got, err = cms.Update(ctx, cm, metav1.UpdateOptions{})
	} else {
		got, err = cms.Create(ctx, cm, metav1.CreateOptions{})
	}
	if err != nil {
		rt.Fatalf("write %s: %v", key, err)
	}
	rv, _ := strconv.ParseInt(got.ResourceVersion, 10, 64)
	r.live[key] = string(got.UID)
	r.hist = append(r.hist, watchcheck.Change{RV: rv, Key: key, UID: string(got.UID)})
	r.steps = append(r.steps, scenariofile.Step{Write: &scenariofile.Write{Name: name}})
	r.settle()
}

// writeElsewhere writes to a namespace the clients do not watch: the RV
// moves with no event for them, so their bookmarks run ahead of their
// last event.
func (r *chaosRun) writeElsewhere(rt *rapid.T) {
	r.seq++
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "elsewhere-" + strconv.Itoa(r.seq)}}
	if _, err := r.cs.CoreV1().ConfigMaps(chaosOtherNS).Create(context.Background(), cm, metav1.CreateOptions{}); err != nil {
		rt.Fatalf("Create(%s/%s): %v", chaosOtherNS, cm.Name, err)
	}
	r.steps = append(r.steps, scenariofile.Step{Create: &scenariofile.Write{Name: cm.Name, Namespace: chaosOtherNS, Value: "x"}})
	r.settle()
}

// chaosOtherNS is the namespace no client watches.
const chaosOtherNS = scenariofile.ChaosOtherNamespace

// fault draws one fault from the whole fault API, aimed at the subjects.
func (r *chaosRun) fault(rt *rapid.T, detector bool) {
	match := faults.Match{UserAgent: chaosAgent}
	window := faults.Duration(rapid.SampledFrom([]time.Duration{10 * time.Second, 90 * time.Second}).Draw(rt, "window"))
	kinds := []string{"cut", "end", "hang", "fail-watch", "fail-list", "latency", "cut-list",
		"delay", "withhold", "withhold-initial", "restart", "too-large-rv",
		"lag-apiserver", "freeze-apiserver", "partition-apiserver", "restart-apiserver"}
	if !detector {
		// The consistency detector re-reads every completed watch-list
		// with an Exact LIST at its RV and retries that read forever; after
		// a compaction the fake answers it 410 (a real watch cache would
		// still serve it: conformance/DIVERGENCES.md), so the informer
		// would never sync. Checks with the detector leave compaction out.
		kinds = append(kinds, "compact", "compact-between-pages")
	}
	var f faults.Fault
	switch kind := rapid.SampledFrom(kinds).Draw(rt, "fault"); kind {
	case "cut":
		f = faults.Fault{Kind: faults.CutWatch, Match: match}
	case "end":
		f = faults.Fault{Kind: faults.EndWatch, Match: match}
	case "hang":
		f = faults.Fault{Kind: faults.HangWatch, Match: match, Window: window}
	case "fail-watch", "fail-list":
		m := match
		m.Verbs = []string{kind[len("fail-"):]}
		f = faults.Fault{Kind: faults.FailRequest, Match: m, Code: rapid.SampledFrom([]int{429, 500, 503, 504}).Draw(rt, "code"),
			Times: rapid.IntRange(1, 3).Draw(rt, "times")}
	case "latency":
		f = faults.Fault{Kind: faults.Latency, Match: match, Delay: faults.Duration(2 * time.Second), Times: 3}
	case "cut-list":
		m := match
		m.Verbs = []string{"list"}
		f = faults.Fault{Kind: faults.CutList, Match: m}
	case "delay":
		f = faults.Fault{Kind: faults.DelayEvents, Match: match, Delay: faults.Duration(3 * time.Second), Window: window, Streams: faults.AllStreams}
	case "withhold", "withhold-initial":
		f = faults.Fault{Kind: faults.WithholdBookmarks, Match: match, Window: window, Streams: faults.AllStreams, InitialEventsEnd: kind == "withhold-initial"}
	case "too-large-rv":
		// A lagging watch cache: RV-constrained reads above current-lag
		// get the 504 "Too large resource version" for a while.
		f = faults.Fault{Kind: faults.TooLargeRV, Match: match, Window: window, Lag: int64(rapid.IntRange(1, 3).Draw(rt, "lag"))}
	case "lag-apiserver":
		f = faults.Fault{Kind: faults.LagAPIServer, APIServer: rapid.SampledFrom(faultedAPIServers).Draw(rt, "apiserver")}
		if rapid.Bool().Draw(rt, "lagInTime") {
			f.Delay = faults.Duration(rapid.SampledFrom([]time.Duration{2 * time.Second, 20 * time.Second}).Draw(rt, "lagTime"))
		} else {
			f.Lag = int64(rapid.IntRange(1, 4).Draw(rt, "lagEvents"))
		}
	case "freeze-apiserver":
		f = faults.Fault{Kind: faults.FreezeAPIServer, APIServer: rapid.SampledFrom(faultedAPIServers).Draw(rt, "apiserver")}
	case "partition-apiserver":
		f = faults.Fault{Kind: faults.PartitionAPIServer, APIServer: rapid.SampledFrom(faultedAPIServers).Draw(rt, "apiserver")}
	case "restart-apiserver":
		f = faults.Fault{Kind: faults.RestartAPIServer, APIServer: rapid.SampledFrom(faultedAPIServers).Draw(rt, "apiserver")}
	case "compact":
		f = faults.Fault{Kind: faults.Compact}
	case "restart":
		f = faults.Fault{Kind: faults.Restart}
	case "compact-between-pages":
		m := match
		m.Verbs, m.Page = []string{"list"}, 2
		f = faults.Fault{Kind: faults.Compact, Match: m, Trigger: faults.Trigger{Request: 1}}
	}
	r.addFault(rt, f)
}

// addFault adds f and settles. A fault aimed at every subject is added
// once per subject instead, each copy matching that subject alone, with
// a settle after each. Otherwise a fault that counts (the first N
// requests fail) went to whichever subject's request came first in an
// instant, and the subjects a cut woke at once drew their timeouts and
// jitter from math/rand's global source in whatever order they ran: a
// seed replayed with five subjects ended the same way 11 times in 20,
// with 16 different traces. Copy by copy, each subject meets the fault
// on its own, in a fixed order.
func (r *chaosRun) addFault(rt *rapid.T, f faults.Fault) {
	copies := []faults.Fault{f}
	if f.Match.UserAgent == chaosAgent {
		copies = copies[:0]
		for _, s := range r.subs {
			c := f
			c.Match.UserAgent = chaosSubjectAgent(s.kind)
			copies = append(copies, c)
		}
	}
	for _, c := range copies {
		if _, err := r.srv.Faults().Add(c); err != nil {
			rt.Fatalf("Add(%+v): %v", c, err)
		}
		r.steps = append(r.steps, scenariofile.Step{Fault: &c})
		r.settle()
	}
}

// settle waits until every goroutine of the bubble but this one is
// durably blocked: the clients have done all they do at this instant of
// virtual time. Every step of the schedule (a write, a fault, a client
// started) settles before the next, so what a client does between two
// steps depends on the steps and virtual time only, never on how the
// goroutines happened to be scheduled. Without it a client's initial
// LIST raced the first writes, a cut client's re-watch raced the writes
// after the cut, and a failing seed, replayed 20 times, failed 7 times
// in two different ways and passed 13.
func (r *chaosRun) settle() { synctest.Wait() }

// advance runs virtual time on by d.
func (r *chaosRun) advance(d time.Duration) {
	time.Sleep(d)
	r.steps = append(r.steps, scenariofile.Step{Advance: faults.Duration(d)})
}

// outage is the composite the client's hardest paths need, which
// independent draws put together too rarely for rapid's default budget:
// maybe an idle spell first (a write elsewhere, then bookmarks run the
// clients' RVs past their last event), then the clients' streams are cut
// and their re-watches refused for a while (they back off), the
// collection changes meanwhile (deletes included), maybe etcd compacts,
// and time runs on. A client that resumes from the wrong RV, or relists
// without telling its handler what was deleted meanwhile, is caught here
// (after a compaction, or with few history events kept, the resume is a
// 410 and a relist).
func (r *chaosRun) outage(rt *rapid.T, detector bool) {
	match := faults.Match{UserAgent: chaosAgent}
	if rapid.Bool().Draw(rt, "idleFirst") {
		r.writeElsewhere(rt)
		r.advance(2 * time.Minute)
		synctest.Wait()
	}
	refuse := match
	refuse.Verbs = []string{"watch"}
	for _, f := range []faults.Fault{
		{Kind: faults.FailRequest, Match: refuse, Code: rapid.SampledFrom([]int{500, 503, 504}).Draw(rt, "outageCode"), Times: rapid.IntRange(1, 3).Draw(rt, "outageTimes")},
		{Kind: faults.CutWatch, Match: match},
	} {
		r.addFault(rt, f)
	}
	for range rapid.IntRange(1, 6).Draw(rt, "outageWrites") {
		r.write(rt)
	}
	// Maybe etcd compacted meanwhile (kube-apiserver has it compact
	// every five minutes), so the clients come back to a 410 and relist
	// over what changed, deletes included. Not with the consistency
	// detector on (see fault).
	if !detector && rapid.Bool().Draw(rt, "outageCompact") {
		r.addFault(rt, faults.Fault{Kind: faults.Compact})
	}
	r.advance(30 * time.Second)
}

// staleCache is the composite of kubernetes#59848 that independent draws
// put together too rarely: the caches of the faulted instances stop
// (frozen, or lagging a few writes) while the collection changes, so a
// client watching the fresh instance gets past them; then its stream is
// cut, its re-watches refused while the collection changes again, and the
// watch caches restart, so its resume is a 410 and it fetches the whole
// collection again, on whichever instance its turn gives it. A client that
// trusts what a stale cache lists goes back in time.
func (r *chaosRun) staleCache(rt *rapid.T) {
	for _, name := range faultedAPIServers {
		f := faults.Fault{Kind: faults.FreezeAPIServer, APIServer: name}
		if rapid.Bool().Draw(rt, "staleByLag") {
			f.Kind, f.Lag = faults.LagAPIServer, int64(rapid.IntRange(1, 3).Draw(rt, "staleLag"))
		}
		r.addFault(rt, f)
	}
	for range rapid.IntRange(1, 3).Draw(rt, "staleWrites") {
		r.write(rt)
	}
	match := faults.Match{UserAgent: chaosAgent}
	refuse := match
	refuse.Verbs = []string{"watch"}
	r.addFault(rt, faults.Fault{Kind: faults.FailRequest, Match: refuse, Code: http.StatusServiceUnavailable, Times: rapid.IntRange(1, 2).Draw(rt, "staleRefusals")})
	r.addFault(rt, faults.Fault{Kind: faults.CutWatch, Match: match})
	for range rapid.IntRange(1, 3).Draw(rt, "staleMoreWrites") {
		r.write(rt)
	}
	r.addFault(rt, faults.Fault{Kind: faults.Restart})
	r.advance(10 * time.Second)
}

// state is the server's collection as stateOf renders it.
func (r *chaosRun) state(rt *rapid.T) map[string]string {
	l, err := r.cs.CoreV1().ConfigMaps(faultNS).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		rt.Fatalf("List: %v", err)
	}
	objs := make([]any, len(l.Items))
	for i := range l.Items {
		objs[i] = &l.Items[i]
	}
	return stateOf(objs)
}

// quiesce clears the faults and runs virtual time until every store
// equals the server's state, failing with the diffs after convergeWithin.
// It returns the server's state and the virtual time it took.
func (r *chaosRun) quiesce(rt *rapid.T) (map[string]string, time.Duration) {
	r.srv.Faults().Clear()
	for _, name := range faultedAPIServers {
		if err := r.srv.HealAPIServer(name); err != nil {
			rt.Fatalf("HealAPIServer(%s): %v", name, err)
		}
	}
	start := time.Now()
	for {
		time.Sleep(time.Second)
		synctest.Wait()
		want := r.state(rt)
		diffs := ""
		for _, s := range r.subs {
			if d := cmp.Diff(want, stateOf(s.store.List())); d != "" || !s.synced() {
				diffs += fmt.Sprintf("%s (synced %v): store != server (-server +store):\n%s", s.kind, s.synced(), d)
			}
		}
		if diffs == "" {
			return want, time.Since(start)
		}
		if time.Since(start) > convergeWithin {
			fail("store", "%s: not converged after %v of virtual time:\n%s", r.point(), convergeWithin, diffs)
		}
	}
}

// checkpoint is a quiescent point in the middle of the schedule: the
// faults cleared, virtual time run on until every store equals the
// server, and every invariant checked, as after the schedule. A client
// that is wrong for a while and then right again (a version lost and
// superseded by the next, a relist that heals a stale store) is caught
// only here. In the failure file it is the faults cleared and the time
// it took.
func (r *chaosRun) checkpoint(rt *rapid.T) {
	r.points++
	want, took := r.quiesce(rt)
	r.steps = append(r.steps, scenariofile.Step{ClearFaults: true}, scenariofile.Step{Advance: faults.Duration(took)})
	r.check(want)
}

// finish is the last quiescent point, after the schedule.
func (r *chaosRun) finish(rt *rapid.T) {
	r.points++
	r.final = true
	want, _ := r.quiesce(rt)
	r.check(want)
}

// point names the quiescent point being checked, for failure messages.
func (r *chaosRun) point() string {
	if r.final {
		return fmt.Sprintf("quiescent point %d (after the schedule)", r.points)
	}
	return fmt.Sprintf("quiescent point %d (mid-schedule)", r.points)
}

// check checks the invariants of every subject at a quiescent point, where
// want is the server's state. Each invariant holds of everything recorded
// since the start, so it holds mid-run as after the schedule: a stream
// still open is a prefix of its projection (watchcheck accepts one), a
// request still in flight is in neither the wire log nor the streams (the
// wire log appends a request after the recording transport has opened its
// stream, and no goroutine runs between the two snapshots, taken after
// synctest.Wait), and the relist and resume accounting starts from the
// first request every time.
func (r *chaosRun) check(want map[string]string) {
	synctest.Wait()
	at := r.point()
	type record struct {
		reqs    []wireRequest
		streams []watchcheck.Stream
	}
	recs := make([]record, len(r.subs))
	for i, s := range r.subs {
		recs[i] = record{s.wire.snapshot(), s.trans.Streams()}
	}
	for i, s := range r.subs {
		tb := &collectTB{}
		s.rec.checkOrder(tb, s.kind == "listwatch" || s.kind == "listwatch-watchlist")
		if tb.msg != "" {
			fail("order", "%s: %s: %s", at, s.kind, tb.msg)
		}
		if d := cmp.Diff(rvsOf(want), s.rec.view()); d != "" {
			fail("handler", "%s: %s: handler deliveries do not add up to the server's state (-server +handler):\n%s", at, s.kind, d)
		}
		reqs, streams := recs[i].reqs, recs[i].streams
		if err := watchcheck.Check(r.hist, streams...); err != nil {
			fail("streams", "%s: %s: %v", at, s.kind, err)
		}
		if s.kind == "listwatch" || s.kind == "listwatch-watchlist" {
			// The Reflector ends ListAndWatch, and so relists, on any
			// watch error (a cut, a very short watch, a 5xx at connect):
			// these two hold for this package's client only.
			r.checkRelists(at, s, reqs, streams)
			r.checkResume(at, s, reqs, streams)
		}
	}
}

// checkRelists: every full fetch after the first was forced.
func (r *chaosRun) checkRelists(at string, s *chaosSubject, reqs []wireRequest, streams []watchcheck.Stream) {
	fetches, forced := 0, 1 // the first sync
	si := 0
	for _, q := range reqs {
		switch q.Kind {
		case "list", "watch-list":
			fetches++
		}
		failed := q.Status != http.StatusOK || q.Broken
		if (q.Kind == "list" || q.Kind == "page") && failed {
			forced++ // a failed or cut LIST is retried from the start
		}
		if q.Kind != "watch" && q.Kind != "watch-list" {
			continue
		}
		if failed {
			if q.Kind == "watch-list" {
				forced++
			}
			continue
		}
		st := streams[si]
		si++
		if slices.ContainsFunc(st.Events, func(e watchcheck.Event) bool { return e.Type == watch.Error }) {
			forced++ // a 410 (or a refusal) ends the stream with an ERROR
			continue
		}
		if q.Kind == "watch-list" && !slices.ContainsFunc(st.Events, func(e watchcheck.Event) bool { return e.InitialEventsEnd }) {
			forced++ // a watch-list cut before its end starts over
		}
	}
	if fetches > forced {
		fail("relists", "%s: %s: %d LIST/watch-list fetches, only %d forced (first sync, 410s, failed fetches)\nrequests %+v",
			at, s.kind, fetches, forced, reqs)
	}
}

// checkResume: a re-watch with no fetch between starts where the previous
// stream got to.
func (r *chaosRun) checkResume(at string, s *chaosSubject, reqs []wireRequest, streams []watchcheck.Stream) {
	si := 0
	var prev *wireRequest
	var reached int64
	for i := range reqs {
		q := &reqs[i]
		switch q.Kind {
		case "list", "watch-list", "page", "list-exact":
			prev = nil
			if q.Kind == "watch-list" && q.Status == http.StatusOK {
				si++
			}
			continue
		}
		if prev != nil && q.StartRV != reached {
			fail("resume", "%s: %s: re-watch from rv %d, but the previous watch (from %d) reached %d\nrequests %+v", at, s.kind, q.StartRV, prev.StartRV, reached, reqs)
		}
		prev, reached = q, max(reached, q.StartRV)
		if prev.Status == http.StatusOK {
			for _, e := range streams[si].Events {
				if e.Type != watch.Error {
					reached = max(reached, e.RV)
				}
			}
			si++
		}
	}
}

// collectTB is the tb checkOrder reports to.
type collectTB struct{ msg string }

func (c *collectTB) Helper()                   {}
func (c *collectTB) Logf(string, ...any)       {}
func (c *collectTB) Fatalf(f string, a ...any) { c.Errorf(f, a...) }
func (c *collectTB) Errorf(format string, args ...any) {
	if c.msg == "" {
		c.msg = fmt.Sprintf(format, args...)
	}
}

// rvsOf reduces a stateOf map to the RVs.
func rvsOf(state map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range state {
		rv, _, _ := strings.Cut(v, " ")
		out[k] = rv
	}
	return out
}

// view applies the deliveries: the state the handler was told about.
func (r *recorder) view() map[string]string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := map[string]string{}
	for key, ds := range r.byKey {
		last := ds[len(ds)-1]
		if last.Kind == "add" || last.Kind == "update" {
			out[key] = strconv.FormatUint(last.RV, 10)
		}
	}
	return out
}

// clientMutant is a test-only broken client: a correct client behind a
// broken ListerWatcher or handler layer. The zero value is no mutant.
type clientMutant struct {
	wrapLW      func(ListerWatcher) ListerWatcher
	wrapHandler func(cache.ResourceEventHandler) cache.ResourceEventHandler
	// kinds limits the mutant to these subjects (nil: all).
	kinds []string
}

// runChaos is one check: it draws and plays a schedule, then checks.
func runChaos(t *testing.T, rt *rapid.T, mut clientMutant, stats *chaosStats) {
	historyMinEvents := rapid.SampledFrom([]int{4, 100}).Draw(rt, "historyMinEvents")
	kinds := chaosKinds
	if mut.kinds != nil {
		kinds = mut.kinds
	}
	// Half the checks with informers run them with client-go's watch-list
	// consistency detector (KUBE_WATCHLIST_INCONSISTENCY_DETECTOR): set
	// here, before any client goroutine starts; the test resets it once
	// the bubble has ended. It is drawn only if an informer runs: it rules
	// compaction out (see fault), which the other clients need.
	detector := false
	if slices.ContainsFunc(kinds, func(k string) bool { return strings.HasPrefix(k, "informer") }) {
		detector = rapid.Bool().Draw(rt, "consistencyDetector")
	}
	consistencydetector.SetDataConsistencyDetectionForWatchListEnabledForTest(detector)
	seed := rapid.Uint64().Draw(rt, "clientSeed")
	seedGlobalRand(seed)
	r := startChaosRun(t, historyMinEvents)
	r.seed = seed
	if stats != nil {
		defer func() { stats.trace = r.trace() }()
	}
	// The clients start against a collection of up to four objects, so
	// their first LIST (two objects a page) is paged.
	for range rapid.IntRange(1, 6).Draw(rt, "initialWrites") {
		r.write(rt)
	}
	for _, k := range kinds {
		r.startSubject(k, mut)
		r.steps = append(r.steps, scenariofile.Step{StartClient: k})
		r.settle()
	}
	if mut.wrapLW == nil && mut.wrapHandler == nil {
		defer r.saveOnFailure(kinds, historyMinEvents)
	}
	for range rapid.IntRange(1, 12).Draw(rt, "ops") {
		switch rapid.SampledFrom([]string{"write", "write", "write-elsewhere", "fault", "fault", "advance", "outage", "checkpoint", "stale-cache"}).Draw(rt, "op") {
		case "write":
			for range rapid.IntRange(1, 3).Draw(rt, "burst") {
				r.write(rt)
			}
		case "write-elsewhere":
			r.writeElsewhere(rt)
		case "fault":
			r.fault(rt, detector)
		case "advance":
			r.advance(rapid.SampledFrom([]time.Duration{time.Second, 30 * time.Second, 2 * time.Minute}).Draw(rt, "advance"))
		case "outage":
			r.outage(rt, detector)
		case "checkpoint":
			r.checkpoint(rt)
		case "stale-cache":
			r.staleCache(rt)
		}
		synctest.Wait()
	}
	r.finish(rt)
	if stats != nil {
		stats.add(r)
	}
}

// chaosStats counts what the checks drove the clients through, so a run
// shows it exercised faults, 410s and relists rather than passing
// vacuously (and, with a fixed seed, that it replays the same).
type chaosStats struct {
	requests map[string]int
	expired  int
	faults   int
	// checks counts the checks, points their quiescent points (the
	// mid-schedule ones and the one after each schedule).
	checks, points int
	// trace is the last check's trace, passed or failed.
	trace string
}

// trace is what every subject did on the wire: its requests and the
// events of each stream, with the URL its watch asked for (the timeout
// it drew included). Two runs of a seed that replays have equal traces.
func (r *chaosRun) trace() string {
	var b strings.Builder
	for _, s := range r.subs {
		fmt.Fprintf(&b, "%s %+v\n", s.kind, s.wire.snapshot())
		for _, st := range s.trans.Streams() {
			fmt.Fprintf(&b, "  %s:", st.Name)
			for _, e := range st.Events {
				fmt.Fprintf(&b, " %s@%d", e.Type, e.RV)
			}
			b.WriteString("\n")
		}
	}
	return b.String()
}

func (cs *chaosStats) add(r *chaosRun) {
	if cs.requests == nil {
		cs.requests = map[string]int{}
	}
	cs.checks++
	cs.points += r.points
	for _, s := range r.subs {
		for _, q := range s.wire.snapshot() {
			cs.requests[s.kind+" "+q.Kind]++
		}
		for _, st := range s.trans.Streams() {
			for _, e := range st.Events {
				if e.Type == watch.Error && e.Code == http.StatusGone {
					cs.expired++
				}
			}
		}
	}
	cs.faults += len(r.srv.Faults().Records())
}

// chaosFailure is a broken invariant, carried out of the bubble.
type chaosFailure struct {
	invariant string
	msg       string
}

// fail ends the check with a broken invariant.
func fail(invariant, format string, args ...any) {
	panic(chaosFailure{invariant: invariant, msg: fmt.Sprintf(format, args...)})
}

// inBubble runs body in a fresh synctest bubble; a failure (a panic)
// inside it is carried out and re-raised on rapid's goroutine, after the
// bubble's cleanups stopped every client and the server.
//
// rapid tells failures apart by the traceback of their panic, and a
// shrink step only counts if it fails the same way. So each invariant is
// re-raised from its own line, and rapid's own signals (a skip, a draw
// past the end of a replayed buffer, a Fatalf) from another each:
// otherwise every failure, and even a replay that merely ran out of data,
// would look the same to the shrinker.
func inBubble(t *testing.T, rt *rapid.T, body func(t *testing.T, rt *rapid.T)) {
	var p any
	synctest.Test(t, func(t *testing.T) {
		defer func() { p = recover() }()
		body(t, rt)
	})
	f, ok := p.(chaosFailure)
	switch {
	case p == nil:
	case !ok && fmt.Sprintf("%T", p) == "rapid.invalidData":
		panic(p)
	case !ok:
		panic(p)
	case f.invariant == "store":
		rt.Fatalf("store: %s", f.msg)
	case f.invariant == "order":
		rt.Fatalf("order: %s", f.msg)
	case f.invariant == "handler":
		rt.Fatalf("handler: %s", f.msg)
	case f.invariant == "relists":
		rt.Fatalf("relists: %s", f.msg)
	case f.invariant == "resume":
		rt.Fatalf("resume: %s", f.msg)
	case f.invariant == "streams":
		rt.Fatalf("streams: %s", f.msg)
	default:
		rt.Fatalf("%s: %s", f.invariant, f.msg)
	}
}

// TestRapidClientChaos: the five clients under drawn schedules keep every
// invariant. The watch-list consistency detector is switched on for half
// the checks of this test only (it is process-wide; the test is not
// parallel, so no parallel test runs meanwhile).
func TestRapidClientChaos(t *testing.T) {
	defer consistencydetector.SetDataConsistencyDetectionForWatchListEnabledForTest(false)
	var stats chaosStats
	rapid.Check(t, func(rt *rapid.T) {
		inBubble(t, rt, func(t *testing.T, rt *rapid.T) { runChaos(t, rt, clientMutant{}, &stats) })
	})
	t.Logf("%d checks, %d quiescent points checked (%d mid-schedule), faults fired %d, watches answered 410 %d, requests %v",
		stats.checks, stats.points, stats.points-stats.checks, stats.faults, stats.expired, stats.requests)
	if stats.faults == 0 || stats.expired == 0 || stats.requests["listwatch list"] == 0 {
		t.Errorf("the machine never fired a fault, met a 410 or listed: %+v", stats)
	}
	if stats.points <= stats.checks {
		t.Errorf("no check reached a quiescent point mid-schedule: %d points in %d checks", stats.points, stats.checks)
	}
}
