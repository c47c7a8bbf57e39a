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
	if fc.Kind == scenariofile.KindReflector || fc.Kind == scenariofile.KindInformer {
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

// waitSync steps the clock a second at a time until the client's store
// equals the server's state, then to the end of the window, so that the
// timeline does not depend on how fast the machine let the client get
// there.
func (r *fileRun) waitSync(name string, within time.Duration) error {
	e := r.e
	if within == 0 {
		within = fileSyncWindow
	}
	var diff string
	waited := time.Duration(0)
	for ; waited <= within; waited += time.Second {
		want, err := e.chaosState(Namespace)
		if err != nil {
			return err
		}
		if diff = cmp.Diff(want, storeState(r.stores[name])); diff == "" {
			break
		}
		e.clock.Step(time.Second)
		e.settle()
	}
	e.clock.Step(max(0, within-waited))
	// The clients act on what the step fired (a watch timeout, a backoff)
	// before the run goes on, so the next check does not race them.
	e.settle()
	if diff != "" {
		return e.Expect(false, "%s's store equals the server's state within %s; it does not (-server +store):\n%s", name, within, diff)
	}
	return e.Expect(true, "%s's store equals the server's state within %s", name, within)
}
