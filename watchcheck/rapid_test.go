package watchcheck

import (
	"slices"
	"strconv"
	"testing"

	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/watch"
	"pgregory.net/rapid"
)

// drawHistory draws a valid history of up to 30 writes over 4 keys in 2
// namespaces with labels app=x|y and a field type=t1|t2, RVs with random
// gaps (other resources' writes).
func drawHistory(t *rapid.T) History {
	var h History
	rv := int64(1)
	live := map[string]string{}
	gen := 0
	for range rapid.IntRange(0, 30).Draw(t, "writes") {
		rv += rapid.Int64Range(1, 3).Draw(t, "gap")
		key := rapid.SampledFrom([]string{"n1/a", "n1/b", "n2/a", "n2/c"}).Draw(t, "key")
		app := rapid.SampledFrom([]string{"x", "y"}).Draw(t, "app")
		typ := rapid.SampledFrom([]string{"t1", "t2"}).Draw(t, "type")
		c := Change{RV: rv, Key: key, Labels: map[string]string{"app": app}, Fields: map[string]string{"type": typ}}
		uid, ok := live[key]
		switch {
		case ok && rapid.IntRange(0, 3).Draw(t, "del") == 0:
			c.UID, c.Deleted = uid, true
			delete(live, key)
		case ok:
			c.UID = uid
		default:
			gen++
			c.UID = "u" + strconv.Itoa(gen)
			live[key] = c.UID
		}
		h = append(h, c)
	}
	return h
}

// oracle builds the stream a correct watch delivers, by a method other than
// the checker's: per write, the selection before it and after it.
func oracle(h History, v view, from int64) []Event {
	var out []Event
	for _, c := range h {
		if c.RV <= from {
			continue
		}
		_, before := h.stateAt(v, c.RV-1)[c.Key]
		_, after := h.stateAt(v, c.RV)[c.Key]
		typ := watch.EventType("")
		switch {
		case before && after:
			typ = watch.Modified
		case after:
			typ = watch.Added
		case before:
			typ = watch.Deleted
		default:
			continue
		}
		out = append(out, Event{Type: typ, Key: c.Key, UID: c.UID, RV: c.RV})
	}
	return out
}

func drawStream(t *rapid.T, h History) Stream {
	s := Stream{Name: "drawn", StartRV: 1}
	if len(h) > 0 {
		s.StartRV = rapid.Int64Range(1, h[len(h)-1].RV).Draw(t, "start")
	}
	s.Namespace = rapid.SampledFrom([]string{"", "n1", "n2"}).Draw(t, "ns")
	if rapid.Bool().Draw(t, "selector") {
		s.Selector = labels.SelectorFromSet(labels.Set{"app": "x"})
	}
	if f := rapid.SampledFrom([]string{"", "metadata.name=a", "metadata.namespace!=n2", "type=t1", "metadata.name!=b,type!=t2"}).Draw(t, "fieldSelector"); f != "" {
		s.FieldSelector = fields.ParseSelectorOrDie(f)
	}
	s.Events = oracle(h, viewOf(s), s.StartRV)
	// Bookmarks at random points, each at or past what was delivered and
	// below the next event.
	var withBookmarks []Event
	last := s.StartRV
	for _, e := range s.Events {
		if rapid.IntRange(0, 3).Draw(t, "bookmark") == 0 && e.RV-1 > last {
			withBookmarks = append(withBookmarks, Event{Type: watch.Bookmark, RV: rapid.Int64Range(last, e.RV-1).Draw(t, "bookmarkRV")})
		}
		withBookmarks = append(withBookmarks, e)
		last = e.RV
	}
	s.Events = withBookmarks
	return s
}

func changeIndexes(s Stream) []int {
	var idx []int
	for i, e := range s.Events {
		if e.Type != watch.Bookmark {
			idx = append(idx, i)
		}
	}
	return idx
}

// TestRapidCorrectStreamsPass: the oracle's stream, with bookmarks, and
// every prefix of it, break nothing.
func TestRapidCorrectStreamsPass(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		h := drawHistory(t)
		if err := h.Validate(); err != nil {
			t.Fatal(err)
		}
		s := drawStream(t, h)
		for n := len(s.Events); n >= 0; n-- {
			p := s
			p.Events = s.Events[:n]
			if err := Check(h, p); err != nil {
				t.Fatalf("prefix of %d events: %v", n, err)
			}
		}
	})
}

// TestRapidMutatedStreamsFail: one planted defect in a correct stream is
// reported, under the guarantee it breaks.
func TestRapidMutatedStreamsFail(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		h := drawHistory(t)
		s := drawStream(t, h)
		idx := changeIndexes(s)
		if len(idx) < 2 {
			t.Skip("too few events")
		}
		k := rapid.IntRange(0, len(idx)-2).Draw(t, "k")
		i, j := idx[k], idx[k+1]
		ev := slices.Clone(s.Events)
		var want Guarantee
		switch m := rapid.SampledFrom([]string{"drop", "duplicate", "swap", "retype", "bookmarkAhead", "startEarly"}).Draw(t, "mutation"); m {
		case "drop":
			ev = slices.Delete(ev, i, i+1)
			want = Reliable
			if k == 0 {
				want = Resumable
			}
		case "duplicate":
			ev = slices.Insert(ev, j, ev[i])
			want = Unique
		case "swap":
			ev[i], ev[j] = ev[j], ev[i]
			want = Ordered
		case "retype":
			types := []watch.EventType{watch.Added, watch.Modified, watch.Deleted}
			types = slices.DeleteFunc(types, func(t watch.EventType) bool { return t == ev[i].Type })
			ev[i].Type = rapid.SampledFrom(types).Draw(t, "type")
			want = PerObject
		case "bookmarkAhead":
			ev = slices.Insert(ev, j, Event{Type: watch.Bookmark, RV: ev[j].RV})
			ev = ev[:j+1]
			want = Bookmarkable
		case "startEarly":
			// Claim the watch started before its first event's predecessor:
			// that event then skipped a matching change.
			ev = ev[j:]
			s.StartRV = 1
			want = Resumable
			if oracle(h, viewOf(s), 1)[0].RV == ev[0].RV {
				t.Skip("nothing skipped")
			}
		}
		s.Events = ev
		got := guarantees(Check(h, s))
		if !slices.Contains(got, want) {
			t.Fatalf("mutation not reported as %s; got %v\nstream %+v", want, got, s.Events)
		}
	})
}
