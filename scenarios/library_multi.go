// The multi-apiserver-stale-relist built-in stays in Go: a scenario file
// can put several apiservers behind a load balancer now (apiservers:, and
// relist-back-in-time shows this case with raw LISTs), but it has no
// client kind for a 1.11-era Reflector. It puts a load balancer between
// a client and two apiservers (laggingBalancer: the first LIST to an
// up-to-date apiserver, later resourceVersion=0 LISTs to one whose watch
// cache is stuck at an RV), runs a client-go Reflector through that
// balancer with a 1.11-era lister that forces resourceVersion=0 on every
// LIST (rv0Lister), and checks the Reflector's store after its relist, on
// the Reflector's own schedule (its backoff runs on the real clock). A
// file's clients talk to the one fake apiserver directly, with today's
// client-go, and its faults cannot make one server answer a read from a
// stale cache.

package scenarios

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	"github.com/lw-sim/lw-sim/listwatch"
)

// Lanes of the multi-apiserver scenario's two Reflectors.
const (
	laneOldReflector = "reflector-rv0"
	laneReflector    = "reflector"
	laneAPIServer2   = "to-apiserver-2"
)

// laggingBalancer is a load balancer in front of two apiservers, both
// played by the one fake: the first LIST goes to the up-to-date
// apiserver-1, every later LIST to apiserver-2, whose watch cache is stuck
// at lagRV; watches go to apiserver-1. apiserver-2 answers what a watch
// cache answers from memory, a resourceVersion=0 ("any version") LIST, with
// its stale state: the request is rewritten into an Exact read at lagRV.
// Every other LIST is forwarded unchanged, which models a cache that catches
// up before answering (a consistent read, or NotOlderThan an RV it has yet
// to reach: the real apiserver waits for its cache).
type laggingBalancer struct {
	base  http.RoundTripper
	lagRV string

	mu    sync.Mutex
	lists int
}

func (b *laggingBalancer) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method != http.MethodGet || isWatchRequest(req.URL) {
		return b.base.RoundTrip(req)
	}
	b.mu.Lock()
	b.lists++
	first := b.lists == 1
	b.mu.Unlock()
	q := req.URL.Query()
	if first || q.Get("resourceVersion") != "0" {
		return b.base.RoundTrip(req)
	}
	// apiserver-2 serves the any-version read from its lagging cache.
	q.Set("resourceVersion", b.lagRV)
	q.Set("resourceVersionMatch", string(metav1.ResourceVersionMatchExact))
	out := req.Clone(req.Context())
	out.URL.RawQuery = q.Encode()
	return b.base.RoundTrip(out)
}

// rv0Lister makes every LIST ask for resourceVersion=0, as the Reflector
// of Kubernetes 1.11 and before did on every (re)list.
type rv0Lister struct{ *cache.ListWatch }

func (l rv0Lister) List(opts metav1.ListOptions) (runtime.Object, error) {
	return l.ListWithContext(context.Background(), opts)
}

// ListWithContext is the one the Reflector calls.
func (l rv0Lister) ListWithContext(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
	opts.ResourceVersion, opts.ResourceVersionMatch = "0", ""
	return l.ListWatch.ListWithContext(ctx, opts)
}

func (rv0Lister) IsWatchListSemanticsUnSupported() bool { return true }

// startBalancedReflector starts a client-go Reflector for the ConfigMaps
// of [Namespace] behind a laggingBalancer, recorded in lane; rv0 makes its
// LISTs the 1.11-era ones. It returns the Reflector, its store and a stop
// function.
func (e *Env) startBalancedReflector(lane, lagRV string, rv0 bool) (*cache.Reflector, cache.Store, func(), error) {
	cfg := e.restConfig(func(en Entry) {
		en.Lane = lane
		e.logClient(clientEntry{Entry: en})
	})
	rt := cfg.Transport.(*recordingTransport)
	rt.maskWatchTimeout = true
	rt.base = &laggingBalancer{base: rt.base, lagRV: lagRV}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("scenarios: reflector: %w", err)
	}
	lw := listwatch.ToCache(listwatch.FromTyped(cs.CoreV1().ConfigMaps(Namespace)))
	var lister cache.ListerWatcher = noWatchList{lw}
	if rv0 {
		lister = rv0Lister{lw}
	}
	var quiet klog.Logger
	store := cache.NewStore(cache.MetaNamespaceKeyFunc)
	backoff := scenarioBackoff
	refl := cache.NewReflectorWithOptions(lister, &corev1.ConfigMap{}, store, cache.ReflectorOptions{
		Name: lane, Logger: &quiet, Clock: e.clock, Backoff: &backoff,
	})
	ctx, cancel := context.WithCancel(klog.NewContext(e.ctx, quiet))
	var wg sync.WaitGroup
	wg.Go(func() { refl.RunWithContext(ctx) })
	stop := sync1(func() { cancel(); wg.Wait() })
	e.addCloser(stop)
	return refl, store, stop, nil
}

// stopClient stops a client and drops what it recorded that the scenario
// did not await: after the relist the rv0 Reflector keeps re-watching and
// relisting on its own, and how often depends on scheduling.
func (e *Env) stopClient(stop func()) {
	stop()
	e.mu.Lock()
	defer e.mu.Unlock()
	e.clientLog = nil
}

// storeNames is the sorted names in a Reflector's store.
func storeNames(s cache.Store) string {
	var names []string
	for _, o := range s.List() {
		names = append(names, o.(*corev1.ConfigMap).Name)
	}
	slices.Sort(names)
	return "[" + strings.Join(names, " ") + "]"
}

// awaitStore waits, in wall time, until the store's names are want.
func (e *Env) awaitStore(s cache.Store, want string) error {
	for storeNames(s) != want {
		select {
		case <-e.ctx.Done():
			return e.waitEnded(fmt.Sprintf("the reflector's store is %s, want %s", storeNames(s), want))
		case <-time.After(pollInterval):
		}
	}
	return nil
}

// awaitRV waits, in wall time, until the Reflector's last-synced RV is rv.
func (e *Env) awaitRV(refl *cache.Reflector, rv string) error {
	for refl.LastSyncResourceVersion() != rv {
		select {
		case <-e.ctx.Done():
			return e.waitEnded(fmt.Sprintf("the reflector synced RV %s, want %s", refl.LastSyncResourceVersion(), rv))
		case <-time.After(pollInterval):
		}
	}
	return nil
}

// isListRequest matches the recorded LIST request of lane.
func isListRequest(lane string) func(Entry) bool {
	return func(en Entry) bool {
		return en.Lane == lane && en.Kind == KindRequest && strings.HasPrefix(en.Text, "GET ") && !strings.Contains(en.Text, "watch=")
	}
}

// isResponse matches a recorded response of lane.
func isResponse(lane string) func(Entry) bool {
	return func(en Entry) bool { return en.Lane == lane && en.Kind == KindResponse }
}

// reflectorRelist plays one life of a Reflector behind the balancer: it
// lists and watches, sees bravo deleted, loses its watch to an apiserver
// restart, backs off and relists; it returns the store after the relist.
func (e *Env) reflectorRelist(lane, lagRV string, rv0 bool, bravoGone string) (string, error) {
	refl, store, stop, err := e.startBalancedReflector(lane, lagRV, rv0)
	if err != nil {
		return "", err
	}
	defer e.stopClient(stop)
	if err := e.reflectorSeesDelete(lane, store, bravoGone); err != nil {
		return "", err
	}
	if _, err := e.Create(OtherNamespace, "noise-"+lane, "x"); err != nil {
		return "", err
	}
	e.RestartWatchCache()
	if err := e.awaitReflectorRelist(lane, refl); err != nil {
		return "", err
	}
	return storeNames(store), nil
}

// reflectorSeesDelete waits for the Reflector's first LIST and watch,
// deletes bravo and waits until the Reflector applied it.
func (e *Env) reflectorSeesDelete(lane string, store cache.Store, bravo string) error {
	for _, step := range []func(Entry) bool{isListRequest(lane), isResponse(lane)} {
		if err := e.AwaitClient("first LIST", step); err != nil {
			return err
		}
	}
	if err := e.awaitStore(store, "[alpha bravo]"); err != nil {
		return err
	}
	if err := e.AwaitClient("watch", isResponse(lane)); err != nil {
		return err
	}
	if _, err := e.Delete(Namespace, bravo); err != nil {
		return err
	}
	if err := e.awaitStore(store, "[alpha]"); err != nil {
		return err
	}
	e.Note("the reflector applied DELETED bravo: its store is %s", storeNames(store))
	return nil
}

// awaitReflectorRelist waits until the Reflector, whose watch the restart
// ended, relisted and replaced its store with the list.
func (e *Env) awaitReflectorRelist(lane string, refl *cache.Reflector) error {
	// The Reflector re-watches from its last RV, gets ERROR 410 and
	// relists after its backoff, which client-go waits in real time
	// (wait.DelayFunc.Until uses the real clock, not the Reflector's).
	if err := e.AwaitClient("relist", isListRequest(lane)); err != nil {
		return err
	}
	var listRV string
	if err := e.AwaitClient("relist response", func(en Entry) bool {
		listRV = en.RV
		return isResponse(lane)(en)
	}); err != nil {
		return err
	}
	// The Reflector records the list's RV right after it replaced its
	// store with the list: from then on the store is the relist's result.
	return e.awaitRV(refl, listRV)
}

// consistentVersusAnyVersion sends apiserver-2 (through the balancer, past
// its first LIST) a resourceVersion=0 LIST and a consistent one: the first
// is served from the lagging cache, the second is not.
func consistentVersusAnyVersion(e *Env, lagRV string) error {
	e.Note("raw LISTs to apiserver-2: an any-version read (resourceVersion=0) and a consistent read (no resourceVersion)")
	e.SetLane(laneAPIServer2)
	defer e.SetLane("")
	httpc := &http.Client{Transport: &recordingTransport{
		base: &laggingBalancer{base: e.transport, lagRV: lagRV, lists: 1}, e: e, record: e.append,
	}}
	stale, err := e.get(e.ctx, httpc, cmPath+"?resourceVersion=0")
	if err != nil {
		return err
	}
	fresh, err := e.get(e.ctx, httpc, cmPath)
	if err != nil {
		return err
	}
	current, err := e.CurrentRV()
	if err != nil {
		return err
	}
	if err := e.Expect(stale.RV == lagRV && slices.Contains(stale.Names, "bravo"),
		"resourceVersion=0 is answered from the lagging cache: RV %s, %v", stale.RV, stale.Names); err != nil {
		return err
	}
	return e.Expect(fresh.RV == current && !slices.Contains(fresh.Names, "bravo"),
		"the consistent read is answered at the current RV %s: %v, without bravo", fresh.RV, fresh.Names)
}

func multiAPIServerStaleRelist() *Scenario {
	return &Scenario{
		Name:    "multi-apiserver-stale-relist",
		Answers: []QuestionID{QListResourceVersion},
		Summary: "Two apiservers behind a load balancer, one with a lagging watch cache: a client-go Reflector that relists with resourceVersion=0 (as 1.11's did) gets the stale cache's answer and a deleted object comes back (kubernetes issue 59848); today's Reflector relists NotOlderThan its last-synced RV and never goes back in time.",
		Seed:    59848,
		Steps: func(e *Env) error {
			if _, err := e.Create(Namespace, "alpha", "1"); err != nil {
				return err
			}
			lagRV, err := e.Create(Namespace, "bravo", "1")
			if err != nil {
				return err
			}
			e.Note("apiserver-2's watch cache stops at RV %s: it answers resourceVersion=0 LISTs from there (modelled as an Exact read at %s); the balancer sends the first LIST and the watches to apiserver-1, later LISTs to apiserver-2", lagRV, lagRV)

			e.Note("the bug: a Reflector whose every LIST asks for resourceVersion=0, as 1.11's did")
			got, err := e.reflectorRelist(laneOldReflector, lagRV, true, "bravo")
			if err != nil {
				return err
			}
			if err := e.Expect(got == "[alpha bravo]", "the resourceVersion=0 relist, answered by apiserver-2 at RV %s, puts bravo back into the store %s: the client went back in time", lagRV, got); err != nil {
				return err
			}

			e.Note("the fix: today's Reflector relists with resourceVersion=<its last-synced RV> (NotOlderThan); a cache behind that RV waits for it (or answers 504 Too large resource version, and client-go falls back to a consistent read)")
			if _, err := e.Create(Namespace, "bravo", "2"); err != nil {
				return err
			}
			got, err = e.reflectorRelist(laneReflector, lagRV, false, "bravo")
			if err != nil {
				return err
			}
			if err := e.Expect(got == "[alpha]", "the relist NotOlderThan the last-synced RV leaves the store %s: bravo stays deleted", got); err != nil {
				return err
			}
			return consistentVersusAnyVersion(e, lagRV)
		},
	}
}
