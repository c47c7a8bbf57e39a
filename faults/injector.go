package faults

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/utils/clock"
)

// Target is what an Injector acts on for state faults and RV triggers: the
// fake server's store, or the RVs a proxy has seen.
type Target interface {
	// CurrentRV is the store's current resourceVersion (a proxy: the
	// highest it has seen).
	CurrentRV() int64
	// Compact compacts the store to rv.
	Compact(rv int64) error
	// Restart ends every watch and restarts the watch window at the
	// current RV.
	Restart() error
}

// Supporter is implemented by targets that cannot inject every fault; Add
// calls Supports and refuses a fault it returns an error for (which should
// wrap [ErrUnsupported]).
type Supporter interface {
	Supports(f Fault) error
}

// Config configures an [Injector].
type Config struct {
	// Target receives state faults and answers CurrentRV. Required.
	Target Target
	// Clock times latencies, delays, After triggers and windows, and
	// stamps records. If nil, the real clock.
	Clock clock.WithTickerAndDelayedExecution
	// Stop, when done, releases every hung stream (the server is closing).
	// If nil, only Close does.
	Stop context.Context
}

// pageTableSize bounds the continue tokens remembered for LIST page
// numbers: enough for hundreds of concurrent paginated lists.
const pageTableSize = 4096

// Injector holds the faults of one server or proxy and decides, at each
// hook, which fire. It is safe for concurrent use.
//
// Lock order: Injector.mu, then the target's locks (CurrentRV is called
// under mu); the target never calls the Injector. State faults, stream
// cancellations and waits run after mu is released.
type Injector struct {
	target Target
	clk    clock.WithTickerAndDelayedExecution
	stop   context.Context
	// live counts entries that are not finished, plus streams with
	// attachments: when it is 0, hooks return at once without locking.
	live atomic.Int64
	// timers runs the work of clock timers (windows, After triggers).
	timers timerWork

	// mu guards the fields below.
	mu         sync.Mutex
	entries    []*entry
	nextID     int
	streams    map[uint64]*Stream
	nextStream uint64
	records    []Record
	pages      map[string]int
	pageRing   []string
	pageNext   int
	closed     bool
}

// State is where a fault is in its lifecycle (see [Fault]).
type State string

// The states of the lifecycle drawn on [Fault].
const (
	// Pending waits for Trigger.AtRV or Trigger.Request.
	Pending State = "pending"
	// Armed fires.
	Armed State = "armed"
	// Spent fired Times times. Its stream modes stay on where attached.
	Spent State = "spent"
	// Expired outlived its Window.
	Expired State = "expired"
	// Removed was removed by Remove, Clear or Close.
	Removed State = "removed"
)

// Status is a fault as [Injector.Faults] reports it.
type Status struct {
	Fault
	State State `json:"state"`
	// Fired counts the requests, streams or state changes it hit.
	Fired int `json:"fired"`
}

// entry is one added fault and its progress.
type entry struct {
	f     Fault
	state State
	// rvReached is set once Trigger.AtRV was reached.
	rvReached bool
	seen      int // matching requests counted towards Trigger.Request
	fired     int
	rng       *rand.Rand // Random only
	expiry    clock.Timer
	// ends is when the window of an armed fault is over (zero: never).
	ends time.Time
	// parent is the Random fault a drawn stream fault belongs to.
	parent *entry
}

// ended reports whether e (or its Random parent) expired or was removed,
// which switches its stream modes off.
func (e *entry) ended() bool {
	if e.parent != nil {
		return e.parent.ended()
	}
	return e.state == Expired || e.state == Removed
}

// usable reports whether e still fires.
func (e *entry) usable() bool { return e.state == Armed }

// New returns an Injector with no faults.
func New(cfg Config) *Injector {
	if cfg.Clock == nil {
		cfg.Clock = clock.RealClock{}
	}
	if cfg.Stop == nil {
		cfg.Stop = context.Background()
	}
	return &Injector{
		target: cfg.Target, clk: cfg.Clock, stop: cfg.Stop,
		streams: make(map[uint64]*Stream), pages: make(map[string]int), pageRing: make([]string, pageTableSize),
	}
}

// effects are what a decision taken under mu does after mu is released.
type effects struct {
	state   []stateAction
	cancels []func()
}

// stateAction is a state fault to run.
type stateAction struct {
	e    *entry
	kind Kind
	rv   int64
	req  *RequestInfo
}

// Add validates f, assigns its ID and arms it if its trigger allows (a
// state fault with no request trigger fires before Add returns). It fails
// wrapping [ErrInvalid] for a bad fault and [ErrUnsupported] for one the
// target cannot inject.
func (in *Injector) Add(f Fault) (string, error) {
	if err := f.validate(); err != nil {
		return "", err
	}
	if s, ok := in.target.(Supporter); ok {
		if err := s.Supports(f); err != nil {
			return "", err
		}
	}
	if _, ok := in.target.(APIServerTarget); isAPIServerKind(f.Kind) && !ok {
		return "", fmt.Errorf("%w: %s needs a server with apiserver instances", ErrUnsupported, f.Kind)
	}
	in.mu.Lock()
	if in.closed {
		in.mu.Unlock()
		return "", fmt.Errorf("faults: injector closed")
	}
	in.nextID++
	f.ID = "f" + strconv.Itoa(in.nextID)
	e := &entry{f: f, state: Pending}
	if f.Kind == Random {
		e.rng = rand.New(rand.NewPCG(f.Seed, f.Seed^0x9e3779b97f4a7c15))
	}
	in.entries = append(in.entries, e)
	in.live.Add(1)
	var fx effects
	in.pollLocked(in.target.CurrentRV(), &fx)
	in.mu.Unlock()
	in.apply(fx)
	return f.ID, nil
}

// Remove ends the fault id: it fires no more, its stream modes stop and the
// streams it hangs are released. It reports whether id was known.
func (in *Injector) Remove(id string) bool {
	in.mu.Lock()
	var fx effects
	found := false
	for _, e := range in.entries {
		if e.f.ID == id {
			found = true
			in.finishLocked(e, Removed, &fx)
		}
	}
	in.mu.Unlock()
	in.apply(fx)
	return found
}

// Clear removes every fault (records stay).
func (in *Injector) Clear() {
	in.mu.Lock()
	var fx effects
	for _, e := range in.entries {
		in.finishLocked(e, Removed, &fx)
	}
	in.mu.Unlock()
	in.apply(fx)
}

// Faults returns every fault added, with its state, in the order added.
func (in *Injector) Faults() []Status {
	in.mu.Lock()
	defer in.mu.Unlock()
	out := make([]Status, 0, len(in.entries))
	for _, e := range in.entries {
		out = append(out, Status{Fault: e.f, State: e.state, Fired: e.fired})
	}
	return out
}

// Poll arms faults waiting for an RV the target has now reached. Hooks poll
// by themselves; a server also polls after each write.
func (in *Injector) Poll() {
	if in.live.Load() == 0 {
		return
	}
	in.mu.Lock()
	var fx effects
	in.pollLocked(in.target.CurrentRV(), &fx)
	in.mu.Unlock()
	in.apply(fx)
}

// Close ends every fault and releases every hung stream. Hooks called
// after Close inject nothing.
func (in *Injector) Close() {
	in.timers.close()
	in.mu.Lock()
	in.closed = true
	var fx effects
	for _, e := range in.entries {
		in.finishLocked(e, Removed, &fx)
	}
	for _, s := range in.streams {
		s.releaseLocked()
	}
	in.mu.Unlock()
	in.apply(fx)
}

// pollLocked expires faults whose window is over (the expiry timer does it
// too, a moment later on its own goroutine; hooks must not see the fault
// once the clock passed its end), marks the AtRV of pending faults reached
// and arms those that wait for nothing else.
func (in *Injector) pollLocked(cur int64, fx *effects) {
	now := in.clk.Now()
	for _, e := range in.entries {
		if e.state == Armed && !e.ends.IsZero() && !now.Before(e.ends) {
			in.finishLocked(e, Expired, fx)
		}
	}
	for _, e := range in.entries {
		if e.state != Pending || e.rvReached || cur < e.f.Trigger.AtRV {
			continue
		}
		e.rvReached = true
		if e.f.Trigger.Request == 0 {
			in.armLocked(e, nil, fx)
		}
	}
}

// armLocked arms e: it starts its window, attaches a stream fault to the
// open streams in scope and fires a state fault with no request trigger.
func (in *Injector) armLocked(e *entry, req *RequestInfo, fx *effects) {
	e.state = Armed
	if w := time.Duration(e.f.Window); w > 0 {
		e.ends = in.clk.Now().Add(w)
		e.expiry = in.clk.AfterFunc(w, in.timers.do(func() { in.expire(e) }))
	}
	switch {
	case isStreamKind(e.f.Kind) && e.f.Streams != NewStreams:
		for _, id := range slices.Sorted(maps.Keys(in.streams)) {
			if s := in.streams[id]; e.f.Match.matches(*s.info) && e.usable() {
				in.attachLocked(s, e, fx)
			}
		}
	case isStateKind(e.f.Kind) && req == nil:
		in.fireStateLocked(e, nil, fx)
	}
}

// fireStateLocked queues e's state change and counts it.
func (in *Injector) fireStateLocked(e *entry, req *RequestInfo, fx *effects) {
	fx.state = append(fx.state, stateAction{e: e, kind: e.f.Kind, rv: e.f.RV, req: req})
	in.countLocked(e, fx)
}

// countLocked counts one firing of e and retires it when spent.
func (in *Injector) countLocked(e *entry, fx *effects) {
	e.fired++
	if e.f.Times > 0 && e.fired >= e.f.Times && e.state == Armed {
		in.finishLocked(e, Spent, fx)
	}
}

// finishLocked moves e to a final state. Expired and removed faults release
// the streams they hang.
func (in *Injector) finishLocked(e *entry, st State, fx *effects) {
	switch e.state {
	case Spent:
		if st == Spent {
			return
		}
	case Expired, Removed:
		return
	default:
		in.live.Add(-1)
	}
	e.state = st
	if e.expiry != nil && st != Spent {
		e.expiry.Stop()
	}
	if st == Spent {
		return
	}
	for _, s := range in.streams {
		if s.hangBy != nil && s.hangBy.ended() {
			s.releaseLocked()
		}
	}
}

// expire ends e when its window is over.
func (in *Injector) expire(e *entry) {
	in.mu.Lock()
	var fx effects
	in.finishLocked(e, Expired, &fx)
	in.mu.Unlock()
	in.apply(fx)
}

// apply runs what was decided under mu: stream cancellations, then state
// faults, each recorded.
func (in *Injector) apply(fx effects) {
	for _, c := range fx.cancels {
		c()
	}
	for _, a := range fx.state {
		var err error
		detail := ""
		switch a.kind {
		case Compact:
			rv := a.rv
			if rv == 0 {
				rv = in.target.CurrentRV()
			}
			err = in.target.Compact(rv)
			detail = "compacted to rv " + strconv.FormatInt(rv, 10)
		case Restart:
			err = in.target.Restart()
			in.releaseAll()
			detail = "apiserver restart: watches ended, watch window restarted at the current rv"
		default:
			if t, ok := in.target.(APIServerTarget); ok && isAPIServerKind(a.kind) {
				f := a.e.f
				f.Kind = a.kind
				detail, err = t.ChangeAPIServer(f)
			}
		}
		if err != nil {
			detail = "failed: " + err.Error()
		}
		in.mu.Lock()
		in.recordLocked(Record{FaultID: a.e.f.ID, Kind: a.kind, Request: a.req, Detail: detail})
		in.mu.Unlock()
	}
}

// releaseAll releases every hung stream (a restart drops all connections).
func (in *Injector) releaseAll() {
	in.mu.Lock()
	defer in.mu.Unlock()
	for _, s := range in.streams {
		s.releaseLocked()
	}
}
