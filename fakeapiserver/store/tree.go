package store

import "iter"

// FNV-64a parameters (hash/fnv), inlined so computing a priority does not
// allocate a hash.Hash64.
const (
	fnvOffset64 = 14695981039346656037
	fnvPrime64  = 1099511628211
)

// tree is a persistent (path-copying) treap ordered by key (byte-wise string
// order), with subtree sizes for O(log n) rank queries.
//
// A tree value is immutable: put and remove return a new tree that shares every
// untouched node with the receiver, so a tree held by an older snapshot keeps
// reading the same content forever. Nodes are never written after
// construction, which is what lets readers walk a tree without holding any lock.
//
// Priorities are a hash of the key rather than random numbers, so the shape of
// a tree depends only on its key set (not on the order of writes) and there is
// no random source to seed or share. The zero tree is empty.
type tree[V any] struct {
	root *node[V]
}

// node is one treap node: a max-heap on (prio, key) and a binary search
// tree on key. Every write copies O(log n) nodes, which older snapshots
// keep until compaction, so the node is kept small: with a pointer-sized V
// it is 48 bytes, an allocation size class.
//
// A node is immutable once reachable from a tree anyone else may read. The
// one exception is a transient node (see [tree.edit]): made by an edit of
// a working tree that only its owner, under its lock, reads, it is
// changed in place by later edits until [tree.freeze] makes it immutable
// like any other.
type node[V any] struct {
	key  string
	val  V
	prio uint32
	// meta is the number of nodes in this subtree, including this one,
	// with transientBit set while the node is transient.
	meta        uint32
	left, right *node[V]
}

// transientBit marks a transient node in node.meta; subtree sizes stay
// below it (2^31 keys).
const transientBit = 1 << 31

// priority derives a treap priority from key: the high half of FNV-64a
// followed by the splitmix64 finalizer, because FNV alone mixes the last
// bytes of similar keys ("ns/pod-000001", "ns/pod-000002") poorly into the
// high bits. 32 bits keep the expected depth: equal priorities among a few
// of millions of keys only fall back to the key order (outranks).
func priority(key string) uint32 {
	h := uint64(fnvOffset64)
	for i := 0; i < len(key); i++ {
		h ^= uint64(key[i])
		h *= fnvPrime64
	}
	h ^= h >> 30
	h *= 0xbf58476d1ce4e5b9
	h ^= h >> 27
	h *= 0x94d049bb133111eb
	h ^= h >> 31
	return uint32(h >> 32)
}

// newNode returns a new node, transient if mut.
func newNode[V any](key string, val V, prio uint32, left, right *node[V], mut bool) *node[V] {
	n := &node[V]{key: key, val: val, prio: prio, meta: uint32(1 + left.len() + right.len()), left: left, right: right}
	if mut {
		n.meta |= transientBit
	}
	return n
}

// with returns n with new children: n itself, changed in place, if mut
// and n is transient, else a copy (transient if mut).
func (n *node[V]) with(left, right *node[V], mut bool) *node[V] {
	return n.withVal(n.val, left, right, mut)
}

// withVal is with that also sets the value.
func (n *node[V]) withVal(val V, left, right *node[V], mut bool) *node[V] {
	if mut && n.transient() {
		n.val, n.left, n.right = val, left, right
		n.meta = uint32(1+left.len()+right.len()) | transientBit
		return n
	}
	return newNode(n.key, val, n.prio, left, right, mut)
}

// transient reports whether n may still be changed in place.
func (n *node[V]) transient() bool { return n.meta&transientBit != 0 }

func (n *node[V]) len() int {
	if n == nil {
		return 0
	}
	return int(n.meta &^ transientBit)
}

// outranks reports whether a node (prio, key) belongs above n. Ties on prio
// (hash collisions) are broken by key so the heap order is total and the shape
// stays a function of the key set.
func outranks[V any](prio uint32, key string, n *node[V]) bool {
	return prio > n.prio || (prio == n.prio && key < n.key)
}

// len returns the number of keys in t.
func (t tree[V]) len() int { return t.root.len() }

// get returns the value stored under key.
func (t tree[V]) get(key string) (V, bool) {
	for n := t.root; n != nil; {
		switch {
		case key < n.key:
			n = n.left
		case key > n.key:
			n = n.right
		default:
			return n.val, true
		}
	}
	var zero V
	return zero, false
}

// put returns a tree with key set to val, copying O(log n) nodes.
func (t tree[V]) put(key string, val V) tree[V] {
	return tree[V]{t.root.put(key, val, priority(key), false)}
}

// editPut is put on a working tree: a tree that only its owner reads
// until [tree.freeze]. An edit (editPut, editRemove) changes in place the
// nodes earlier edits made since the last freeze (transient nodes) and
// copies only the others, so a run of edits between two freezes copies
// each node at most once rather than once an edit. A tree frozen before
// (and so every tree that shares it) never changes.
func (t tree[V]) editPut(key string, val V) tree[V] {
	return tree[V]{t.root.put(key, val, priority(key), true)}
}

// editRemove is remove on a working tree (see [tree.editPut]).
func (t tree[V]) editRemove(key string) (tree[V], bool) {
	root, ok := t.root.remove(key, true)
	return tree[V]{root}, ok
}

// freeze makes every transient node of a working tree immutable, in time
// proportional to their number, and returns the tree, which may now be
// shared: later edits copy its nodes again. The transient nodes form a
// subtree at the root (an edit copies a node's whole path), so the walk
// stops at the first node that is not.
func (t tree[V]) freeze() tree[V] {
	t.root.freeze()
	return t
}

func (n *node[V]) freeze() {
	for ; n != nil && n.transient(); n = n.right {
		n.meta &^= transientBit
		n.left.freeze()
	}
}

// put returns n with key set to val; mut says n is a working tree.
func (n *node[V]) put(key string, val V, prio uint32, mut bool) *node[V] {
	switch {
	case n == nil:
		return newNode[V](key, val, prio, nil, nil, mut)
	case key == n.key:
		return n.withVal(val, n.left, n.right, mut)
	case outranks(prio, key, n):
		// key belongs above n, so key is absent from n's subtree (were it
		// present, its node would be an ancestor of n): split n around it.
		left, right := n.split(key, mut)
		return newNode(key, val, prio, left, right, mut)
	case key < n.key:
		return n.with(n.left.put(key, val, prio, mut), n.right, mut)
	default:
		return n.with(n.left, n.right.put(key, val, prio, mut), mut)
	}
}

// split returns the keys of n below key and above key, copying the nodes
// on the split path (unless transient and mut); key itself must be absent.
func (n *node[V]) split(key string, mut bool) (below, above *node[V]) {
	if n == nil {
		return nil, nil
	}
	if n.key < key {
		below, above = n.right.split(key, mut)
		return n.with(n.left, below, mut), above
	}
	below, above = n.left.split(key, mut)
	return below, n.with(above, n.right, mut)
}

// remove returns a tree without key and whether key was present. When it was
// absent the receiver is returned unchanged and nothing is allocated.
func (t tree[V]) remove(key string) (tree[V], bool) {
	root, ok := t.root.remove(key, false)
	return tree[V]{root}, ok
}

func (n *node[V]) remove(key string, mut bool) (*node[V], bool) {
	if n == nil {
		return nil, false
	}
	switch {
	case key < n.key:
		left, ok := n.left.remove(key, mut)
		if !ok {
			return n, false
		}
		return n.with(left, n.right, mut), true
	case key > n.key:
		right, ok := n.right.remove(key, mut)
		if !ok {
			return n, false
		}
		return n.with(n.left, right, mut), true
	default:
		return merge(n.left, n.right, mut), true
	}
}

// merge joins two treaps where every key of a is below every key of b,
// copying the nodes along the inner spines (unless transient and mut).
func merge[V any](a, b *node[V], mut bool) *node[V] {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	case outranks(a.prio, a.key, b):
		return a.with(a.left, merge(a.right, b, mut), mut)
	default:
		return b.with(merge(a, b.left, mut), b.right, mut)
	}
}

// rank returns the number of keys strictly below key, in O(log n).
func (t tree[V]) rank(key string) int {
	r := 0
	for n := t.root; n != nil; {
		if key <= n.key {
			n = n.left
			continue
		}
		r += n.left.len() + 1
		n = n.right
	}
	return r
}

// ascend yields the entries with key >= from in key order. Stopping after k
// entries costs O(log n + k): subtrees entirely below from are never entered.
func (t tree[V]) ascend(from string) iter.Seq2[string, V] {
	return func(yield func(string, V) bool) {
		t.root.ascend(from, yield)
	}
}

// ascend reports false once yield asked to stop. Left of the first node >= from
// it only descends; right of it every key is >= from, so no more comparisons.
func (n *node[V]) ascend(from string, yield func(string, V) bool) bool {
	for ; n != nil; n = n.right {
		if from <= n.key {
			return n.left.ascend(from, yield) && yield(n.key, n.val) && n.right.all(yield)
		}
	}
	return true
}

// all yields every entry of n in order and reports false once yield asked to
// stop.
func (n *node[V]) all(yield func(string, V) bool) bool {
	return n == nil || (n.left.all(yield) && yield(n.key, n.val) && n.right.all(yield))
}

// ascendN is ascend for a reader that expects to take about n entries (a
// LIST page): the first n entries from `from` are fetched by rank
// (fetchRanks), fetchChunk at a time, each chunk before any of it is
// yielded; past them the walk goes on by rank. The entries and the cost
// bound are ascend's; a reader that stops early has paid for up to a
// chunk more nodes. It allocates nothing: the chunks are on the stack.
func (t tree[V]) ascendN(from string, n int) iter.Seq2[string, V] {
	if n < 2 {
		return t.ascend(from)
	}
	return func(yield func(string, V) bool) {
		var keys [fetchChunk]string
		var vals [fetchChunk]V
		var scratch [2 * (fetchChunk + 2)]rankedNode[V]
		first := t.rank(from)
		total := min(n, t.len()-first)
		for done := 0; done < total; {
			k := min(fetchChunk, total-done)
			t.fetchRanks(first+done, keys[:k], vals[:k], scratch[:])
			for i := range k {
				if !yield(keys[i], vals[i]) {
					return
				}
			}
			done += k
		}
		t.root.ascendRank(0, first+total, yield)
	}
}

// fetchChunk is how many nodes fetchRanks fetches at a time for ascendN.
const fetchChunk = 128

// rankedNode is a node whose subtree's first key has rank lo, and the
// sizes of its children's subtrees once loaded. Ranks and sizes fit 32
// bits (transientBit), which keeps the levels small.
type rankedNode[V any] struct {
	n               *node[V]
	lo, left, right uint32
}

// fetchRanks sets keys[i] and vals[i] to the key and value of rank
// first+i, for every i < len(keys) (vals is as long); the ranks must
// exist, and scratch must hold 2*(len(keys)+2) entries. An
// in-order walk reaches each node through the one before it, so a page of
// a big tree, whose nodes are scattered over the heap, costs one memory
// latency a node, one after the other. This walk goes breadth first
// instead, a level of the subtrees that overlap the ranks at a time: it
// first loads the children of every node of the level (their sizes),
// loads that do not depend on each other and that no branch waits for,
// so the processor overlaps their cache misses; then it places the
// level's nodes and queues their children from what is loaded. The page
// costs about one latency a level (O(log n)) plus the work per node.
func (t tree[V]) fetchRanks(first int, keys []string, vals []V, scratch []rankedNode[V]) {
	if len(keys) == 0 {
		return
	}
	end := first + len(keys)
	vals = vals[:len(keys)]
	// A level holds some of the nodes and at most two others, on the
	// paths from the root to the range's ends.
	width := len(keys) + 2
	level, next := scratch[:1:width], scratch[width:width:2*width]
	level[0] = rankedNode[V]{n: t.root}
	// Every subtree of a level has a rank in [first, end).
	for len(level) > 0 {
		for i := range level {
			level[i].left, level[i].right = uint32(level[i].n.left.len()), uint32(level[i].n.right.len())
		}
		next = next[:0]
		for _, e := range level {
			r := int(e.lo + e.left) // e.n's rank
			if e.left > 0 && first < r {
				next = append(next, rankedNode[V]{n: e.n.left, lo: e.lo})
			}
			if first <= r && r < end {
				// Its key and value are read here, with the level's
				// other nodes', not one after the other as they are
				// yielded: a node's key may lie on another cache line
				// than the sizes read above.
				keys[r-first], vals[r-first] = e.n.key, e.n.val
			}
			if e.right > 0 && r+1 < end {
				next = append(next, rankedNode[V]{n: e.n.right, lo: uint32(r + 1)})
			}
		}
		level, next = next, level
	}
}

// ascendRank is ascend from the key of rank first, where lo is the rank
// of n's subtree's first key: it compares ranks, not keys.
func (n *node[V]) ascendRank(lo, first int, yield func(string, V) bool) bool {
	for ; n != nil; n = n.right {
		r := lo + n.left.len()
		if first <= r {
			return n.left.ascendRank(lo, first, yield) && yield(n.key, n.val) && n.right.all(yield)
		}
		lo = r + 1
	}
	return true
}
