package faults

import (
	"fmt"
	"net/http"
	"time"
)

// Bounds of what a Random fault draws: short enough that a client under a
// dense schedule still makes progress, long enough to be seen.
const (
	randomMaxLatency = 2 * time.Second
	randomMaxDelay   = 500 * time.Millisecond
	randomMaxEvents  = 5
)

// randomCodes are the FailRequest codes a Random fault draws from.
var randomCodes = []int{http.StatusTooManyRequests, http.StatusInternalServerError, http.StatusServiceUnavailable, http.StatusGatewayTimeout}

// drawLocked is a Random fault at one matching request. Every draw is made
// whatever the request, so the PRNG sequence depends only on the seed and
// the number of matching requests: the same requests in the same order get
// the same faults. It returns the latency drawn.
func (in *Injector) drawLocked(e *entry, rs *requestState, out *Outcome, fx *effects) time.Duration {
	r := e.rng
	hit := r.Float64() < e.f.Probability
	kind := e.f.Kinds[r.IntN(len(e.f.Kinds))]
	code := randomCodes[r.IntN(len(randomCodes))]
	retry := r.IntN(2)
	latency := time.Duration(r.Int64N(int64(randomMaxLatency)))
	delay := time.Duration(r.Int64N(int64(randomMaxDelay))) + time.Millisecond
	events := r.IntN(randomMaxEvents + 1)
	if !hit {
		return 0
	}
	info := &rs.info
	child := Fault{ID: e.f.ID, Kind: kind, Streams: NewStreams, Trigger: Trigger{Events: events}, Delay: Duration(delay), Code: code}
	switch {
	case kind == FailRequest && out.Fail == nil:
		if code == http.StatusTooManyRequests || retry == 1 {
			child.RetryAfterSeconds = 1
		}
		out.Fail = statusFor(child, info)
		in.recordRequestLocked(e, kind, info, fmt.Sprintf("random: answered %d", code), fx)
	case kind == Latency:
		in.recordRequestLocked(e, kind, info, "random: latency "+latency.String(), fx)
		return latency
	case kind == CutList && info.Verb == "list" && !out.CutList:
		out.CutList = true
		in.recordRequestLocked(e, kind, info, "random: LIST body cut", fx)
	case isStreamKind(kind) && info.Verb == "watch":
		rs.drawn = append(rs.drawn, &entry{f: child, state: Armed, parent: e})
		in.recordRequestLocked(e, kind, info, fmt.Sprintf("random: %s after %d events", kind, events), fx)
	case isStateKind(kind):
		fx.state = append(fx.state, stateAction{e: e, kind: kind, req: info}) // recorded when done
		in.countLocked(e, fx)
	}
	return 0
}
