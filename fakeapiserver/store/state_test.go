package store

import (
	"maps"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

// stateEntry is a key and the RV of the version a state holds under it,
// for comparisons.
type stateEntry struct {
	Key string
	RV  int64
}

// TestRapidStateMatchesModel checks a state (a checkpoint tree with the
// writes since laid over it) against a map built by applying the same
// writes: get, len, rank and ascend from every probe, including an ascend
// stopped early. The store's rapid machine covers the state only through
// whole reads, where an off-by-one in ascend's rank arithmetic needed
// thousands of checks to show; here every draw is one such read.
func TestRapidStateMatchesModel(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		model := map[string]int64{}
		var base tree[*version]
		for i, key := range rapid.SliceOfDistinct(rapid.SampledFrom(treeKeys), rapid.ID).Draw(t, "treeKeys") {
			rv := int64(i + 1)
			base = base.put(key, &version{rv: rv})
			model[key] = rv
		}
		ra := readAt{base: snapshot{tree: base}}
		writes := rapid.IntRange(0, 12).Draw(t, "writes")
		for i := range writes {
			key := rapid.SampledFrom(treeKeys).Draw(t, "key")
			rv := int64(100 + i)
			var v *version
			if rapid.Bool().Draw(t, "delete") {
				delete(model, key)
			} else {
				v = &version{rv: rv}
				model[key] = rv
			}
			ra.events = append(ra.events, Event{Key: key, RV: rv})
			ra.versions = append(ra.versions, v)
		}
		vw := ra.state()

		want := slices.Sorted(maps.Keys(model))
		if got := vw.len(); got != len(want) {
			t.Fatalf("len() = %d, want %d", got, len(want))
		}
		for _, probe := range treeProbes {
			v, ok := vw.get(probe)
			rv, wantOK := model[probe]
			if ok != wantOK || (ok && v.rv != rv) {
				t.Fatalf("get(%q) = %v, %v; want rv %d, %v", probe, v, ok, rv, wantOK)
			}
			wantRank, _ := slices.BinarySearch(want, probe)
			if got := vw.rank(probe); got != wantRank {
				t.Fatalf("rank(%q) = %d, want %d", probe, got, wantRank)
			}
			var wantFrom []stateEntry
			for _, k := range want[wantRank:] {
				wantFrom = append(wantFrom, stateEntry{k, model[k]})
			}
			stop := rapid.IntRange(1, len(wantFrom)+1).Draw(t, "stop")
			// ascend is ascendN expecting nothing; a reader may take
			// fewer entries than it said, or more.
			expect := rapid.IntRange(0, len(wantFrom)+2).Draw(t, "expect")
			var got []stateEntry
			for k, v := range vw.ascendN(probe, expect) {
				if v == nil {
					t.Fatalf("ascendN(%q, %d) yielded %q with a nil version", probe, expect, k)
				}
				got = append(got, stateEntry{k, v.rv})
				if len(got) == stop {
					break
				}
			}
			if stop < len(wantFrom) {
				wantFrom = wantFrom[:stop]
			}
			if diff := cmp.Diff(wantFrom, got); diff != "" {
				t.Fatalf("ascendN(%q, %d) stopped after %d (-want +got):\n%s", probe, expect, stop, diff)
			}
		}
	})
}
