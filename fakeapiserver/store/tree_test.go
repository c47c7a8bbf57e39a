package store

import (
	"fmt"
	"maps"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"pgregory.net/rapid"
)

// entry is a key/value pair of a tree, for comparisons.
type entry struct {
	Key string
	Val int
}

// treeKeys are few and share prefixes, so that writes collide and ranks and
// ranges fall between, on and around keys.
var treeKeys = []string{"", "a", "a\x00", "a/b", "a/c", "ab", "b", "b/a", "b/b", "c", "\xff"}

// treeProbes are the keys used for rank and range queries: every tree key plus
// keys that are never stored.
var treeProbes = append(slices.Clone(treeKeys), "0", "a/", "a/bb", "aa", "b/c", "zz", "\xff\xff")

// entries returns every entry of t in order.
func entries(t tree[int]) []entry {
	var out []entry
	for k, v := range t.ascend("") {
		out = append(out, entry{k, v})
	}
	return out
}

// modelEntries returns the model's entries with key >= from, in order, at
// most limit of them (0 = all).
func modelEntries(m map[string]int, from string, limit int) []entry {
	var out []entry
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if k < from {
			continue
		}
		if limit > 0 && len(out) == limit {
			break
		}
		out = append(out, entry{k, m[k]})
	}
	return out
}

// checkShape verifies the treap invariants of n: BST order within (lo, hi),
// heap order on (prio, key), stored priorities and subtree sizes.
func checkShape(t *rapid.T, n *node[int], lo, hi *string) {
	if n == nil {
		return
	}
	if (lo != nil && n.key <= *lo) || (hi != nil && n.key >= *hi) {
		t.Fatalf("key %q out of order", n.key)
	}
	if n.prio != priority(n.key) {
		t.Fatalf("key %q: prio %d, want %d", n.key, n.prio, priority(n.key))
	}
	if n.len() != 1+n.left.len()+n.right.len() {
		t.Fatalf("key %q: size %d, want %d", n.key, n.len(), 1+n.left.len()+n.right.len())
	}
	for _, c := range []*node[int]{n.left, n.right} {
		if c != nil && outranks(c.prio, c.key, n) {
			t.Fatalf("child %q outranks parent %q", c.key, n.key)
		}
	}
	checkShape(t, n.left, lo, &n.key)
	checkShape(t, n.right, &n.key, hi)
}

// treeVersion is a tree and the model of its content at one point in history.
type treeVersion struct {
	tree  tree[int]
	model map[string]int
}

func TestTreeMatchesSortedMap(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var history []treeVersion
		cur := treeVersion{model: map[string]int{}}
		steps := rapid.IntRange(0, 60).Draw(t, "steps")
		for i := range steps {
			key := rapid.SampledFrom(treeKeys).Draw(t, "key")
			next := treeVersion{model: maps.Clone(cur.model)}
			if rapid.Bool().Draw(t, "put") {
				next.tree = cur.tree.put(key, i)
				next.model[key] = i
			} else {
				var ok bool
				next.tree, ok = cur.tree.remove(key)
				_, want := cur.model[key]
				if ok != want {
					t.Fatalf("remove(%q) = %v, want %v", key, ok, want)
				}
				delete(next.model, key)
			}
			history = append(history, cur)
			cur = next
			checkTree(t, cur)
		}
		// Persistence: every earlier root still holds what it held.
		for i, v := range history {
			if diff := cmp.Diff(modelEntries(v.model, "", 0), entries(v.tree)); diff != "" {
				t.Fatalf("version %d changed after later writes (-want +got):\n%s", i, diff)
			}
		}
	})
}

// checkTree compares v.tree with its model: shape, size, get, rank and
// ranged, limited scans.
func checkTree(t *rapid.T, v treeVersion) {
	checkShape(t, v.tree.root, nil, nil)
	if v.tree.len() != len(v.model) {
		t.Fatalf("len() = %d, want %d", v.tree.len(), len(v.model))
	}
	sorted := slices.Sorted(maps.Keys(v.model))
	for _, k := range treeProbes {
		got, ok := v.tree.get(k)
		want, wantOK := v.model[k]
		if got != want || ok != wantOK {
			t.Fatalf("get(%q) = %d, %v, want %d, %v", k, got, ok, want, wantOK)
		}
		wantRank, _ := slices.BinarySearch(sorted, k)
		if r := v.tree.rank(k); r != wantRank {
			t.Fatalf("rank(%q) = %d, want %d", k, r, wantRank)
		}
	}
	from := rapid.SampledFrom(treeProbes).Draw(t, "from")
	limit := rapid.IntRange(0, 4).Draw(t, "limit")
	var got []entry
	for k, val := range v.tree.ascend(from) {
		if limit > 0 && len(got) == limit {
			break
		}
		got = append(got, entry{k, val})
	}
	if diff := cmp.Diff(modelEntries(v.model, from, limit), got); diff != "" {
		t.Fatalf("ascend(%q) limit %d mismatch (-want +got):\n%s", from, limit, diff)
	}
	// ascendN yields what ascend does, whatever it expects to be taken and
	// wherever its reader stops (before, at or past n).
	n := rapid.IntRange(0, len(v.model)+2).Draw(t, "n")
	got = nil
	for k, val := range v.tree.ascendN(from, n) {
		if limit > 0 && len(got) == limit {
			break
		}
		got = append(got, entry{k, val})
	}
	if diff := cmp.Diff(modelEntries(v.model, from, limit), got); diff != "" {
		t.Fatalf("ascendN(%q, %d) limit %d mismatch (-want +got):\n%s", from, n, limit, diff)
	}
}

// TestTreeShapeIsAFunctionOfKeys checks that inserting the same keys in any
// order builds the same tree, so shapes (and benchmark costs) are reproducible.
func TestTreeShapeIsAFunctionOfKeys(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		keys := rapid.SliceOfDistinct(rapid.StringN(0, 3, 3), rapid.ID[string]).Draw(t, "keys")
		perm := rapid.Permutation(keys).Draw(t, "perm")
		var a, b tree[int]
		for _, k := range keys {
			a = a.put(k, 0)
		}
		for _, k := range perm {
			b = b.put(k, 0)
		}
		if diff := cmp.Diff(shape(a.root), shape(b.root)); diff != "" {
			t.Fatalf("shape depends on insertion order (-keys +perm):\n%s", diff)
		}
	})
}

// shape renders n as nested parentheses of keys.
func shape(n *node[int]) string {
	if n == nil {
		return "."
	}
	return fmt.Sprintf("(%s %q %s)", shape(n.left), n.key, shape(n.right))
}

func TestPrefixEnd(t *testing.T) {
	tests := []struct {
		prefix string
		want   string
		wantOK bool
	}{
		{"", "", false},
		{"a", "b", true},
		{"ns/", "ns0", true},
		{"a\xff", "b", true},
		{"a\x7f", "a\x80", true},
		{"\xff\xff", "", false},
	}
	for _, tt := range tests {
		got, ok := prefixEnd(tt.prefix)
		if got != tt.want || ok != tt.wantOK {
			t.Errorf("prefixEnd(%q) = %q, %v, want %q, %v", tt.prefix, got, ok, tt.want, tt.wantOK)
		}
	}
}

// TestTreeEditsMatchPersistentPuts checks working-tree edits against the
// persistent operations: a working tree edited in place between freezes
// holds what its model holds (with the treap's shape, sizes and ranks),
// and a tree frozen earlier (a checkpoint) never changes, however the
// edits after it change the nodes they made themselves.
func TestTreeEditsMatchPersistentPuts(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var frozen []treeVersion
		work := treeVersion{model: map[string]int{}}
		steps := rapid.IntRange(0, 80).Draw(t, "steps")
		for i := range steps {
			switch key := rapid.SampledFrom(treeKeys).Draw(t, "key"); rapid.IntRange(0, 4).Draw(t, "op") {
			case 0:
				work.tree = work.tree.freeze()
				frozen = append(frozen, treeVersion{tree: work.tree, model: maps.Clone(work.model)})
			case 1, 2:
				work.tree = work.tree.editPut(key, i)
				work.model[key] = i
			default:
				var ok bool
				work.tree, ok = work.tree.editRemove(key)
				_, want := work.model[key]
				if ok != want {
					t.Fatalf("editRemove(%q) = %v, want %v", key, ok, want)
				}
				delete(work.model, key)
			}
			checkTree(t, work)
			for j, v := range frozen {
				if diff := cmp.Diff(modelEntries(v.model, "", 0), entries(v.tree)); diff != "" {
					t.Fatalf("frozen tree %d changed by an edit (-want +got):\n%s", j, diff)
				}
				checkFrozen(t, v.tree.root)
			}
		}
	})
}

// checkFrozen fails if a node of a frozen tree is still transient.
func checkFrozen(t *rapid.T, n *node[int]) {
	if n == nil {
		return
	}
	if n.transient() {
		t.Fatalf("frozen tree has transient node %q", n.key)
	}
	checkFrozen(t, n.left)
	checkFrozen(t, n.right)
}

// TestAscendNAcrossChunks checks ascendN on a tree larger than a fetch
// chunk (fetchChunk): from every kind of start, expecting fewer, as many
// and more entries than a chunk or than are left, read to the end or
// stopped, it yields what ascend does.
func TestAscendNAcrossChunks(t *testing.T) {
	var tr tree[int]
	const size = 3*fetchChunk + 17
	for i := range size {
		tr = tr.put(fmt.Sprintf("k%04d", 2*i), i)
	}
	for _, from := range []string{"", "k0000", "k0001", "k0255", "k0256", "k0500", fmt.Sprintf("k%04d", 2*size-2), "z"} {
		var want []entry
		for k, v := range tr.ascend(from) {
			want = append(want, entry{k, v})
		}
		for _, n := range []int{2, fetchChunk - 1, fetchChunk, fetchChunk + 1, 2*fetchChunk + 5, size, size + 9} {
			for _, stop := range []int{1, fetchChunk, fetchChunk + 1, n, len(want)} {
				var got []entry
				for k, v := range tr.ascendN(from, n) {
					got = append(got, entry{k, v})
					if len(got) == stop {
						break
					}
				}
				w := want[:min(stop, len(want))]
				if diff := cmp.Diff(w, got, cmpopts.EquateEmpty()); diff != "" {
					t.Fatalf("ascendN(%q, %d) stopped at %d (-ascend +ascendN):\n%s", from, n, stop, diff)
				}
			}
		}
	}
}
