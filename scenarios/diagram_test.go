package scenarios

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/lw-sim/lw-sim/faults"
)

// TestLayoutDiagram: lanes in order of first appearance with the server
// last; arrows between a lane and the server; each row shaded below the
// horizons in force when it happened, the watch cache's never below etcd's
// compaction.
func TestLayoutDiagram(t *testing.T) {
	tl := Timeline{
		{Kind: KindWrite, RV: "10", Text: "create default/a"},
		{Kind: KindRequest, RV: "10", Text: "GET /api/v1/namespaces/default/configmaps?watch=true", Lane: "naive"},
		{Kind: KindEvent, RV: "10", Text: "w1 ERROR Status 410 Expired", Lane: "naive"},
		{Kind: KindNote, RV: "6", Text: "watch cache", Horizon: HorizonWatchCache},
		{Kind: KindClient, RV: "8", Text: "listwatch: relist", Lane: "listwatch"},
		{Kind: KindFault, RV: "8", Text: "compaction", Horizon: HorizonCompaction},
	}
	d := layoutDiagram(tl)
	if diff := cmp.Diff([]string{"naive", "listwatch", laneServer}, laneNamesOf(d)); diff != "" {
		t.Errorf("lanes (-want +got):\n%s", diff)
	}
	if a := d.Rows[1].Arrow; a == nil || a.X1 != d.Lanes[0].X || a.X2 != d.ServerX0 || a.Label != "WATCH" {
		t.Errorf("request row arrow = %+v, want WATCH from lane naive to the server", a)
	}
	if a := d.Rows[2].Arrow; a == nil || a.X1 != d.ServerX0 || a.X2 != d.Lanes[0].X || a.Label != "ERROR 410" || a.Class != "event-error" {
		t.Errorf("event row arrow = %+v, want a red ERROR 410 from the server to lane naive", a)
	}
	if m := d.Rows[4].Mark; m == nil || m.X != d.Lanes[1].X || m.Class != "client" {
		t.Errorf("client row mark = %+v, want a decision on lane listwatch", m)
	}
	type shade struct{ compacted, cacheGone diagSpan }
	want := []shade{
		{}, {}, {},
		{cacheGone: d.Axis.span(0, 6)},
		{cacheGone: d.Axis.span(0, 6)},
		{compacted: d.Axis.span(0, 8)}, // the cache's horizon 6 is below the compaction
	}
	for i, r := range d.Rows {
		if got := (shade{r.Compacted, r.WatchCacheGone}); got != want[i] {
			t.Errorf("row %d (%s) shading = %+v, want %+v", i, tl[i].Text, got, want[i])
		}
	}
}

func laneNamesOf(d *diagram) []string {
	var names []string
	for _, l := range d.Lanes {
		names = append(names, l.Name)
	}
	return names
}

// Builders of timeline entries for the layout tests.
func at(d time.Duration) Offset { return Offset(d) }

func watchReq(at Offset, lane, stream, query string) []Entry {
	return []Entry{
		{At: at, Kind: KindRequest, Lane: lane, Stream: stream, Text: "GET /api/v1/namespaces/default/configmaps?" + query},
		{At: at, Kind: KindResponse, Lane: lane, Stream: stream, Text: "200 OK, headers [...]; the body stays open"},
	}
}

func event(at Offset, lane, stream, what string) Entry {
	return Entry{At: at, Kind: KindEvent, Lane: lane, Stream: stream, Text: stream + " " + what}
}

func endOf(at Offset, lane, stream string, end StreamEnd) Entry {
	en := event(at, lane, stream, "the server ended the response (clean end of stream, no final event)")
	en.End = end
	if end == EndCut {
		en.Text = stream + " stream broken: the connection was cut mid-frame"
	}
	return en
}

// TestLayoutStreams: each watch is a bar in its lane from its request to
// its end, labelled why it ended, whether the client saw the end (an
// ERROR, a cut, a clean end after its timeout, a restart or a slow
// consumer) or the run left it open (hung or not); a client's watch ends
// at its watch-end decision; events are drawn to their stream's bar;
// streams open at once take bars side by side.
func TestLayoutStreams(t *testing.T) {
	var tl Timeline
	add := func(ens ...Entry) { tl = append(tl, ens...) }
	add(watchReq(0, "raw", "timeout", "timeoutSeconds=10&watch=true")...)
	add(watchReq(0, "raw", "error", "watch=true")...)
	add(event(0, "raw", "error", "ERROR Status 410 Expired: \"too old\""))
	add(endOf(0, "raw", "error", EndError))
	add(watchReq(0, "raw", "cut", "watch=true")...)
	add(Entry{Kind: KindFault, Fault: faults.CutWatch, Text: `fault CutWatch {"kind":"CutWatch"}`})
	add(event(0, "raw", "cut", "ADDED default/a"))
	add(endOf(0, "raw", "cut", EndCut))
	add(watchReq(0, "raw", "slow", "watch=true")...)
	add(endOf(0, "raw", "slow", EndSlowConsumer))
	add(watchReq(0, "raw", "restarted", "watch=true")...)
	add(watchReq(0, "raw", "hung", "watch=true")...)
	add(Entry{Kind: KindRequest, Lane: "listwatch", Text: "GET /api/v1/namespaces/default/configmaps?timeoutSeconds=T&watch=true"},
		Entry{Kind: KindResponse, Lane: "listwatch", Text: "200 OK, headers [...]; the body stays open"})
	add(Entry{Kind: KindFault, Fault: faults.HangWatch, Text: `fault HangWatch {"kind":"HangWatch","streams":"open"}`})
	add(Entry{Kind: KindClock, Text: "clock +2m30s"})
	add(Entry{At: at(150 * time.Second), Kind: KindClient, Lane: "listwatch", End: EndClient, Text: "listwatch: watch-end reason=stream closed by the client: no end of stream by timeoutSeconds plus grace"})
	add(endOf(at(150*time.Second), "raw", "timeout", EndClosed))
	add(Entry{At: at(150 * time.Second), Kind: KindFault, Fault: faults.Restart, Text: "apiserver restart: every watch is closed"})
	add(event(at(150*time.Second), "raw", "restarted", "BOOKMARK"))
	add(watchReq(at(150*time.Second), "raw", "hung2", "watch=true")...)
	add(Entry{At: at(150 * time.Second), Kind: KindFault, Fault: faults.HangWatch, Text: `fault HangWatch {"kind":"HangWatch","streams":"open"}`})

	d := layoutDiagram(tl)
	type got struct{ End, Class string }
	ends := map[string]got{}
	bars := map[string]*diagStream{}
	for _, s := range d.Streams {
		name := s.Name
		if name == "" {
			name = s.Lane
		}
		ends[name] = got{s.End, s.EndClass}
		bars[name] = s
		if s.Y2 < s.Y1 {
			t.Errorf("stream %s ends at y %d, above its start %d", name, s.Y2, s.Y1)
		}
	}
	want := map[string]got{
		"timeout":   {"timeout 10s", "end-timeout"},
		"error":     {"ERROR 410", "end-error"},
		"cut":       {"cut", "end-cut"},
		"slow":      {"slow consumer", "end-slow"},
		"restarted": {"restart", "end-restart"},
		"hung":      {"restart", "end-restart"}, // a restart ends a hung stream too
		"hung2":     {"hung, open", "end-hang"},
		"listwatch": {"hang: client gave up", "end-hang"},
	}
	if diff := cmp.Diff(want, ends); diff != "" {
		t.Errorf("why each stream ended (-want +got):\n%s", diff)
	}
	if bars["hung2"].HangY == 0 || !bars["hung2"].Open {
		t.Errorf("stream hung2 = %+v, want hung from the HangWatch fault and open at the end", bars["hung2"])
	}
	// Streams open at once in one lane take bars side by side; one that
	// opens after another ended takes its place again.
	if bars["timeout"].X == bars["error"].X {
		t.Errorf("streams timeout and error, open at once, share the bar at x %d", bars["timeout"].X)
	}
	if bars["cut"].X != bars["error"].X {
		t.Errorf("stream cut opened after error ended: bar at x %d, want error's %d", bars["cut"].X, bars["error"].X)
	}
	for i, r := range d.Rows {
		if tl[i].Kind == KindEvent && r.Arrow != nil {
			if s := bars[tl[i].Stream]; r.Arrow.X2 != s.X {
				t.Errorf("row %d (%s): arrow to x %d, want its stream's bar at %d", i, tl[i].Text, r.Arrow.X2, s.X)
			}
		}
	}
	classes := map[string]string{}
	for i, r := range d.Rows {
		classes[tl[i].Text] = r.Class
	}
	for text, want := range map[string]string{
		`fault CutWatch {"kind":"CutWatch"}`:                      "fault-cut",
		`fault HangWatch {"kind":"HangWatch","streams":"open"}`:   "fault-hang",
		"apiserver restart: every watch is closed":                "fault-restart",
		"restarted BOOKMARK":                                      "event-bookmark",
		`error ERROR Status 410 Expired: "too old"`:               "event-error",
		"GET /api/v1/namespaces/default/configmaps?watch=true":    "request",
		"200 OK, headers [...]; the body stays open":              "response",
		"listwatch: watch-end reason=stream closed by the client": "",
	} {
		if got, ok := classes[text]; ok && got != want {
			t.Errorf("row %q has class %q, want %q", text, got, want)
		}
	}
}

// TestLayoutClientGoEvents: the events a client-go client's watch
// received, recorded with no stream name (and Quiet but the ERROR), are
// drawn on the bar of that client's open watch, each labelled with its
// type, and its ERROR 410 ends the bar.
func TestLayoutClientGoEvents(t *testing.T) {
	tl := Timeline{
		{Kind: KindRequest, Lane: "reflector", RV: "5", Text: "GET /api/v1/namespaces/default/configmaps?resourceVersion=5&timeoutSeconds=T&watch=true"},
		{Kind: KindResponse, Lane: "reflector", Text: "200 OK, headers [...]; the body stays open"},
		{Kind: KindEvent, Lane: "reflector", RV: "6", Text: "ADDED default/a", Quiet: true, Bytes: 400},
		{Kind: KindEvent, Lane: "reflector", RV: "7", Text: "MODIFIED default/a", Quiet: true, Bytes: 400},
		{Kind: KindEvent, Lane: "reflector", RV: "8", Text: "BOOKMARK", Quiet: true, Bytes: 100},
		{Kind: KindEvent, Lane: "reflector", RV: "9", Text: "DELETED default/a", Quiet: true, Bytes: 400},
		{Kind: KindEvent, Lane: "reflector", Text: `ERROR Status 410 Expired: "too old resource version: 5 (9)"`},
	}
	d := layoutDiagram(tl)
	if len(d.Streams) != 1 {
		t.Fatalf("streams = %+v, want the reflector's one watch", d.Streams)
	}
	bar := d.Streams[0]
	if bar.EndClass != "end-error" {
		t.Errorf("the reflector's watch ends with class %q, want end-error (its ERROR 410)", bar.EndClass)
	}
	want := []struct{ label, class string }{{"ADDED", "event"}, {"MODIFIED", "event"}, {"BOOKMARK", "event-bookmark"}, {"DELETED", "event"}, {"ERROR 410", "event-error"}}
	for i, w := range want {
		r := d.Rows[2+i]
		if r.Arrow == nil || r.Arrow.Label != w.label || r.Arrow.Class != w.class || r.Arrow.X2 != bar.X {
			t.Errorf("row %d (%s) arrow = %+v, want %s (%s) to the reflector's bar at x %d", 2+i, tl[2+i].Text, r.Arrow, w.label, w.class, bar.X)
		}
	}
	var buf strings.Builder
	if err := tl.Write(&buf, ""); err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(buf.String(), "\n"); got != 3 {
		t.Errorf("the text timeline has %d lines, want 3 (the request, the response, the ERROR; the other events are Quiet):\n%s", got, buf.String())
	}
}

// TestLayoutResponses: an error status is drawn in its own class, a body's
// size as a bar in proportion to the largest, a continue token's RV on the
// axis.
func TestLayoutResponses(t *testing.T) {
	tl := Timeline{
		{Kind: KindRequest, Lane: "pager", Text: "GET /api/v1/namespaces/default/configmaps?limit=40"},
		{Kind: KindResponse, Lane: "pager", RV: "320", Bytes: 96000, Token: "320", Text: "200 OK ConfigMapList at rv 320, 40 items [...], continue <token rv=320 after=obj-039>"},
		{Kind: KindRequest, Lane: "pager", Token: "300", Text: "GET /api/v1/namespaces/default/configmaps?continue=<token rv=300 after=obj-039>&limit=40"},
		{Kind: KindResponse, Lane: "pager", Bytes: 400, Text: "410 Gone Status 410 Expired: \"The provided continue parameter is too old\""},
		{Kind: KindResponse, Lane: "pager", Bytes: 288000, Text: "504 Gateway Timeout Status 504 Timeout"},
	}
	d := layoutDiagram(tl)
	r := d.Rows
	if r[1].Arrow.Class != "response" || r[3].Arrow.Class != "response-error" || r[3].Arrow.Label != "410 Gone" || r[4].Arrow.Label != "504 Gateway Timeout" {
		t.Errorf("response arrows %+v, %+v, %+v: want a 200, then errors 410 Gone and 504", r[1].Arrow, r[3].Arrow, r[4].Arrow)
	}
	if r[4].Size == nil || r[4].Size.W != diagSizeMaxW || r[1].Size == nil || r[1].Size.W != int(math.Round(diagSizeMaxW/3.0)) || r[1].Size.Label != "93.8 KiB" {
		t.Errorf("size bars %+v and %+v: want the largest %d px and a third of it for a third the bytes", r[4].Size, r[1].Size, diagSizeMaxW)
	}
	if r[1].TokenDotX != d.Axis.at(320) || r[2].TokenDotX != d.Axis.at(300) || r[0].TokenDotX != 0 {
		t.Errorf("token dots at %d, %d, %d: want none, then RV 320 (x %d) and RV 300 (x %d)", r[0].TokenDotX, r[1].TokenDotX, r[2].TokenDotX, d.Axis.at(320), d.Axis.at(300))
	}
	if !d.HasTokens || !d.HasSizes {
		t.Errorf("HasTokens %v, HasSizes %v: want the legend to explain both", d.HasTokens, d.HasSizes)
	}
}

// TestLayoutAPIServers: with several apiservers, each has a lane and etcd
// one more, which takes the writes; requests go to the instance that
// served them, faults to the one they name.
func TestLayoutAPIServers(t *testing.T) {
	tl := Timeline{
		{Kind: KindWrite, RV: "201", Text: "create default/alpha"},
		{Kind: KindFault, Fault: faults.FreezeAPIServer, APIServer: "apiserver-1", Text: `fault FreezeAPIServer {"kind":"FreezeAPIServer","apiserver":"apiserver-1"}`},
		{Kind: KindRequest, Lane: "scenario", Text: "GET /api/v1/namespaces/default/configmaps"},
		{Kind: KindResponse, Lane: "scenario", APIServer: "apiserver-0", Text: "200 OK ConfigMapList"},
		{Kind: KindRequest, Lane: "scenario", Text: "GET /api/v1/namespaces/default/configmaps?resourceVersion=0"},
		{Kind: KindResponse, Lane: "scenario", APIServer: "apiserver-1", Text: "200 OK ConfigMapList"},
	}
	d := layoutDiagram(tl)
	if diff := cmp.Diff([]string{"scenario", "apiserver-0", "apiserver-1", laneEtcd}, laneNamesOf(d)); diff != "" {
		t.Errorf("lanes (-want +got):\n%s", diff)
	}
	x := map[string]int{}
	for _, l := range d.Lanes {
		x[l.Name] = l.X
	}
	for i, want := range []int{x[laneEtcd], x["apiserver-1"], x["apiserver-0"], x["apiserver-0"], x["apiserver-1"], x["apiserver-1"]} {
		r := d.Rows[i]
		got := 0
		switch {
		case r.Mark != nil:
			got = r.Mark.X
		case r.Kind == string(KindRequest):
			got = r.Arrow.X2
		default:
			got = r.Arrow.X1
		}
		if got != want {
			t.Errorf("row %d (%s) is drawn at x %d, want %d", i, tl[i].Text, got, want)
		}
	}
}

// TestLayoutTimeScale: rows at one virtual time are stacked with no space
// between; the time between rows is drawn to scale up to ten seconds, and
// a longer span as a break, taller for a longer span but shorter than ten
// seconds to scale plus the break's edges.
func TestLayoutTimeScale(t *testing.T) {
	tl := Timeline{
		{At: 0, Kind: KindNote, Text: "a"},
		{At: 0, Kind: KindNote, Text: "b"},
		{At: at(8 * time.Second), Kind: KindNote, Text: "bookmark"},
		{At: at(8*time.Second + 30*time.Minute), Kind: KindNote, Text: "timeout"},
		{At: at(8*time.Second + 30*time.Minute + 2*time.Minute + 30*time.Second), Kind: KindNote, Text: "hang"},
	}
	d := layoutDiagram(tl)
	r := d.Rows
	if r[1].Y != r[0].Y+r[0].H {
		t.Errorf("rows at the same time: second at y %d, want right under the first at %d", r[1].Y, r[0].Y+r[0].H)
	}
	if r[1].At != "" || r[2].At != "+8s" {
		t.Errorf("time labels %q, %q: want none on a row at the time of the one before, +8s on the next", r[1].At, r[2].At)
	}
	if len(d.Gaps) != 3 {
		t.Fatalf("gaps = %+v, want 3", d.Gaps)
	}
	eight, thirty, twoHalf := d.Gaps[0], d.Gaps[1], d.Gaps[2]
	if eight.Break || eight.H != 8*diagPxPerSecond || len(eight.Ticks) != 7 || r[2].Y != r[1].Y+r[1].H+eight.H {
		t.Errorf("8 s gap = %+v, want %d px to scale with a tick per second between, before the next row", eight, 8*diagPxPerSecond)
	}
	if !thirty.Break || thirty.Label != "30m0s" || !twoHalf.Break || twoHalf.H >= thirty.H || twoHalf.H <= eight.H/2 {
		t.Errorf("30 min gap %+v, 2m30s gap %+v: want breaks, the 30 min one taller", thirty, twoHalf)
	}
	if scaled := int(diagScaleLimit.Seconds()*diagPxPerSecond) + diagBreakH; thirty.H > 2*scaled {
		t.Errorf("30 min gap is %d px: a break should stay within %d", thirty.H, 2*scaled)
	}
}

// TestLayoutFitsAnyLanes: the diagram fits a 1400 px window
// (diagMaxWidth) whatever the number of lanes (up to the 400 tried), and
// up to forty every lane's head fits its lane, the name across it or
// turned up it (and the rows move down below the heads).
func TestLayoutFitsAnyLanes(t *testing.T) {
	for n := 1; n <= 400; n++ {
		var tl Timeline
		for i := range n - 1 {
			tl = append(tl, Entry{Kind: KindClient, Lane: fmt.Sprintf("listwatch-client-%d", i), Text: "x"})
		}
		d := layoutDiagram(tl)
		if d.Width > diagMaxWidth {
			t.Errorf("%d lanes: diagram %d px wide, want at most %d", n, d.Width, diagMaxWidth)
		}
		if n > 40 {
			continue
		}
		if d.TextX+diagTextMin > d.Width {
			t.Errorf("%d lanes: the text column is %d px, want at least %d", n, d.Width-d.TextX, diagTextMin)
		}
		for _, l := range d.Lanes {
			w := float64(len([]rune(l.Label))) * diagHeadCharW * float64(l.FontSize) / 12
			switch {
			case l.Label == "" || !strings.HasPrefix(l.Name, strings.TrimSuffix(l.Label, "…")):
				t.Errorf("%d lanes: head %q of lane %q", n, l.Label, l.Name)
			case !l.Vertical && (w > float64(l.HeadW) || l.HeadW > l.W):
				t.Errorf("%d lanes: head %q (%dpx font) is %.0f px in a head %d px wide, lane %d", n, l.Label, l.FontSize, w, l.HeadW, l.W)
			case l.Vertical && (w > float64(l.HeadH) || l.FontSize > l.W-2 || l.HeadW > l.W || l.HeadY+d.Shift != 16 || l.HeadH != 26+d.Shift):
				t.Errorf("%d lanes: turned head %q (%dpx font) is %.0f px up a head %d px tall, %d wide, at y %d; lane %d wide, shift %d", n, l.Label, l.FontSize, w, l.HeadH, l.HeadW, l.HeadY, l.W, d.Shift)
			case l.Vertical != (l.W < diagLaneMin):
				t.Errorf("%d lanes: lane %q vertical=%v", n, l.Name, l.Vertical)
			}
		}
	}
}

// TestWrapKeepsWords: wrapped text keeps every word whole when it fits a
// line, and no line is longer than the width.
func TestWrapKeepsWords(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		width := rapid.IntRange(20, 100).Draw(t, "width")
		words := rapid.SliceOfN(rapid.StringMatching(`[a-zA-Z0-9]{1,19}`), 1, 40).Draw(t, "words")
		text := strings.Join(words, " ")
		lines := wrap(text, width)
		for _, l := range lines {
			if len([]rune(l)) > width {
				t.Fatalf("line %q is longer than %d", l, width)
			}
		}
		if got := strings.Join(lines, " "); got != text {
			t.Fatalf("wrap(%q, %d) = %q: joined %q, want the text back with every word whole", text, width, lines, got)
		}
	})
	// A URL breaks after its separators, not inside a parameter's name.
	url := "GET /api/v1/namespaces/default/configmaps?allowWatchBookmarks=true&resourceVersion=201&timeoutSeconds=T&watch=true"
	for _, l := range wrap(url, 60) {
		if strings.HasSuffix(l, "timeoutSeco") || (len(l) > 0 && isWordEnd(l) && !strings.HasSuffix(l, "true")) {
			t.Errorf("wrap broke the URL inside a word: line %q", l)
		}
	}
}

// isWordEnd reports whether line ends in a letter or digit.
func isWordEnd(line string) bool {
	r := []rune(line)
	return unicode.IsLetter(r[len(r)-1]) || unicode.IsDigit(r[len(r)-1])
}

// TestLayoutLibrary: every built-in scenario's diagram fits the width, and
// its text is wrapped at spaces or separators only.
func TestLayoutLibrary(t *testing.T) {
	for _, sc := range Library() {
		t.Run(sc.Name, func(t *testing.T) {
			t.Parallel()
			res, err := Run(t.Context(), sc, RunOptions{})
			if err != nil {
				t.Fatalf("Run(%s) = %v", sc.Name, err)
			}
			d := layoutDiagram(res.Timeline)
			if d.Width > diagMaxWidth {
				t.Errorf("diagram of %s is %d px wide, want at most %d", sc.Name, d.Width, diagMaxWidth)
			}
			for i, r := range d.Rows {
				for j := 1; j < len(r.Lines); j++ {
					prev, next := []rune(r.Lines[j-1].Text), []rune(r.Lines[j].Text)
					if len(prev) == 0 || len(next) == 0 {
						continue
					}
					text, p, n := res.Timeline[i].Text, string(prev), string(next)
					broken := strings.Contains(text, p+n) && !strings.Contains(text, p+" "+n) && !strings.Contains(text, p+"\n"+n)
					if isWordRune(prev[len(prev)-1]) && isWordRune(next[0]) && broken {
						t.Errorf("row %d of %s breaks a word: %q / %q", i, sc.Name, r.Lines[j-1].Text, r.Lines[j].Text)
					}
				}
			}
			for _, s := range d.Streams {
				if s.End == "" || s.EndClass == "" {
					t.Errorf("stream %q of %s has no end: %+v", s.Name, sc.Name, s)
				}
			}
		})
	}
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// TestLayoutWaits: a request answered only after other rows is drawn
// waiting down its lane, labelled with the virtual time it waited; one
// answered at once is not.
func TestLayoutWaits(t *testing.T) {
	tl := Timeline{
		{Kind: KindRequest, Lane: "stale", Text: "GET /api/v1/namespaces/default/configmaps"},
		{Kind: KindResponse, Lane: "stale", Text: "200 OK ConfigMapList"},
		{Kind: KindRequest, Lane: "stale", Text: "GET /api/v1/namespaces/default/configmaps?resourceVersion=204&resourceVersionMatch=NotOlderThan"},
		{Kind: KindClock, Text: "clock +3s (now +3s)"},
		{At: at(3 * time.Second), Kind: KindNote, Text: "the cache has not caught up"},
		{At: at(3 * time.Second), Kind: KindResponse, Lane: "stale", Text: "504 Gateway Timeout Status 504 Timeout"},
	}
	d := layoutDiagram(tl)
	if len(d.Waits) != 1 {
		t.Fatalf("waits = %+v, want one", d.Waits)
	}
	if w := d.Waits[0]; w.Y1 != d.Rows[2].MidY || w.Y2 != d.Rows[5].MidY || w.Label != "waits 3s" || w.X >= d.Lanes[0].X {
		t.Errorf("wait = %+v, want from row 2 (y %d) to row 5 (y %d) just left of lane stale, labelled waits 3s", w, d.Rows[2].MidY, d.Rows[5].MidY)
	}
}
