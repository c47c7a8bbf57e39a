package scenarios

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	watchapi "k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	"github.com/lw-sim/lw-sim/listwatch"
	"github.com/lw-sim/lw-sim/scenarios/scenariofile"
)

// noWatchList hides watch-list support from a Reflector, as
// KUBE_FEATURE_WatchListClient=false does for the whole process, so one
// run can have client-go clients in both watch modes.
type noWatchList struct{ *cache.ListWatch }

func (noWatchList) IsWatchListSemanticsUnSupported() bool { return true }

// seededTimeouts redraws each watch's timeoutSeconds from r, in the
// Reflector's range [5m, 10m]. The Reflector draws it from math/rand's
// global source, which a library cannot seed without changing the whole
// process, and several client-go clients draw from it in whatever order
// the scheduler runs them: redrawn per client from the run's seed, a
// replay asks the server for the same timeouts, watch by watch.
func seededTimeouts(watch cache.WatchFuncWithContext, r *rand.Rand) cache.WatchFuncWithContext {
	return func(ctx context.Context, opts metav1.ListOptions) (watchapi.Interface, error) {
		if opts.TimeoutSeconds != nil {
			const minSeconds = 5 * 60 // client-go's defaultMinWatchTimeout
			t := int64(minSeconds + r.Float64()*minSeconds)
			opts.TimeoutSeconds = &t
		}
		return watch(ctx, opts)
	}
}

// rv0Lister makes every LIST ask for resourceVersion=0, as the Reflector
// of Kubernetes 1.11 and before did on every (re)list (kubernetes#59848;
// 1.12 made the relist NotOlderThan the last-synced RV).
type rv0Lister struct{ *cache.ListWatch }

func (l rv0Lister) List(opts metav1.ListOptions) (runtime.Object, error) {
	return l.ListWithContext(context.Background(), opts)
}

// ListWithContext is the one the Reflector calls.
func (l rv0Lister) ListWithContext(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
	opts.ResourceVersion, opts.ResourceVersionMatch = "0", ""
	return l.ListWatch.ListWithContext(ctx, opts)
}

// IsWatchListSemanticsUnSupported: 1.11 had no watch-list.
func (rv0Lister) IsWatchListSemanticsUnSupported() bool { return true }

// reflectorBackoffReset is client-go's defaultBackoffReset: a Reflector's
// backoff starts over after this long without a failure.
const reflectorBackoffReset = 2 * time.Minute

// reflector111Period is how long the Reflector of Kubernetes 1.11 waited
// before listing and watching again after ListAndWatch returned
// (wait.Until with its period, one second).
const reflector111Period = time.Second

// startClientGo starts a client-go Reflector (into a plain store), a
// 1.11-era Reflector, or a SharedIndexInformer (kind) for the ConfigMaps
// of ns, with userAgent, syncing by watch-list or by LIST+WATCH, and
// returns its store. Its requests, and the events of its watches, are
// recorded in lane like a listwatch client's: they enter the timeline
// at their virtual time (an informer's up to its first failed request or
// watch end, later ones only where the scenario awaits them: see below
// and [Env.realClockFrom]). A Reflector runs on the run's clock
// with the scenarios' jitter-free backoff, waited on that clock too
// ([Env.runReflector]). An informer cannot be given a clock, so its
// backoffs take real time, and its "very short watch" check (a watch that
// ends within a real second with no event is an error) sees a watch the
// server ends on virtual time as one and relists: count an informer's
// LISTs with that in mind. Both log nothing (client-go logs watch errors
// through klog, which would interleave with a CLI's output).
func (e *Env) startClientGo(ns, lane, userAgent, kind string, watchList bool, observe func(Entry)) (cache.Store, error) {
	cfg := e.clientConfig(lane, userAgent, observe)
	cfg.Transport.(*recordingTransport).recordEvents = true
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("scenarios: %s client: %w", kind, err)
	}
	clw := listwatch.ToCache(listwatch.FromTyped(cs.CoreV1().ConfigMaps(ns)))
	clw.WatchFuncWithContext = seededTimeouts(clw.WatchFuncWithContext, rand.New(rand.NewPCG(e.seed, laneStream(lane))))
	var lw cache.ListerWatcher = clw
	if !watchList {
		lw = noWatchList{clw}
	}
	var quiet klog.Logger // the zero logger discards
	var store cache.Store
	var run func(context.Context)
	switch kind {
	case scenariofile.KindReflector, scenariofile.KindReflector111:
		store = cache.NewStore(cache.MetaNamespaceKeyFunc)
		backoff := scenarioBackoff
		delay := backoff.DelayWithReset(e.clock, reflectorBackoffReset)
		if kind == scenariofile.KindReflector111 {
			lw = rv0Lister{clw}
			delay = func() time.Duration { return reflector111Period }
		}
		refl := cache.NewReflectorWithOptions(lw, &corev1.ConfigMap{}, store, cache.ReflectorOptions{
			Name: lane, Logger: &quiet, Clock: e.clock, Backoff: &backoff,
		})
		run = func(ctx context.Context) { e.runReflector(ctx, lane, refl, delay) }
	case scenariofile.KindInformer:
		cfg.Transport.(*recordingTransport).realClock = true
		inf := cache.NewSharedIndexInformer(lw, &corev1.ConfigMap{}, 0, cache.Indexers{})
		// The default handler reports through utilruntime.HandleError,
		// which logs; the run's timeline already has the failed requests.
		if err := inf.SetWatchErrorHandlerWithContext(func(context.Context, *cache.Reflector, error) {}); err != nil {
			return nil, fmt.Errorf("scenarios: informer: %w", err)
		}
		store, run = inf.GetStore(), inf.RunWithContext
	default:
		return nil, fmt.Errorf("scenarios: unknown client kind %q", kind)
	}
	ctx, cancel := context.WithCancel(klog.NewContext(e.ctx, quiet))
	var wg sync.WaitGroup
	wg.Go(func() { run(ctx) })
	e.addCloser(sync1(func() { cancel(); wg.Wait() }))
	return store, nil
}

// runReflector is what Reflector.RunWithContext does, on the run's clock:
// ListAndWatch, and when it returns wait delay() and start again, until
// ctx ends. client-go's Run waits on the real clock (wait.DelayFunc.Until
// takes no clock), so when a relist came, and so the timeline, would
// depend on the machine's speed. Each wait is recorded as a backoff entry
// once its timer is armed, so a step that awaits it and steps the clock by
// it fires it.
func (e *Env) runReflector(ctx context.Context, lane string, refl *cache.Reflector, delay func() time.Duration) {
	for {
		// An error is in the timeline already, as the failed request.
		_ = refl.ListAndWatchWithContext(ctx)
		if ctx.Err() != nil {
			return
		}
		d := delay()
		wait := e.clock.After(d)
		en := e.entry(KindClient, "", "%s %s, then list and watch again", reflectorBackoff, d)
		en.Lane = lane
		e.logClient(clientEntry{Entry: en, delay: d, armed: true})
		select {
		case <-ctx.Done():
			return
		case <-wait:
		}
	}
}

// reflectorBackoff begins the entry of a Reflector's wait before it lists
// and watches again.
const reflectorBackoff = "reflector: backoff"
