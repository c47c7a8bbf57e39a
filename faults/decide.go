package faults

import (
	"context"
	"fmt"
	"time"

	"github.com/lw-sim/lw-sim/internal/kubewire"
)

// Outcome is what request entry must do with a request.
type Outcome struct {
	// Fail, when set, is the Status error to answer with instead of
	// serving the request.
	Fail error
	// CutList asks for the LIST response to be cut mid-body.
	CutList bool
}

// requestKey carries the request's info and drawn stream faults in its
// context, from Request to OpenStream and TooLargeRV.
type requestKey struct{}

// requestState is what Request leaves in the context.
type requestState struct {
	info RequestInfo
	// client ends when the client goes away: a hung stream waits for
	// that, not for the watch's own timeout. It is the request's context,
	// kept rather than its Done channel, which a context makes on the
	// first Done: only a hang needs it.
	client context.Context
	// drawn are stream faults a Random fault drew for this request's watch.
	drawn []*entry
}

// requestFrom returns the state Request stored in ctx.
func requestFrom(ctx context.Context) *requestState {
	rs, _ := ctx.Value(requestKey{}).(*requestState)
	return rs
}

// Request runs the request-entry hook: it numbers LIST pages, arms faults
// triggered by this request, fires request and state faults that match,
// waits out any latency on the clock (or until ctx ends), and returns the
// context to serve the request with (OpenStream and TooLargeRV read the
// request from it) and what to do.
func (in *Injector) Request(ctx context.Context, info RequestInfo) (context.Context, Outcome) {
	rs := &requestState{info: info, client: ctx}
	ctx = context.WithValue(ctx, requestKey{}, rs)
	if in.live.Load() == 0 && info.Verb != "list" {
		return ctx, Outcome{}
	}
	in.mu.Lock()
	rs.info.Page = in.pageLocked(info)
	var fx effects
	in.pollLocked(in.target.CurrentRV(), &fx)
	var out Outcome
	var delay time.Duration
	for _, e := range in.entries {
		if e.state == Pending && e.rvReached && e.f.Match.matches(rs.info) {
			if e.seen++; e.seen >= max(1, e.f.Trigger.Request) {
				in.armLocked(e, &rs.info, &fx)
			}
		}
		if e.usable() && e.f.Match.matches(rs.info) {
			delay += in.fireRequestLocked(e, rs, &out, &fx)
		}
	}
	in.mu.Unlock()
	in.apply(fx)
	if delay > 0 {
		in.sleep(ctx, delay)
	}
	return ctx, out
}

// fireRequestLocked fires e at the request if its kind acts there, and
// returns the latency it adds.
func (in *Injector) fireRequestLocked(e *entry, rs *requestState, out *Outcome, fx *effects) time.Duration {
	info := &rs.info
	switch e.f.Kind {
	case FailRequest:
		if out.Fail == nil {
			out.Fail = statusFor(e.f, info)
			in.recordRequestLocked(e, e.f.Kind, info, fmt.Sprintf("answered %d", e.f.Code), fx)
		}
	case Latency:
		in.recordRequestLocked(e, e.f.Kind, info, "latency "+time.Duration(e.f.Delay).String(), fx)
		return time.Duration(e.f.Delay)
	case CutList:
		if info.Verb == "list" && !out.CutList {
			out.CutList = true
			in.recordRequestLocked(e, e.f.Kind, info, "LIST body cut", fx)
		}
	case Compact, Restart:
		if e.f.Trigger.Request > 0 {
			in.fireStateLocked(e, info, fx)
		}
	case Random:
		return in.drawLocked(e, rs, out, fx)
	}
	return 0
}

// recordRequestLocked records a request fault of kind (a Random fault
// records what it drew) and counts it.
func (in *Injector) recordRequestLocked(e *entry, kind Kind, info *RequestInfo, detail string, fx *effects) {
	in.recordLocked(Record{FaultID: e.f.ID, Kind: kind, Request: info, Detail: detail})
	in.countLocked(e, fx)
}

// sleep waits d on the clock, or until ctx ends.
func (in *Injector) sleep(ctx context.Context, d time.Duration) bool {
	t := in.clk.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C():
		return true
	case <-ctx.Done():
		return false
	}
}

// pageLocked numbers a LIST: 1 without a continue token, else one more
// than the page whose response carried the token (0 if unknown).
func (in *Injector) pageLocked(info RequestInfo) int {
	if info.Verb != "list" {
		return 0
	}
	if info.Continue == "" {
		return 1
	}
	return in.pages[info.Continue]
}

// NoteContinue records that the LIST page answered in ctx carried the
// continue token next, so the request that sends it back is the next page.
func (in *Injector) NoteContinue(ctx context.Context, next string) {
	rs := requestFrom(ctx)
	if next == "" || rs == nil || rs.info.Page == 0 {
		return
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	if old := in.pageRing[in.pageNext]; old != "" {
		delete(in.pages, old)
	}
	in.pageRing[in.pageNext] = next
	in.pageNext = (in.pageNext + 1) % len(in.pageRing)
	in.pages[next] = rs.info.Page + 1
}

// TooLargeRV is the hook of RV-constrained reads: for a read at rv it
// returns the 504 "Too large resource version" error when an armed
// TooLargeRV fault matching the request in ctx says so, or nil.
func (in *Injector) TooLargeRV(ctx context.Context, rv int64) error {
	if in.live.Load() == 0 || rv <= 0 {
		return nil
	}
	var info RequestInfo
	if rs := requestFrom(ctx); rs != nil {
		info = rs.info
	}
	cur := in.target.CurrentRV()
	in.mu.Lock()
	var fx effects
	in.pollLocked(cur, &fx)
	var err error
	for _, e := range in.entries {
		if err != nil || e.f.Kind != TooLargeRV || !e.usable() || !e.f.Match.matches(info) {
			continue
		}
		pretend := max(0, cur-e.f.Lag)
		if !e.f.AllReads && rv <= pretend {
			continue
		}
		pretend = min(pretend, rv-1)
		err = kubewire.TooLargeResourceVersion(uint64(rv), pretend)
		in.recordRequestLocked(e, e.f.Kind, &info, fmt.Sprintf("rv %d: too large, current %d", rv, pretend), &fx)
	}
	in.mu.Unlock()
	in.apply(fx)
	return err
}
