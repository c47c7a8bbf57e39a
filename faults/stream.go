package faults

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"k8s.io/utils/clock"
)

// Action is what a watch stream does with its next event.
type Action int

const (
	// Send the event.
	Send Action = iota
	// Skip it (a withheld bookmark).
	Skip
	// End the stream cleanly now, without sending it.
	End
	// Cut: write half of its frame, then reset the connection (kubewire.Cut).
	Cut
	// Hang: send nothing more and call [Stream.Hang].
	Hang
)

// ErrStreamFault is the cause of a stream context cancelled by a fault.
var ErrStreamFault = errors.New("faults: watch stream ended by a fault")

// Event is what BeforeEvent needs to know of a watch event.
type Event struct {
	// Type is ADDED, MODIFIED, DELETED, BOOKMARK or ERROR.
	Type string
	// RV is the event's resourceVersion.
	RV int64
	// InitialEventsEnd marks the watch-list bookmark.
	InitialEventsEnd bool
	// Flush, if set, pushes the events already written to the client. It is
	// called before the stream blocks on a fault (a delay), so a batch
	// written but not yet flushed is not held back by the fault.
	Flush func()
}

// Stream is one watch stream under fault injection. Its methods are called
// from the goroutine that writes the stream.
type Stream struct {
	in *Injector
	id uint64
	// info is the request's, shared with its Request state when it has
	// one (an open watch keeps one copy).
	info *RequestInfo
	// client ends when the client goes away (its Done channel is asked
	// for only by a hang).
	client context.Context
	// sent counts the events sent; only the stream's goroutine adds.
	sent   atomic.Int64
	cancel context.CancelCauseFunc
	// ownsCancel says cancel is of a context OpenStream made for the
	// stream, which Close then cancels.
	ownsCancel bool

	// The fields below are guarded by in.mu.
	atts []*attachment
	// pending is the one-shot fault that fired (EndWatch, CutWatch,
	// HangWatch), by pendingBy; hangBy is set once the stream hangs.
	pending   Kind
	pendingBy *entry
	hangBy    *entry
	// released is closed when the stream's hang ends; it is made by the
	// first Hang, so a stream that never hangs has none. isReleased
	// says the hang ended (or will end at once).
	released   chan struct{}
	isReleased bool
}

// attachment is one fault acting on one stream.
type attachment struct {
	e     *entry
	base  int64 // events sent when it attached
	fired bool
	timer clock.Timer
}

// OpenStream registers a watch stream of the request in ctx (see Request)
// and attaches the armed faults whose scope includes new streams. The
// returned context is cancelled, with cause ErrStreamFault, when a one-shot
// fault fires while the stream may be idle; the caller must end the stream
// then and call Finish. Close must be called when the stream is over.
func (in *Injector) OpenStream(ctx context.Context, info RequestInfo) (context.Context, *Stream) {
	sctx, cancel := context.WithCancelCause(ctx)
	return sctx, in.openStream(ctx, info, cancel, true)
}

// OpenStreamCancel is [Injector.OpenStream] for a caller whose stream
// ends with a context of its own: a one-shot fault that fires while the
// stream may be idle calls cancel(ErrStreamFault) instead of cancelling a
// context made for the stream, which saves an open watch that context,
// its Done channel and its registration with its parent. The caller must
// end the stream then and call Finish, and Close as with OpenStream;
// Close does not call cancel. ctx is the request's: its Request state,
// if any, and else its end, which ends a Hang as the client's going away.
func (in *Injector) OpenStreamCancel(ctx context.Context, info RequestInfo, cancel context.CancelCauseFunc) *Stream {
	return in.openStream(ctx, info, cancel, false)
}

// openStream registers a stream ended by cancel, which Close cancels if
// ownsCancel.
func (in *Injector) openStream(ctx context.Context, info RequestInfo, cancel context.CancelCauseFunc, ownsCancel bool) *Stream {
	s := &Stream{in: in, client: ctx, cancel: cancel, ownsCancel: ownsCancel}
	var drawn []*entry
	if rs := requestFrom(ctx); rs != nil {
		s.info, s.client, drawn = &rs.info, rs.client, rs.drawn
	} else {
		own := info
		s.info = &own
	}
	in.mu.Lock()
	in.nextStream++
	s.id = in.nextStream
	in.streams[s.id] = s
	var fx effects
	for _, e := range in.entries {
		if isStreamKind(e.f.Kind) && e.f.Streams != OpenStreams && e.usable() && e.f.Match.matches(*s.info) {
			in.attachLocked(s, e, &fx)
		}
	}
	for _, e := range drawn {
		in.attachLocked(s, e, &fx)
	}
	in.mu.Unlock()
	in.apply(fx)
	return s
}

// attachLocked attaches e to s and fires it at once when it has no event
// or time trigger.
func (in *Injector) attachLocked(s *Stream, e *entry, fx *effects) {
	a := &attachment{e: e, base: s.sent.Load()}
	s.atts = append(s.atts, a)
	if len(s.atts) == 1 {
		in.live.Add(1)
	}
	if e.parent == nil {
		in.countLocked(e, fx) // stream faults count the streams they hit
	}
	tr := e.f.Trigger
	switch {
	case tr.After > 0:
		a.timer = in.clk.AfterFunc(time.Duration(tr.After), in.timers.do(func() {
			in.mu.Lock()
			var fx effects
			in.fireStreamLocked(s, a, &fx)
			in.mu.Unlock()
			in.apply(fx)
		}))
	case tr.Events == 0:
		in.fireStreamLocked(s, a, fx)
	}
}

// fireStreamLocked fires a on s: a one-shot fault becomes the stream's
// pending action and cancels its context; a mode switches on.
func (in *Injector) fireStreamLocked(s *Stream, a *attachment, fx *effects) {
	if a.fired || a.e.ended() {
		return
	}
	a.fired = true
	detail := "on"
	if isOneShot(a.e.f.Kind) {
		if s.pending != "" {
			return
		}
		s.pending, s.pendingBy = a.e.f.Kind, a.e
		detail = "fired"
		fx.cancels = append(fx.cancels, func() { s.cancel(ErrStreamFault) })
	}
	in.recordLocked(Record{
		FaultID: a.e.f.ID, Kind: a.e.f.Kind, Request: s.info, Stream: s.id, StreamEvents: s.sent.Load(),
		Detail: fmt.Sprintf("%s after %d events", detail, s.sent.Load()),
	})
}

// BeforeEvent is the hook before each event of the stream is written: it
// counts the event, fires faults triggered by the event count, waits out
// event delays, and says what to do with the event. ERROR events are
// always sent.
func (s *Stream) BeforeEvent(ctx context.Context, ev Event) Action {
	in := s.in
	if ev.Type == "ERROR" {
		return Send
	}
	if in.live.Load() == 0 {
		s.sent.Add(1)
		return Send
	}
	cur := in.target.CurrentRV()
	in.mu.Lock()
	var fx effects
	in.pollLocked(cur, &fx)
	act, delay := s.decideLocked(ev)
	if act == Send {
		sent := s.sent.Add(1)
		for _, a := range s.atts {
			if !a.fired && a.e.f.Trigger.After == 0 && a.e.f.Trigger.Events > 0 && sent-a.base >= int64(a.e.f.Trigger.Events) {
				in.fireStreamLocked(s, a, &fx)
			}
		}
	}
	in.mu.Unlock()
	in.apply(fx)
	if act == Send && delay > 0 {
		if ev.Flush != nil {
			ev.Flush()
		}
		if !in.sleep(ctx, delay) {
			return End
		}
	}
	return act
}

// decideLocked applies the pending one-shot fault or the modes on.
func (s *Stream) decideLocked(ev Event) (Action, time.Duration) {
	switch s.pending {
	case EndWatch:
		return End, 0
	case CutWatch:
		return Cut, 0
	case HangWatch:
		return Hang, 0
	}
	var delay time.Duration
	for _, a := range s.atts {
		if !a.fired || a.e.ended() {
			continue
		}
		switch a.e.f.Kind {
		case WithholdBookmarks:
			if ev.Type == "BOOKMARK" && (!ev.InitialEventsEnd || a.e.f.InitialEventsEnd) {
				return Skip, 0
			}
		case DelayEvents:
			delay += time.Duration(a.e.f.Delay)
		}
	}
	return Send, delay
}

// Finish returns what the stream must still do after it stopped because
// its context was cancelled by a fault: Cut (cut an idle stream:
// kubewire.CutIdle), Hang (call Hang), or End (nothing).
func (s *Stream) Finish() Action {
	s.in.mu.Lock()
	defer s.in.mu.Unlock()
	act, _ := s.decideLocked(Event{})
	if act == Cut || act == Hang {
		return act
	}
	return End
}

// Hang blocks, sending nothing, until the client goes away, the hanging
// fault ends (removed, expired, cleared), a Restart fires, or the injector
// is stopped.
func (s *Stream) Hang() {
	s.in.mu.Lock()
	s.hangBy = s.pendingBy
	if s.released == nil {
		s.released = make(chan struct{})
		if s.isReleased {
			close(s.released)
		}
	}
	if s.hangBy == nil || s.hangBy.ended() || s.in.closed {
		s.releaseLocked()
	}
	released := s.released
	s.in.mu.Unlock()
	select {
	case <-s.client.Done():
	case <-released:
	case <-s.in.stop.Done():
	}
}

// releaseLocked ends the stream's hang, or the next one at once.
func (s *Stream) releaseLocked() {
	if s.isReleased {
		return
	}
	s.isReleased = true
	if s.released != nil {
		close(s.released)
	}
}

// Close unregisters the stream and stops its timers.
func (s *Stream) Close() {
	s.in.mu.Lock()
	defer s.in.mu.Unlock()
	delete(s.in.streams, s.id)
	for _, a := range s.atts {
		if a.timer != nil {
			a.timer.Stop()
		}
	}
	if len(s.atts) > 0 {
		s.in.live.Add(-1)
	}
	s.atts = nil
	if s.ownsCancel {
		s.cancel(context.Canceled)
	}
}
