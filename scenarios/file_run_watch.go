package scenarios

import (
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/lw-sim/lw-sim/scenarios/scenariofile"
)

// expectEvents reads the next events of a watch and checks them in
// order (or checks that none arrived: silent).
func (r *fileRun) expectEvents(x *scenariofile.Events) error {
	w := r.watches[x.Watch]
	if x.Silent {
		return r.expectSilent(w, x)
	}
	var got, want []string
	for _, fe := range x.Events {
		ev, err := w.Next()
		if err != nil {
			return err
		}
		if x.Apply != "" {
			r.caches[x.Apply].apply(ev)
		}
		rv, err := r.expand(fe.RV)
		if err != nil {
			return err
		}
		if fe.Message, err = r.expand(fe.Message); err != nil {
			return err
		}
		if fe.Name, err = r.expand(fe.Name); err != nil {
			return err
		}
		want = append(want, describeFileEvent(fe, rv))
		if !eventMatches(ev, fe, rv) {
			return r.e.Expect(false, "%s: events %v; got %v then %s", x.Watch, want, got, ev)
		}
		got = append(got, describeFileEvent(fe, rv))
	}
	l, err := r.expand(x.Lesson)
	if err != nil {
		return err
	}
	if at := time.Duration(x.At); at != 0 && r.e.Elapsed() != at {
		return r.e.Expect(false, "%s: events %s at %s; they came at %s", x.Watch, strings.Join(want, ", "), Offset(at), Offset(r.e.Elapsed()))
	}
	return r.e.Expect(true, "%s: events %s%s", x.Watch, strings.Join(want, ", "), lesson(l))
}

// expectSilent checks that nothing arrived on w and it is open.
func (r *fileRun) expectSilent(w *Stream, x *scenariofile.Events) error {
	l, err := r.expand(x.Lesson)
	if err != nil {
		return err
	}
	return r.e.Expect(w.Silent(), "%s: nothing arrived and the stream is still open%s", x.Watch, lesson(l))
}

// checkWatchHead checks a watch's response head.
func (r *fileRun) checkWatchHead(w *Stream, x *scenariofile.WatchExpect) error {
	resp := w.Response
	var want []string
	ok := true
	if x.Code != 0 {
		want = append(want, "status "+strconv.Itoa(x.Code))
		ok = ok && resp.StatusCode == x.Code
	}
	hs := make([]string, 0, len(x.Header))
	for h, v := range x.Header {
		v, err := r.expand(v)
		if err != nil {
			return err
		}
		hs = append(hs, h+": "+v)
		ok = ok && resp.Header.Get(h) == v
	}
	slices.Sort(hs)
	want = append(want, hs...)
	if x.Chunked {
		want = append(want, "Transfer-Encoding chunked and no Content-Length")
		ok = ok && slices.Equal(resp.TransferEncoding, []string{"chunked"}) && resp.ContentLength == -1
	}
	text, err := r.expand(x.Lesson)
	if err != nil {
		return err
	}
	if !ok {
		return r.e.Expect(false, "%s: response %s; got %s %v", w.Name(), strings.Join(want, ", "), resp.Status, resp.Header)
	}
	return r.e.Expect(true, "%s: response %s%s", w.Name(), strings.Join(want, ", "), lesson(text))
}

func eventMatches(ev WatchEvent, fe scenariofile.Event, rv string) bool {
	if fe.End {
		return ev.End && ev.Err == nil
	}
	if fe.Cut {
		return ev.End && isCut(ev.Err)
	}
	var code int32
	var reason metav1.StatusReason
	var message string
	if ev.Status != nil {
		code, reason, message = ev.Status.Code, ev.Status.Reason, ev.Status.Message
	}
	return !ev.End && ev.Type == fe.Type &&
		(fe.Name == "" || ev.Key == key(fe.Name)) &&
		(rv == "" || ev.RV == rv) &&
		(!fe.InitialEventsEnd || ev.InitialEventsEnd) &&
		(fe.Code == 0 || code == fe.Code) &&
		(fe.Reason == "" || reason == fe.Reason) &&
		(fe.Message == "" || message == fe.Message) &&
		(fe.Kind == "" || ev.Kind == fe.Kind) &&
		(fe.APIVersion == "" || ev.APIVersion == fe.APIVersion)
}

func describeFileEvent(fe scenariofile.Event, rv string) string {
	if fe.End {
		return "end"
	}
	if fe.Cut {
		return "cut (a broken frame or a reset, not a clean end)"
	}
	s := string(fe.Type)
	for _, p := range []string{fe.Name, rv} {
		if p != "" {
			s += " " + p
		}
	}
	if fe.InitialEventsEnd {
		s += " (initial-events-end)"
	}
	if fe.Code != 0 {
		s += " " + strconv.Itoa(int(fe.Code))
	}
	if fe.Reason != "" {
		s += " " + string(fe.Reason)
	}
	if fe.Message != "" {
		s += " " + strconv.Quote(fe.Message)
	}
	if fe.Kind != "" || fe.APIVersion != "" {
		s += " (" + strings.TrimSpace(fe.APIVersion+" "+fe.Kind) + ")"
	}
	return s
}

// watch opens a raw watch in the step's lane and checks its response head.
func (r *fileRun) watch(x *scenariofile.Watch) error {
	q, err := r.expand(x.Query)
	if err != nil {
		return err
	}
	r.e.SetLane(x.Lane)
	r.e.NameNextWatch(x.ID)
	var w *Stream
	switch {
	case x.Typed:
		w, err = r.typedWatch(q)
	case x.Paused:
		resume := make(chan struct{})
		r.resumes[x.ID] = resume
		w, err = r.e.WatchPaused(cmPath+"?"+q, resume)
	default:
		w, err = r.e.Watch(cmPath + "?" + q)
	}
	r.e.SetLane("")
	r.e.NameNextWatch("") // unused when the watch failed before it opened
	r.watches[x.ID] = w
	if err != nil || x.Expect == nil {
		return err
	}
	return r.checkWatchHead(w, x.Expect)
}

// resume lets a paused watch read again.
func (r *fileRun) resume(id string) {
	close(r.resumes[id])
	delete(r.resumes, id)
}

// drain reads a watch to its end and checks how it ended.
func (r *fileRun) drain(x *scenariofile.Drain) error {
	w := r.watches[x.Watch]
	n, end, err := w.Drain()
	if err != nil {
		return err
	}
	r.e.append(w.eventEntry(end, "", "%s some events arrived, then %s", w.Name(), end))
	var want []string
	ok := true
	if x.Clean {
		want = append(want, "ended cleanly")
		ok = ok && end.Err == nil
	}
	if x.FewerThan > 0 {
		want = append(want, fmt.Sprintf("before %d events", x.FewerThan))
		ok = ok && n < x.FewerThan
	}
	text, err := r.expand(x.Lesson)
	if err != nil {
		return err
	}
	if !ok {
		return r.e.Expect(false, "%s: the stream %s; it ended after %d events with %v", w.Name(), strings.Join(want, " "), n, end)
	}
	return r.e.Expect(true, "%s: the stream %s%s", w.Name(), strings.Join(want, " "), lesson(text))
}

// typedWatch opens a client-go typed watch with the list options of the
// query q.
func (r *fileRun) typedWatch(q string) (*Stream, error) {
	vals, err := url.ParseQuery(q)
	if err != nil {
		return nil, fmt.Errorf("scenarios: typed watch query %q: %w", q, err)
	}
	var opts metav1.ListOptions
	if err := metav1.Convert_url_Values_To_v1_ListOptions(&vals, &opts, nil); err != nil {
		return nil, fmt.Errorf("scenarios: typed watch query %q: %w", q, err)
	}
	return r.e.WatchTyped(Namespace, opts)
}

// readInitialEvents reads a watch-list's initial events, records a
// summary and checks them.
func (r *fileRun) readInitialEvents(x *scenariofile.InitialEvents) error {
	w := r.watches[x.Watch]
	evs, err := w.ReadUntil(func(ev WatchEvent) bool { return ev.Type == watch.Bookmark && ev.InitialEventsEnd })
	if err != nil {
		return err
	}
	added, streamed, maxFrame := 0, 0, 0
	for _, ev := range evs {
		streamed += ev.Bytes
		if ev.Type == watch.Added {
			added++
			maxFrame = max(maxFrame, ev.Bytes)
		}
	}
	end := evs[len(evs)-1]
	en := w.eventEntry(end, end.RV, "%s %d ADDED events (one object per frame, at most %s), then BOOKMARK (k8s.io/initial-events-end)", w.Name(), added, kib(maxFrame))
	en.Bytes = maxFrame
	r.e.append(en)
	r.vars[x.ID], r.vars[x.ID+".added"] = end.RV, strconv.Itoa(added)
	r.vars[x.ID+".bytes"], r.vars[x.ID+".maxFrame"] = strconv.Itoa(streamed), strconv.Itoa(maxFrame)
	if x.Expect == nil {
		return nil
	}
	return r.checkInitialEvents(w, x.Expect, added, end.RV)
}

// checkInitialEvents checks the number of initial events and the
// bookmark's RV.
func (r *fileRun) checkInitialEvents(w *Stream, x *scenariofile.InitialEventsCheck, added int, rv string) error {
	want, err := r.expand(x.RV)
	if err != nil {
		return err
	}
	l, err := r.expand(x.Lesson)
	if err != nil {
		return err
	}
	what := fmt.Sprintf("%s: the initial events are %d ADDED then the initial-events-end bookmark", w.Name(), x.Added)
	if want != "" {
		what += " at rv " + want
	}
	if (x.Added != 0 && added != x.Added) || (want != "" && rv != want) {
		return r.e.Expect(false, "%s; they are %d ADDED, the bookmark at rv %s", what, added, rv)
	}
	return r.e.Expect(true, "%s%s", what, lesson(l))
}
