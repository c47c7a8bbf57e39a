package scenarios

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/lw-sim/lw-sim/faults"
)

// Kind says what a timeline [Entry] records.
type Kind string

// The kinds of timeline entries.
const (
	// KindRequest: the scenario (or a client it drives) sent an HTTP request.
	KindRequest Kind = "request"
	// KindResponse: a response arrived: status, and what matters of the
	// headers and body.
	KindResponse Kind = "response"
	// KindEvent: a watch event arrived on an open stream, or the stream
	// ended.
	KindEvent Kind = "event"
	// KindWrite: the scenario changed an object; RV is the write's.
	KindWrite Kind = "write"
	// KindClock: the scenario moved the virtual clock.
	KindClock Kind = "clock"
	// KindFault: the scenario did something to the server a real cluster
	// does to itself: compaction, a watch-cache re-list (restart), ...
	KindFault Kind = "fault"
	// KindClient: a decision of the listwatch client (its trace).
	KindClient Kind = "client"
	// KindCheck: an expectation held (a failed one ends the run).
	KindCheck Kind = "check"
	// KindNote: narration.
	KindNote Kind = "note"
)

// Offset is a virtual time offset from the start of a run. It marshals to
// JSON as a Go duration string ("1m30s").
type Offset time.Duration

// String renders the offset as "+1m30s".
func (o Offset) String() string { return "+" + time.Duration(o).String() }

// MarshalText renders the offset as a Go duration ("1m30s").
func (o Offset) MarshalText() ([]byte, error) { return []byte(time.Duration(o).String()), nil }

// UnmarshalText parses a Go duration.
func (o *Offset) UnmarshalText(b []byte) error {
	d, err := time.ParseDuration(string(b))
	if err != nil {
		return fmt.Errorf("scenarios: offset: %w", err)
	}
	*o = Offset(d)
	return nil
}

// Entry is one line of a [Timeline].
type Entry struct {
	// At is the virtual time since the run started.
	At Offset `json:"at"`
	// Kind says what the entry records.
	Kind Kind `json:"kind"`
	// RV is the resourceVersion involved, if any: of a write, an event, a
	// list snapshot, a watch's start.
	RV string `json:"rv,omitempty"`
	// Text says what happened, for people.
	Text string `json:"text"`
	// Lane is who sent the request, received the response or event, or
	// made the decision: "scenario" (the scenario's own raw requests and
	// watches, unless it named another lane with [Env.SetLane]) or a client
	// the scenario started ("listwatch"). Empty for entries that belong to
	// no client: writes, faults, clock steps, checks and notes.
	Lane string `json:"lane,omitempty"`
	// Horizon is set on an entry that moved a history horizon to RV:
	// [HorizonCompaction] or [HorizonWatchCache].
	Horizon Horizon `json:"horizon,omitempty"`
	// Stream names the watch stream a request, response or event entry
	// belongs to (the name its events carry: "w1", a file's watch id): the
	// scenario's raw and typed watches. Empty for other entries and for
	// the watches of the clients a scenario starts (listwatch, client-go's
	// Reflector), whose events show as their decisions (and, for
	// client-go's, as Quiet event entries in the client's lane, which the
	// diagram draws on the lane's open watch).
	Stream string `json:"stream,omitempty"`
	// APIServer is the instance a request was routed to or a response
	// came from, when the server runs more than one, or that a fault
	// names; empty otherwise.
	APIServer string `json:"apiserver,omitempty"`
	// Bytes is the size on the wire of a response's body or an event's
	// frame; for an entry that sums up many frames, the largest of them.
	// Zero when unknown (a watch response, whose body is the stream).
	Bytes int `json:"bytes,omitempty"`
	// End is set on the entry that records the end of a watch stream: why
	// it ended, as far as the client can tell: [EndCut], [EndError],
	// [EndSlowConsumer] or [EndClosed].
	//
	// A client's "watch-end" decision (listwatch's trace) carries it too:
	// [EndError] after an ERROR event, [EndClient] when the client gave
	// up on a stream that sent nothing, else [EndClosed].
	End StreamEnd `json:"end,omitempty"`
	// ErrorCode is the code of the Status that ended a stream with
	// [EndError] (410 for Expired), when known.
	ErrorCode int32 `json:"errorCode,omitempty"`
	// Fault is the kind of fault a fault entry records: a
	// [faults.Kind], "Compact" for Env.Compact, "Restart" for
	// Env.RestartWatchCache; empty for Env.Fault's free-form ones.
	Fault faults.Kind `json:"fault,omitempty"`
	// Token is the resourceVersion of the continue token a request sends
	// or a response returns, if any.
	Token string `json:"token,omitempty"`
	// Quiet marks an entry drawn in the HTML diagram but left out of the
	// text timeline ([Timeline.Write]): an event a client-go client's
	// watch received, whose effect the text shows as the client's store.
	Quiet bool `json:"quiet,omitempty"`
}

// StreamEnd is why a watch stream ended, as the client that read it can
// tell.
type StreamEnd string

// The ends of a watch stream.
const (
	// EndClosed: the server ended the response cleanly, with no ERROR
	// event: its timeout, a restart or a fault (the HTML diagram tells
	// which from the timeline around it).
	EndClosed StreamEnd = "closed"
	// EndError: the stream ended after an ERROR event (410 Expired...).
	EndError StreamEnd = "error"
	// EndCut: the connection broke mid-frame (a decode error).
	EndCut StreamEnd = "cut"
	// EndBroken: the stream failed otherwise (a transport error).
	EndBroken StreamEnd = "broken"
	// EndClient: the client closed a stream that had sent nothing for
	// longer than it should (listwatch's deadline: timeoutSeconds plus a
	// grace), a hung stream.
	EndClient StreamEnd = "closed by the client"
	// EndSlowConsumer: the server ended the response cleanly because it
	// found this watcher too slow (the fake says so of the watch by its
	// response's Audit-Id: fakeapiserver.Server.WatchEndedSlow; a client
	// of kube-apiserver cannot tell it from EndClosed).
	EndSlowConsumer StreamEnd = "slow consumer"
)

// Horizon names one of the two limits on how far back a client can read.
type Horizon string

// The horizons.
const (
	// HorizonCompaction: etcd compaction; no read below RV is possible.
	HorizonCompaction Horizon = "compaction"
	// HorizonWatchCache: the apiserver's watch cache keeps history from
	// RV on; a watch from an older RV gets ERROR 410 Expired even though
	// etcd may still have it.
	HorizonWatchCache Horizon = "watch-cache"
)

// String renders e on one line, columns aligned.
func (e Entry) String() string {
	rv := ""
	if e.RV != "" {
		rv = "rv=" + e.RV
	}
	return strings.TrimRight(fmt.Sprintf("%-8s %-7s %-8s %s", e.At, rv, e.Kind, e.Text), " ")
}

// Timeline is what a run recorded, in order.
type Timeline []Entry

// Write prints the timeline, one entry per line, each prefixed by indent;
// Quiet entries are left out.
func (tl Timeline) Write(w io.Writer, indent string) error {
	for _, e := range tl {
		if e.Quiet {
			continue
		}
		if _, err := fmt.Fprintf(w, "%s%s\n", indent, e); err != nil {
			return err
		}
	}
	return nil
}
