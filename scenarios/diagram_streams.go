package scenarios

import (
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/lw-sim/lw-sim/faults"
)

// Watch streams in the diagram: a bar in the client's lane from the
// request that opened it to its end, with why it ended. A raw watch's
// entries name their stream ([Entry.Stream]); a client's (listwatch,
// client-go) watch is the WATCH request of its lane up to the client's
// "watch-end" decision or its next WATCH. Why a stream ended is what the
// client saw ([Entry.End], the ERROR event, the client's reason) made
// precise by what happened while it was open: a restart of its
// apiserver, a fault, its timeoutSeconds passing.
const (
	// diagStreamDX is the first bar's offset right of the lifeline;
	// diagStreamSlot is the step between bars of streams open at once in
	// one lane.
	diagStreamDX   = 7
	diagStreamSlot = 8
	// defaultWatchTimeout is the shortest timeout kube-apiserver gives a
	// watch without timeoutSeconds (--min-request-timeout 1800 s, times a
	// random factor in [1, 2)).
	defaultWatchTimeout = 30 * time.Minute
)

// diagStream is one watch stream's bar.
type diagStream struct {
	Name string
	Lane string
	X    int
	// Y1 is the request's row, Y2 the row where the client learnt of the
	// end (or the bottom, for a stream still open).
	Y1, Y2 int
	// HangY is where the stream stopped sending (0: it did not hang).
	HangY int
	// End says why it ended, for people; EndClass for the CSS and the
	// DOM checks: end-timeout, end-cut, end-hang, end-error, end-slow,
	// end-restart, end-client, end-fault, end-closed or end-open.
	End, EndClass string
	// Open is true for a stream the run left open.
	Open bool

	apiserver string
	anonymous bool // a client's watch, its entries unnamed
	startAt   Offset
	// timeout is the request's timeoutSeconds; hasTimeout is false when
	// it sent none (the server's default applies).
	timeout    time.Duration
	hasTimeout bool
	restartY   int
	cutArmed   bool
	endFault   bool
	lastError  string
	slot       int
}

// rowLayout places each row's arrow, mark and size on the lanes, and
// follows the watch streams.
type rowLayout struct {
	x       map[string]int
	servers []string
	d       *diagram
	open    []*diagStream
	// slots are the lanes' bar positions in use.
	slots map[string][]bool
	// asked holds each lane's request awaiting its response.
	asked map[string]asked
}

// asked is a request awaiting its response.
type asked struct {
	y  int
	at Offset
}

// diagWait is a request's wait for its response, drawn when rows came
// between them: a dotted line down the client's lane.
type diagWait struct {
	X, Y1, Y2 int
	// Label says how long in virtual time, if any passed.
	Label string
}

var timeoutRE = regexp.MustCompile(`[?&]timeoutSeconds=(\d+|T)\b`)

// place draws entry i of tl, laid out as r.
func (l *rowLayout) place(r *diagRow, tl Timeline, i, maxBytes int) {
	en := tl[i]
	laneX := l.laneX(en.Lane)
	switch en.Kind {
	case KindRequest:
		label := requestLabel(en.Text)
		from := laneX
		if label == "WATCH" && l.opens(tl, i) {
			s := l.openStream(en, tl, i, r.MidY)
			from, r.Stream = s.X, s.Name
		}
		r.Arrow = newArrow(from, l.serverX(l.requestAPIServer(tl, i)), label, "request")
		if l.asked == nil {
			l.asked = map[string]asked{}
		}
		l.asked[en.Lane+"/"+en.Stream] = asked{y: r.MidY, at: en.At}
	case KindResponse:
		l.wait(en, laneX, r.MidY)
		label, isErr := responseLabel(en.Text)
		class := "response"
		if isErr {
			class = "response-error"
		}
		to := laneX
		if s := l.stream(en); s != nil && s.Y1 < r.MidY && strings.Contains(en.Text, "the body stays open") {
			to, r.Stream = s.X, s.Name
			label += " stream"
		}
		r.Arrow = newArrow(l.serverX(en.APIServer), to, label, class)
		r.Size = newSize(en.Bytes, maxBytes, to)
	case KindEvent:
		l.placeEvent(r, en, laneX, maxBytes)
	case KindWrite:
		r.Mark = &diagMark{X: l.storeX(), Class: "write"}
	case KindFault:
		l.placeFault(r, en)
	case KindClient:
		r.Mark = &diagMark{X: laneX, Class: "client"}
		if en.End != "" {
			if s := l.laneStream(en.Lane); s != nil {
				l.closeClientStream(s, en, r.MidY)
			}
		}
	}
	if r.Arrow != nil {
		r.Class = r.Arrow.Class
	} else if r.Mark != nil {
		r.Class = r.Mark.Class
	}
}

// wait draws the wait of en's request for en, when rows came between.
func (l *rowLayout) wait(en Entry, laneX, y int) {
	key := en.Lane + "/" + en.Stream
	a, ok := l.asked[key]
	if !ok {
		return
	}
	delete(l.asked, key)
	if y-a.y <= 2*diagLineH+diagRowPad {
		return
	}
	w := diagWait{X: laneX - 5, Y1: a.y, Y2: y}
	if en.At > a.at {
		w.Label = "waits " + time.Duration(en.At-a.at).String()
	}
	l.d.Waits = append(l.d.Waits, w)
}

// opens reports whether the watch request i opened a stream: its
// response is a 200.
func (l *rowLayout) opens(tl Timeline, i int) bool {
	resp := responseOf(tl, i)
	return resp != nil && strings.HasPrefix(resp.Text, "200 ")
}

// responseOf is the response to request i: the next response in its lane
// (and stream).
func responseOf(tl Timeline, i int) *Entry {
	for j := i + 1; j < len(tl); j++ {
		en := &tl[j]
		if en.Kind == KindResponse && en.Lane == tl[i].Lane && en.Stream == tl[i].Stream {
			return en
		}
		if en.Kind == KindRequest && en.Lane == tl[i].Lane && en.Stream == tl[i].Stream {
			return nil
		}
	}
	return nil
}

// requestAPIServer is the instance request i went to: where it was routed
// or, when it was not, where its response came from.
func (l *rowLayout) requestAPIServer(tl Timeline, i int) string {
	if a := tl[i].APIServer; a != "" {
		return a
	}
	if resp := responseOf(tl, i); resp != nil {
		return resp.APIServer
	}
	return ""
}

func (l *rowLayout) openStream(en Entry, tl Timeline, i, y int) *diagStream {
	s := &diagStream{Name: en.Stream, Lane: en.Lane, Y1: y, startAt: en.At, anonymous: en.Stream == "", apiserver: l.requestAPIServer(tl, i)}
	if s.anonymous {
		// A client watches once at a time: a new watch ends the last.
		if prev := l.laneStream(en.Lane); prev != nil {
			l.closeStream(prev, EndClosed, en.At, y)
		}
	}
	if m := timeoutRE.FindStringSubmatch(en.Text); m != nil {
		s.hasTimeout = true
		if n, err := strconv.Atoi(m[1]); err == nil {
			s.timeout = time.Duration(n) * time.Second
		}
	}
	if l.slots == nil {
		l.slots = map[string][]bool{}
	}
	used := l.slots[en.Lane]
	for s.slot < len(used) && used[s.slot] {
		s.slot++
	}
	if s.slot == len(used) {
		used = append(used, false)
	}
	used[s.slot] = true
	l.slots[en.Lane] = used
	laneX := l.laneX(en.Lane)
	s.X = min(laneX+diagStreamDX+s.slot*diagStreamSlot, laneX+l.laneW()/2-4)
	l.open = append(l.open, s)
	l.d.Streams = append(l.d.Streams, s)
	return s
}

func (l *rowLayout) laneW() int {
	if len(l.d.Lanes) == 0 {
		return diagLaneMax
	}
	return l.d.Lanes[0].W
}

// stream is the open stream entry en belongs to: the one it names, or for
// an event the one its text starts with, or a client's watch in its lane.
func (l *rowLayout) stream(en Entry) *diagStream {
	name := en.Stream
	if name == "" && en.Kind == KindEvent {
		name, _, _ = strings.Cut(en.Text, " ")
	}
	for _, s := range l.open {
		if !s.anonymous && s.Name == name {
			return s
		}
	}
	if en.Stream == "" {
		// A client's: its events (client-go's, recorded as they go by)
		// name no stream.
		return l.laneStream(en.Lane)
	}
	return nil
}

// laneStream is the client's watch open in lane.
func (l *rowLayout) laneStream(lane string) *diagStream {
	for i := len(l.open) - 1; i >= 0; i-- {
		if s := l.open[i]; s.anonymous && s.Lane == lane {
			return s
		}
	}
	return nil
}

func (l *rowLayout) placeEvent(r *diagRow, en Entry, laneX, maxBytes int) {
	s := l.stream(en)
	label := eventLabel(en.Text)
	end := en.End
	if end == "" && (label == "end" || label == "broken") {
		// A timeline recorded before Entry.End.
		end = EndClosed
		if label == "broken" {
			end = EndBroken
		}
	}
	to, server := laneX, l.serverX("")
	if s != nil {
		to, server, r.Stream = s.X, l.serverX(s.apiserver), s.Name
	}
	if end != "" && label != "events" {
		r.Class = "stream-end"
		if s != nil {
			l.closeStream(s, end, en.At, r.MidY)
		}
		return
	}
	class := "event"
	switch {
	case strings.HasPrefix(label, "ERROR"):
		class = "event-error"
		if s != nil {
			s.lastError = label
		}
	case label == "BOOKMARK":
		class = "event-bookmark"
	}
	r.Arrow = newArrow(server, to, label, class)
	if class != "event-error" {
		// An ERROR's Status is small, and its stream's end label goes
		// there.
		r.Size = newSize(en.Bytes, maxBytes, to)
	}
	if class == "event-error" && s != nil {
		// The server ends the response right after an ERROR event
		// (cacher.go's watch: the Status is the last thing sent).
		end = EndError
	}
	if end != "" && s != nil {
		// A summary of events that ends with the stream's end.
		l.closeStream(s, end, en.At, r.MidY)
	}
}

func (l *rowLayout) placeFault(r *diagRow, en Entry) {
	api := faultAPIServer(en)
	x := l.storeX()
	if api != "" {
		x = l.serverX(api)
	}
	class := "fault"
	hits := func(s *diagStream) bool { return api == "" || s.apiserver == api || s.apiserver == "" }
	switch en.Fault {
	case faults.CutWatch:
		class = "fault-cut"
		for _, s := range l.open {
			s.cutArmed = true
		}
	case faults.HangWatch:
		class = "fault-hang"
		for _, s := range l.open {
			if s.HangY == 0 {
				s.HangY = r.MidY
			}
		}
	case faults.EndWatch:
		for _, s := range l.open {
			s.endFault = true
		}
	case faults.Restart, faults.RestartAPIServer:
		class = "fault-restart"
		for _, s := range l.open {
			if hits(s) && s.restartY == 0 {
				s.restartY = r.MidY
			}
		}
	}
	r.Mark = &diagMark{X: x, Class: class}
}

// closeClientStream ends a client's watch at its "watch-end" decision
// en.
func (l *rowLayout) closeClientStream(s *diagStream, en Entry, y int) {
	switch en.End {
	case EndError:
		s.lastError = "ERROR"
		if en.ErrorCode != 0 {
			s.lastError += " " + strconv.Itoa(int(en.ErrorCode))
		}
		l.closeStream(s, EndError, en.At, y)
	case EndClient:
		l.finishStream(s, y)
		if s.HangY != 0 {
			s.End, s.EndClass = "hang: client gave up", "end-hang"
		} else {
			s.End, s.EndClass = "client gave up", "end-client"
		}
	default:
		l.closeStream(s, en.End, en.At, y)
	}
}

// closeStream ends s at y, as the client saw it end (end), made precise
// by what happened while it was open.
func (l *rowLayout) closeStream(s *diagStream, end StreamEnd, at Offset, y int) {
	l.finishStream(s, y)
	switch end {
	case EndError:
		s.End, s.EndClass = s.lastError, "end-error"
		if s.End == "" {
			s.End = "ERROR"
		}
	case EndCut:
		s.End, s.EndClass = "cut", "end-cut"
	case EndBroken:
		s.End, s.EndClass = "broken", "end-cut"
	case EndSlowConsumer:
		s.End, s.EndClass = "slow consumer", "end-slow"
	default:
		s.End, s.EndClass = s.closedBecause(at)
		if s.restartY != 0 {
			// The bar ends where the restart ended the stream, not where
			// the client noticed.
			s.Y2 = s.restartY
		}
	}
}

// closedBecause says why a stream that ended with no error at at did.
func (s *diagStream) closedBecause(at Offset) (end, class string) {
	open := time.Duration(at - s.startAt)
	switch {
	case s.restartY != 0:
		return "restart", "end-restart"
	case s.cutArmed && s.anonymous:
		// A client tells a cut from a clean end only by its own reason
		// ("stream closed"); a raw watch's End already said.
		return "cut", "end-cut"
	case s.endFault:
		return "fault", "end-fault"
	case s.hasTimeout && s.timeout > 0 && open >= s.timeout:
		return "timeout " + s.timeout.String(), "end-timeout"
	case !s.hasTimeout && open >= defaultWatchTimeout:
		return "timeout (30-60m)", "end-timeout"
	}
	return "server ended", "end-closed"
}

// finishStream takes s out of the open streams, its bar ending at y.
func (l *rowLayout) finishStream(s *diagStream, y int) {
	s.Y2 = y
	for i, o := range l.open {
		if o == s {
			l.open = append(l.open[:i], l.open[i+1:]...)
			break
		}
	}
	l.slots[s.Lane][s.slot] = false
}

// finish ends the streams still open when the run ended at y: those a
// restart closed end there, the others are open.
func (l *rowLayout) finish(y int) {
	for _, s := range append([]*diagStream(nil), l.open...) {
		if s.restartY != 0 {
			l.finishStream(s, s.restartY)
			s.End, s.EndClass = "restart", "end-restart"
			continue
		}
		l.finishStream(s, y)
		s.Open = true
		s.End, s.EndClass = "open", "end-open"
		if s.HangY != 0 {
			s.End, s.EndClass = "hung, open", "end-hang"
		}
	}
}

// laneX is the lifeline of lane: a client's, or the scenario's for
// entries of no lane.
func (l *rowLayout) laneX(lane string) int {
	if x := l.x[lane]; x != 0 {
		return x
	}
	if x := l.x[LaneScenario]; x != 0 {
		return x
	}
	return l.d.Lanes[0].X
}

// serverX is the lifeline of apiserver instance a, or of the first (the
// only) server when a is unknown.
func (l *rowLayout) serverX(a string) int {
	if x := l.x[a]; x != 0 && a != "" {
		return x
	}
	return l.x[l.servers[0]]
}

// storeX is where writes are drawn: the server, or etcd behind several.
func (l *rowLayout) storeX() int { return l.x[l.servers[len(l.servers)-1]] }
