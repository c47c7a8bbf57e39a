package store

import (
	"cmp"
	"iter"
	"math"
	"slices"
	"sync/atomic"
)

// readAt is what a read of one resource at an RV takes under the lock
// (resource.at): the newest checkpoint at or below the RV and the writes
// to the resource after it up to the RV, all immutable.
type readAt struct {
	base     snapshot
	events   []Event
	versions []*version
	// assembled is the resource's memo of the last state assembled (see
	// state), nil for a resource never written.
	assembled *atomic.Pointer[assembledState]
}

// assembledState is a state and what it was assembled from: the
// checkpoint's tree (by its root) and the writes laid over it, named by
// their number and the RV of the last (a resource's writes after a
// checkpoint up to an RV are always the same writes).
type assembledState struct {
	root   *node[*version]
	writes int
	lastRV int64
	st     state
}

// of reports whether a is the state ra stands for.
func (a *assembledState) of(ra readAt) bool {
	return a.root == ra.base.tree.root && a.writes == len(ra.events) && a.lastRV == ra.events[len(ra.events)-1].RV
}

// get returns the version stored under key in the state ra stands for:
// the last write to key since the checkpoint, if any, without assembling
// the state.
func (ra readAt) get(key string) (*version, bool) {
	for i := len(ra.events) - 1; i >= 0; i-- {
		if ra.events[i].Key == key {
			return ra.versions[i], ra.versions[i] != nil
		}
	}
	return ra.base.tree.get(key)
}

// state is the state of a resource at one RV: a checkpoint's tree with the
// few writes since (fewer than a checkpoint interval) laid over it. It
// answers what a tree does (get, len, rank, ascend) at the tree's cost
// plus O(len(over)).
type state struct {
	t tree[*version]
	// over holds the last write to each key written since the
	// checkpoint, in key order.
	over []overlay
}

// overlay is the last write to a key since a state's checkpoint.
type overlay struct {
	key string
	// v is the version written, nil if the key was deleted.
	v *version
	// inTree says the checkpoint's tree has the key.
	inTree bool
}

// delta is how the overlay changes the number of keys: +1 for a key
// the tree lacks, -1 for a key it deletes from the tree, else 0.
func (o overlay) delta() int {
	switch {
	case o.v != nil && !o.inTree:
		return 1
	case o.v == nil && o.inTree:
		return -1
	}
	return 0
}

// state is the state ra stands for. It reads only immutable data, so it
// runs without the lock. Assembling a state with writes laid over looks
// each written key up in the tree (a cache miss or two per level of each
// lookup in a big tree), so the last one assembled is kept with the
// resource (readAt.assembled) and reused by the reads at the same state:
// the pages of one paged LIST, every read between two writes. A state is
// immutable, so its readers may share it.
func (ra readAt) state() state {
	if len(ra.events) == 0 {
		return state{t: ra.base.tree}
	}
	if ra.assembled != nil {
		if a := ra.assembled.Load(); a != nil && a.of(ra) {
			return a.st
		}
	}
	vw := ra.assemble()
	if ra.assembled != nil {
		ra.assembled.Store(&assembledState{root: ra.base.tree.root, writes: len(ra.events), lastRV: ra.events[len(ra.events)-1].RV, st: vw})
	}
	return vw
}

// assemble builds the state ra stands for (see state).
func (ra readAt) assemble() state {
	vw := state{t: ra.base.tree}
	vw.over = make([]overlay, 0, len(ra.events))
	for i, ev := range ra.events {
		vw.over = append(vw.over, overlay{key: ev.Key, v: ra.versions[i]})
	}
	// Stable, so the last write to a key ends its run of equal keys.
	slices.SortStableFunc(vw.over, func(a, b overlay) int { return cmp.Compare(a.key, b.key) })
	n := 0
	for i, o := range vw.over {
		if i+1 < len(vw.over) && vw.over[i+1].key == o.key {
			continue
		}
		_, o.inTree = vw.t.get(o.key)
		vw.over[n] = o
		n++
	}
	vw.over = vw.over[:n]
	return vw
}

// find returns the position of key's overlay, and whether there is one.
func (vw state) find(key string) (int, bool) {
	return slices.BinarySearchFunc(vw.over, key, func(o overlay, k string) int { return cmp.Compare(o.key, k) })
}

// get returns the version stored under key.
func (vw state) get(key string) (*version, bool) {
	if i, ok := vw.find(key); ok {
		return vw.over[i].v, vw.over[i].v != nil
	}
	return vw.t.get(key)
}

// len returns the number of keys.
func (vw state) len() int {
	n := vw.t.len()
	for _, o := range vw.over {
		n += o.delta()
	}
	return n
}

// rank returns the number of keys strictly below key.
func (vw state) rank(key string) int {
	r := vw.t.rank(key)
	for _, o := range vw.over {
		if o.key >= key {
			break
		}
		r += o.delta()
	}
	return r
}

// ascend yields the entries with key >= from in key order: the tree's,
// merged with the overlay, which wins on a key both have.
func (vw state) ascend(from string) iter.Seq2[string, *version] {
	return vw.ascendN(from, 0)
}

// ascendN is ascend for a reader that expects to take about n entries:
// the tree's part fetches the entries it may need for them at once
// (tree.ascendN; with every overlay entry shadowing one, n plus the
// overlay's). n < 2 is ascend.
func (vw state) ascendN(from string, n int) iter.Seq2[string, *version] {
	if n >= 2 {
		n += len(vw.over)
	}
	if len(vw.over) == 0 {
		return vw.t.ascendN(from, n)
	}
	return func(yield func(string, *version) bool) {
		i, _ := vw.find(from)
		over := vw.over[i:]
		// flush yields the overlay's keys below key (all if last), and
		// reports whether to go on.
		flush := func(key string, last bool) bool {
			for len(over) > 0 && (last || over[0].key < key) {
				o := over[0]
				over = over[1:]
				if o.v != nil && !yield(o.key, o.v) {
					return false
				}
			}
			return true
		}
		// pos is the rank of the tree's next key, and untilOver how many of
		// the tree's keys from there sort before the next overlay: those
		// are yielded without comparing keys (a comparison reads the
		// key's bytes, one more cache miss per item of a big page).
		pos := vw.t.rank(from)
		untilOver := func() int {
			if len(over) == 0 {
				return math.MaxInt
			}
			return vw.t.rank(over[0].key) - pos
		}
		free := untilOver()
		for key, v := range vw.t.ascendN(from, n) {
			pos++
			if free > 0 {
				free--
				if !yield(key, v) {
					return
				}
				continue
			}
			if !flush(key, false) {
				return
			}
			if len(over) > 0 && over[0].key == key {
				v = over[0].v
				over = over[1:]
			}
			free = untilOver()
			if v == nil {
				continue // deleted since the checkpoint
			}
			if !yield(key, v) {
				return
			}
		}
		flush("", true)
	}
}
