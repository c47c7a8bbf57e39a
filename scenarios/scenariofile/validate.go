package scenariofile

import (
	"fmt"
	"slices"
	"strings"
)

// Client kinds.
const (
	// KindListwatch is lw-sim's own client, package listwatch.
	KindListwatch = "listwatch"
	// KindReflector is a bare client-go Reflector into a store.
	KindReflector = "reflector"
	// KindReflector111 is a client-go Reflector as Kubernetes 1.11 ran
	// it: every LIST at resourceVersion=0, a relist a second after its
	// watch failed.
	KindReflector111 = "reflector-1.11"
	// KindInformer is a client-go SharedIndexInformer.
	KindInformer = "informer"
)

// Validate checks what decoding cannot: the version, one field per step,
// names that refer to something defined before.
func (f *File) Validate() error {
	if f.Version != Version {
		return fmt.Errorf("version %d, want %d", f.Version, Version)
	}
	if err := f.APIServers.validate(); err != nil {
		return fmt.Errorf("apiservers: %w", err)
	}
	clients := map[string]bool{}
	for i, c := range f.Clients {
		if err := c.validate(clients); err != nil {
			return located(fmt.Sprintf("clients[%d]", i), fmt.Errorf("clients[%d] (%s): %w", i, c.Name, err))
		}
		clients[c.Name] = true
	}
	v := validator{apiservers: max(f.APIServers.Count, 1), clients: clients, watches: map[string]bool{}, paused: map[string]bool{}, pending: map[string]bool{}, caches: map[string]bool{}}
	for i := range f.Timeline {
		s := &f.Timeline[i]
		kind, n := s.Kind()
		where := fmt.Sprintf("timeline[%d]", i)
		if n != 1 {
			return located(where, fmt.Errorf("%s: a step sets exactly one of %s; it sets %d", where, stepKindList(), n))
		}
		if err := v.step(kind, s); err != nil {
			return located(where, fmt.Errorf("%s (%s): %w", where, kind, err))
		}
	}
	return f.Expect.validate(clients)
}

func (a *APIServers) validate() error {
	if a.Count < 0 {
		return fmt.Errorf("count %d is negative", a.Count)
	}
	switch a.Balancing {
	case "", "round-robin", "sticky-connection", "sticky-client", BalanceRoundRobinPerLane:
	default:
		ways := []string{"round-robin", "sticky-connection", "sticky-client", BalanceRoundRobinPerLane}
		return fmt.Errorf("balancing %q: want one of %s%s", a.Balancing, strings.Join(ways, ", "), didYouMean(a.Balancing, ways))
	}
	n := max(a.Count, 1)
	for lane, inst := range a.Routes {
		ok := false
		for i := range n {
			ok = ok || inst == fmt.Sprintf("apiserver-%d", i)
		}
		if !ok {
			return fmt.Errorf("routes[%q]: %q is not one of apiserver-0 to apiserver-%d", lane, inst, n-1)
		}
	}
	return nil
}

func (c *Client) validate(seen map[string]bool) error {
	if c.Name == "" || seen[c.Name] {
		return fmt.Errorf("missing or duplicate name %q", c.Name)
	}
	switch c.Kind {
	case "", KindListwatch:
	case KindReflector, KindReflector111, KindInformer:
		if c.PageSize != 0 || c.MinWatchTimeout != 0 {
			return fmt.Errorf("pageSize and minWatchTimeout are listwatch options")
		}
		if c.Kind == KindReflector111 && c.WatchList {
			return fmt.Errorf("a 1.11-era Reflector has no watch-list")
		}
	default:
		kinds := []string{KindListwatch, KindReflector, KindReflector111, KindInformer}
		return fmt.Errorf("kind %q: want one of %s%s", c.Kind, strings.Join(kinds, ", "), didYouMean(c.Kind, kinds))
	}
	return nil
}

func (x *Expect) validate(clients map[string]bool) error {
	for i, c := range x.StoreEqualsServer {
		if !clients[c] {
			return located(fmt.Sprintf("expect.storeEqualsServer[%d]", i), fmt.Errorf("expect.storeEqualsServer: no client %q%s", c, didYouMean(c, sortedKeys(clients))))
		}
	}
	for c := range x.MaxLists {
		if !clients[c] {
			return located("expect.maxLists", fmt.Errorf("expect.maxLists: no client %q%s", c, didYouMean(c, sortedKeys(clients))))
		}
	}
	return nil
}

// validator is what the timeline defined so far: clients, watches opened
// (and those paused, not yet resumed), async lists not yet awaited,
// naive caches filled.
type validator struct {
	apiservers                                int
	clients, watches, paused, pending, caches map[string]bool
}

// step checks one step whose one field is kind.
func (v *validator) step(kind string, s *Step) error {
	for _, check := range []func(string, *Step) error{v.actionStep, v.watchStep, v.expectStep} {
		if err := check(kind, s); err != nil {
			return err
		}
	}
	return nil
}

// actionStep checks the writes, clients and lists (any other kind
// passes).
func (v *validator) actionStep(kind string, s *Step) error {
	switch kind {
	case "create", "update", "write", "delete":
		if s.Object().Name == "" {
			return fmt.Errorf("no name")
		}
		if kind == "delete" && s.Delete.Labels != nil {
			return fmt.Errorf("a delete sets no labels")
		}
	case "createMany":
		if c := s.CreateMany; c.Prefix == "" || c.Count <= 0 {
			return fmt.Errorf("a prefix and a positive count are needed")
		}
	case "startClient":
		return v.client(s.StartClient)
	case "waitSync":
		return v.client(s.WaitSync.Client)
	case "awaitClient":
		if err := checkTrace(s.AwaitClient.Trace); err != nil {
			return err
		}
		return v.client(s.AwaitClient.Client)
	case "fault":
		return s.Fault.Check()
	case "route":
		return v.route(s.Route)
	case "list":
		if s.List.Name != "" {
			return fmt.Errorf("a list reads the collection: for one object, use a get step")
		}
		return v.list(s.List)
	case "get":
		if s.Get.Name == "" {
			return fmt.Errorf("no name")
		}
		if s.Get.Follow || s.Get.Into != "" {
			return fmt.Errorf("follow and into are for lists")
		}
		return v.list(s.Get)
	case "awaitList":
		if !v.pending[s.AwaitList] {
			return fmt.Errorf("no async list %q sent before", s.AwaitList)
		}
		delete(v.pending, s.AwaitList)
	case "pager":
		return v.pager(s.Pager)
	case "set":
		if s.Set.ID == "" {
			return fmt.Errorf("no id")
		}
	}
	return nil
}

// watchStep checks the steps on watches (any other kind passes).
func (v *validator) watchStep(kind string, s *Step) error {
	switch kind {
	case "watch":
		if s.Watch.ID == "" {
			return fmt.Errorf("no id")
		}
		v.watches[s.Watch.ID] = true
		if s.Watch.Paused {
			v.paused[s.Watch.ID] = true
		}
	case "expectEvents":
		if s.ExpectEvents.Silent && len(s.ExpectEvents.Events) > 0 {
			return fmt.Errorf("silent expects no events")
		}
		if a := s.ExpectEvents.Apply; a != "" && !v.caches[a] {
			return fmt.Errorf("no naive cache %q filled before", a)
		}
		return v.watch(s.ExpectEvents.Watch)
	case "readInitialEvents":
		if s.ReadInitialEvents.ID == "" {
			return fmt.Errorf("no id")
		}
		return v.watch(s.ReadInitialEvents.Watch)
	case "resume":
		if !v.paused[s.Resume] {
			return fmt.Errorf("no paused watch %q opened before", s.Resume)
		}
		delete(v.paused, s.Resume)
	case "drain":
		return v.watch(s.Drain.Watch)
	case "close":
		return v.watch(s.Close)
	}
	return nil
}

// expectStep checks the expectation steps (any other kind passes).
func (v *validator) expectStep(kind string, s *Step) error {
	switch kind {
	case "expectRecorded":
		return validateRecorded(s.ExpectRecorded)
	case "expectLess":
		if len(s.ExpectLess.Values) < 2 {
			return fmt.Errorf("two values or more are needed")
		}
	case "expectStore":
		return v.client(s.ExpectStore.Client)
	case "expectCache":
		if !v.caches[s.ExpectCache.Cache] {
			return fmt.Errorf("no naive cache %q filled before", s.ExpectCache.Cache)
		}
	}
	return nil
}

// route checks a route step: a lane, and an instance the topology has.
func (v *validator) route(r *Route) error {
	if r.Lane == "" {
		return fmt.Errorf("no lane")
	}
	if v.apiservers < 2 {
		return fmt.Errorf("a route needs apiservers: {count: 2} or more")
	}
	names := make([]string, v.apiservers)
	for i := range names {
		names[i] = fmt.Sprintf("apiserver-%d", i)
	}
	if !slices.Contains(names, r.APIServer) {
		return fmt.Errorf("apiserver %q is not one of apiserver-0 to apiserver-%d%s", r.APIServer, v.apiservers-1, didYouMean(r.APIServer, names))
	}
	return nil
}

func (v *validator) client(name string) error {
	if !v.clients[name] {
		return fmt.Errorf("no client %q%s", name, didYouMean(name, sortedKeys(v.clients)))
	}
	return nil
}

func (v *validator) watch(id string) error {
	if !v.watches[id] {
		return fmt.Errorf("no watch %q opened before%s", id, didYouMean(id, sortedKeys(v.watches)))
	}
	return nil
}

func (v *validator) list(l *List) error {
	if l.Follow && l.Async {
		return fmt.Errorf("an async list cannot follow continue tokens")
	}
	if l.Into != "" {
		v.caches[l.Into] = true
	}
	if !l.Async {
		return nil
	}
	if l.ID == "" {
		return fmt.Errorf("an async list needs an id")
	}
	v.pending[l.ID] = true
	return nil
}

// entryKinds are the kinds of timeline entries.
var entryKinds = map[string]bool{
	"request": true, "response": true, "event": true, "write": true, "clock": true,
	"fault": true, "client": true, "check": true, "note": true,
}

func validateRecorded(x *Recorded) error {
	if !entryKinds[x.Kind] {
		return fmt.Errorf("kind %q: want request, response, event, write, clock, fault, client, check or note%s", x.Kind, didYouMean(x.Kind, sortedKeys(entryKinds)))
	}
	if len(x.Contains) == 0 && x.RV == "" && x.Text == "" {
		return fmt.Errorf("a text, a text to contain or an rv is needed")
	}
	return nil
}

// pager checks a pager step and the steps it runs between pages.
func (v *validator) pager(p *Pager) error {
	if p.PageSize <= 0 {
		return fmt.Errorf("a positive pageSize is needed")
	}
	for i := range p.Between {
		s := &p.Between[i]
		kind, n := s.Kind()
		where := fmt.Sprintf("between[%d]", i)
		if n != 1 {
			return located("pager."+where, fmt.Errorf("%s: a step sets exactly one of %s; it sets %d", where, stepKindList(), n))
		}
		if kind == "pager" {
			return located("pager."+where, fmt.Errorf("%s: no pager within a pager", where))
		}
		if err := v.step(kind, s); err != nil {
			return located("pager."+where, fmt.Errorf("%s (%s): %w", where, kind, err))
		}
	}
	return nil
}

// TraceKinds are what awaitClient's trace may name: the decisions of
// lw-sim's client (listwatch.TraceKind, the same strings; package
// scenarios checks the two lists agree; a client-go Reflector reports
// "backoff" too), "request" and "response", one of the client's requests
// and an answer to one, and "event", an ERROR event on one of a client-go
// client's watches.
var TraceKinds = []string{
	"page", "full-list", "listed", "synced", "watch-start", "watch-end", "applied", "skipped",
	"bookmark", "relist", "backoff", "watch-list-fallback", "list-error", "request", "response", "event",
}

// checkTrace refuses a trace kind no client reports, which a step would
// otherwise wait for until its window ends.
func checkTrace(trace string) error {
	if trace == "" {
		return fmt.Errorf("no trace kind")
	}
	if !slices.Contains(TraceKinds, trace) {
		return fmt.Errorf("trace %q: no client reports it (want one of %s)%s", trace, strings.Join(TraceKinds, ", "), didYouMean(trace, TraceKinds))
	}
	return nil
}
