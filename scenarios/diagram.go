package scenarios

import (
	"slices"
	"strconv"
	"strings"
)

// Geometry of the sequence diagram, in SVG user units (CSS pixels). The
// text column uses a monospace font so that wrapping can be computed here,
// deterministically, rather than by the browser.
const (
	diagTop       = 64  // below the lane heads
	diagTimeX     = 8   // virtual time column
	diagRVX       = 96  // resourceVersion column
	diagLane0X    = 190 // first lane's lifeline
	diagLaneGap   = 150 // between lifelines
	diagAxisGap   = 60  // server lifeline to the RV axis
	diagAxisW     = 220 // width of the RV axis
	diagTextGap   = 24  // RV axis to the text column
	diagTextChars = 96  // wrap the text column at this many characters
	diagCharW     = 7.3 // width of one character of the 12px monospace font
	diagLineH     = 16  // one line of text
	diagRowPad    = 8   // added to each row's lines
	diagBottomPad = 40
	diagTextW     = 704 // diagTextChars * diagCharW, rounded up
)

// laneServer is the name of the server's lane, always the last one.
const laneServer = "kube-apiserver"

// diagram is a laid-out [Timeline]: what the HTML template draws.
type diagram struct {
	Width, Height int
	Lanes         []diagLane
	Rows          []diagRow
	ServerX       int
	Axis          diagAxis
	TextX         int
	// HasWatchCache is true when some entry moved the watch-cache horizon,
	// so the legend explains its shading.
	HasWatchCache bool
}

// diagLane is one lifeline.
type diagLane struct {
	Name string
	X    int
}

// diagAxis is the resourceVersion axis: MinRV at X, MaxRV at X+W. MinRV is
// the RV the scenario starts from (the server's objects written before
// it, some sixty, are no part of the story).
type diagAxis struct {
	X, W         int
	MinRV, MaxRV int64
	Ticks        []diagTick
}

type diagTick struct {
	X     int
	Label string
}

// diagRow is one entry of the timeline.
type diagRow struct {
	Y, H  int // top and height
	MidY  int // where the row's arrow or mark is drawn
	At    string
	RV    string
	Kind  string
	Lines []diagLine
	// Arrow is a request, response or event between a lane and the server.
	Arrow *diagArrow
	// Mark is a write, fault or client decision drawn on one lifeline.
	Mark *diagMark
	// Clock draws a dashed line across every lane.
	Clock bool
	// Compacted and WatchCacheGone shade the RVs no read (resp. no watch)
	// can start from any more, when the entry happened.
	Compacted, WatchCacheGone diagSpan
	// RVDotX places the entry's RV on the axis (0: none).
	RVDotX int
	// Verdict is "ok" or "fail" for checks.
	Verdict string
	// Frame is the diagram's geometry the row is drawn in.
	Frame *diagFrame
}

// diagFrame is what every row needs to know of the whole diagram.
type diagFrame struct {
	Width, Lane0X, ServerX, TextX int
	Axis                          diagAxis
}

type diagLine struct {
	Y    int
	Text string
}

type diagArrow struct {
	X1, X2 int // from, to
	Label  string
	LabelX int
	Class  string // request, response, event
}

type diagMark struct {
	X     int
	Class string // write, fault, client
}

type diagSpan struct{ X, W int }

// layoutDiagram lays out tl: lanes in order of first appearance, the
// server last; one row per entry, as tall as its wrapped text.
func layoutDiagram(tl Timeline) *diagram {
	d := &diagram{}
	var names []string
	var maxRV int64
	minRV := int64(-1)
	for _, en := range tl {
		if en.Lane != "" && !slices.Contains(names, en.Lane) {
			names = append(names, en.Lane)
		}
		if n, ok := parseRV(en.RV); ok {
			maxRV = max(maxRV, n)
			if minRV < 0 || n < minRV {
				minRV = n
			}
		}
	}
	minRV = max(minRV-1, 0)
	names = append(names, laneServer)
	x := map[string]int{}
	for i, n := range names {
		d.Lanes = append(d.Lanes, diagLane{Name: n, X: diagLane0X + i*diagLaneGap})
		x[n] = diagLane0X + i*diagLaneGap
	}
	d.ServerX = x[laneServer]
	d.Axis = diagAxis{X: d.ServerX + diagAxisGap, W: diagAxisW, MinRV: minRV, MaxRV: max(maxRV, minRV+1)}
	d.Axis.Ticks = axisTicks(d.Axis)
	d.TextX = d.Axis.X + d.Axis.W + diagTextGap
	d.Width = d.TextX + diagTextW + 16

	frame := &diagFrame{Width: d.Width, Lane0X: diagLane0X, ServerX: d.ServerX, TextX: d.TextX, Axis: d.Axis}
	var compaction, watchCache int64
	y := diagTop
	for _, en := range tl {
		if rv, ok := parseRV(en.RV); ok {
			switch en.Horizon {
			case HorizonCompaction:
				compaction = rv
			case HorizonWatchCache:
				watchCache = rv
				d.HasWatchCache = true
			}
		}
		r := layoutRow(en, x, d.ServerX, d.Axis, y)
		r.Frame = frame
		r.Compacted = d.Axis.span(0, compaction)
		// The watch cache never reaches below etcd's compaction.
		r.WatchCacheGone = d.Axis.span(compaction, max(watchCache, compaction))
		d.Rows = append(d.Rows, r)
		y += r.H
	}
	d.Height = y + diagBottomPad
	return d
}

// layoutRow lays out one entry whose row starts at y.
func layoutRow(en Entry, x map[string]int, serverX int, axis diagAxis, y int) diagRow {
	lines := wrap(en.Text, diagTextChars)
	r := diagRow{Y: y, H: len(lines)*diagLineH + diagRowPad, At: en.At.String(), RV: en.RV, Kind: string(en.Kind)}
	r.MidY = y + diagRowPad/2 + diagLineH/2
	for i, l := range lines {
		r.Lines = append(r.Lines, diagLine{Y: y + diagRowPad/2 + (i+1)*diagLineH - 4, Text: l})
	}
	if rv, ok := parseRV(en.RV); ok {
		r.RVDotX = axis.at(rv)
	}
	lane := x[en.Lane]
	if lane == 0 {
		lane = x[LaneScenario]
	}
	switch en.Kind {
	case KindRequest:
		r.Arrow = newArrow(lane, serverX, requestLabel(en.Text), "request")
	case KindResponse:
		r.Arrow = newArrow(serverX, lane, firstWord(en.Text), "response")
	case KindEvent:
		r.Arrow = newArrow(serverX, lane, eventLabel(en.Text), "event")
	case KindWrite:
		r.Mark = &diagMark{X: serverX, Class: "write"}
	case KindFault:
		r.Mark = &diagMark{X: serverX, Class: "fault"}
	case KindClient:
		r.Mark = &diagMark{X: lane, Class: "client"}
	case KindClock:
		r.Clock = true
	case KindCheck:
		r.Verdict = "ok"
		if strings.HasPrefix(en.Text, "FAIL") {
			r.Verdict = "fail"
		}
	}
	return r
}

func newArrow(from, to int, label, class string) *diagArrow {
	if from == 0 || to == 0 {
		return nil
	}
	return &diagArrow{X1: from, X2: to, Label: label, LabelX: (from + to) / 2, Class: class}
}

// requestLabel names a request the way the article does: LIST or WATCH
// for collection GETs, else the method.
func requestLabel(text string) string {
	method, uri, _ := strings.Cut(text, " ")
	if method != "GET" {
		return method
	}
	if strings.Contains(uri, "watch=true") || strings.Contains(uri, "watch=1") {
		return "WATCH"
	}
	return "LIST"
}

// eventLabel is the event type of an event entry ("w1 ADDED ns/a" →
// "ADDED"), "end" or "broken" for the end of a stream, "events" for a
// summary of many.
func eventLabel(text string) string {
	f := strings.Fields(text)
	if len(f) < 2 {
		return ""
	}
	switch {
	case slices.Contains([]string{"ADDED", "MODIFIED", "DELETED", "BOOKMARK", "ERROR"}, f[1]):
		return f[1]
	case strings.HasPrefix(text, f[0]+" stream broken"):
		return "broken"
	case strings.HasPrefix(text, f[0]+" the server ended"):
		return "end"
	}
	return "events"
}

func firstWord(s string) string {
	w, _, _ := strings.Cut(s, " ")
	return strings.TrimSuffix(w, ",")
}

func parseRV(rv string) (int64, bool) {
	n, err := strconv.ParseInt(rv, 10, 64)
	return n, err == nil && n > 0
}

// at is the x of rv on the axis (clamped to it).
func (a diagAxis) at(rv int64) int {
	rv = min(max(rv, a.MinRV), a.MaxRV)
	return a.X + int(float64(a.W)*float64(rv-a.MinRV)/float64(a.MaxRV-a.MinRV))
}

// span is the part of the axis from RV lo up to (not including) hi.
func (a diagAxis) span(lo, hi int64) diagSpan {
	if hi <= lo {
		return diagSpan{}
	}
	return diagSpan{X: a.at(lo), W: a.at(hi) - a.at(lo)}
}

// axisTicks labels the minimum, the maximum and a few round values
// between.
func axisTicks(a diagAxis) []diagTick {
	step := int64(1)
	for (a.MaxRV-a.MinRV)/step > 5 {
		switch {
		case strings.HasPrefix(strconv.FormatInt(step, 10), "1"):
			step *= 2
		case strings.HasPrefix(strconv.FormatInt(step, 10), "2"):
			step = step / 2 * 5
		default:
			step *= 2
		}
	}
	var ts []diagTick
	// Round ticks stop short of the maximum's label, which always shows.
	for rv := a.MinRV; a.at(a.MaxRV)-a.at(rv) >= 24; rv = (rv/step + 1) * step {
		ts = append(ts, diagTick{X: a.at(rv), Label: strconv.FormatInt(rv, 10)})
	}
	return append(ts, diagTick{X: a.at(a.MaxRV), Label: strconv.FormatInt(a.MaxRV, 10)})
}

// wrap breaks s into lines of at most width characters, at spaces where
// it can.
func wrap(s string, width int) []string {
	var lines []string
	for _, para := range strings.Split(s, "\n") {
		r := []rune(para)
		for len(r) > width {
			cut := width
			for i := width; i > width/2; i-- {
				if r[i] == ' ' {
					cut = i
					break
				}
			}
			lines = append(lines, string(r[:cut]))
			r = []rune(strings.TrimLeft(string(r[cut:]), " "))
		}
		lines = append(lines, string(r))
	}
	return lines
}
