package fakeapiserver

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
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
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"

	"github.com/lw-sim/lw-sim/faults"
)

// chaosUserAgent marks the informer's requests, so the random faults hit
// the informer and not the test's own writes.
const chaosUserAgent = "chaos-informer"

// TestFaultInformerSurvivesRandomFaults runs a SharedInformer through 80
// virtual minutes of writes under a seeded random fault schedule (failed
// requests, latency, cut LISTs, ended, cut, delayed and bookmark-less
// watches, restarts, compactions), in both Reflector modes; then the faults
// stop, and the informer's store must converge to the server's state.
func TestFaultInformerSurvivesRandomFaults(t *testing.T) {
	for _, watchList := range []bool{true, false} {
		t.Run("WatchListClient="+strconv.FormatBool(watchList), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) { runChaosInformer(t, watchList) })
		})
	}
}

func runChaosInformer(t *testing.T, watchList bool) {
	b := startBubble(t)
	kinds := []faults.Kind{faults.FailRequest, faults.Latency, faults.CutList, faults.EndWatch, faults.CutWatch, faults.WithholdBookmarks, faults.DelayEvents, faults.Restart}
	if !watchList {
		// With watch-list, client-go's consistency detector (on in this
		// test binary) retries its exact LIST forever once the RV is
		// compacted; only the LIST mode gets compactions.
		kinds = append(kinds, faults.Compact)
	}
	b.srv.InjectFault(t, faults.Fault{
		Kind: faults.Random, Seed: 42, Probability: 0.3, Kinds: kinds,
		Match: faults.Match{UserAgent: chaosUserAgent},
	})
	cfg := *b.rest
	cfg.UserAgent = chaosUserAgent
	trail := &requestTrail{}
	cfg.WrapTransport = trail.wrap
	lw := configMapsLW(t, &cfg)
	var lwi cache.ListerWatcher = lw
	if !watchList {
		lwi = noWatchList{lw}
	}
	inf := cache.NewSharedIndexInformerWithOptions(lwi, &corev1.ConfigMap{}, cache.SharedIndexInformerOptions{})
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { inf.RunWithContext(ctx) })
	defer func() { cancel(); wg.Wait() }()

	rng := rand.New(rand.NewPCG(7, 7))
	own := b.cs.CoreV1().ConfigMaps("default")
	for step := 0; step < 600; step++ {
		time.Sleep(time.Duration(1+rng.IntN(15)) * time.Second)
		b.randomWrite(t, rng, 10, step)
	}
	b.srv.Faults().Clear()
	// Long enough for the largest backoff (30 s) and a watch timeout.
	time.Sleep(15 * time.Minute)
	synctest.Wait()

	list, err := own.List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var want, got []runtime.Object
	for i := range list.Items {
		want = append(want, &list.Items[i])
	}
	for _, o := range inf.GetStore().List() {
		got = append(got, o.(runtime.Object))
	}
	if diff := cmp.Diff(stateOf(want), stateOf(got)); diff != "" {
		t.Errorf("informer store mismatch with the server after random faults (-server +informer):\n%s", diff)
		for _, r := range b.srv.Faults().Records() {
			var uri string
			if r.Request != nil {
				uri = r.Request.URI
			}
			t.Logf("fault %s rv=%d %s %s: %s", r.Time.Format(time.TimeOnly), r.RV, r.Kind, uri, r.Detail)
		}
		t.Logf("the informer's last requests:\n%s", trail.last(40))
	}
	byKind := map[faults.Kind]int{}
	for _, r := range b.srv.Faults().Records() {
		byKind[r.Kind]++
	}
	t.Logf("faults injected: %v", byKind)
	if len(byKind) < 2 {
		t.Errorf("faults injected = %v, want a mix", byKind)
	}
}

// requestTrail records the informer's requests (virtual time, method, URI,
// outcome), so a failing run shows what the informer did last.
type requestTrail struct {
	mu    sync.Mutex
	lines []string
}

func (tr *requestTrail) wrap(rt http.RoundTripper) http.RoundTripper {
	return roundTripFunc(func(req *http.Request) (*http.Response, error) {
		resp, err := rt.RoundTrip(req)
		outcome := "error " + fmt.Sprint(err)
		if err == nil {
			outcome = resp.Status
		}
		tr.mu.Lock()
		defer tr.mu.Unlock()
		tr.lines = append(tr.lines, fmt.Sprintf("%s %s %s -> %s", time.Now().UTC().Format(time.TimeOnly), req.Method, req.URL.RequestURI(), outcome))
		return resp, err
	})
}

// last returns the last n lines.
func (tr *requestTrail) last(n int) string {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return strings.Join(tr.lines[max(0, len(tr.lines)-n):], "\n")
}

// TestFaultInformerRecoversFromWatch5xx: a 5xx that client-go does not
// retry by itself (no Retry-After) answering an informer's WATCH ends its
// ListAndWatch through the default watch error handler, which calls
// apimachinery's HandleError; the informer relists after its backoff and
// sees a later write. This is the random-fault test's rare failure made
// certain: HandleError's rate limiter compared the bubble's clock (2000)
// with the real time it stamped at init and slept the difference, 26
// years of virtual time, in the informer's goroutine (TestMain drops it).
func TestFaultInformerRecoversFromWatch5xx(t *testing.T) {
	for _, code := range []int{http.StatusInternalServerError, http.StatusServiceUnavailable, http.StatusGatewayTimeout} {
		t.Run(strconv.Itoa(code), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				b := startBubble(t)
				b.srv.InjectFault(t, faults.Fault{Kind: faults.FailRequest, Code: code, Times: 1,
					Match: faults.Match{UserAgent: chaosUserAgent, Verbs: []string{"watch"}}})
				cfg := *b.rest
				cfg.UserAgent = chaosUserAgent
				lw := configMapsLW(t, &cfg)
				inf := cache.NewSharedIndexInformerWithOptions(noWatchList{lw}, &corev1.ConfigMap{}, cache.SharedIndexInformerOptions{})
				ctx, cancel := context.WithCancel(context.Background())
				var wg sync.WaitGroup
				wg.Go(func() { inf.RunWithContext(ctx) })
				defer func() { cancel(); wg.Wait() }()
				synctest.Wait()
				if recs := b.srv.Faults().Records(); len(recs) != 1 {
					t.Fatalf("fault records %+v, want the WATCH answered %d", recs, code)
				}
				if _, err := b.cs.CoreV1().ConfigMaps("default").Create(context.Background(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "after"}}, metav1.CreateOptions{}); err != nil {
					t.Fatal(err)
				}
				// Longer than the Reflector's largest backoff (30 s, jittered).
				time.Sleep(2 * time.Minute)
				synctest.Wait()
				if _, ok, _ := inf.GetStore().GetByKey("default/after"); !ok {
					t.Fatalf("the informer never relisted after the %d on its WATCH", code)
				}
			})
		})
	}
}

// configMapsLW lists and watches default's configmaps through a client-go
// clientset for cfg.
func configMapsLW(t *testing.T, cfg *rest.Config) *cache.ListWatch {
	t.Helper()
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	cms := cs.CoreV1().ConfigMaps("default")
	return &cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
			return cms.List(ctx, o)
		},
		WatchFuncWithContext: cms.Watch,
	}
}
