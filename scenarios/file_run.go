package scenarios

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/lw-sim/lw-sim/fakeapiserver"
	"github.com/lw-sim/lw-sim/listwatch"
	"github.com/lw-sim/lw-sim/scenarios/scenariofile"
)

// fileSyncWindow is how long waitSync and storeEqualsServer give a client
// by default, in virtual time: the largest backoff (30 s) plus a watch
// deadline (2·5 min + 30 s), with room.
const fileSyncWindow = 15 * time.Minute

// Scenario turns f into a runnable scenario.
func (f *File) Scenario() *Scenario {
	return &Scenario{
		Name:        f.Name,
		Answers:     questionIDs(f.Answers),
		Summary:     f.Summary,
		Explanation: strings.TrimSpace(f.Explanation),
		Seed:        max(f.Seed, 1),
		Config: func(c *fakeapiserver.Config) {
			if f.Server.WatchCacheMinEvents != 0 {
				c.Watch.HistoryMinEvents = f.Server.WatchCacheMinEvents
			}
			if f.Server.WatchCacheMaxEvents != 0 {
				c.Watch.HistoryMaxEvents = f.Server.WatchCacheMaxEvents
			}
			if f.Server.CountOnly {
				c.Watch.HistoryMinAge = -1
			}
		},
		Steps: func(e *Env) error { return (&fileRun{f: f, e: e}).run() },
	}
}

// questionIDs types the answers of a file.
func questionIDs(ids []string) []QuestionID {
	if ids == nil {
		return nil
	}
	out := make([]QuestionID, len(ids))
	for i, id := range ids {
		out[i] = QuestionID(id)
	}
	return out
}

// fileRun is the state of one run of a File.
type fileRun struct {
	f       *File
	e       *Env
	vars    map[string]string
	live    map[string]bool
	stores  map[string]cache.Store
	lists   map[string]*int
	pending map[string]pendingList
	watches map[string]*Stream
}

func (r *fileRun) run() error {
	r.vars, r.live = map[string]string{}, map[string]bool{}
	r.stores, r.lists, r.watches = map[string]cache.Store{}, map[string]*int{}, map[string]*Stream{}
	r.pending = map[string]pendingList{}
	for _, ns := range r.f.Namespaces {
		if _, err := r.e.quiet.CoreV1().Namespaces().Create(r.e.ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("scenarios: namespace %s: %w", ns, err)
		}
	}
	if err := r.seedObjects(); err != nil {
		return err
	}
	for i := range r.f.Timeline {
		s := &r.f.Timeline[i]
		kind, _ := s.Kind()
		if err := r.step(i, s); err != nil {
			return fmt.Errorf("timeline[%d] (%s): %w", i, kind, err)
		}
		if len(r.stores) > 0 {
			// The clients' goroutines act on what the step did in real
			// time (the clock is fake, the HTTP traffic real).
			r.e.settle()
		}
	}
	return r.expectations()
}

// seedObjects creates the objects, in a seeded order if asked (the draws
// are those of createShuffled, so a built-in keeps its timeline).
func (r *fileRun) seedObjects() error {
	order := make([]int, len(r.f.Objects))
	for i := range order {
		order[i] = i
	}
	if r.f.ShuffleObjects {
		order = r.e.Rand().Perm(len(order))
	}
	for _, i := range order {
		o := r.f.Objects[i]
		v := o.Value
		if v == "" && r.f.ShuffleObjects {
			v = fmt.Sprintf("v%d", r.e.Rand().IntN(100))
		} else if v == "" {
			v = "0"
		}
		if err := r.writeObject("create", o, v); err != nil {
			return err
		}
	}
	return nil
}

func (r *fileRun) writeObject(kind string, w scenariofile.Write, value string) error {
	ns := w.Namespace
	if ns == "" {
		ns = Namespace
	}
	if w.Value != "" {
		value = w.Value
	}
	k := ns + "/" + w.Name
	if kind == "write" {
		kind = "create"
		if r.live[k] {
			kind = "update"
		}
	}
	var rv string
	var err error
	switch kind {
	case "create":
		rv, err = r.e.Create(ns, w.Name, value)
		r.live[k] = true
	case "update":
		rv, err = r.e.Update(ns, w.Name, value)
	case "delete":
		rv, err = r.e.Delete(ns, w.Name)
		delete(r.live, k)
	}
	r.vars[w.Name] = rv
	return err
}

func (r *fileRun) step(i int, s *scenariofile.Step) error {
	e := r.e
	kind, _ := s.Kind()
	switch kind {
	case "note":
		text, err := r.expand(s.Note)
		e.Note("%s", text)
		return err
	case "create", "update", "write", "delete":
		return r.writeObject(kind, *s.Object(), strconv.Itoa(i))
	case "fault":
		fault := *s.Fault
		var err error
		e.Fault(describeFault(fault), func() { _, err = e.srv.Faults().Add(fault) })
		return err
	case "clearFaults":
		e.srv.Faults().Clear()
		e.Note("faults cleared")
	case "advance":
		e.Step(time.Duration(s.Advance))
	case "currentRV":
		rv, err := e.CurrentRV()
		r.vars[s.CurrentRV] = rv
		return err
	case "startClient":
		return r.startClient(s.StartClient)
	case "waitSync":
		return r.waitSync(s.WaitSync.Client, time.Duration(s.WaitSync.Within))
	case "awaitClient":
		a := s.AwaitClient
		kind, prefix := KindClient, "listwatch: "+a.Trace
		if a.Trace == "response" {
			kind, prefix = KindResponse, ""
		}
		return e.AwaitClientStepping(a.Client+" "+a.Trace+" "+a.Contains, func(en Entry) bool {
			return en.Kind == kind && en.Lane == a.Client && strings.HasPrefix(en.Text, prefix) && strings.Contains(en.Text, a.Contains)
		})
	case "list":
		return r.list(s.List)
	case "awaitList":
		return r.awaitList(s.AwaitList)
	case "awaitTimers":
		return e.AwaitTimers(s.AwaitTimers)
	case "watchCacheHorizon":
		h := s.WatchCacheHorizon
		rv, err := r.expand(h.RV)
		if err != nil {
			return err
		}
		note, err := r.expand(h.Note)
		e.WatchCacheHorizon(rv, "%s", note)
		return err
	case "compact":
		rv, err := r.expand(s.Compact)
		if err != nil {
			return err
		}
		return e.Compact(rv)
	case "watch":
		q, err := r.expand(s.Watch.Query)
		if err != nil {
			return err
		}
		e.SetLane(s.Watch.Lane)
		w, err := e.Watch(cmPath + "?" + q)
		e.SetLane("")
		r.watches[s.Watch.ID] = w
		if err != nil || s.Watch.Expect == nil {
			return err
		}
		return r.checkWatchHead(w, s.Watch.Expect)
	case "expectEvents":
		return r.expectEvents(s.ExpectEvents)
	case "close":
		r.watches[s.Close].Close()
	}
	return nil
}

// describeFault renders a fault for the timeline: its kind and its JSON
// spec (the control API's form, zero fields left out).
func describeFault(f fakeapiserver.Fault) string {
	b, err := json.Marshal(f)
	if err != nil {
		return fmt.Sprintf("%s %+v", f.Kind, f)
	}
	return fmt.Sprintf("fault %s %s", f.Kind, b)
}

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
	if diff != "" {
		return e.Expect(false, "%s's store equals the server's state within %s; it does not (-server +store):\n%s", name, within, diff)
	}
	return e.Expect(true, "%s's store equals the server's state within %s", name, within)
}

func (r *fileRun) list(l *scenariofile.List) error {
	q, err := r.expand(l.Query)
	if err != nil {
		return err
	}
	path := cmPath
	if q != "" {
		path += "?" + q
	}
	r.e.SetLane(l.Lane)
	defer r.e.SetLane("")
	if l.Async {
		r.pending[l.ID] = pendingList{l: l, q: q, ch: r.e.GetAsync(path)}
		return nil
	}
	res, err := r.e.Get(path)
	if err != nil {
		return err
	}
	return r.checkList(l, q, res)
}

// pendingList is an async LIST waiting for awaitList.
type pendingList struct {
	l  *scenariofile.List
	q  string
	ch <-chan getResult
}

func (r *fileRun) awaitList(id string) error {
	p := r.pending[id]
	delete(r.pending, id)
	res, err := r.e.Await(p.ch)
	if err != nil {
		return err
	}
	return r.checkList(p.l, p.q, res)
}

// checkList stores a LIST's RV under its id and checks its expectation.
func (r *fileRun) checkList(l *scenariofile.List, q string, res *ListResult) error {
	if l.ID != "" {
		r.vars[l.ID] = res.RV
	}
	x := l.Expect
	if x == nil {
		return nil
	}
	var want scenariofile.ListExpect = *x
	var err error
	if want.RV, err = r.expand(x.RV); err != nil {
		return err
	}
	if want.Message, err = r.expand(x.Message); err != nil {
		return err
	}
	var reason metav1.StatusReason
	var message string
	if res.Status != nil {
		reason, message = res.Status.Reason, res.Status.Message
	}
	ok := (want.Code == 0 || res.Code == want.Code) && (want.Reason == "" || reason == want.Reason) &&
		(want.Message == "" || message == want.Message) && (want.RV == "" || res.RV == want.RV) &&
		(want.Names == nil || slices.Equal(res.Names, want.Names))
	for h, v := range want.Header {
		ok = ok && res.Header.Get(h) == v
	}
	if !ok {
		return r.e.Expect(false, "%s answers %s; got %d %s %q rv %s %v", listTarget(q), describeListExpect(&want), res.Code, reason, message, res.RV, res.Names)
	}
	text, err := r.expand(x.Lesson)
	if err != nil {
		return err
	}
	return r.e.Expect(true, "%s answers %s%s", listTarget(q), describeListExpect(&want), lesson(text))
}

// listTarget names a LIST by its query in check lines.
func listTarget(q string) string {
	if q == "" {
		return "LIST"
	}
	return "LIST ?" + q
}

func describeListExpect(x *scenariofile.ListExpect) string {
	var parts []string
	if x.Code != 0 {
		parts = append(parts, strconv.Itoa(x.Code))
	}
	if x.Reason != "" {
		parts = append(parts, string(x.Reason))
	}
	if x.Message != "" {
		parts = append(parts, strconv.Quote(x.Message))
	}
	if x.RV != "" {
		parts = append(parts, "rv "+x.RV)
	}
	if x.Names != nil {
		parts = append(parts, fmt.Sprint(x.Names))
	}
	hs := make([]string, 0, len(x.Header))
	for h, v := range x.Header {
		hs = append(hs, h+": "+v)
	}
	slices.Sort(hs)
	parts = append(parts, hs...)
	return strings.Join(parts, " ")
}

func (r *fileRun) expectEvents(x *scenariofile.Events) error {
	w := r.watches[x.Watch]
	var got, want []string
	for _, fe := range x.Events {
		ev, err := w.Next()
		if err != nil {
			return err
		}
		rv, err := r.expand(fe.RV)
		if err != nil {
			return err
		}
		if fe.Message, err = r.expand(fe.Message); err != nil {
			return err
		}
		want = append(want, describeFileEvent(fe, rv))
		if !eventMatches(ev, fe, rv) {
			return r.e.Expect(false, "%s: events %v; got %v then %s", x.Watch, want, got, ev)
		}
		got = append(got, describeFileEvent(fe, rv))
	}
	l, err := r.expand(x.Lesson)
	if err != nil {
		return err
	}
	if at := time.Duration(x.At); at != 0 && r.e.Elapsed() != at {
		return r.e.Expect(false, "%s: events %s at %s; they came at %s", x.Watch, strings.Join(want, ", "), Offset(at), Offset(r.e.Elapsed()))
	}
	return r.e.Expect(true, "%s: events %s%s", x.Watch, strings.Join(want, ", "), lesson(l))
}

// checkWatchHead checks a watch's response head.
func (r *fileRun) checkWatchHead(w *Stream, x *scenariofile.WatchExpect) error {
	resp := w.Response
	var want []string
	ok := true
	if x.Code != 0 {
		want = append(want, "status "+strconv.Itoa(x.Code))
		ok = ok && resp.StatusCode == x.Code
	}
	hs := make([]string, 0, len(x.Header))
	for h, v := range x.Header {
		hs = append(hs, h+": "+v)
		ok = ok && resp.Header.Get(h) == v
	}
	slices.Sort(hs)
	want = append(want, hs...)
	if x.Chunked {
		want = append(want, "Transfer-Encoding chunked and no Content-Length")
		ok = ok && slices.Equal(resp.TransferEncoding, []string{"chunked"}) && resp.ContentLength == -1
	}
	text, err := r.expand(x.Lesson)
	if err != nil {
		return err
	}
	if !ok {
		return r.e.Expect(false, "%s: response %s; got %s %v", w.Name(), strings.Join(want, ", "), resp.Status, resp.Header)
	}
	return r.e.Expect(true, "%s: response %s%s", w.Name(), strings.Join(want, ", "), lesson(text))
}

func eventMatches(ev WatchEvent, fe scenariofile.Event, rv string) bool {
	if fe.End {
		return ev.End && ev.Err == nil
	}
	var code int32
	var reason metav1.StatusReason
	var message string
	if ev.Status != nil {
		code, reason, message = ev.Status.Code, ev.Status.Reason, ev.Status.Message
	}
	return !ev.End && ev.Type == fe.Type &&
		(fe.Name == "" || ev.Key == key(fe.Name)) &&
		(rv == "" || ev.RV == rv) &&
		(!fe.InitialEventsEnd || ev.InitialEventsEnd) &&
		(fe.Code == 0 || code == fe.Code) &&
		(fe.Reason == "" || reason == fe.Reason) &&
		(fe.Message == "" || message == fe.Message) &&
		(fe.Kind == "" || ev.Kind == fe.Kind) &&
		(fe.APIVersion == "" || ev.APIVersion == fe.APIVersion)
}

func describeFileEvent(fe scenariofile.Event, rv string) string {
	if fe.End {
		return "end"
	}
	s := string(fe.Type)
	for _, p := range []string{fe.Name, rv} {
		if p != "" {
			s += " " + p
		}
	}
	if fe.InitialEventsEnd {
		s += " (initial-events-end)"
	}
	if fe.Code != 0 {
		s += " " + strconv.Itoa(int(fe.Code))
	}
	if fe.Reason != "" {
		s += " " + string(fe.Reason)
	}
	if fe.Message != "" {
		s += " " + strconv.Quote(fe.Message)
	}
	if fe.Kind != "" || fe.APIVersion != "" {
		s += " (" + strings.TrimSpace(fe.APIVersion+" "+fe.Kind) + ")"
	}
	return s
}

func (r *fileRun) expectations() error {
	x := r.f.Expect
	if len(x.StoreEqualsServer) > 0 {
		r.e.srv.Faults().Clear()
		r.e.Note("faults cleared; the clients have %s of virtual time to converge", fileSyncWindow)
	}
	for _, name := range x.StoreEqualsServer {
		if r.stores[name] == nil {
			return r.e.Expect(false, "client %s was started", name)
		}
		if err := r.waitSync(name, fileSyncWindow); err != nil {
			return err
		}
	}
	if len(x.StoreEqualsServer) > 0 {
		r.e.Note("the server answered %d watch(es) with 410 Expired", r.e.srv.WatchStats().Expired)
	}
	names := make([]string, 0, len(x.MaxLists))
	for n := range x.MaxLists {
		names = append(names, n)
	}
	slices.Sort(names)
	if ws := x.WatchStats; ws != nil {
		if err := r.checkWatchStats(ws); err != nil {
			return err
		}
	}
	var failed error
	for _, n := range names {
		got := 0
		if p := r.lists[n]; p != nil {
			got = *p
		}
		// Every bound is checked (and recorded) before the run fails.
		if err := r.e.Expect(got <= x.MaxLists[n], "%s sent at most %d LIST(s); it sent %d", n, x.MaxLists[n], got); err != nil && failed == nil {
			failed = err
		}
	}
	return failed
}

// varRef is {{name}} or {{name+N}} in a query or an expected RV.
var varRef = regexp.MustCompile(`\{\{\s*([A-Za-z0-9_.-]+?)\s*(?:\+\s*(\d+)\s*)?\}\}`)

// expand replaces every {{name}} and {{name+N}} in s by the named
// resourceVersion (plus N).
func (r *fileRun) expand(s string) (string, error) {
	var err error
	out := varRef.ReplaceAllStringFunc(s, func(m string) string {
		sm := varRef.FindStringSubmatch(m)
		v, ok := r.vars[sm[1]]
		if !ok {
			err = fmt.Errorf("scenarios: %s: no result named %q yet", m, sm[1])
			return m
		}
		if sm[2] != "" {
			n, _ := strconv.ParseInt(sm[2], 10, 64)
			v = strconv.FormatInt(rvNum(v)+n, 10)
		}
		return v
	})
	return out, err
}

// lesson renders a check's lesson as a suffix.
func lesson(s string) string {
	if s == "" {
		return ""
	}
	return ": " + s
}

// checkWatchStats checks the server's watch counters.
func (r *fileRun) checkWatchStats(x *scenariofile.WatchStats) error {
	st := r.e.srv.WatchStats()
	var want, got []string
	ok := true
	for _, c := range []struct {
		name string
		want *int64
		got  int64
	}{{"started", x.Started, st.Started}, {"eventsSent", x.EventsSent, st.EventsSent}, {"expired", x.Expired, st.Expired}} {
		if c.want == nil {
			continue
		}
		want = append(want, fmt.Sprintf("%s %d", c.name, *c.want))
		got = append(got, fmt.Sprintf("%s %d", c.name, c.got))
		ok = ok && *c.want == c.got
	}
	text, err := r.expand(x.Lesson)
	if err != nil {
		return err
	}
	if !ok {
		return r.e.Expect(false, "the server's watch counters are %s; they are %s", strings.Join(want, ", "), strings.Join(got, ", "))
	}
	return r.e.Expect(true, "the server's watch counters are %s%s", strings.Join(want, ", "), lesson(text))
}
