package store

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unsafe"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"pgregory.net/rapid"
)

// The machine's key space is small so that writes collide, and its namespaces
// share a prefix ("ns-a" is a prefix of "ns-ab") so that prefix bounds matter.
var (
	machineResources  = []string{"configmaps", "secrets"}
	machineNamespaces = []string{"ns-a", "ns-ab", "ns-b"}
	machineNames      = []string{"x", "xx", "y"}
	machinePrefixes   = []string{"", "ns-a", "ns-a/", "ns-ab/", "ns-b/", "zz/"}
	machineStarts     = []string{"", "a", "ns-a/", "ns-a/x", "ns-a/x\x00", "ns-ab/xx\x00", "ns-b/", "ns-b/y", "zz"}
)

// machineIndexes index every resource's objects by the parity of data "v"
// (odd ones left out) and by name.
func machineIndexes(string) []Index {
	return []Index{
		{Name: "parity", Values: func(obj kruntime.Object) []string {
			if isEven(obj) {
				return []string{"even"}
			}
			return nil
		}},
		{Name: "name", Values: func(obj kruntime.Object) []string { return []string{view(obj).Name} }},
	}
}

// isEvenView is isEven of a projected object.
func isEvenView(o *objView) bool { return o.V[0]%2 == 0 } // ASCII parity == digit parity

// wait is a channel handed out by Changes (resource != "") or Notify
// (resource == "") when the store was at rv.
type wait struct {
	resource string
	rv       int64
	ch       <-chan struct{}
}

// handedOut is a Changes result and what it must keep saying forever.
type handedOut struct {
	got  []Event
	want []eventView
}

// maxTracked bounds the waits and results the machine re-checks each step.
const maxTracked = 8

// storeMachine drives a Store against a model that is nothing but the list of
// every event ever recorded; states are computed by replaying it.
type storeMachine struct {
	s         *Store
	events    []eventView // model: every event, in RV order
	compacted int64
	waits     []wait
	handed    []handedOut
}

func (m *storeMachine) current() int64 { return initialRV + int64(len(m.events)) }

// stateAt replays the model up to rv: resource -> key -> object.
func (m *storeMachine) stateAt(rv int64) map[string]map[string]*objView {
	state := map[string]map[string]*objView{}
	for _, res := range machineResources {
		state[res] = map[string]*objView{}
	}
	for _, ev := range m.events {
		if ev.RV > rv {
			break
		}
		if ev.Resource == "" {
			continue // an AdvanceRV: no object changed
		}
		if ev.Type == string(watch.Deleted) {
			delete(state[ev.Resource], ev.Key)
		} else {
			state[ev.Resource][ev.Key] = ev.Object
		}
	}
	return state
}

// readAt maps a read RV to the RV read: 0 means latest.
func (m *storeMachine) readAt(rv int64) int64 {
	if rv == 0 {
		return m.current()
	}
	return rv
}

func (m *storeMachine) live(res, key string) *objView {
	return m.stateAt(m.current())[res][key]
}

// record appends a write the store accepted, checking it got the next RV.
func (m *storeMachine) record(t *rapid.T, ev eventView) {
	if want := m.current() + 1; ev.RV != want {
		t.Fatalf("%s %s %q: rv = %d, want %d", ev.Type, ev.Resource, ev.Key, ev.RV, want)
	}
	m.events = append(m.events, ev)
}

func drawTarget(t *rapid.T) (res, ns, name string) {
	return rapid.SampledFrom(machineResources).Draw(t, "resource"),
		rapid.SampledFrom(machineNamespaces).Draw(t, "namespace"),
		rapid.SampledFrom(machineNames).Draw(t, "name")
}

// drawExpectRV draws a write precondition: 0, the live RV, or any RV so far.
func (m *storeMachine) drawExpectRV(t *rapid.T, live *objView) int64 {
	switch rapid.IntRange(0, 2).Draw(t, "precondition") {
	case 0:
		return 0
	case 1:
		if live != nil {
			rv, _ := strconv.ParseInt(live.RV, 10, 64)
			return rv
		}
	}
	return rapid.Int64Range(1, m.current()).Draw(t, "expectRV")
}

// writeErr returns the error the model predicts for a write to a key whose
// live state is live.
func writeErr(live *objView, expectRV int64) error {
	switch {
	case live == nil:
		return ErrNotFound
	case expectRV != 0 && strconv.FormatInt(expectRV, 10) != live.RV:
		return ErrConflict
	}
	return nil
}

// drawReadRV draws a read RV: mostly a readable one, sometimes 0 (latest),
// one just compacted away, or one in the future.
func (m *storeMachine) drawReadRV(t *rapid.T) (rv int64, want error) {
	switch rapid.IntRange(0, 9).Draw(t, "rvKind") {
	case 0:
		return 0, nil
	case 1:
		if m.compacted <= 1 {
			return -1, ErrCompacted // m.compacted-1 would be 0, "latest"
		}
		return m.compacted - 1, ErrCompacted
	case 2:
		return m.current() + 1, ErrFutureRV
	}
	return rapid.Int64Range(max(m.compacted, 1), m.current()).Draw(t, "rv"), nil
}

func checkErr(t *rapid.T, call string, got, want error) {
	if !errors.Is(got, want) || (want == nil && got != nil) {
		t.Fatalf("%s error = %v, want %v", call, got, want)
	}
}

func (m *storeMachine) Create(t *rapid.T) {
	res, ns, name := drawTarget(t)
	key := ns + "/" + name
	val := rapid.IntRange(0, 9).Draw(t, "val")
	want := error(nil)
	if m.live(res, key) != nil {
		want = ErrAlreadyExists
	}
	got, err := m.s.Create(res, key, newConfigMap(ns, name, val))
	checkErr(t, "Create("+res+", "+key+")", err, want)
	if err == nil {
		m.record(t, eventView{Type: string(watch.Added), Resource: res, Key: key, RV: m.current() + 1, Object: view(got)})
		m.checkStamped(t, view(got).RV)
	}
}

func (m *storeMachine) Update(t *rapid.T) {
	res, ns, name := drawTarget(t)
	key := ns + "/" + name
	val := rapid.IntRange(0, 9).Draw(t, "val")
	live := m.live(res, key)
	expectRV := m.drawExpectRV(t, live)
	got, err := m.s.Update(res, key, newConfigMap(ns, name, val), expectRV)
	checkErr(t, "Update("+res+", "+key+")", err, writeErr(live, expectRV))
	if err == nil {
		m.record(t, eventView{Type: string(watch.Modified), Resource: res, Key: key, RV: m.current() + 1, Object: view(got), PrevObject: live})
		m.checkStamped(t, view(got).RV)
	}
}

func (m *storeMachine) Delete(t *rapid.T) {
	res, ns, name := drawTarget(t)
	key := ns + "/" + name
	live := m.live(res, key)
	expectRV := m.drawExpectRV(t, live)
	got, err := m.s.Delete(res, key, expectRV)
	checkErr(t, "Delete("+res+", "+key+")", err, writeErr(live, expectRV))
	if err == nil {
		last := *live
		last.RV = strconv.FormatInt(m.current()+1, 10)
		if diff := cmp.Diff(&last, view(got)); diff != "" {
			t.Fatalf("Delete(%s, %s) object mismatch (-want +got):\n%s", res, key, diff)
		}
		m.record(t, eventView{Type: string(watch.Deleted), Resource: res, Key: key, RV: m.current() + 1, Object: &last, PrevObject: live})
	}
}

// checkStamped checks that the object a write returned carries the write's RV.
func (m *storeMachine) checkStamped(t *rapid.T, rv string) {
	if want := strconv.FormatInt(m.current(), 10); rv != want {
		t.Fatalf("written object resourceVersion = %q, want %q", rv, want)
	}
}

func (m *storeMachine) Compact(t *rapid.T) {
	rv := rapid.Int64Range(0, m.current()+1).Draw(t, "rv")
	var want error
	if rv > m.current() {
		want = ErrFutureRV
	}
	checkErr(t, "Compact("+strconv.FormatInt(rv, 10)+")", m.s.Compact(rv), want)
	if want == nil {
		m.compacted = max(m.compacted, rv)
	}
}

func (m *storeMachine) Get(t *rapid.T) {
	res, ns, name := drawTarget(t)
	key := ns + "/" + name
	rv, want := m.drawReadRV(t)
	got, err := m.s.Get(res, key, rv)
	var wantObj *objView
	if want == nil {
		wantObj = m.stateAt(m.readAt(rv))[res][key]
		if wantObj == nil {
			want = ErrNotFound
		}
	}
	checkErr(t, "Get("+res+", "+key+")", err, want)
	if diff := cmp.Diff(wantObj, view(got)); diff != "" {
		t.Fatalf("Get(%s, %s, %d) mismatch (-want +got):\n%s", res, key, rv, diff)
	}
}

// View reads a version's view memo (Encodings.View) under one of two
// keys, derived as a pointer (held weakly once the version is not hot) or
// as a value (always kept): whatever was collected, a view is that of the
// version read, under the key asked for, and a memo hit builds nothing.
func (m *storeMachine) View(t *rapid.T) {
	res, ns, name := drawTarget(t)
	key := ns + "/" + name
	rv, want := m.drawReadRV(t)
	obj, enc, err := m.s.GetVersion(res, key, rv)
	if want == nil && m.stateAt(m.readAt(rv))[res][key] == nil {
		want = ErrNotFound
	}
	checkErr(t, "GetVersion("+res+", "+key+")", err, want)
	if err != nil {
		return
	}
	viewKey := rapid.IntRange(1, 2).Draw(t, "viewKey")
	asPointer := viewKey == 1
	wantView := fmt.Sprintf("%d:%+v", viewKey, *view(obj))
	builds := 0
	build := func() (any, error) {
		builds++
		v := fmt.Sprintf("%d:%+v", viewKey, *view(enc.Object()))
		if asPointer {
			return &v, nil
		}
		return v, nil
	}
	got, err := enc.View(viewKey, build)
	if err != nil {
		t.Fatal(err)
	}
	text := got
	if p, ok := got.(*string); ok {
		text = *p
	}
	if text != wantView {
		t.Fatalf("View(%d) of %s at %d = %v; want %v", viewKey, key, rv, text, wantView)
	}
	// got holds the view: it is memoised until it is dropped.
	before := builds
	again, _ := enc.View(viewKey, build)
	if m.s.hot.keep && (builds != before || again != got) {
		t.Fatalf("View(%d) while held = %v after %d more builds; want the memo %v", viewKey, again, builds-before, got)
	}
	runtime.KeepAlive(got)
}

func (m *storeMachine) List(t *rapid.T) {
	res := rapid.SampledFrom(machineResources).Draw(t, "resource")
	rv, wantErr := m.drawReadRV(t)
	opts := ListOptions{
		RV:     rv,
		Prefix: rapid.SampledFrom(machinePrefixes).Draw(t, "prefix"),
		Start:  rapid.SampledFrom(machineStarts).Draw(t, "start"),
		Limit:  rapid.IntRange(0, 4).Draw(t, "limit"),
		// Undecoded items are read through their Encodings (as
		// fakeapiserver's LIST does) before the page is compared.
		Undecoded: rapid.Bool().Draw(t, "undecoded"),
		RVs:       rapid.Bool().Draw(t, "rvs"),
	}
	keep := func(*objView) bool { return true }
	switch rapid.IntRange(0, 4).Draw(t, "filter") {
	case 1:
		opts.Filter, keep = isEven, isEvenView
	case 2: // the parity index narrows the walk to what isEven keeps
		opts.Filter, keep = isEven, isEvenView
		opts.Index = &IndexValue{Name: "parity", Value: "even"}
		opts.IndexMore = rapid.Bool().Draw(t, "indexMore")
	case 3: // the name index, or the per-namespace lookup, narrows the walk to one name
		name := rapid.SampledFrom(machineNames).Draw(t, "name")
		opts.Filter = func(obj kruntime.Object) bool { return view(obj).Name == name }
		keep = func(o *objView) bool { return o.Name == name }
		if rapid.Bool().Draw(t, "byIndex") {
			opts.Index = &IndexValue{Name: "name", Value: name}
		} else {
			opts.Name = name
		}
	case 4: // a narrower scan prefix: one namespace under Prefix
		ns := rapid.SampledFrom(machineNamespaces).Draw(t, "namespace")
		opts.Filter = func(obj kruntime.Object) bool { return view(obj).Namespace == ns }
		keep = func(o *objView) bool { return o.Namespace == ns }
		opts.Scan = ns + "/"
	}
	if rapid.Bool().Draw(t, "reuse") {
		// Arrays of a stale page: the page overwrites them when they have
		// room, and nothing of them shows in it.
		n := rapid.IntRange(0, 6).Draw(t, "reuseCap")
		opts.Reuse = ListResult{Items: make([]kruntime.Object, n), Keys: make([]string, n), Encodings: make([]*Encodings, n)}
		for i := range n {
			opts.Reuse.Items[i], opts.Reuse.Keys[i], opts.Reuse.Encodings[i] = newConfigMap("stale", "stale", 0), "stale/stale", &Encodings{}
		}
		opts.Reuse.Items = opts.Reuse.Items[:rapid.IntRange(0, n).Draw(t, "reuseLen")]
	}
	got, err := m.s.List(res, opts)
	checkErr(t, "List("+res+")", err, wantErr)
	if err != nil {
		return
	}
	// A page's cached encodings read at once are each one's own.
	for slot := range EncodingSlots {
		for i, b := range CachedSlots(got.Encodings, slot, nil) {
			p := got.Encodings[i].slots[slot].Load()
			if (b == nil) != (p == nil) || (p != nil && !bytes.Equal(b, p.bytes())) {
				t.Fatalf("List(%s) item %d: CachedSlots(slot %d) = %q; its slot holds %v", res, i, slot, b, p)
			}
		}
	}
	wantRVs := 0
	if opts.RVs {
		wantRVs = len(got.Items)
	}
	if len(got.RVs) != wantRVs {
		t.Fatalf("List(%s, RVs=%t): %d RVs for %d items", res, opts.RVs, len(got.RVs), len(got.Items))
	}
	for i, rv := range got.RVs {
		// Each is the item's resourceVersion, read without decoding it.
		if want := view(got.Encodings[i].Object()).RV; strconv.FormatInt(rv, 10) != want {
			t.Fatalf("List(%s) item %d: RVs[%d] = %d, its object's RV %s", res, i, i, rv, want)
		}
	}
	for i, obj := range got.Items {
		// An item at hand is what its Encodings hold, unless they keep
		// nothing decoded.
		if dec := got.Encodings[i].Object(); obj != nil && obj != dec && m.s.hot.keep {
			t.Fatalf("List(%s) item %d is %p, its Encodings hold %p", res, i, obj, dec)
		}
		if obj == nil {
			if !opts.Undecoded {
				t.Fatalf("List(%s) item %d is nil without Undecoded", res, i)
			}
			got.Items[i] = got.Encodings[i].Object()
		}
	}
	want := m.listModel(res, opts, keep)
	if diff := cmp.Diff(want, viewPage(got), cmpopts.EquateEmpty()); diff != "" {
		t.Fatalf("List(%s, rv=%d prefix=%q start=%q limit=%d filter=%v index=%v scan=%q name=%q) mismatch (-want +got):\n%s",
			res, rv, opts.Prefix, opts.Start, opts.Limit, opts.Filter != nil, opts.Index, opts.Scan, opts.Name, diff)
	}
	// Indexed and unindexed reads agree (but for IndexMore's More).
	if (opts.Index != nil && !opts.IndexMore) || opts.Scan != "" || opts.Name != "" {
		plain := opts
		plain.Index, plain.Scan, plain.Name = nil, "", ""
		unindexed, err := m.s.List(res, plain)
		if err != nil {
			t.Fatalf("List(%s) without index: %v", res, err)
		}
		if diff := cmp.Diff(viewPage(unindexed), viewPage(got), cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("List(%s, index=%v scan=%q name=%q) differs from the unindexed read (-unindexed +indexed):\n%s", res, opts.Index, opts.Scan, opts.Name, diff)
		}
	}
}

// Pack fills some of a page's encoding caches (each version's bytes
// derived from its object, of lengths that need padding or not), packs
// one slot's (packSlots) and checks that every slot of every item holds
// the same bytes as before, that slices read before still do, that the
// packed encodings lie in order and are not packed again, and that Get
// hits them. With a codec, slot 1 holds the canonical encoding: later
// reads decode the packed bytes, which the model's comparisons check.
func (m *storeMachine) Pack(t *rapid.T) {
	res := rapid.SampledFrom(machineResources).Draw(t, "resource")
	rv, _ := m.drawReadRV(t)
	page, err := m.s.List(res, ListOptions{RV: rv, Undecoded: rapid.Bool().Draw(t, "undecoded")})
	if err != nil {
		return // a compacted or future RV: List checks those errors
	}
	for i, e := range page.Encodings {
		for slot := range EncodingSlots {
			if rapid.Bool().Draw(t, fmt.Sprintf("fill %d/%d", i, slot)) {
				_, _ = e.Get(slot, func() ([]byte, error) {
					obj := view(e.Object())
					return []byte(strings.Repeat(fmt.Sprintf("%d|%s|%s|%s;", slot, page.Keys[i], obj.RV, obj.V), len(obj.V)%3+1)), nil
				})
			}
		}
	}
	before := make([][][]byte, len(page.Encodings)) // item -> slot -> bytes as read
	kept := make([][][]byte, len(page.Encodings))   // the same, copied
	for i, e := range page.Encodings {
		for slot := range EncodingSlots {
			var b []byte
			if p := e.slots[slot].Load(); p != nil {
				b = p.bytes()
			}
			before[i], kept[i] = append(before[i], b), append(kept[i], bytes.Clone(b))
		}
	}
	slot := rapid.IntRange(0, EncodingSlots-1).Draw(t, "slot")
	keep := packed(CachedSlots(page.Encodings, slot, nil), 1)
	didPack := packSlots(page.Encodings, slot, 1)
	if didPack == keep {
		t.Fatalf("packSlots(slot %d) = %v; Packed of its encodings said %v", slot, didPack, keep)
	}
	for i, e := range page.Encodings {
		for s := range EncodingSlots {
			p := e.slots[s].Load()
			if (p == nil) != (kept[i][s] == nil) || (p != nil && !bytes.Equal(p.bytes(), kept[i][s])) {
				t.Fatalf("packSlots(slot %d) = %v: item %d slot %d holds %v; before %q", slot, didPack, i, s, p, kept[i][s])
			}
			if !bytes.Equal(before[i][s], kept[i][s]) {
				t.Fatalf("packSlots(slot %d): bytes read before from item %d slot %d changed to %q; were %q", slot, i, s, before[i][s], kept[i][s])
			}
			if p != nil {
				got, _ := e.Get(s, func() ([]byte, error) { return nil, errors.New("a cached slot encoded again") })
				if !bytes.Equal(got, kept[i][s]) {
					t.Fatalf("packSlots(slot %d): Get(%d) of item %d = %q; want %q", slot, s, i, got, kept[i][s])
				}
			}
		}
	}
	if !didPack {
		return
	}
	var next uintptr
	for i, e := range page.Encodings {
		p := e.slots[slot].Load()
		if p == nil {
			continue
		}
		if next != 0 && uintptr(unsafe.Pointer(p)) != next {
			t.Fatalf("packSlots(slot %d): item %d at %p, not right after the one before (%#x)", slot, i, p, next)
		}
		next = uintptr(unsafe.Pointer(p)) + uintptr(encodedWords(p.n)*encodedWord)
	}
	if packSlots(page.Encodings, slot, 1) || !packed(CachedSlots(page.Encodings, slot, nil), 1) {
		t.Fatalf("packSlots(slot %d) would pack again a page it had just packed", slot)
	}
}

// listModel computes a List page by brute force over the replayed state.
func (m *storeMachine) listModel(res string, opts ListOptions, keep func(*objView) bool) pageView {
	page := pageView{RV: m.readAt(opts.RV)}
	state := m.stateAt(page.RV)[res]
	var under []string // keys under Prefix from Start on, in order
	for _, k := range slices.Sorted(maps.Keys(state)) {
		if strings.HasPrefix(k, opts.Prefix) && k >= opts.Start {
			under = append(under, k)
		}
	}
	for i, k := range under {
		obj := state[k]
		if !keep(obj) {
			continue
		}
		page.Keys, page.Items = append(page.Keys, k), append(page.Items, obj)
		if len(page.Keys) == opts.Limit {
			rest := len(under) - i - 1
			page.More = rest > 0
			if opts.IndexMore { // only the index's keys (those keep keeps) count
				page.More = slices.ContainsFunc(under[i+1:], func(k string) bool { return keep(state[k]) })
			}
			if opts.Filter == nil {
				page.Remaining = int64(rest)
			}
			break
		}
	}
	return page
}

// AdvanceRV is a write to no resource (the compactor's own write): the
// model records it under resource "" so the RV count stays right, and it
// wakes Notify's waiters but no resource's.
func (m *storeMachine) AdvanceRV(t *rapid.T) {
	rv := m.s.AdvanceRV()
	m.record(t, eventView{Type: "ADVANCE", RV: rv})
}

func (m *storeMachine) Changes(t *rapid.T) {
	res := rapid.SampledFrom(machineResources).Draw(t, "resource")
	afterRV := rapid.Int64Range(m.compacted-1, m.current()+1).Draw(t, "afterRV")
	got, ch, err := m.s.Changes(res, afterRV)
	var want error
	if afterRV < 0 || m.droppedAfter(res, afterRV) {
		want = ErrCompacted
	}
	checkErr(t, "Changes("+res+")", err, want)
	if err != nil {
		return
	}
	wantEvents := m.eventsAfter(res, afterRV)
	if diff := cmp.Diff(wantEvents, viewEvents(got)); diff != "" {
		t.Fatalf("Changes(%s, %d) mismatch (-want +got):\n%s", res, afterRV, diff)
	}
	// A caller's append must not be able to write into the store's log.
	if cap(got) != len(got) {
		t.Fatalf("Changes(%s, %d): cap %d > len %d", res, afterRV, cap(got), len(got))
	}
	m.waits = lastN(append(m.waits, wait{resource: res, rv: m.current(), ch: ch}), maxTracked)
	m.handed = lastN(append(m.handed, handedOut{got: got, want: wantEvents}), maxTracked)
}

// GC collects, so the versions the store holds weakly lose their decoded
// objects and later reads decode them again (with a codec).
func (m *storeMachine) GC(*rapid.T) { runtime.GC() }

func (m *storeMachine) Notify(t *rapid.T) {
	m.waits = lastN(append(m.waits, wait{rv: m.current(), ch: m.s.Notify()}), maxTracked)
}

func (m *storeMachine) eventsAfter(res string, afterRV int64) []eventView {
	var out []eventView
	for _, ev := range m.events {
		if ev.Resource == res && ev.RV > afterRV {
			out = append(out, ev)
		}
	}
	return out
}

// droppedAfter reports whether compaction dropped an event of res with RV
// above afterRV: one at or below the compaction point.
func (m *storeMachine) droppedAfter(res string, afterRV int64) bool {
	for _, ev := range m.events {
		if ev.Resource == res && ev.RV > afterRV && ev.RV <= m.compacted {
			return true
		}
	}
	return false
}

func lastN[S ~[]E, E any](s S, n int) S { return s[max(len(s)-n, 0):] }

// Check runs after every action.
func (m *storeMachine) Check(t *rapid.T) {
	if got := m.s.CurrentRV(); got != m.current() {
		t.Fatalf("CurrentRV() = %d, want %d", got, m.current())
	}
	if got := m.s.CompactedRV(); got != m.compacted {
		t.Fatalf("CompactedRV() = %d, want %d", got, m.compacted)
	}
	m.checkWaits(t)
	// Results handed out earlier never change, whatever was written or
	// compacted since.
	for _, h := range m.handed {
		if diff := cmp.Diff(h.want, viewEvents(h.got)); diff != "" {
			t.Fatalf("earlier Changes result changed (-want +got):\n%s", diff)
		}
	}
}

// checkWaits checks that each channel is closed exactly when a write it
// covers happened after it was handed out.
func (m *storeMachine) checkWaits(t *rapid.T) {
	for _, w := range m.waits {
		wantClosed := false
		for _, ev := range m.events {
			wantClosed = wantClosed || (ev.RV > w.rv && (w.resource == "" || ev.Resource == w.resource))
		}
		select {
		case <-w.ch:
			if !wantClosed {
				t.Fatalf("channel of %q from rv %d closed without a write", w.resource, w.rv)
			}
		default:
			if wantClosed {
				t.Fatalf("channel of %q from rv %d still open after a write", w.resource, w.rv)
			}
		}
	}
}

// TestStoreStateMachine drives the store with checkpoints as far apart as
// a few writes, so reads fall on checkpoints and between them (a state
// replayed over one) and compactions replay writes into a checkpoint.
func TestStoreStateMachine(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		opts := Options{Indexes: machineIndexes}
		// How objects are held: as written (no codec), encoded with the
		// latest few writes decoded and the rest held weakly, or encoded
		// with nothing decoded kept, so every read decodes.
		mode := rapid.SampledFrom([]string{"decoded", "weak", "encoded"}).Draw(t, "objects")
		if mode != "decoded" {
			opts.Codec = withCodec
			opts.HotObjects = rapid.SampledFrom([]int{-1, 1, 3}).Draw(t, "hotObjects")
		}
		opts.DecodeEveryRead = mode == "encoded"
		s := New(opts)
		s.checkpointEvery = rapid.IntRange(1, 6).Draw(t, "checkpointEvery")
		t.Repeat(rapid.StateMachineActions(&storeMachine{s: s}))
	})
}
