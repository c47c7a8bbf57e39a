package store

import (
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
)

// Index is a secondary index of a resource's keys by values of their
// objects that serves every retained state of the resource (MVCC, like
// the keys), so a [Store.List] at any readable RV can read it: see
// [ListOptions.Index].
type Index struct {
	// Name names the index in [IndexValue].
	Name string
	// Values returns the index values of obj, none to leave it out. It
	// must be a pure function of obj, must not modify it, and its values
	// must not contain "\x00". It runs under the store's lock.
	Values func(obj runtime.Object) []string
}

// IndexValue asks [Store.List] to visit only the keys whose objects have
// Value in index Name.
type IndexValue struct {
	Name, Value string
}

// indexSep separates an index value from the key in an index entry: no
// value contains it, so the entries of one value are contiguous and in key
// order.
const indexSep = "\x00"

// indexTrees are a resource's indexes, parallel to resource.indexes:
// entries "<value>\x00<key>". One set of trees serves every retained
// state: it holds each entry that any state from the compacted RV on has
// (a superset of each state's index), with the RVs during which it
// stands ([indexSpan]), so a write to a big resource path-copies only the
// latest trees, which the next write makes garbage, rather than keeping a
// copy of every index with every state until compaction.
type indexTrees []tree[indexSpan]

// indexSpan is when an index entry's key last had its value: from the
// write at from (inclusive) until the write at to (exclusive; 0 while it
// still has it). The key may also have had the value in a state before
// from, between earlier writes: only a state before from needs to ask
// the index's Values.
type indexSpan struct {
	from, to int64
}

// indexDrop is an index entry whose span ended at rv: compaction to rv or
// later removes it unless a later write gave the key the value again.
type indexDrop struct {
	index int
	entry string
	rv    int64
}

// indexOf is the position of index name among r's indexes, -1 if absent.
func (r *resource) indexOf(name string) int {
	if r == nil {
		return -1
	}
	return slices.IndexFunc(r.indexes, func(ix Index) bool { return ix.Name == name })
}

// indexRead is one index of a resource as a read sees it.
type indexRead struct {
	tree  tree[indexSpan]
	index Index
	// ok says the resource has the index.
	ok bool
}

// indexRead returns r's index name as of now. The caller holds Store.mu.
func (r *resource) indexRead(name string) indexRead {
	i := r.indexOf(name)
	if i < 0 {
		return indexRead{}
	}
	ir := indexRead{index: r.indexes[i], ok: true}
	if i < len(r.idx) {
		ir.tree = r.idx[i]
	}
	return ir
}

// indexWrite updates r's indexes for ev: an entry ev gives its key starts
// a span at ev.RV, one it takes away ends its span there and waits in
// r.drops for compaction. Most writes change no indexed value and copy
// nothing.
func (r *resource) indexWrite(ev Event) {
	for i, ix := range r.indexes {
		var old, now []string
		if ev.Prev != nil {
			old = ix.Values(ev.PrevObject())
		}
		if ev.Type != watch.Deleted {
			now = ix.Values(ev.Object())
		}
		if slices.Equal(old, now) {
			continue
		}
		if r.idx == nil {
			r.idx = make(indexTrees, len(r.indexes))
		}
		t := r.idx[i]
		for _, v := range old {
			if slices.Contains(now, v) {
				continue
			}
			e := v + indexSep + ev.Key
			if sp, ok := t.get(e); ok {
				t = t.put(e, indexSpan{from: sp.from, to: ev.RV})
				r.drops = append(r.drops, indexDrop{index: i, entry: e, rv: ev.RV})
			}
		}
		for _, v := range now {
			if slices.Contains(old, v) {
				continue
			}
			t = t.put(v+indexSep+ev.Key, indexSpan{from: ev.RV})
		}
		r.idx[i] = t
	}
}

// indexCompact removes the index entries no state at rv or later has:
// those whose span ended at or before rv and did not start again.
func (r *resource) indexCompact(rv int64) {
	n := 0
	for n < len(r.drops) && r.drops[n].rv <= rv {
		d := r.drops[n]
		if sp, ok := r.idx[d.index].get(d.entry); ok && sp.to != 0 && sp.to <= rv {
			r.idx[d.index], _ = r.idx[d.index].remove(d.entry)
		}
		n++
	}
	if n > 0 {
		r.drops = slices.Clone(r.drops[n:])
	}
}

// indexKeys yields the keys of t's entries for value that the state st
// at RV at has, with their versions, from the first key >= from,
// in key order. ix decides the entries whose span does not cover at.
func indexKeys(t tree[indexSpan], ix Index, value, from string, st state, at int64) func(yield func(string, *version) bool) {
	pfx := value + indexSep
	return func(yield func(string, *version) bool) {
		for e, sp := range t.ascend(pfx + from) {
			if !strings.HasPrefix(e, pfx) {
				return
			}
			if sp.to != 0 && sp.to <= at {
				continue // its span ended at or before at, and it did not start again
			}
			key := e[len(pfx):]
			v, ok := st.get(key)
			if !ok {
				continue
			}
			if at < sp.from && !slices.Contains(ix.Values(v.obj()), value) {
				continue // before its span: only the object can tell
			}
			if !yield(key, v) {
				return
			}
		}
	}
}
