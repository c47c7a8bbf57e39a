package store

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"
)

// Get returns the object under (resource, key) as of rv, where 0 means the
// latest state. The object is shared and must not be modified.
//
// Get returns [ErrCompacted] if rv < [Store.CompactedRV], [ErrFutureRV] if
// rv > [Store.CurrentRV], and [ErrNotFound] if the key was not live at rv.
func (s *Store) Get(resource, key string, rv int64) (runtime.Object, error) {
	obj, _, err := s.GetVersion(resource, key, rv)
	return obj, err
}

// GetVersion is [Store.Get] with the version's [Encodings], as
// [Store.List] hands them out beside its items.
func (s *Store) GetVersion(resource, key string, rv int64) (runtime.Object, *Encodings, error) {
	ra, at, _, err := s.snapshotAt(resource, rv, "")
	if err != nil {
		return nil, nil, fmt.Errorf("get %s %q: %w", resource, key, err)
	}
	v, ok := ra.get(key)
	if !ok {
		return nil, nil, fmt.Errorf("get %s %q at rv %d: %w", resource, key, at, ErrNotFound)
	}
	return v.obj(), &v.enc, nil
}

// ListOptions selects one page of a [Store.List].
type ListOptions struct {
	// RV is the RV to read the state at; 0 means the latest. RV below
	// [Store.CompactedRV] gives [ErrCompacted], above [Store.CurrentRV]
	// gives [ErrFutureRV].
	RV int64
	// Prefix restricts the page to keys starting with it (byte-wise); ""
	// means every key of the resource.
	Prefix string
	// Start is the first key to consider (inclusive); "" or a key below
	// Prefix means from Prefix. To continue after a page, pass its last key
	// + "\x00", as kube-apiserver's continue tokens do.
	Start string
	// Limit caps the number of items; 0 (or negative) means no limit.
	Limit int
	// Filter selects the items to return; nil selects all. It runs without
	// any store lock held and must not modify the object.
	Filter func(runtime.Object) bool
	// Scan, when set, is a prefix no narrower than Prefix (it starts with
	// Prefix) that every key Filter selects has: only its keys are
	// visited. The result is the same as without it.
	Scan string
	// Name, when set, restricts the walk to the keys "<segment>/<Name>",
	// one per distinct first segment (namespace) of the keys under Prefix:
	// it costs O(log n) a segment. Every key Filter selects must be of
	// that form. The result is the same as without it.
	Name string
	// Index, when set, names a value of one of the resource's indexes
	// ([Options.Indexes]) that every object Filter selects has: only the
	// keys indexed under it are visited. The result is the same as
	// without it; an index the resource lacks is ignored.
	Index *IndexValue
	// IndexMore makes More of a page read through Index say whether the
	// index has more keys under Prefix after the last item, rather than
	// the resource: what kube-apiserver's watch cache answers for a page
	// it lists through an index (cacher.go GetList computes hasMore over
	// the index's items). Ignored without Index.
	IndexMore bool
	// Undecoded leaves each of the page's ListResult.Items nil (without a
	// Filter, which reads every object it selects): a caller that serves
	// the page from cached encodings reads ListResult.Encodings[i].Object()
	// (which may decode) only for an item it must encode.
	Undecoded bool
	// RVs asks for ListResult.RVs: what an Undecoded reader that needs
	// each item's resourceVersion (a watch's initial events, whose shared
	// encodings are named by it) would otherwise decode the item for.
	RVs bool
	// Reuse holds arrays the page may be written into instead of new
	// ones, each used when it has room for Limit items: a caller that
	// recycles them (fakeapiserver's page buffers) saves allocating a
	// page's three arrays. Only a read with a Limit and without Scan,
	// Name or Index uses them. The caller must not use Reuse's arrays
	// afterwards but through the result.
	Reuse ListResult
}

// ListResult is one page of a [Store.List].
type ListResult struct {
	// Items are the selected objects in byte order of key (each nil with
	// [ListOptions.Undecoded]). They are shared with the store: callers
	// must not modify them.
	Items []runtime.Object
	// Keys holds the key of each item (same index).
	Keys []string
	// Encodings holds each item's encoding cache (same index).
	Encodings []*Encodings
	// RVs holds, with [ListOptions.RVs], the RV of the write that
	// produced each item (same index), its metadata.resourceVersion;
	// nil otherwise.
	RVs []int64
	// RV is the RV the page was read at: ListOptions.RV when set, else the
	// CurrentRV at read time.
	RV int64
	// More is true if Limit was reached and at least one more key under
	// Prefix (matching Filter or not) follows the last item. With a Filter
	// a next page may thus turn out empty, as with the watch cache
	// (apiserver pkg/storage/cacher/cacher.go, hasMoreListItems).
	More bool
	// Remaining is, when More is true and Filter is nil, the number of keys
	// under Prefix after the last item; otherwise 0. Like kube-apiserver
	// (apiserver pkg/storage/continue.go, PrepareContinueToken) it is left
	// out with a filter, where it could not be exact.
	Remaining int64
}

// List reads one page of resource's keys as of opts.RV. It costs
// O(log n + k), where k is the number of keys visited (k = Limit without a
// Filter; with [ListOptions.Scan] or [ListOptions.Index] only the keys
// they name are visited, each at O(log n) with an index); Remaining
// costs O(log n). The errors are those of [Store.Get], except that no key
// is required to exist.
func (s *Store) List(resource string, opts ListOptions) (ListResult, error) {
	var name string
	if opts.Index != nil {
		name = opts.Index.Name
	}
	ra, at, ir, err := s.snapshotAt(resource, opts.RV, name)
	if err != nil {
		return ListResult{}, fmt.Errorf("list %s: %w", resource, err)
	}
	t := ra.state()
	if ir.ok {
		return listIndexed(t, ir, at, opts), nil
	}
	if opts.Name != "" {
		return listNamed(t, at, opts), nil
	}
	if opts.Scan != "" && strings.HasPrefix(opts.Scan, opts.Prefix) && opts.Scan != opts.Prefix {
		return listScan(t, at, opts), nil
	}
	res := ListResult{RV: at}
	// Keys under Prefix form one contiguous run starting at Prefix, so the
	// page is the run's part from max(Start, Prefix) on: ranks give its
	// length, and the walk stops after that many keys instead of comparing
	// each key with the prefix (which would read every key's bytes, a cache
	// miss per item in a big store).
	from := max(opts.Start, opts.Prefix)
	first, end := t.rank(from), prefixRunEnd(t, opts.Prefix)
	run := end - first
	if run <= 0 {
		return res, nil
	}
	if opts.Limit > 0 {
		n := min(opts.Limit, run)
		res.Items, res.Keys, res.Encodings = reuse(opts.Reuse.Items, n), reuse(opts.Reuse.Keys, n), reuse(opts.Reuse.Encodings, n)
	}
	// Without a filter the page is the run's first Limit keys: they are
	// fetched at once (state.ascendN), not one after the other.
	expect := 0
	if opts.Filter == nil && opts.Limit > 0 {
		expect = min(opts.Limit, run)
	}
	visited := 0
	for key, v := range t.ascendN(from, expect) {
		visited++
		if opts.Filter == nil || opts.Filter(v.obj()) {
			res.Items, res.Keys, res.Encodings = append(res.Items, v.item(opts)), append(res.Keys, key), append(res.Encodings, v.encodings())
			if opts.RVs {
				res.RVs = append(res.RVs, v.rv)
			}
			if len(res.Items) == opts.Limit {
				break
			}
		}
		if visited == run {
			break
		}
	}
	if opts.Limit > 0 && len(res.Items) == opts.Limit {
		after := run - visited // keys under Prefix after the last item
		res.More = after > 0
		if opts.Filter == nil {
			res.Remaining = int64(after)
		}
	}
	return res, nil
}

// reuse is s emptied if it has room for n elements, else a new slice
// with room for n.
func reuse[E any](s []E, n int) []E {
	if cap(s) >= n {
		return s[:0]
	}
	return make([]E, 0, n)
}

// snapshotAt returns what reading the state of resource at rv (0 =
// latest) takes (readAt), the RV it stands for and, if index names one of
// resource's indexes, that index's tree as of now, which serves every
// state from the compacted RV on (see indexTrees). Only this lookup holds
// the lock; what it returns is immutable.
func (s *Store) snapshotAt(resource string, rv int64, index string) (readAt, int64, indexRead, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	at, err := s.resolveRVLocked(rv)
	if err != nil {
		return readAt{}, 0, indexRead{}, err
	}
	r := s.resources[resource]
	var ir indexRead
	if index != "" {
		ir = r.indexRead(index)
		if !ir.ok && r == nil && s.indexes != nil {
			// Not written yet: an index of that name is empty.
			ir.ok = slices.ContainsFunc(s.indexes(resource), func(ix Index) bool { return ix.Name == index })
		}
	}
	return r.at(at), at, ir, nil
}

// listScan is [Store.List] visiting only the keys under opts.Scan, a
// prefix narrower than opts.Prefix.
func listScan(t state, at int64, opts ListOptions) ListResult {
	from := max(opts.Start, opts.Scan)
	first, end := t.rank(from), prefixRunEnd(t, opts.Scan)
	res := ListResult{RV: at}
	if end <= first {
		return res
	}
	visited := 0
	for key, v := range t.ascend(from) {
		if visited++; opts.Filter == nil || opts.Filter(v.obj()) {
			res.add(key, v, opts)
			if len(res.Items) == opts.Limit {
				break
			}
		}
		if visited == end-first {
			break
		}
	}
	res.finish(t, opts)
	return res
}

// listIndexed is [Store.List] visiting only the keys of index ir under
// opts.Index.Value that state t at RV at has.
func listIndexed(t state, ir indexRead, at int64, opts ListOptions) ListResult {
	res := ListResult{RV: at}
	for key, v := range indexKeys(ir.tree, ir.index, opts.Index.Value, max(opts.Start, opts.Prefix), t, at) {
		if !strings.HasPrefix(key, opts.Prefix) {
			break // past the keys under Prefix: they are contiguous
		}
		if opts.Filter == nil || opts.Filter(v.obj()) {
			res.add(key, v, opts)
			if len(res.Items) == opts.Limit {
				break
			}
		}
	}
	res.finish(t, opts)
	if opts.IndexMore && res.More {
		res.More = false
		for key := range indexKeys(ir.tree, ir.index, opts.Index.Value, res.Keys[len(res.Keys)-1]+"\x00", t, at) {
			res.More = strings.HasPrefix(key, opts.Prefix)
			break
		}
	}
	return res
}

// listNamed is [Store.List] visiting only the keys "<segment>/<opts.Name>"
// under opts.Prefix: from each segment's first key it looks that one key
// up, then skips past the segment.
func listNamed(t state, at int64, opts ListOptions) ListResult {
	res := ListResult{RV: at}
	from := max(opts.Start, opts.Prefix)
	for {
		var first string
		found := false
		for k := range t.ascend(from) {
			first, found = k, true
			break
		}
		if !found || !strings.HasPrefix(first, opts.Prefix) {
			break
		}
		slash := strings.IndexByte(first, '/')
		if slash < 0 {
			break // no segment: the keys are not "<segment>/<name>"
		}
		segment := first[:slash+1]
		if key := segment + opts.Name; key >= from {
			if v, ok := t.get(key); ok && (opts.Filter == nil || opts.Filter(v.obj())) {
				res.add(key, v, opts)
				if len(res.Items) == opts.Limit {
					break
				}
			}
		}
		next, ok := prefixEnd(segment)
		if !ok {
			break
		}
		from = next
	}
	res.finish(t, opts)
	return res
}

// add appends one item to the page.
func (res *ListResult) add(key string, v *version, opts ListOptions) {
	res.Items, res.Keys, res.Encodings = append(res.Items, v.item(opts)), append(res.Keys, key), append(res.Encodings, v.encodings())
	if opts.RVs {
		res.RVs = append(res.RVs, v.rv)
	}
}

// item is v's entry in a page's Items: its object, or nil with
// opts.Undecoded and no Filter.
func (v *version) item(opts ListOptions) runtime.Object {
	if opts.Undecoded && opts.Filter == nil {
		return nil
	}
	return v.obj()
}

// finish sets More and Remaining of a page read with Scan or Index as a
// walk of every key under opts.Prefix would: when Limit was reached, the
// keys under Prefix after the last item, whatever their objects.
func (res *ListResult) finish(t state, opts ListOptions) {
	if opts.Limit <= 0 || len(res.Items) < opts.Limit {
		return
	}
	last := res.Keys[len(res.Keys)-1]
	after := prefixRunEnd(t, opts.Prefix) - t.rank(last+"\x00")
	res.More = after > 0
	if opts.Filter == nil {
		res.Remaining = int64(after)
	}
}

// resolveRVLocked maps a requested read RV (0 = latest) to a readable RV.
// Negative RVs are below every compaction point and give ErrCompacted.
func (s *Store) resolveRVLocked(rv int64) (int64, error) {
	switch {
	case rv == 0:
		return s.currentRV, nil
	case rv < s.compactedRV:
		return 0, fmt.Errorf("rv %d, compacted rv %d: %w", rv, s.compactedRV, ErrCompacted)
	case rv > s.currentRV:
		return 0, fmt.Errorf("rv %d, current rv %d: %w", rv, s.currentRV, ErrFutureRV)
	}
	return rv, nil
}

// prefixRunEnd returns the rank just past the keys of t under prefix
// (all of t for ""), in O(log n).
func prefixRunEnd(t state, prefix string) int {
	if upper, ok := prefixEnd(prefix); ok {
		return t.rank(upper)
	}
	return t.len()
}

// prefixEnd returns the least string above every string with prefix p, or
// false if there is none (p is empty or all 0xff bytes).
func prefixEnd(p string) (string, bool) {
	for i := len(p) - 1; i >= 0; i-- {
		if p[i] != 0xff {
			return p[:i] + string([]byte{p[i] + 1}), true
		}
	}
	return "", false
}
