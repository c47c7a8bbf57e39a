package listwatch

import (
	"context"
	"flag"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/consistencydetector"
	"pgregory.net/rapid"

	"github.com/lw-sim/lw-sim/internal/rapidfail"
)

// Client mutants: test-only broken clients, each a correct client behind
// a broken ListerWatcher or handler layer that does what the named bug
// does. TestClientMutantsAreKilled requires the client machine to catch
// each within rapid's default budget and logs the invariant that did: the
// client half of the mutation table.

// clientMutants are the broken clients, with the invariant that must
// catch each ("a|b": either, whichever the schedule trips first).
var clientMutants = []struct {
	name string
	want string
	mut  func() clientMutant
}{
	// The four survivors.
	{"relist emits no deletes", "handler", func() clientMutant {
		return clientMutant{wrapHandler: func(h cache.ResourceEventHandler) cache.ResourceEventHandler {
			return dropDeletes{h, func(obj any) bool { _, ok := obj.(cache.DeletedFinalStateUnknown); return ok }}
		}}
	}},
	{"relist on every close", "relists", func() clientMutant {
		return clientMutant{wrapLW: func(lw ListerWatcher) ListerWatcher { return &expireAfterClose{inner: lw} }}
	}},
	{"resume from the list RV", "resume", func() clientMutant {
		return clientMutant{wrapLW: func(lw ListerWatcher) ListerWatcher { return &rvRewriter{inner: lw, mode: fromListRV} }}
	}},
	{"bookmark does not advance the RV", "resume", func() clientMutant {
		return clientMutant{wrapLW: func(lw ListerWatcher) ListerWatcher { return &rvRewriter{inner: lw, mode: ignoreBookmarks} }}
	}},
	// Five more.
	{"re-watch from RV 0", "resume|store", func() clientMutant {
		return clientMutant{wrapLW: func(lw ListerWatcher) ListerWatcher { return &rvRewriter{inner: lw, mode: fromZero} }}
	}},
	{"an update delivered twice", "order", func() clientMutant {
		return clientMutant{wrapHandler: func(h cache.ResourceEventHandler) cache.ResourceEventHandler { return twiceUpdates{h} }}
	}},
	{"a delete not delivered", "handler", func() clientMutant {
		return clientMutant{wrapHandler: func(h cache.ResourceEventHandler) cache.ResourceEventHandler {
			return dropDeletes{h, func(obj any) bool { _, ok := obj.(cache.DeletedFinalStateUnknown); return !ok }}
		}}
	}},
	{"LIST stops after the first page", "store", func() clientMutant {
		return clientMutant{wrapLW: func(lw ListerWatcher) ListerWatcher { return firstPageOnly{lw} }}
	}},
	{"MODIFIED events lost in decoding", "store|resume", func() clientMutant {
		return clientMutant{wrapLW: func(lw ListerWatcher) ListerWatcher { return dropModified{lw} }}
	}},
	// Two of several apiservers (issue 22).
	{"relist trusts a resourceVersion=0 list", "relists|order|handler|store", func() clientMutant {
		return clientMutant{wrapLW: func(lw ListerWatcher) ListerWatcher { return rv0Relist{lw} }}
	}},
	{"resume from the serving instance's now", "resume|order|handler|store", func() clientMutant {
		return clientMutant{wrapLW: func(lw ListerWatcher) ListerWatcher { return resumeFromNow{lw} }}
	}},
}

// rv0Relist lists at resourceVersion "0": whatever the serving
// apiserver's watch cache holds, however far behind the RV the client
// already reached (kubernetes#59848, a Reflector relisting into the past).
type rv0Relist struct{ ListerWatcher }

func (r rv0Relist) List(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
	if opts.Continue == "" {
		opts.ResourceVersion, opts.ResourceVersionMatch = "0", ""
	}
	return r.ListerWatcher.List(ctx, opts)
}

// resumeFromNow resumes every plain watch at "the most recent" RV of the
// instance that serves it (sendInitialEvents=false, resourceVersion
// unset), not from the RV it reached: without checking where that
// instance's cache is, it skips what a fresher instance wrote meanwhile,
// and replays from a lagging one what it already has.
type resumeFromNow struct{ ListerWatcher }

func (r resumeFromNow) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	if opts.SendInitialEvents == nil {
		no := false
		opts.ResourceVersion, opts.SendInitialEvents = "", &no
		opts.ResourceVersionMatch = metav1.ResourceVersionMatchNotOlderThan
	}
	return r.ListerWatcher.Watch(ctx, opts)
}

// dropDeletes drops the OnDelete calls drop selects.
type dropDeletes struct {
	cache.ResourceEventHandler
	drop func(obj any) bool
}

func (d dropDeletes) OnDelete(obj any) {
	if !d.drop(obj) {
		d.ResourceEventHandler.OnDelete(obj)
	}
}

// twiceUpdates delivers every update twice.
type twiceUpdates struct{ cache.ResourceEventHandler }

func (t twiceUpdates) OnUpdate(old, obj any) {
	t.ResourceEventHandler.OnUpdate(old, obj)
	t.ResourceEventHandler.OnUpdate(old, obj)
}

// expireAfterClose answers the WATCH after a stream ended with a 410, as a
// client that relists on every close would behave: the server never said
// 410.
type expireAfterClose struct {
	inner ListerWatcher
	// mu guards closed.
	mu     sync.Mutex
	closed bool
}

func (e *expireAfterClose) List(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
	return e.inner.List(ctx, opts)
}

func (e *expireAfterClose) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	e.mu.Lock()
	closed := e.closed
	e.closed = false
	e.mu.Unlock()
	if closed {
		return nil, apierrors.NewResourceExpired("mutant: relist on every close")
	}
	w, err := e.inner.Watch(ctx, opts)
	if err != nil {
		return nil, err
	}
	return proxyWatch(w, func(ev watch.Event) []watch.Event { return []watch.Event{ev} }, func() {
		e.mu.Lock()
		e.closed = true
		e.mu.Unlock()
	}), nil
}

// rvMode is how rvRewriter picks a watch's start RV.
type rvMode int

const (
	// fromListRV: always the last LIST's RV.
	fromListRV rvMode = iota
	// ignoreBookmarks: the highest event RV, as if bookmarks did not
	// advance the client's RV.
	ignoreBookmarks
	// fromZero: "0".
	fromZero
)

// rvRewriter rewrites the RV of every plain WATCH (not watch-lists).
type rvRewriter struct {
	inner ListerWatcher
	mode  rvMode
	// mu guards the fields below.
	mu             sync.Mutex
	listRV, evenRV int64
}

func (r *rvRewriter) List(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
	obj, err := r.inner.List(ctx, opts)
	if err == nil && opts.Continue == "" {
		if l, lerr := meta.ListAccessor(obj); lerr == nil {
			rv, _ := strconv.ParseInt(l.GetResourceVersion(), 10, 64)
			r.mu.Lock()
			r.listRV, r.evenRV = rv, rv
			r.mu.Unlock()
		}
	}
	return obj, err
}

func (r *rvRewriter) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	if opts.SendInitialEvents == nil {
		r.mu.Lock()
		switch r.mode {
		case fromListRV:
			opts.ResourceVersion = strconv.FormatInt(r.listRV, 10)
		case ignoreBookmarks:
			opts.ResourceVersion = strconv.FormatInt(r.evenRV, 10)
		case fromZero:
			opts.ResourceVersion = "0"
		}
		r.mu.Unlock()
	}
	w, err := r.inner.Watch(ctx, opts)
	if err != nil {
		return nil, err
	}
	return proxyWatch(w, func(ev watch.Event) []watch.Event {
		if ev.Type == watch.Added || ev.Type == watch.Modified || ev.Type == watch.Deleted {
			if m, err := meta.Accessor(ev.Object); err == nil {
				rv, _ := strconv.ParseInt(m.GetResourceVersion(), 10, 64)
				r.mu.Lock()
				r.evenRV = max(r.evenRV, rv)
				r.mu.Unlock()
			}
		}
		return []watch.Event{ev}
	}, func() {}), nil
}

// firstPageOnly ends every LIST after its first page.
type firstPageOnly struct{ ListerWatcher }

func (f firstPageOnly) List(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
	if opts.Continue != "" {
		return nil, fmt.Errorf("mutant: unreachable")
	}
	obj, err := f.ListerWatcher.List(ctx, opts)
	if l, lerr := meta.ListAccessor(obj); err == nil && lerr == nil {
		l.SetContinue("")
		l.SetRemainingItemCount(nil)
	}
	return obj, err
}

// dropModified loses every MODIFIED event of its watches.
type dropModified struct{ ListerWatcher }

func (d dropModified) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	w, err := d.ListerWatcher.Watch(ctx, opts)
	if err != nil {
		return nil, err
	}
	return proxyWatch(w, func(ev watch.Event) []watch.Event {
		if ev.Type == watch.Modified {
			return nil
		}
		return []watch.Event{ev}
	}, func() {}), nil
}

// proxyWatch passes w's events through fn; closed runs when w's result
// channel closes. Its goroutine ends then, or at Stop.
func proxyWatch(w watch.Interface, fn func(watch.Event) []watch.Event, closed func()) watch.Interface {
	p := &proxied{inner: w, out: make(chan watch.Event), done: make(chan struct{})}
	go func() {
		defer close(p.out)
		for ev := range w.ResultChan() {
			for _, out := range fn(ev) {
				select {
				case p.out <- out:
				case <-p.done:
					return
				}
			}
		}
		closed()
	}()
	return p
}

type proxied struct {
	inner watch.Interface
	out   chan watch.Event
	done  chan struct{}
	once  sync.Once
}

func (p *proxied) ResultChan() <-chan watch.Event { return p.out }
func (p *proxied) Stop() {
	p.once.Do(func() {
		close(p.done)
		p.inner.Stop()
	})
}

// setFlag sets a command-line flag and returns what restores it.
func setFlag(t *testing.T, name, value string) func() {
	f := flag.Lookup(name)
	if f == nil {
		t.Fatalf("no flag %s", name)
	}
	old := f.Value.String()
	if err := f.Value.Set(value); err != nil {
		t.Fatal(err)
	}
	return func() { _ = f.Value.Set(old) }
}

// killedBy is the invariant named at the start of the failure message
// ("store: ...").
func killedBy(msg string) string {
	msg = strings.TrimPrefix(msg, "[rapid] ")
	for _, inv := range []string{"store", "order", "handler", "relists", "resume", "streams"} {
		if strings.Contains(msg, inv+": ") {
			return inv
		}
	}
	return "other: " + msg
}

// TestClientMutantsAreKilled: the client machine, with rapid's default
// budget, catches every client mutant (run on this package's client).
//
// A killed mutant is shrunk for at most a second (rapid's shrinktime flag,
// set for this test only; it is not parallel, so no other rapid test runs
// meanwhile): the test wants the kill, not the minimal schedule.
func TestClientMutantsAreKilled(t *testing.T) {
	rapidfail.NoFailFiles(t)
	defer consistencydetector.SetDataConsistencyDetectionForWatchListEnabledForTest(false)
	restore := setFlag(t, "rapid.shrinktime", "1s")
	defer restore()
	for _, cm := range clientMutants {
		t.Run(cm.name, func(t *testing.T) {
			ft := rapidfail.New(t)
			rapid.Check(ft, func(rt *rapid.T) {
				m := cm.mut()
				m.kinds = []string{"listwatch"}
				inBubble(t, rt, func(t *testing.T, rt *rapid.T) { runChaos(t, rt, m, nil) })
			})
			if !ft.Failed() {
				t.Fatalf("mutant %q survived the client machine", cm.name)
			}
			got := killedBy(ft.Message())
			t.Logf("mutant %q killed by %s at check %d", cm.name, got, ft.Checks())
			if ft.Checks() == 0 {
				t.Logf("rapid's report: %.600s", ft.Message())
			}
			// Which invariant fires first depends on the schedule rapid
			// draws: the test wants a kill by a named invariant, not by a
			// harness error; the usual killer is logged.
			switch {
			case strings.HasPrefix(got, "other: "):
				t.Errorf("mutant %q killed by %s, want a named invariant (usually %s):\n%s", cm.name, got, cm.want, ft.Message())
			case !slices.Contains(strings.Split(cm.want, "|"), got):
				t.Logf("mutant %q killed by %s this time; usually by %s", cm.name, got, cm.want)
			}
		})
	}
}
