package scenarios

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	klabels "k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/lw-sim/lw-sim/fakeapiserver"
	"github.com/lw-sim/lw-sim/faults"
)

// Every wait for the server or a client (an event, a response, armed
// timers) ends with what it waits for or with the run's context, never at a
// wall-clock budget of its own: what a scenario waits for happens within
// milliseconds on a quiet machine and within seconds on a loaded one, and a
// budget a loaded machine exceeds fails runs that are right (issue 21). A
// caller bounds a run with its context's deadline (lw-sim run gives each
// scenario one: cmd/lw-sim run.go); a wait that meets it fails the run as
// an unmet expectation (waitEnded).

const (
	// pollInterval is how often AwaitTimers re-reads the clock's timers;
	// the fake clock has no way to announce a new one.
	pollInterval = 200 * time.Microsecond
	// Namespace is where scenarios keep their objects: one of the
	// namespaces every server starts with.
	Namespace = "default"
	// OtherNamespace receives writes a watch of [Namespace] does not see,
	// to move the global resourceVersion without sending that watch events.
	OtherNamespace = "kube-system"
)

// Env is what a scenario's steps run against: one fake server on a fake
// clock, clients for it, a seeded random source and the timeline being
// recorded. Its methods record what they do. An Env is used from the
// scenario's goroutine only (clients it starts report through it safely).
type Env struct {
	ctx   context.Context
	srv   *fakeapiserver.Server
	clock *clocktesting.FakeClock
	rand  *rand.Rand
	// seed is the run's seed, from which each listwatch client's own
	// random source is derived.
	seed uint64
	t0   time.Time

	transport *http.Transport
	httpc     *http.Client         // raw HTTP, recorded
	cs        kubernetes.Interface // client-go, recorded
	quiet     kubernetes.Interface // client-go, not recorded: writes and bookkeeping

	// mu guards the fields below.
	mu sync.Mutex
	// routes sends a lane's requests to one apiserver instance
	// ([Scenario.Routes], changed by [Env.Route]).
	routes map[string]string
	// rotate, if not 0, is how many instances an unrouted lane's
	// requests rotate over ([Scenario.RotateLanes]); rotation counts
	// each lane's requests.
	rotate   int
	rotation map[string]int
	timeline Timeline
	// lane is the lane of the scenario's own requests and watches
	// (SetLane); "" means [LaneScenario].
	lane    string
	clients int
	closers []func()
	streams int
	// streamName names the next watch stream instead of w<N> (a file's
	// watch id); nextStreamName takes it.
	streamName string
	// clientLog holds what started clients recorded that AwaitClient has
	// not yet taken, in arrival order; an entry may already be in the
	// timeline (placed).
	clientLog []*clientEntry
	// unplaced are the client entries not yet in the timeline: the
	// scenario's own entries take those recorded before them in virtual
	// time in first (placeBeforeLocked), and a settle takes in all of
	// them (placeSettled).
	unplaced []*clientEntry
	// untimed are the lanes of clients that have begun to wait on the
	// real clock (an informer, once a request failed or a watch ended:
	// realClockFrom): the entries they record from then on have virtual
	// times that are not the seed's, so they enter the timeline only
	// where the scenario awaits them.
	untimed map[string]bool
	// clientAll is every entry the clients recorded, taken into the
	// timeline or not, in arrival order (Result.clientEntries).
	clientAll []Entry
	// clientLogged is closed and replaced whenever clientLog grows.
	clientLogged chan struct{}
	// inFlight counts the clients' requests sent and not yet answered
	// (no response headers, no transport error): settle never calls
	// the clients quiet while one is.
	inFlight atomic.Int64
}

// Context is the run's context: cancelled when the run is interrupted.
func (e *Env) Context() context.Context { return e.ctx }

// Server is the fake apiserver.
func (e *Env) Server() *fakeapiserver.Server { return e.srv }

// Rand is the run's seeded random source: use it for every random choice,
// so the same seed replays the same run.
func (e *Env) Rand() *rand.Rand { return e.rand }

// Clientset is a client-go typed clientset for the server (JSON on the
// wire); every request it sends and the response status are recorded.
func (e *Env) Clientset() kubernetes.Interface { return e.cs }

// RESTConfig returns a new client-go config for the server whose requests
// are recorded through record.
func (e *Env) restConfig(record func(Entry)) *rest.Config {
	cfg := e.srv.RESTConfig()
	cfg.ContentType = "application/json"
	cfg.AcceptContentTypes = "application/json"
	var rt http.RoundTripper = routingTransport{base: e.transport, e: e}
	if record != nil {
		rt = &recordingTransport{base: e.transport, e: e, record: record}
	}
	cfg.Transport = rt
	return cfg
}

// Elapsed is the virtual time since the run started.
func (e *Env) Elapsed() time.Duration { return e.clock.Since(e.t0) }

// record appends an entry stamped with the current virtual time.
func (e *Env) record(kind Kind, rv, format string, args ...any) {
	e.append(e.entry(kind, rv, format, args...))
}

func (e *Env) entry(kind Kind, rv, format string, args ...any) Entry {
	en := Entry{At: Offset(e.Elapsed()), Kind: kind, RV: rv, Text: fmt.Sprintf(format, args...)}
	switch kind {
	case KindRequest, KindResponse, KindEvent:
		en.Lane = e.currentLane()
	}
	return en
}

// LaneScenario is the lane of the scenario's own requests and watches.
const LaneScenario = "scenario"

// SetLane names the client the scenario's next raw requests and watches
// stand for (a deliberately naive client next to a correct one, say), so
// that the HTML sequence diagram draws them in a lane of their own. A
// watch keeps the lane it was opened in. "" goes back to [LaneScenario].
func (e *Env) SetLane(name string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.lane = name
}

func (e *Env) currentLane() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.lane == "" {
		return LaneScenario
	}
	return e.lane
}

// nextClientLane names the lane of the next client StartClient starts:
// "listwatch", then "listwatch-2", ...
func (e *Env) nextClientLane() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.clients++
	if e.clients == 1 {
		return "listwatch"
	}
	return "listwatch-" + strconv.Itoa(e.clients)
}

func (e *Env) append(en Entry) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.placeBeforeLocked(en.At)
	e.timeline = append(e.timeline, en)
}

// Timeline returns a copy of what was recorded so far, with what the
// clients recorded before now in virtual time.
func (e *Env) Timeline() Timeline {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.placeBeforeLocked(Offset(e.Elapsed()))
	return slices.Clone(e.timeline)
}

// placeBeforeLocked moves into the timeline the client entries recorded
// at a virtual time before at (placeDueLocked). Virtual time only moves on
// when every goroutine of the run waits, so every client entry before at
// has been recorded by now: a client-go client's requests appear where
// they happened, not where a step awaited them. The caller holds e.mu.
func (e *Env) placeBeforeLocked(at Offset) {
	e.placeDueLocked(func(en *clientEntry) bool { return en.At < at })
}

// placeSettled moves into the timeline every timed client entry recorded
// so far: called once the clients have gone quiet after a step
// ([Env.settle]), so what they recorded is what that step (and the steps
// before) made them do, and it goes after the step's own entries and
// before the next step's. Without it a client's entries at the virtual
// instant of the steps that follow came after all of them (a re-watch
// after a cut below the writes made after it). Which entries are due is
// decided here, at a point where the clients are quiet, not as they
// arrive: an entry arriving while a step records its own would otherwise
// land before or after it as the scheduler pleases.
func (e *Env) placeSettled() {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.placeDueLocked(func(*clientEntry) bool { return true })
}

// placeDueLocked moves into the timeline the unplaced client entries for
// which due is true, except untimed ones, ordered by virtual time and,
// within one instant, by lane (a lane's own entries keep their order).
// Arrival order across clients is the scheduler's; this order, like the
// entries it orders, is the seed's. The caller holds e.mu.
func (e *Env) placeDueLocked(due func(*clientEntry) bool) {
	var now []*clientEntry
	rest := e.unplaced[:0]
	for _, en := range e.unplaced {
		switch {
		case en.placed:
		case due(en) && !en.untimed:
			now = append(now, en)
		default:
			rest = append(rest, en)
		}
	}
	clear(e.unplaced[len(rest):])
	e.unplaced = rest
	slices.SortStableFunc(now, func(a, b *clientEntry) int {
		if c := cmp.Compare(a.At, b.At); c != 0 {
			return c
		}
		return cmp.Compare(a.Lane, b.Lane)
	})
	for _, en := range now {
		e.placeLocked(en)
	}
}

// realClockFrom records en, the moment from which the client of lane
// may wait on the real clock, and marks the entries the lane records
// after it untimed. A SharedIndexInformer cannot be given a clock
// (NewSharedIndexInformer sets clock.RealClock on its controller, which
// hands it to its Reflector): after a failed request or the end of a
// watch its Reflector backs off on the real clock with jitter from
// math/rand's global source, and judges a watch that ended within a real
// second "very short" and relists. How much virtual time the scenario
// moved meanwhile is the machine's speed, so the virtual instants of the
// informer's later requests, even their number, are not the seed's, and
// the server's receive time is that same virtual clock: there is no
// instant that is the seed's to place them at. Up to en they are: what
// the informer does before its first wait is what the steps made it do.
// Only the first call for a lane records.
func (e *Env) realClockFrom(lane string, en Entry) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.untimed[lane] {
		return
	}
	en.Kind, en.Lane = KindClient, lane
	e.logClientLocked(clientEntry{Entry: en})
	if e.untimed == nil {
		e.untimed = map[string]bool{}
	}
	e.untimed[lane] = true
}

// placeLocked puts a client entry into the timeline unless it is there
// already. The caller holds e.mu.
func (e *Env) placeLocked(en *clientEntry) {
	if !en.placed {
		en.placed = true
		e.timeline = append(e.timeline, en.Entry)
	}
}

// Note records narration.
func (e *Env) Note(format string, args ...any) { e.record(KindNote, "", format, args...) }

// Expect records an expectation: "ok: what" if it holds, else "FAIL: what"
// and an error wrapping [ErrExpectation], which the scenario returns.
func (e *Env) Expect(ok bool, format string, args ...any) error {
	what := fmt.Sprintf(format, args...)
	if !ok {
		e.record(KindCheck, "", "FAIL: %s", what)
		return fmt.Errorf("%w: %s", ErrExpectation, what)
	}
	e.record(KindCheck, "", "ok: %s", what)
	return nil
}

// Step moves the virtual clock by d; timers due fire.
func (e *Env) Step(d time.Duration) {
	e.record(KindClock, "", "clock +%s (now %s)", d, Offset(e.Elapsed()+d))
	e.clock.Step(d)
}

// AwaitTimers waits until exactly n timers are armed on the clock: the
// server arms one per watch deadline, one per bookmark schedule and one per
// read waiting for a future resourceVersion. Call it before Step so that
// the step fires the timers the scenario means to fire, not timers the
// server has not armed yet.
func (e *Env) AwaitTimers(n int) error {
	for {
		got := e.clock.Waiters()
		if got == n {
			return nil
		}
		select {
		case <-e.ctx.Done():
			return e.waitEnded(fmt.Sprintf("%d timers armed on the clock, want %d", got, n))
		case <-time.After(pollInterval):
		}
	}
}

// waitEnded is the error of a wait for what the run's context ended: a
// run that met its deadline still waiting failed an expectation (the fake
// is stuck, or does not do what the scenario teaches); a cancelled run
// returns the context's error.
func (e *Env) waitEnded(what string) error {
	if errors.Is(e.ctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("%w: %s at the run's deadline", ErrExpectation, what)
	}
	return e.ctx.Err()
}

// Fault records something done to the server that a real cluster does to
// itself, and does it.
func (e *Env) Fault(what string, do func()) {
	e.record(KindFault, "", "%s", what)
	do()
}

// inject adds fault f to the server and records it, its kind and the
// instance it names in the entry's fields.
func (e *Env) inject(f faults.Fault) error {
	en := e.entry(KindFault, "", "%s", describeFault(f))
	en.Fault, en.APIServer = f.Kind, f.APIServer
	e.append(en)
	if _, err := e.srv.Faults().Add(f); err != nil {
		return fmt.Errorf("scenarios: fault %s: %w", f.Kind, err)
	}
	return nil
}

// Compact compacts the server's history to rv, as etcd's periodic
// compaction does, and records it.
func (e *Env) Compact(rv string) error {
	n, err := strconv.ParseInt(rv, 10, 64)
	if err != nil {
		return fmt.Errorf("scenarios: compact to %q: %w", rv, err)
	}
	en := e.entry(KindFault, rv, "compaction: every RV below %s is gone (etcd compaction)", rv)
	en.Horizon, en.Fault = HorizonCompaction, faults.Compact
	e.append(en)
	return e.srv.Compact(n)
}

// RestartWatchCache ends every open watch and empties the watch window, as
// an apiserver restart (or a watch-cache re-list) does, and records it.
func (e *Env) RestartWatchCache() string {
	floor := strconv.FormatInt(e.srv.CompactWatchHistory(), 10)
	en := e.entry(KindFault, floor, "apiserver restart: every watch is closed; history before %s is gone from the watch cache", floor)
	en.Horizon, en.Fault = HorizonWatchCache, faults.Restart
	e.append(en)
	return floor
}

// Create creates ConfigMap ns/name with data {"v": value} and records the
// write; it returns the new resourceVersion.
func (e *Env) Create(ns, name, value string) (string, error) {
	return e.CreateLabeled(ns, name, value, nil)
}

// CreateLabeled is Create with the object's labels, which the timeline
// shows.
func (e *Env) CreateLabeled(ns, name, value string, labels map[string]string) (string, error) {
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}, Data: map[string]string{"v": value}}
	out, err := e.quiet.CoreV1().ConfigMaps(ns).Create(e.ctx, cm, metav1.CreateOptions{})
	if err != nil {
		return "", fmt.Errorf("scenarios: create %s/%s: %w", ns, name, err)
	}
	e.record(KindWrite, out.ResourceVersion, "create %s/%s%s", ns, name, describeLabels(labels))
	return out.ResourceVersion, nil
}

// describeLabels renders labels for a write's line: "" for none.
func describeLabels(labels map[string]string) string {
	if labels == nil {
		return ""
	}
	return " labels {" + klabels.Set(labels).String() + "}"
}

// Update sets ConfigMap ns/name's data to {"v": value} and records the
// write; it returns the new resourceVersion.
func (e *Env) Update(ns, name, value string) (string, error) {
	return e.UpdateLabeled(ns, name, value, nil)
}

// UpdateLabeled is Update that also sets the object's labels, unless
// labels is nil.
func (e *Env) UpdateLabeled(ns, name, value string, labels map[string]string) (string, error) {
	cms := e.quiet.CoreV1().ConfigMaps(ns)
	cm, err := cms.Get(e.ctx, name, metav1.GetOptions{})
	if err != nil {
		return "", fmt.Errorf("scenarios: update %s/%s: %w", ns, name, err)
	}
	cm.Data = map[string]string{"v": value}
	if labels != nil {
		cm.Labels = labels
	}
	out, err := cms.Update(e.ctx, cm, metav1.UpdateOptions{})
	if err != nil {
		return "", fmt.Errorf("scenarios: update %s/%s: %w", ns, name, err)
	}
	e.record(KindWrite, out.ResourceVersion, "update %s/%s%s", ns, name, describeLabels(labels))
	return out.ResourceVersion, nil
}

// Delete deletes ConfigMap ns/name and records the write; it returns the
// deletion's resourceVersion.
func (e *Env) Delete(ns, name string) (string, error) {
	if err := e.quiet.CoreV1().ConfigMaps(ns).Delete(e.ctx, name, metav1.DeleteOptions{}); err != nil {
		return "", fmt.Errorf("scenarios: delete %s/%s: %w", ns, name, err)
	}
	// A ConfigMap DELETE answers with a Status, not the object; the
	// deletion took the newest RV.
	rv, err := e.CurrentRV()
	if err != nil {
		return "", err
	}
	e.record(KindWrite, rv, "delete %s/%s", ns, name)
	return rv, nil
}

// CurrentRV reads the server's current resourceVersion with a consistent
// LIST (not recorded).
func (e *Env) CurrentRV() (string, error) {
	l, err := e.quiet.CoreV1().Namespaces().List(e.ctx, metav1.ListOptions{Limit: 1})
	if err != nil {
		return "", fmt.Errorf("scenarios: read current RV: %w", err)
	}
	return l.ResourceVersion, nil
}

// addCloser registers fn to run when the run ends, in reverse order.
func (e *Env) addCloser(fn func()) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.closers = append(e.closers, fn)
}

// close runs the closers.
func (e *Env) close() {
	e.mu.Lock()
	closers := e.closers
	e.closers = nil
	e.mu.Unlock()
	for _, fn := range slices.Backward(closers) {
		fn()
	}
}

// NameNextWatch names the next watch stream opened (a scenario file's
// watch id), in the timeline and the diagram, instead of "w<N>".
func (e *Env) NameNextWatch(name string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.streamName = name
}

// nextStreamName names the next watch stream: the name NameNextWatch set,
// else "w1", "w2", ... (counting every stream).
func (e *Env) nextStreamName() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.streams++
	if name := e.streamName; name != "" {
		e.streamName = ""
		return name
	}
	return "w" + strconv.Itoa(e.streams)
}

// clientEntry is an entry a client recorded, with the delay of a backoff
// and whether its timer was armed when it was recorded.
type clientEntry struct {
	Entry
	delay time.Duration
	armed bool
	// placed is set once the entry is in the timeline.
	placed bool
	// untimed is set on an entry its client recorded after it began to
	// wait on the real clock (Env.realClockFrom): it enters the timeline
	// only where the scenario awaits it.
	untimed bool
}

// logClient queues an entry a client recorded on its own goroutine.
func (e *Env) logClient(en clientEntry) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.logClientLocked(en)
}

// logClientLocked is logClient; the caller holds e.mu.
func (e *Env) logClientLocked(en clientEntry) {
	en.untimed = e.untimed[en.Lane]
	p := &en
	e.clientLog = append(e.clientLog, p)
	e.unplaced = append(e.unplaced, p)
	e.clientAll = append(e.clientAll, en.Entry)
	close(e.clientLogged)
	e.clientLogged = make(chan struct{})
}

// clientRecorded is how many entries the clients have recorded so far.
func (e *Env) clientRecorded() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.clientAll)
}

// clientEntries returns a copy of every entry the clients recorded.
func (e *Env) clientEntries() []Entry {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.clientAll)
}

// AwaitClient waits for the first entry the started clients recorded for
// which match is true, and moves it into the timeline with what its client
// recorded before it, in order (other clients' entries stay queued:
// takeLaneLocked); it fails if the run's context ends first. Entries are
// taken into the timeline only on the scenario's goroutine, so the
// timeline's order does not depend on goroutine scheduling.
func (e *Env) AwaitClient(what string, match func(Entry) bool) error {
	return e.awaitClient(what, func(en clientEntry) bool { return match(en.Entry) })
}

// drainClient moves everything the client of lane recorded so far into
// the timeline, in its order, and leaves the other clients' entries
// queued: called where the scenario waited for that client to go quiet,
// so what it recorded happened before. One lane only, because how two
// clients acting at the same virtual instant interleave is the
// scheduler's choice, and the timeline must not depend on it.
func (e *Env) drainClient(lane string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	rest := e.clientLog[:0:0]
	for _, en := range e.clientLog {
		if en.Lane != lane {
			rest = append(rest, en)
			continue
		}
		e.placeLocked(en)
	}
	e.clientLog = rest
}

func (e *Env) awaitClient(what string, match func(clientEntry) bool) error {
	for {
		e.mu.Lock()
		logged := e.clientLogged
		if i := slices.IndexFunc(e.clientLog, func(en *clientEntry) bool { return match(*en) }); i >= 0 {
			e.takeLaneLocked(i)
			e.mu.Unlock()
			return nil
		}
		e.mu.Unlock()
		select {
		case <-logged:
		case <-e.ctx.Done():
			return e.waitEnded(fmt.Sprintf("the client had not reached %q", what))
		}
	}
}

// takeLaneLocked moves into the timeline, in their order, the entries of
// clientLog up to and including its i-th that the i-th's client recorded,
// and leaves the other clients' queued (they enter at their virtual time
// or where the clients settle, placeSettled): what another client
// recorded meanwhile is not what the scenario waited for, and where it
// arrived among this client's entries is the scheduler's choice. The
// caller holds e.mu.
func (e *Env) takeLaneLocked(i int) {
	lane := e.clientLog[i].Lane
	rest := e.clientLog[:0:0]
	for j, en := range e.clientLog {
		if j <= i && en.Lane == lane {
			e.placeLocked(en)
			continue
		}
		rest = append(rest, en)
	}
	e.clientLog = rest
}

// errStreamEnded is returned by Stream.Next after the stream ended.
var errStreamEnded = errors.New("scenarios: watch stream ended")
