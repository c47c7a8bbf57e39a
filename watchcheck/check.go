package watchcheck

import (
	"fmt"
	"slices"
	"strings"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/watch"
)

// Guarantee names one property a stream must have; the package doc defines
// each.
type Guarantee string

// The guarantees, etcd's six and the Kubernetes per-object rule.
const (
	Ordered      Guarantee = "Ordered"
	Unique       Guarantee = "Unique"
	Atomic       Guarantee = "Atomic"
	Reliable     Guarantee = "Reliable"
	Resumable    Guarantee = "Resumable"
	Bookmarkable Guarantee = "Bookmarkable"
	PerObject    Guarantee = "PerObject"
)

// Violation is one broken guarantee in one stream.
type Violation struct {
	Guarantee Guarantee
	Stream    string
	// Index is the offending event's position in the stream (-1: the
	// stream as a whole).
	Index   int
	Message string
	// Diff is a go-cmp diff (-want +got) where one says more.
	Diff string
}

func (v Violation) String() string {
	s := fmt.Sprintf("%s broken by stream %s at event %d: %s", v.Guarantee, v.Stream, v.Index, v.Message)
	if v.Diff != "" {
		s += "\n" + v.Diff
	}
	return s
}

// Violations is the result of a check; its Error lists them all.
type Violations []Violation

// Error implements error.
func (vs Violations) Error() string {
	lines := make([]string, len(vs))
	for i, v := range vs {
		lines[i] = v.String()
	}
	return fmt.Sprintf("watchcheck: %d violation(s):\n%s", len(vs), strings.Join(lines, "\n"))
}

// Guarantees are the distinct guarantees broken, in first-seen order.
func (vs Violations) Guarantees() []Guarantee {
	var gs []Guarantee
	for _, v := range vs {
		if !slices.Contains(gs, v.Guarantee) {
			gs = append(gs, v.Guarantee)
		}
	}
	return gs
}

// Check checks every stream against h and returns the violations, or nil
// (a nil error) when every guarantee holds. h must pass
// [History.Validate].
func Check(h History, streams ...Stream) error {
	var all Violations
	for _, s := range streams {
		all = append(all, checkStream(h, s)...)
	}
	if len(all) == 0 {
		return nil
	}
	return all
}

// checkStream checks one stream. Initial events without their end
// bookmark (a watch from RV ""/"0" without sendInitialEvents=true gets none)
// are dated by search: the stream passes if its events are all consistent
// initial ADDED events (it may have been cut before the end), or if, for
// some k and some history RV S, its first k events are the selection's
// state at S and the rest follow S. Otherwise it is reported as if all its leading ADDED events
// were initial.
func checkStream(h History, s Stream) Violations {
	if s.InitialEvents && !slices.ContainsFunc(s.Events, isInitialEnd) {
		// All initial (cut before the end, or no change yet), or dated.
		if len(checkDated(h, s)) == 0 || firstFit(h, s) != nil {
			return nil
		}
		n := slices.IndexFunc(s.Events, func(e Event) bool { return e.Type != watch.Added })
		if n < 0 {
			n = len(s.Events)
		}
		return checkDated(h, withEnd(s, n, -1))
	}
	return checkDated(h, s)
}

// firstFit returns a dated copy of s that passes, or nil.
func firstFit(h History, s Stream) *Stream {
	n := 0
	for n < len(s.Events) && s.Events[n].Type == watch.Added {
		n++
	}
	for k := n; k >= 0; k-- {
		floor := int64(0)
		for _, e := range s.Events[:k] {
			floor = max(floor, e.RV)
		}
		for _, c := range h {
			if c.RV < floor || k < len(s.Events) && c.RV >= s.Events[k].RV && s.Events[k].Type != watch.Bookmark {
				continue
			}
			d := withEnd(s, k, c.RV)
			if len(checkDated(h, d)) == 0 {
				return &d
			}
		}
		if k == 0 && len(checkDated(h, withEnd(s, 0, s.StartRV))) == 0 {
			return &s
		}
	}
	return nil
}

// withEnd inserts an initial-events-end bookmark at rv after the first k
// events (rv -1: at the highest RV among them).
func withEnd(s Stream, k int, rv int64) Stream {
	if rv < 0 {
		rv = s.StartRV
		for _, e := range s.Events[:k] {
			rv = max(rv, e.RV)
		}
	}
	s.Events = slices.Insert(slices.Clone(s.Events), k, Event{Type: watch.Bookmark, RV: rv, InitialEventsEnd: true})
	return s
}

func isInitialEnd(e Event) bool { return e.Type == watch.Bookmark && e.InitialEventsEnd }

// checkDated checks a stream whose initial events, if any, are dated.
func checkDated(h History, s Stream) Violations {
	c := &checker{h: h, s: s, v: viewOf(s)}
	c.run()
	// In stream order, so the first violation is the first defect.
	slices.SortStableFunc(c.out, func(a, b Violation) int { return a.Index - b.Index })
	return c.out
}

// Expected returns the change events s should deliver after its start
// point (for initial events, after their end bookmark) according to h, in
// order; ok is false when s gives no start point (RV 0 without initial
// events, or initial events with no end bookmark).
func Expected(h History, s Stream) (events []Event, ok bool) {
	c := &checker{h: h, s: s, v: viewOf(s)}
	c.initial()
	if !c.known || s.InitialEvents && !slices.ContainsFunc(s.Events, isInitialEnd) {
		return nil, false
	}
	for _, w := range h.after(c.v, c.anchor) {
		events = append(events, Event{Type: w.Type, Key: w.Key, UID: w.UID, RV: w.RV})
	}
	return events, true
}

// checker checks one stream. Each check reports its own violation and
// leaves the offending event out of the later checks, so one defect is
// reported once, under the guarantee it breaks.
type checker struct {
	h   History
	s   Stream
	v   view
	out Violations

	// live are the delivered change events after the initial ones that
	// passed Unique, Ordered and Atomic, with their stream positions.
	live []indexed
	// anchor is the RV the projection starts after; known is false when
	// the stream gives none (RV 0, no initial events).
	anchor int64
	known  bool
}

type indexed struct {
	i int
	e Event
}

func (c *checker) report(g Guarantee, i int, diff, format string, args ...any) {
	c.out = append(c.out, Violation{Guarantee: g, Stream: c.s.Name, Index: i, Message: fmt.Sprintf(format, args...), Diff: diff})
}

func (c *checker) run() {
	rest := c.initial()
	c.sequence(rest)
	c.follow()
}

// initial checks the initial events of a sendInitialEvents stream and
// returns the position the changes start at.
func (c *checker) initial() int {
	c.anchor, c.known = c.s.StartRV, c.s.StartRV > 0
	if !c.s.InitialEvents {
		return 0
	}
	end := slices.IndexFunc(c.s.Events, isInitialEnd)
	initial := c.s.Events
	switch {
	case end >= 0:
		initial = c.s.Events[:end]
	case len(initial) > 0 && initial[len(initial)-1].Type == watch.Error:
		// An ERROR (a 504 "Too large resource version", a 410) ended the
		// stream before its end bookmark: it is no initial event, and
		// sequence checks that it is the last.
		initial = initial[:len(initial)-1]
	}
	got := map[string]version{}
	for i, e := range initial {
		if e.Type != watch.Added {
			c.report(PerObject, i, "", "%s %s before the initial-events-end bookmark: initial events are ADDED", e.Type, e.Key)
			continue
		}
		if _, dup := got[e.Key]; dup {
			c.report(Unique, i, "", "initial ADDED %s delivered twice", e.Key)
			continue
		}
		if ch, ok := c.h.at(e.RV); !ok || ch.Key != e.Key || ch.UID != e.UID || ch.Deleted {
			c.report(Atomic, i, "", "initial ADDED %s uid %q at rv %d is no version the history wrote (%+v)", e.Key, e.UID, e.RV, ch)
			continue
		}
		got[e.Key] = version{Key: e.Key, UID: e.UID, RV: e.RV}
	}
	if end < 0 {
		c.known = false
		return len(initial)
	}
	b := c.s.Events[end].RV
	if c.s.StartRV > b {
		c.report(Bookmarkable, end, "", "initial-events-end bookmark at rv %d is older than the requested rv %d", b, c.s.StartRV)
	}
	if diff := cmp.Diff(c.h.stateAt(c.v, b), got); diff != "" {
		c.report(Bookmarkable, end, diff, "initial events are not the selection's state at the initial-events-end bookmark's rv %d (-want +got)", b)
	}
	c.anchor, c.known = b, true
	return end + 1
}

// sequence checks Unique, Ordered and Atomic on the events from position
// from on, and collects the change events that pass into c.live.
func (c *checker) sequence(from int) {
	seen := map[int64]int{}
	last := c.anchor
	for i := from; i < len(c.s.Events); i++ {
		e := c.s.Events[i]
		switch e.Type {
		case watch.Error:
			if i != len(c.s.Events)-1 {
				c.report(Ordered, i, "", "ERROR (code %d) is followed by %d more events: an ERROR ends the stream", e.Code, len(c.s.Events)-1-i)
			}
			continue
		case watch.Bookmark:
			if e.RV < last {
				c.report(Ordered, i, "", "BOOKMARK at rv %d after rv %d", e.RV, last)
				continue
			}
			last = e.RV
			c.live = append(c.live, indexed{i, e})
			continue
		case watch.Added, watch.Modified, watch.Deleted:
		default:
			c.report(PerObject, i, "", "unknown event type %q", e.Type)
			continue
		}
		if j, dup := seen[e.RV]; dup {
			c.report(Unique, i, "", "%s %s at rv %d was already delivered as event %d", e.Type, e.Key, e.RV, j)
			continue
		}
		if e.RV <= last {
			if last == c.anchor && c.known {
				// Nothing delivered past the start point yet: the stream
				// did not resume where it was asked to.
				c.report(Resumable, i, "", "%s %s at rv %d is at or before the start rv %d", e.Type, e.Key, e.RV, c.anchor)
			} else {
				c.report(Ordered, i, "", "%s %s at rv %d after rv %d", e.Type, e.Key, e.RV, last)
			}
			continue
		}
		seen[e.RV] = i
		ch, ok := c.h.at(e.RV)
		if !ok || ch.Key != e.Key || ch.UID != e.UID {
			c.report(Atomic, i, "", "%s %s uid %q at rv %d is not the write at that rv (history: %+v)", e.Type, e.Key, e.UID, e.RV, ch)
			continue
		}
		last = e.RV
		c.live = append(c.live, indexed{i, e})
	}
}

// follow walks the change events against the projection: Resumable for
// the first, Reliable for the rest, Bookmarkable at each bookmark,
// PerObject for the types.
func (c *checker) follow() {
	var wants []want
	next := 0
	if c.known {
		wants = c.h.after(c.v, c.anchor)
	}
	for n, ie := range c.live {
		i, e := ie.i, ie.e
		if e.Type == watch.Bookmark {
			if c.known && next < len(wants) && wants[next].RV <= e.RV {
				c.report(Bookmarkable, i, "", "BOOKMARK at rv %d, but the matching %s %s at rv %d was not delivered", e.RV, wants[next].Type, wants[next].Key, wants[next].RV)
			}
			continue
		}
		if !c.known {
			// Anchor at the first change event: the projection from just
			// before it.
			c.anchor, c.known = e.RV-1, true
			wants = c.h.after(c.v, c.anchor)
		}
		j := slices.IndexFunc(wants[next:], func(w want) bool { return w.RV == e.RV })
		if j < 0 {
			c.report(Reliable, i, "", "%s %s at rv %d is not a change this watch selects", e.Type, e.Key, e.RV)
			continue
		}
		j += next
		if j > next {
			missed := wants[next:j]
			diff := cmp.Diff(wants[next:j+1], []want{{Type: e.Type, Key: e.Key, UID: e.UID, RV: e.RV}})
			if n == 0 || c.firstChange(n) {
				c.report(Resumable, i, diff, "first event after the start rv %d skips %d matching change(s) (-want +got)", c.anchor, len(missed))
			} else {
				c.report(Reliable, i, diff, "gap: %d matching change(s) before rv %d were not delivered (-want +got)", len(missed), e.RV)
			}
		}
		if w := wants[j]; w.Type != e.Type {
			c.report(PerObject, i, "", "%s %s at rv %d, want %s in this watch's view", e.Type, e.Key, e.RV, w.Type)
		}
		next = j + 1
	}
}

// firstChange reports whether c.live[n] is the first change event (only
// bookmarks before it).
func (c *checker) firstChange(n int) bool {
	for _, ie := range c.live[:n] {
		if ie.e.Type != watch.Bookmark {
			return false
		}
	}
	return true
}
