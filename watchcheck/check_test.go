package watchcheck

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/watch"
)

// handHistory: a created at 2, b created at 3, a modified at 4 (leaves
// app=x), b modified at 5, a modified at 6 (back into app=x), b deleted
// at 7, c created at 8 (not in app=x).
var handHistory = History{
	{RV: 2, Key: "ns/a", UID: "ua", Labels: map[string]string{"app": "x"}},
	{RV: 3, Key: "ns/b", UID: "ub", Labels: map[string]string{"app": "x"}},
	{RV: 4, Key: "ns/a", UID: "ua", Labels: map[string]string{"app": "y"}},
	{RV: 5, Key: "ns/b", UID: "ub", Labels: map[string]string{"app": "x"}},
	{RV: 6, Key: "ns/a", UID: "ua", Labels: map[string]string{"app": "x"}},
	{RV: 7, Key: "ns/b", UID: "ub", Deleted: true, Labels: map[string]string{"app": "x"}},
	{RV: 8, Key: "ns/c", UID: "uc", Labels: map[string]string{"app": "z"}},
}

func ev(typ watch.EventType, key string, rv int64) Event {
	return Event{Type: typ, Key: "ns/" + key, UID: "u" + key, RV: rv}
}

func bookmark(rv int64) Event { return Event{Type: watch.Bookmark, RV: rv} }

var (
	a2, b3 = ev(watch.Added, "a", 2), ev(watch.Added, "b", 3)
	a4, b5 = ev(watch.Modified, "a", 4), ev(watch.Modified, "b", 5)
	a6, b7 = ev(watch.Modified, "a", 6), ev(watch.Deleted, "b", 7)
	c8     = ev(watch.Added, "c", 8)
)

func guarantees(err error) []Guarantee {
	var vs Violations
	if errors.As(err, &vs) {
		return vs.Guarantees()
	}
	return nil
}

// TestCheckHandMade: a correct stream of each shape passes, and each
// hand-made violation is reported under the one guarantee it breaks.
func TestCheckHandMade(t *testing.T) {
	if err := handHistory.Validate(); err != nil {
		t.Fatal(err)
	}
	sel := labels.SelectorFromSet(labels.Set{"app": "x"})
	tests := []struct {
		name   string
		stream Stream
		want   []Guarantee
	}{
		{"all from 1", Stream{StartRV: 1, Events: []Event{a2, b3, a4, bookmark(4), b5, a6, b7, c8, bookmark(9)}}, nil},
		{"prefix ending in a 410", Stream{StartRV: 1, Events: []Event{a2, b3, {Type: watch.Error, Code: 410}}}, nil},
		{"resumed from 4", Stream{StartRV: 4, Events: []Event{b5, a6}}, nil},
		{"rv 0 anchored at first event", Stream{Events: []Event{b5, a6, b7}}, nil},
		{"selector transitions", Stream{StartRV: 1, Selector: sel, Events: []Event{
			a2, b3, ev(watch.Deleted, "a", 4), b5, ev(watch.Added, "a", 6), b7, bookmark(8)}}, nil},
		{"initial events at 5", Stream{InitialEvents: true, Events: []Event{
			ev(watch.Added, "a", 4), ev(watch.Added, "b", 5), {Type: watch.Bookmark, RV: 5, InitialEventsEnd: true}, a6, b7}}, nil},
		{"initial events cut", Stream{InitialEvents: true, Events: []Event{ev(watch.Added, "a", 4)}}, nil},
		// A watch-list answered with an ERROR at once (a 504 "Too large
		// resource version", a 410), or after part of its snapshot.
		{"watch-list ended by an ERROR", Stream{StartRV: 7, InitialEvents: true, Events: []Event{{Type: watch.Error, Code: 504}}}, nil},
		{"initial events ended by an ERROR", Stream{InitialEvents: true, Events: []Event{ev(watch.Added, "a", 4), {Type: watch.Error, Code: 410}}}, nil},
		{"initial events without end bookmark", Stream{InitialEvents: true, Events: []Event{
			ev(watch.Added, "a", 4), ev(watch.Added, "b", 5), a6, b7}}, nil},
		{"initial events without end bookmark, state at 7", Stream{InitialEvents: true, Events: []Event{
			ev(watch.Added, "a", 6), c8}}, nil},
		{"other namespace sees nothing", Stream{StartRV: 1, Namespace: "other", Events: []Event{bookmark(8)}}, nil},

		{"Ordered: rv goes back", Stream{StartRV: 1, Events: []Event{a2, b3, a4, b3}}, []Guarantee{Unique}},
		{"Ordered: swapped", Stream{StartRV: 1, Events: []Event{a2, a4, b3}}, []Guarantee{Reliable, Ordered}},
		{"Ordered: bookmark back", Stream{StartRV: 1, Events: []Event{a2, b3, bookmark(2)}}, []Guarantee{Ordered}},
		{"Ordered: event after ERROR", Stream{StartRV: 1, Events: []Event{a2, {Type: watch.Error, Code: 410}, b3}}, []Guarantee{Ordered}},
		{"Unique: duplicate", Stream{StartRV: 1, Events: []Event{a2, a2, b3}}, []Guarantee{Unique}},
		{"Unique: initial duplicate", Stream{InitialEvents: true, Events: []Event{
			ev(watch.Added, "a", 4), ev(watch.Added, "a", 4), ev(watch.Added, "b", 5), {Type: watch.Bookmark, RV: 5, InitialEventsEnd: true}}}, []Guarantee{Unique}},
		{"Atomic: wrong object at rv", Stream{StartRV: 1, Events: []Event{a2, ev(watch.Added, "c", 3)}}, []Guarantee{Atomic}},
		{"Atomic: wrong uid", Stream{StartRV: 1, Events: []Event{a2, {Type: watch.Added, Key: "ns/b", UID: "other", RV: 3}}}, []Guarantee{Atomic}},
		{"Atomic: rv never written", Stream{StartRV: 8, Events: []Event{ev(watch.Modified, "a", 9)}}, []Guarantee{Atomic}},
		{"Reliable: gap", Stream{StartRV: 1, Events: []Event{a2, b3, b5}}, []Guarantee{Reliable}},
		{"Reliable: unselected change", Stream{StartRV: 1, Selector: sel, Events: []Event{a2, b3, ev(watch.Deleted, "a", 4), b5, ev(watch.Added, "a", 6), b7, c8}}, []Guarantee{Reliable}},
		{"Resumable: starts late", Stream{StartRV: 3, Events: []Event{b5, a6}}, []Guarantee{Resumable}},
		{"Resumable: replays the start rv", Stream{StartRV: 3, Events: []Event{b3, a4}}, []Guarantee{Resumable}},
		{"Bookmarkable: bookmark ahead", Stream{StartRV: 1, Events: []Event{a2, b3, bookmark(5)}}, []Guarantee{Bookmarkable}},
		{"Bookmarkable and Ordered: event under a bookmark", Stream{StartRV: 1, Events: []Event{a2, b3, bookmark(5), b5}}, []Guarantee{Bookmarkable, Ordered}},
		{"Bookmarkable: initial state wrong", Stream{InitialEvents: true, Events: []Event{
			ev(watch.Added, "a", 4), {Type: watch.Bookmark, RV: 5, InitialEventsEnd: true}, a6}}, []Guarantee{Bookmarkable}},
		{"Bookmarkable: initial end before requested rv", Stream{StartRV: 6, InitialEvents: true, Events: []Event{
			ev(watch.Added, "a", 4), ev(watch.Added, "b", 5), {Type: watch.Bookmark, RV: 5, InitialEventsEnd: true}}}, []Guarantee{Bookmarkable}},
		{"PerObject: MODIFIED for an object entering the selection", Stream{StartRV: 1, Selector: sel, Events: []Event{
			a2, b3, ev(watch.Deleted, "a", 4), b5, a6}}, []Guarantee{PerObject}},
		{"undated initial events then a gap", Stream{InitialEvents: true, Events: []Event{
			ev(watch.Added, "a", 4), ev(watch.Added, "b", 5), b7}}, []Guarantee{Resumable}},
		{"PerObject: initial MODIFIED", Stream{InitialEvents: true, Events: []Event{
			ev(watch.Modified, "a", 4), ev(watch.Added, "b", 5), {Type: watch.Bookmark, RV: 5, InitialEventsEnd: true}}}, []Guarantee{PerObject, Bookmarkable}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.stream.Name = tt.name
			err := Check(handHistory, tt.stream)
			if diff := cmp.Diff(tt.want, guarantees(err)); diff != "" {
				t.Errorf("guarantees broken (-want +got):\n%s\nreport: %v", diff, err)
			}
			if err != nil && !strings.Contains(err.Error(), tt.name) {
				t.Errorf("report does not name the stream: %v", err)
			}
		})
	}
}

func TestHistoryValidate(t *testing.T) {
	for name, h := range map[string]History{
		"rv back":       {{RV: 3, Key: "a", UID: "1"}, {RV: 2, Key: "b", UID: "2"}},
		"delete absent": {{RV: 3, Key: "a", UID: "1", Deleted: true}},
		"uid mid-life":  {{RV: 3, Key: "a", UID: "1"}, {RV: 4, Key: "a", UID: "2"}},
	} {
		if h.Validate() == nil {
			t.Errorf("%s: Validate() = nil, want an error", name)
		}
	}
}
