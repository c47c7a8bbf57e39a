package store

import (
	"bytes"
	"errors"
	"sync"
	"testing"

	"k8s.io/apimachinery/pkg/watch"
)

// TestEncodingsFollowVersions checks which reads share an encoding cache:
// a version's LIST entry and its write's event share one, the next
// version and a delete's copy get their own, and compaction keeps the
// cache of a version still readable.
func TestEncodingsFollowVersions(t *testing.T) {
	s := New(Options{})
	if _, err := s.Create("cm", "a", newConfigMap("ns", "a", 1)); err != nil {
		t.Fatal(err)
	}
	l1 := mustList(t, s, 0)
	evs, _, err := s.Changes("cm", 0)
	if err != nil {
		t.Fatal(err)
	}
	if l1.Encodings[0] == nil || l1.Encodings[0] != evs[0].Encodings {
		t.Fatalf("list and ADDED event caches = %p, %p; want the same, non-nil", l1.Encodings[0], evs[0].Encodings)
	}
	if _, err := s.Update("cm", "a", newConfigMap("ns", "a", 1), 0); err != nil {
		t.Fatal(err)
	}
	l2 := mustList(t, s, 0)
	if l2.Encodings[0] == l1.Encodings[0] {
		t.Fatal("an update kept the previous version's cache")
	}
	if again := mustList(t, s, l1.RV); again.Encodings[0] != l1.Encodings[0] {
		t.Fatal("a read at the old RV lost the old version's cache")
	}
	if _, err := s.Delete("cm", "a", 0); err != nil {
		t.Fatal(err)
	}
	evs, _, err = s.Changes("cm", l2.RV)
	if err != nil {
		t.Fatal(err)
	}
	if evs[0].Type != watch.Deleted || evs[0].Encodings == nil || evs[0].Encodings == l2.Encodings[0] {
		t.Fatalf("DELETED event cache = %p (live version's %p); want its own", evs[0].Encodings, l2.Encodings[0])
	}
	if err := s.Compact(l2.RV); err != nil {
		t.Fatal(err)
	}
	if again := mustList(t, s, l2.RV); again.Encodings[0] != l2.Encodings[0] {
		t.Fatal("compaction to a version's RV dropped its cache")
	}
}

// mustList lists every key of "cm" at rv.
func mustList(t *testing.T, s *Store, rv int64) ListResult {
	t.Helper()
	l, err := s.List("cm", ListOptions{RV: rv})
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// TestEncodingsGet checks the memo: one encode per slot, slots apart,
// errors not cached, concurrent callers agreeing, and nil caching nothing.
func TestEncodingsGet(t *testing.T) {
	var e Encodings
	calls := 0
	enc := func(b string) func() ([]byte, error) {
		return func() ([]byte, error) { calls++; return []byte(b), nil }
	}
	for range 2 {
		if got, _ := e.Get(0, enc("json")); string(got) != "json" {
			t.Fatalf("slot 0 = %q", got)
		}
	}
	if got, _ := e.Get(1, enc("proto")); string(got) != "proto" || calls != 2 {
		t.Fatalf("slot 1 = %q after %d encodes; want proto after 2", got, calls)
	}
	boom := errors.New("boom")
	var f Encodings
	if _, err := f.Get(0, func() ([]byte, error) { return nil, boom }); !errors.Is(err, boom) {
		t.Fatalf("err = %v", err)
	}
	if got, _ := f.Get(0, enc("later")); string(got) != "later" {
		t.Fatalf("after an error, slot 0 = %q; want a fresh encode", got)
	}
	var g Encodings
	var wg sync.WaitGroup
	results := make([][]byte, 8)
	for i := range results {
		wg.Go(func() { results[i], _ = g.Get(0, func() ([]byte, error) { return []byte{byte(i)}, nil }) })
	}
	wg.Wait()
	for _, r := range results {
		if string(r) != string(results[0]) {
			t.Fatalf("concurrent callers got %v, want one winner", results)
		}
	}
	var nilEnc *Encodings
	calls = 0
	nilEnc.Get(0, enc("x"))
	nilEnc.Get(0, enc("x"))
	if calls != 2 {
		t.Fatalf("nil cache encoded %d times, want 2 (no caching)", calls)
	}
}

// TestCachedSlots checks that CachedSlots reads what Get would, item by
// item, across its chunks: the cached bytes (an empty encoding too), nil
// for a slot not filled yet and for a nil Encodings, appended after dst's
// items, and without filling anything.
func TestCachedSlots(t *testing.T) {
	const n = 2*cachedChunk + 3
	encs := make([]*Encodings, n)
	want := make([][]byte, n)
	for i := range encs {
		switch i % 4 {
		case 0: // nil: caches nothing
		case 1: // not cached yet
			encs[i] = &Encodings{}
		case 2:
			encs[i] = &Encodings{}
			want[i], _ = encs[i].Get(2, func() ([]byte, error) { return bytes.Repeat([]byte{byte(i)}, i), nil })
		case 3:
			encs[i] = &Encodings{}
			want[i], _ = encs[i].Get(2, func() ([]byte, error) { return []byte{}, nil })
			encs[i].Get(1, func() ([]byte, error) { return []byte("other slot"), nil })
		}
	}
	head := []byte("dst's own")
	got := CachedSlots(encs, 2, [][]byte{head})
	if len(got) != n+1 || !bytes.Equal(got[0], head) {
		t.Fatalf("CachedSlots returned %d items starting %q; want dst's item, then %d", len(got), got[0], n)
	}
	for i, b := range got[1:] {
		if (b == nil) != (want[i] == nil) || !bytes.Equal(b, want[i]) {
			t.Fatalf("item %d: CachedSlots = %q (nil %v); want %q (nil %v)", i, b, b == nil, want[i], want[i] == nil)
		}
		if b != nil && cap(b) != len(b) {
			t.Fatalf("item %d: cap %d > len %d: an append would write into the cache", i, cap(b), len(b))
		}
	}
	if again := CachedSlots(encs[1:2], 2, nil); again[0] != nil {
		t.Fatalf("CachedSlots filled a slot: %q", again[0])
	}
}

// TestEncodingsView checks the view memo: one build per key, a new key
// replacing the old one (never returning a view built under another key),
// errors not memoised, and nil memoising nothing.
func TestEncodingsView(t *testing.T) {
	type schema struct{ n int }
	v1, v2 := &schema{1}, &schema{2}
	var e Encodings
	builds := 0
	build := func(val string) func() (any, error) {
		return func() (any, error) { builds++; return val, nil }
	}
	tests := []struct {
		key        any
		val        string
		want       string
		wantBuilds int
	}{
		{v1, "a", "a", 1},
		{v1, "b", "a", 1}, // memoised: build not called
		{v2, "c", "c", 2}, // another key: rebuilt, replacing
		{v1, "d", "d", 3}, // the first key is gone
	}
	for i, tt := range tests {
		got, err := e.View(tt.key, build(tt.val))
		if err != nil || got != tt.want || builds != tt.wantBuilds {
			t.Fatalf("#%d: View(%v) = %v, %v after %d builds; want %s after %d", i, tt.key, got, err, builds, tt.want, tt.wantBuilds)
		}
	}
	boom := errors.New("boom")
	var f Encodings
	if _, err := f.View(v1, func() (any, error) { return nil, boom }); !errors.Is(err, boom) {
		t.Fatalf("err = %v", err)
	}
	if got, _ := f.View(v1, build("later")); got != "later" {
		t.Fatalf("after an error, View = %v; want a fresh build", got)
	}
	var nilEnc *Encodings
	builds = 0
	nilEnc.View(v1, build("x"))
	nilEnc.View(v1, build("x"))
	if builds != 2 {
		t.Fatalf("nil memo built %d times, want 2 (no memo)", builds)
	}
}

// TestGetVersionSharesEncodings: GetVersion hands out the same encodings a
// LIST of the version does.
func TestGetVersionSharesEncodings(t *testing.T) {
	s := New(Options{})
	if _, err := s.Create("cm", "a", newConfigMap("ns", "a", 1)); err != nil {
		t.Fatal(err)
	}
	obj, enc, err := s.GetVersion("cm", "a", 0)
	if err != nil {
		t.Fatal(err)
	}
	l := mustList(t, s, 0)
	if obj != l.Items[0] || enc == nil || enc != l.Encodings[0] {
		t.Fatalf("GetVersion = %p, %p; LIST = %p, %p; want the same, non-nil", obj, enc, l.Items[0], l.Encodings[0])
	}
	if _, _, err := s.GetVersion("cm", "b", 0); !errors.Is(err, ErrNotFound) {
		t.Fatalf("GetVersion of a missing key: %v, want ErrNotFound", err)
	}
}
