package scenarios

import (
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
)

// Geometry of the sequence diagram, in SVG user units (CSS pixels). The
// text column uses a monospace font so that wrapping can be computed here,
// deterministically, rather than by the browser.
const (
	// diagMaxWidth is the widest the diagram gets: a 1400 px window less
	// the page's margins (24 px each side), so no lane or text overflows.
	diagMaxWidth = 1352
	diagTop      = 64  // below the lane heads
	diagRulerX   = 66  // the time ruler's line
	diagRVX      = 76  // resourceVersion column
	diagLanesX   = 128 // left edge of the first lane
	diagLaneMax  = 150 // a lane's width when there is room
	diagLaneMin  = 56  // the narrowest lane with its name across it
	// diagLaneNarrow is the narrowest lane with its name written up it
	// (rotated): past diagLaneMin lanes turn their names; past this the
	// text column gives up its width down to diagTextFloor, and only then
	// do lanes get narrower still (their names only in the heads' titles).
	diagLaneNarrow = 14
	diagLaneFloor  = 2
	// diagHeadTallMax is the tallest a rotated lane head gets.
	diagHeadTallMax = 150
	diagAxisGap     = 12  // last lane to the RV axis
	diagAxisW       = 180 // width of the RV axis
	diagTextGap     = 12  // RV axis to the text column
	diagTextPref    = 460 // the text column's width when there is room
	diagTextMin     = 240 // the narrowest text column
	diagTextFloor   = 120 // the narrowest text column past diagLaneNarrow lanes
	diagCharW       = 7.3 // width of one character of the 12px monospace font
	diagHeadCharW   = 7.2 // width of one character of a 12px bold lane head
	diagLineH       = 16  // one line of text
	diagRowPad      = 8   // added to each row's lines
	diagBottomPad   = 40
	// diagSizeMaxW is the length of the bar of the largest body or frame
	// of the run; others are drawn in proportion.
	diagSizeMaxW = 110
)

// laneServer is the name of the server's lane when there is one
// apiserver; with several, each has its lane and writes go to laneEtcd.
const (
	laneServer = "kube-apiserver"
	laneEtcd   = "etcd"
)

// diagram is a laid-out [Timeline]: what the HTML template draws.
type diagram struct {
	Width, Height int
	// Shift moves everything below the lane heads down, to make room for
	// rotated heads (Vertical lanes); 0 when lane names run across.
	Shift int
	Lanes []diagLane
	Rows  []diagRow
	// Gaps draw the virtual time that passes between rows.
	Gaps []diagGap
	// Streams are the watch streams, a bar each from request to end.
	Streams []*diagStream
	// Waits are requests waiting for their responses.
	Waits []diagWait
	Axis  diagAxis
	TextX int
	// ServerX0 and ServerX1 are the first and the last server lane.
	ServerX0, ServerX1 int
	// HasWatchCache is true when some entry moved the watch-cache horizon,
	// so the legend explains its shading.
	HasWatchCache bool
	// HasTokens is true when some continue token is drawn on the axis.
	HasTokens bool
	// HasSizes is true when some body or frame size is drawn.
	HasSizes bool
	// MultiAPIServer is true when the server lanes are apiserver instances
	// (and etcd).
	MultiAPIServer bool
}

// diagLane is one lifeline.
type diagLane struct {
	Name string
	// Label is Name, shortened with "…" to fit the lane's head.
	Label string
	X, W  int
	// HeadW is the width of the lane's head, HeadHalf half of it;
	// FontSize fits Label in it.
	HeadW, HeadHalf, FontSize int
	Server                    bool
	// Vertical is true for a lane too narrow for its name across: the
	// head is HeadH tall (from the top of the diagram, above the shifted
	// part) and the name is written up it, centred at HeadCY.
	Vertical     bool
	HeadY, HeadH int
	HeadCY       int
}

// arrowClasses are the classes of arrows, each with its arrowhead.
var arrowClasses = []string{"request", "response", "response-error", "event", "event-error", "event-bookmark"}

// Heads are the arrow classes whose arrowheads the page defines.
func (d *diagram) Heads() []string { return arrowClasses }

// RVX and RulerX are where the RV column and the time ruler are.
func (d *diagram) RVX() int    { return diagRVX }
func (d *diagram) RulerX() int { return diagRulerX }

// RVX is where the RV column is.
func (f *diagFrame) RVX() int { return diagRVX }

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
	Y, H int // top and height
	MidY int // where the row's arrow or mark is drawn
	// At is the entry's virtual time, shown on the first row at that time.
	At   string
	RV   string
	Kind string
	// Class is the entry's look beyond its kind: the arrow's or mark's
	// class, for the DOM checks and the CSS.
	Class string
	Lines []diagLine
	// Stream is the name of the watch stream the entry belongs to.
	Stream string
	// Arrow is a request, response or event between a lane and the server.
	Arrow *diagArrow
	// Mark is a write, fault or client decision drawn on one lifeline.
	Mark *diagMark
	// Size draws the bytes of a response body or event frame.
	Size *diagSize
	// Clock draws a dashed line across every lane.
	Clock bool
	// Compacted and WatchCacheGone shade the RVs no read (resp. no watch)
	// can start from any more, when the entry happened.
	Compacted, WatchCacheGone diagSpan
	// RVDotX places the entry's RV on the axis (0: none); TokenDotX the
	// RV of a continue token the entry sends or receives.
	RVDotX, TokenDotX int
	// Verdict is "ok" or "fail" for checks.
	Verdict string
	// Frame is the diagram's geometry the row is drawn in.
	Frame *diagFrame
}

// diagFrame is what every row needs to know of the whole diagram.
type diagFrame struct {
	Width, Lane0X, ServerX0, ServerX1, TextX int
	Axis                                     diagAxis
}

type diagLine struct {
	Y    int
	Text string
}

// diagArrow is a horizontal arrow at the row's MidY.
type diagArrow struct {
	X1, X2 int // from, to
	Label  string
	LabelX int
	// Class is request, response, response-error, event, event-error or
	// event-bookmark; the arrowhead is the class's marker.
	Class string
}

type diagMark struct {
	X int
	// Class is write, fault, fault-cut, fault-hang, fault-restart or
	// client.
	Class string
}

// diagSize is a bar as long as a body or frame is large, under an arrow.
type diagSize struct {
	X, W  int
	Label string
}

type diagSpan struct{ X, W int }

// layoutDiagram lays out tl: client lanes in order of first appearance,
// then the server (one lane, or a lane per apiserver and one for etcd);
// one row per entry, as tall as its wrapped text, rows at the same
// virtual time stacked in order and the time between them drawn to scale
// (diagram_time.go); a bar per watch stream (diagram_streams.go).
func layoutDiagram(tl Timeline) *diagram {
	d := &diagram{}
	clients, servers := laneNames(tl)
	d.MultiAPIServer = len(servers) > 1
	names := slices.Concat(clients, servers)
	laneW, textW := fitLanes(len(names))
	x := map[string]int{}
	vertical := laneW < diagLaneMin
	if vertical {
		d.Shift = verticalShift(names, laneW)
	}
	for i, n := range names {
		l := diagLane{Name: n, X: diagLanesX + i*laneW + laneW/2, W: laneW, Server: i >= len(clients)}
		if vertical {
			// A head as tall as the longest name needs, the name
			// written up it, in a font the lane's width takes.
			l.Vertical = true
			l.HeadW = max(1, laneW-2)
			l.HeadY, l.HeadH = 16-d.Shift, 26+d.Shift
			l.HeadCY = l.HeadY + l.HeadH/2
			l.Label, l.FontSize = fitLabel(n, l.HeadH-8, verticalFont(laneW))
			if laneW < 8 {
				l.Label = "" // too narrow to read: the head's title has it
			}
		} else {
			l.HeadW = min(130, laneW-8)
			l.Label, l.FontSize = fitLabel(n, l.HeadW-6, 12)
		}
		l.HeadHalf = l.HeadW / 2
		d.Lanes = append(d.Lanes, l)
		x[n] = l.X
	}
	d.ServerX0, d.ServerX1 = x[servers[0]], x[servers[len(servers)-1]]
	axisX := diagLanesX + len(d.Lanes)*laneW + diagAxisGap
	d.Axis = newAxis(tl, axisX)
	d.TextX = d.Axis.X + d.Axis.W + diagTextGap
	d.Width = d.TextX + textW
	textChars := int(float64(textW-8) / diagCharW)

	frame := &diagFrame{Width: d.Width, Lane0X: d.Lanes[0].X, ServerX0: d.ServerX0, ServerX1: d.ServerX1, TextX: d.TextX, Axis: d.Axis}
	lay := &rowLayout{x: x, servers: servers, d: d}
	var maxBytes int
	for _, en := range tl {
		maxBytes = max(maxBytes, en.Bytes)
	}
	var compaction, watchCache int64
	y := diagTop
	var prev *Entry
	for i, en := range tl {
		if prev != nil && en.At > prev.At {
			g := newGap(y, d.Width, prev.At, en.At)
			d.Gaps = append(d.Gaps, g)
			y += g.H
		}
		if rv, ok := parseRV(en.RV); ok {
			switch en.Horizon {
			case HorizonCompaction:
				compaction = rv
			case HorizonWatchCache:
				watchCache = rv
				d.HasWatchCache = true
			}
		}
		r := layoutRow(en, textChars, d.Axis, y)
		if prev != nil && en.At == prev.At {
			r.At = ""
		}
		r.Frame = frame
		r.Compacted = d.Axis.span(0, compaction)
		// The watch cache never reaches below etcd's compaction.
		r.WatchCacheGone = d.Axis.span(compaction, max(watchCache, compaction))
		lay.place(&r, tl, i, maxBytes)
		d.HasTokens = d.HasTokens || r.TokenDotX != 0
		d.HasSizes = d.HasSizes || r.Size != nil
		d.Rows = append(d.Rows, r)
		y += r.H
		prev = &tl[i]
	}
	lay.finish(y)
	d.Height = y + diagBottomPad + d.Shift
	return d
}

// laneNames are the client lanes in order of first appearance and the
// server lanes: kube-apiserver, or with several apiservers each of them in
// name order and etcd, which takes the writes.
func laneNames(tl Timeline) (clients, servers []string) {
	for _, en := range tl {
		if en.Lane != "" && !slices.Contains(clients, en.Lane) {
			clients = append(clients, en.Lane)
		}
		for _, a := range []string{en.APIServer, faultAPIServer(en)} {
			if a != "" && !slices.Contains(servers, a) {
				servers = append(servers, a)
			}
		}
	}
	if len(clients) == 0 {
		clients = []string{LaneScenario}
	}
	if len(servers) == 0 {
		return clients, []string{laneServer}
	}
	slices.Sort(servers)
	return clients, append(servers, laneEtcd)
}

// fitLanes shares the width among n lanes and the text column, so that
// the diagram never gets wider than diagMaxWidth: lanes as wide as
// diagLaneMax while the text column keeps diagTextPref, then narrower
// lanes down to diagLaneMin, then a narrower text column down to
// diagTextMin; then (some twelve lanes) lanes narrower than diagLaneMin,
// their names turned up (layoutDiagram), down to diagLaneNarrow (some
// fifty lanes); then a text column down to diagTextFloor; then lanes
// narrower still, down to diagLaneFloor (past some four hundred lanes
// the diagram grows wider).
func fitLanes(n int) (laneW, textW int) {
	fixed := diagLanesX + diagAxisGap + diagAxisW + diagTextGap
	laneW = min(diagLaneMax, (diagMaxWidth-fixed-diagTextPref)/n)
	if laneW < diagLaneMin {
		laneW = (diagMaxWidth - fixed - diagTextMin) / n
	}
	if laneW < diagLaneNarrow {
		laneW = max(diagLaneFloor, min(diagLaneNarrow, (diagMaxWidth-fixed-diagTextFloor)/n))
	}
	return laneW, max(diagTextFloor, diagMaxWidth-fixed-n*laneW)
}

// verticalFont is the font size of a name written up a lane laneW wide.
func verticalFont(laneW int) int { return min(12, max(laneW-4, 1)) }

// verticalShift is how far the diagram moves down for rotated lane heads
// laneW wide: as much as the longest name needs, up to diagHeadTallMax.
func verticalShift(names []string, laneW int) int {
	longest := 0
	for _, n := range names {
		longest = max(longest, len([]rune(n)))
	}
	need := int(math.Ceil(float64(longest)*diagHeadCharW*float64(verticalFont(laneW))/12)) + 8
	return max(0, min(diagHeadTallMax, need)-26)
}

// fitLabel fits name into w pixels of a lane head: in a font of size
// px down to 9 (or size, if smaller), then shortened with "…" (the
// head's title has it whole).
func fitLabel(name string, w, size int) (string, int) {
	r := []rune(name)
	least := min(9, size)
	for ; size >= least; size-- {
		if float64(len(r))*diagHeadCharW*float64(size)/12 <= float64(w) {
			return name, size
		}
	}
	size = least
	n := int(float64(w) / (diagHeadCharW * float64(size) / 12))
	if n < 2 {
		return "", size
	}
	if len(r) <= n {
		return name, size
	}
	return string(r[:n-1]) + "…", size
}

func newAxis(tl Timeline, x int) diagAxis {
	var maxRV int64
	minRV := int64(-1)
	for _, en := range tl {
		for _, rv := range []string{en.Token, en.RV} {
			if n, ok := parseRV(rv); ok {
				maxRV = max(maxRV, n)
				if minRV < 0 || n < minRV {
					minRV = n
				}
			}
		}
	}
	minRV = max(minRV-1, 0)
	a := diagAxis{X: x, W: diagAxisW, MinRV: minRV, MaxRV: max(maxRV, minRV+1)}
	a.Ticks = axisTicks(a)
	return a
}

// layoutRow lays out one entry whose row starts at y: its text, its RV
// and continue token on the axis. What it draws on the lanes is placed by
// rowLayout.place.
func layoutRow(en Entry, textChars int, axis diagAxis, y int) diagRow {
	lines := wrap(en.Text, textChars)
	r := diagRow{Y: y, H: len(lines)*diagLineH + diagRowPad, At: en.At.String(), RV: en.RV, Kind: string(en.Kind)}
	r.MidY = y + diagRowPad/2 + diagLineH/2
	for i, l := range lines {
		r.Lines = append(r.Lines, diagLine{Y: y + diagRowPad/2 + (i+1)*diagLineH - 4, Text: l})
	}
	if rv, ok := parseRV(en.RV); ok {
		r.RVDotX = axis.at(rv)
	}
	if rv, ok := parseRV(en.Token); ok {
		r.TokenDotX = axis.at(rv)
	}
	if en.Kind == KindClock {
		r.Clock = true
	}
	if en.Kind == KindCheck {
		r.Verdict = "ok"
		if strings.HasPrefix(en.Text, "FAIL") {
			r.Verdict = "fail"
		}
	}
	return r
}

// faultAPIServer is the apiserver instance a fault entry names, if any.
func faultAPIServer(en Entry) string {
	if en.Kind != KindFault {
		return ""
	}
	return en.APIServer
}

func newArrow(from, to int, label, class string) *diagArrow {
	if from == 0 || to == 0 {
		return nil
	}
	return &diagArrow{X1: from, X2: to, Label: label, LabelX: (from + to) / 2, Class: class}
}

// newSize is the bar of n bytes under an arrow whose head is at x (a
// client's lane, left of the server), in proportion to the run's largest.
func newSize(n, largest, x int) *diagSize {
	if n <= 0 || largest <= 0 {
		return nil
	}
	w := max(2, int(math.Round(float64(diagSizeMaxW)*float64(n)/float64(largest))))
	return &diagSize{X: x + 4, W: w, Label: kib(n)}
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

// responseLabel is a response's status code, with its reason for an
// error ("410 Gone"), and whether it is an error.
func responseLabel(text string) (string, bool) {
	f := strings.Fields(text)
	if len(f) == 0 {
		return "", false
	}
	code, err := strconv.Atoi(f[0])
	if err != nil {
		return "error", true // a transport error
	}
	if code < 400 {
		return strconv.Itoa(code), false
	}
	return strconv.Itoa(code) + " " + http.StatusText(code), true
}

// eventLabel is the event type of an event entry ("w1 ADDED ns/a" →
// "ADDED"; "ERROR 410" for an error), "end" or "broken" for the end of a
// stream, "events" for a summary of many.
func eventLabel(text string) string {
	f := strings.Fields(text)
	if len(f) > 0 && slices.Contains([]string{"ADDED", "MODIFIED", "DELETED", "BOOKMARK", "ERROR"}, f[0]) {
		// A client-go client's event, which names no stream.
		f = append([]string{""}, f...)
	}
	if len(f) < 2 {
		return ""
	}
	switch {
	case f[1] == "ERROR":
		if len(f) > 3 && f[2] == "Status" {
			return "ERROR " + f[3]
		}
		return "ERROR"
	case slices.Contains([]string{"ADDED", "MODIFIED", "DELETED", "BOOKMARK"}, f[1]):
		return f[1]
	case strings.HasPrefix(text, f[0]+" stream broken"):
		return "broken"
	case strings.HasPrefix(text, f[0]+" the server ended"):
		return "end"
	}
	return "events"
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

// wrap breaks s into lines of at most width characters: at a space where
// it can, else after a separator of a URL or a list (& ? , ; /), and
// inside a word only when the word alone is longer than a line.
func wrap(s string, width int) []string {
	var lines []string
	for _, para := range strings.Split(s, "\n") {
		r := []rune(para)
		for len(r) > width {
			cut := breakAt(r, width)
			lines = append(lines, strings.TrimRight(string(r[:cut]), " "))
			r = []rune(strings.TrimLeft(string(r[cut:]), " "))
		}
		lines = append(lines, string(r))
	}
	return lines
}

// breakAt is where to break r, longer than width: at the last space that
// keeps the line at most width long and over a third full, else after the
// last such separator, else at any space, else at width.
func breakAt(r []rune, width int) int {
	for i := width; i > width/3; i-- {
		if r[i] == ' ' {
			return i
		}
	}
	for i := width - 1; i > width/3; i-- {
		if strings.ContainsRune("&?,;/=", r[i]) {
			return i + 1
		}
	}
	for i := width / 3; i > 0; i-- {
		if r[i] == ' ' {
			return i
		}
	}
	return width
}
