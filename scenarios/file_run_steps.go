package scenarios

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/lw-sim/lw-sim/listwatch"
	"github.com/lw-sim/lw-sim/scenarios/scenariofile"
)

// stepFunc runs the i-th step of a file's timeline.
type stepFunc func(r *fileRun, i int, s *scenariofile.Step) error

// stepFuncs is what runs each kind of step ([scenariofile.Step.Kind]). A
// function, not a table in a variable: a pager step runs steps itself.
func stepFuncs() map[string]stepFunc {
	return map[string]stepFunc{
		"note":        (*fileRun).note,
		"create":      (*fileRun).write,
		"update":      (*fileRun).write,
		"write":       (*fileRun).write,
		"delete":      (*fileRun).write,
		"fault":       (*fileRun).fault,
		"clearFaults": (*fileRun).clearFaults,
		"advance":     func(r *fileRun, _ int, s *scenariofile.Step) error { r.e.Step(time.Duration(s.Advance)); return nil },
		"currentRV":   (*fileRun).currentRV,
		"route": func(r *fileRun, _ int, s *scenariofile.Step) error {
			lane, err := r.expand(s.Route.Lane)
			r.e.Route(lane, s.Route.APIServer)
			return err
		},
		"startClient": func(r *fileRun, _ int, s *scenariofile.Step) error { return r.startClient(s.StartClient) },
		"waitSync": func(r *fileRun, _ int, s *scenariofile.Step) error {
			return r.waitSync(s.WaitSync.Client, time.Duration(s.WaitSync.Within))
		},
		"awaitClient":       (*fileRun).awaitClient,
		"list":              func(r *fileRun, _ int, s *scenariofile.Step) error { return r.list(s.List) },
		"get":               func(r *fileRun, _ int, s *scenariofile.Step) error { return r.list(s.Get) },
		"awaitList":         func(r *fileRun, _ int, s *scenariofile.Step) error { return r.awaitList(s.AwaitList) },
		"awaitTimers":       func(r *fileRun, _ int, s *scenariofile.Step) error { return r.e.AwaitTimers(s.AwaitTimers) },
		"watch":             func(r *fileRun, _ int, s *scenariofile.Step) error { return r.watch(s.Watch) },
		"expectEvents":      func(r *fileRun, _ int, s *scenariofile.Step) error { return r.expectEvents(s.ExpectEvents) },
		"close":             func(r *fileRun, _ int, s *scenariofile.Step) error { r.watches[s.Close].Close(); return nil },
		"compact":           (*fileRun).compact,
		"watchCacheHorizon": (*fileRun).watchCacheHorizon,
		"createMany":        func(r *fileRun, _ int, s *scenariofile.Step) error { return r.createMany(s.CreateMany) },
		"resume":            func(r *fileRun, _ int, s *scenariofile.Step) error { r.resume(s.Resume); return nil },
		"expectRecorded":    func(r *fileRun, _ int, s *scenariofile.Step) error { return r.expectRecorded(s.ExpectRecorded) },
		"expectStore":       func(r *fileRun, _ int, s *scenariofile.Step) error { return r.expectStore(s.ExpectStore) },
		"expectCache":       func(r *fileRun, _ int, s *scenariofile.Step) error { return r.expectCache(s.ExpectCache) },
		"readInitialEvents": func(r *fileRun, _ int, s *scenariofile.Step) error {
			return r.readInitialEvents(s.ReadInitialEvents)
		},
		"expectLess": func(r *fileRun, _ int, s *scenariofile.Step) error { return r.expectLess(s.ExpectLess) },
		"pager":      func(r *fileRun, _ int, s *scenariofile.Step) error { return r.pager(s.Pager) },
		"set": func(r *fileRun, _ int, s *scenariofile.Step) error {
			v, err := r.expand(s.Set.Value)
			r.vars[s.Set.ID] = v
			return err
		},
		"drain": func(r *fileRun, _ int, s *scenariofile.Step) error { return r.drain(s.Drain) },
		"restartWatchCache": func(r *fileRun, _ int, s *scenariofile.Step) error {
			r.vars[s.RestartWatchCache] = r.e.RestartWatchCache()
			return nil
		},
	}
}

// step runs step i, whose one field is kind.
func (r *fileRun) step(i int, kind string, s *scenariofile.Step) error {
	run, ok := r.funcs[kind]
	if !ok {
		return fmt.Errorf("scenarios: no runner for step kind %q", kind)
	}
	return run(r, i, s)
}

func (r *fileRun) note(_ int, s *scenariofile.Step) error {
	text, err := r.expand(s.Note)
	r.e.Note("%s", text)
	return err
}

// write writes an object; its value defaults to the step's index.
func (r *fileRun) write(i int, s *scenariofile.Step) error {
	kind, _ := s.Kind()
	return r.writeObject(kind, *s.Object(), strconv.Itoa(i))
}

func (r *fileRun) fault(_ int, s *scenariofile.Step) error {
	return r.e.inject(*s.Fault)
}

func (r *fileRun) clearFaults(int, *scenariofile.Step) error {
	r.e.srv.Faults().Clear()
	r.e.Note("faults cleared")
	return nil
}

func (r *fileRun) currentRV(_ int, s *scenariofile.Step) error {
	rv, err := r.e.CurrentRV()
	r.vars[s.CurrentRV] = rv
	return err
}

// awaitClient waits, stepping through backoffs, for a client's trace
// entry (or, for trace "response", an answer to one of its requests). A
// wait for a backoff stops at it: the clock is not stepped.
func (r *fileRun) awaitClient(_ int, s *scenariofile.Step) error {
	a := *s.AwaitClient
	var err error
	if a.Contains, err = r.expand(a.Contains); err != nil {
		return err
	}
	kind, prefixes := KindClient, []string{"listwatch: " + a.Trace, "reflector: " + a.Trace}
	switch a.Trace {
	case "request":
		kind, prefixes = KindRequest, []string{""}
	case "response":
		kind, prefixes = KindResponse, []string{""}
	case "event":
		kind, prefixes = KindEvent, []string{""}
	}
	what := a.Client + " " + a.Trace + " " + a.Contains
	match := func(en Entry) bool {
		return en.Kind == kind && en.Lane == a.Client && strings.Contains(en.Text, a.Contains) &&
			slices.ContainsFunc(prefixes, func(p string) bool { return strings.HasPrefix(en.Text, p) })
	}
	if a.Trace == string(listwatch.TraceBackoff) {
		return r.e.AwaitClient(what, match)
	}
	return r.e.AwaitClientStepping(what, match)
}

func (r *fileRun) compact(_ int, s *scenariofile.Step) error {
	rv, err := r.expand(s.Compact)
	if err != nil {
		return err
	}
	return r.e.Compact(rv)
}

func (r *fileRun) watchCacheHorizon(_ int, s *scenariofile.Step) error {
	h := s.WatchCacheHorizon
	rv, err := r.expand(h.RV)
	if err != nil {
		return err
	}
	note, err := r.expand(h.Note)
	r.e.WatchCacheHorizon(rv, "%s", note)
	return err
}
