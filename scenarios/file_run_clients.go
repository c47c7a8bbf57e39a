package scenarios

import (
	"slices"
	"strings"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/lw-sim/lw-sim/listwatch"
	"github.com/lw-sim/lw-sim/scenarios/scenariofile"
)

func (r *fileRun) startClient(name string) error {
	i := slices.IndexFunc(r.f.Clients, func(c scenariofile.Client) bool { return c.Name == name })
	fc := r.f.Clients[i]
	lists := new(int)
	r.lists[name] = lists
	count := func(en Entry) {
		if en.Kind == KindRequest && !strings.Contains(en.Text, "watch=") {
			*lists++
		}
	}
	if fc.Kind == scenariofile.KindReflector || fc.Kind == scenariofile.KindReflector111 || fc.Kind == scenariofile.KindInformer {
		store, err := r.e.startClientGo(Namespace, name, fc.UserAgent, fc.Kind, fc.WatchList, count)
		r.stores[name] = store
		return err
	}
	c, err := r.e.startClient(Namespace, name, fc.UserAgent, listwatch.Options{
		WatchList:       fc.WatchList,
		PageSize:        fc.PageSize,
		MinWatchTimeout: time.Duration(fc.MinWatchTimeout),
	}, count)
	if err == nil {
		r.stores[name] = c.Indexer()
	}
	return err
}

// kind is the kind of the file's client name.
func (r *fileRun) kind(name string) string {
	i := slices.IndexFunc(r.f.Clients, func(c scenariofile.Client) bool { return c.Name == name })
	if i < 0 {
		return ""
	}
	return r.f.Clients[i].Kind
}

// waitSync waits until the client's store equals the server's state,
// stepping the clock a second at a time for at most within, and ends at
// the first second at which it does. Before each step the clients get
// real time to act on what they have already received ([Env.settle]:
// until the server has been quiet a while), so the
// check does not race a client still applying an event, and the second
// the wait ends at does not depend on the machine's speed. In a
// testing/synctest bubble (TestReplayFile) that is exact: settle's sleeps
// end only once every goroutine of the bubble is blocked, so the end is
// determined by the seed. On the virtual clock alone (lw-sim run) it is
// the same unless a client takes longer than settle's quiet window to
// apply what it has, the margin the chaos replays rely on too. For an
// informer the wait still runs to the end of the window: its backoffs
// draw their jitter from math/rand's global source, which a run cannot
// seed, so the second it catches up at is not the seed's to decide, and
// ending there would put that second into the timeline.
func (r *fileRun) waitSync(name string, within time.Duration) error {
	e := r.e
	if within == 0 {
		within = fileSyncWindow
	}
	var diff string
	var err error
	synced := func() bool {
		var want map[string]string
		if want, err = e.chaosState(Namespace); err != nil {
			return true
		}
		diff = cmp.Diff(want, storeState(r.stores[name]))
		return diff == ""
	}
	waited := time.Duration(0)
	for {
		// Settle in full even once the store matches: the client may be
		// mid-request, and the run goes on from a quiet state.
		e.settle()
		synced()
		if err != nil {
			return err
		}
		if diff == "" || waited >= within {
			break
		}
		e.clock.Step(time.Second)
		waited += time.Second
	}
	if diff != "" {
		return e.Expect(false, "%s's store equals the server's state within %s; it does not (-server +store):\n%s", name, within, diff)
	}
	if r.kind(name) == scenariofile.KindInformer {
		// An informer's requests move with its unseeded jitter: they
		// stay queued for an await, as before.
		e.clock.Step(within - waited)
		e.settle()
		return e.Expect(true, "%s's store equals the server's state within %s", name, within)
	}
	// What the client did while the run waited for it happened before
	// the check: it goes into the timeline now, in its order, rather
	// than at the next await.
	e.drainClient(name)
	return e.Expect(true, "%s's store equals the server's state after %s (of %s)", name, waited, within)
}
