package store

import (
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
)

// Index is a secondary index of a resource's keys by values of their
// objects, kept with every state of the resource (MVCC, like the keys), so
// a [Store.List] at any readable RV can read it: see [ListOptions.Index].
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

// indexTrees are the indexes of one state of a resource, parallel to
// resource.indexes: entries "<value>\x00<key>".
type indexTrees []tree[struct{}]

// indexOf is the position of index name among r's indexes, -1 if absent.
func (r *resource) indexOf(name string) int {
	if r == nil {
		return -1
	}
	return slices.IndexFunc(r.indexes, func(ix Index) bool { return ix.Name == name })
}

// nextIndexes returns the indexes of r's state after ev, sharing every
// index ev does not change (most writes change no indexed value).
func (r *resource) nextIndexes(ev Event) indexTrees {
	if len(r.indexes) == 0 {
		return nil
	}
	cur := r.latestIndexes()
	next := indexTrees(nil)
	for i, ix := range r.indexes {
		var old, now []string
		if ev.PrevObject != nil {
			old = ix.Values(ev.PrevObject)
		}
		if ev.Type != watch.Deleted {
			now = ix.Values(ev.Object)
		}
		if slices.Equal(old, now) {
			continue
		}
		if next == nil {
			next = slices.Clone(cur)
			if next == nil {
				next = make(indexTrees, len(r.indexes))
			}
		}
		t := next[i]
		for _, v := range old {
			t, _ = t.remove(v + indexSep + ev.Key)
		}
		for _, v := range now {
			t = t.put(v+indexSep+ev.Key, struct{}{})
		}
		next[i] = t
	}
	if next == nil {
		return cur
	}
	return next
}

// latestIndexes are the indexes of r's current state.
func (r *resource) latestIndexes() indexTrees {
	if r == nil || len(r.snapshots) == 0 {
		return nil
	}
	return r.snapshots[len(r.snapshots)-1].idx
}

// indexKeys yields the keys of t's entries for value, from the first key
// >= from, in key order.
func indexKeys(t tree[struct{}], value, from string) func(yield func(string) bool) {
	pfx := value + indexSep
	return func(yield func(string) bool) {
		for e := range t.ascend(pfx + from) {
			if !strings.HasPrefix(e, pfx) || !yield(e[len(pfx):]) {
				return
			}
		}
	}
}
