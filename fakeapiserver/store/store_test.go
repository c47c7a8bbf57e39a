package store

import (
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
)

func TestFreshStore(t *testing.T) {
	s := New(Options{})
	if got := s.CurrentRV(); got != 1 {
		t.Errorf("CurrentRV() = %d, want 1", got)
	}
	if got := s.CompactedRV(); got != 0 {
		t.Errorf("CompactedRV() = %d, want 0", got)
	}
	res, err := s.List("configmaps", ListOptions{RV: 1})
	if err != nil || len(res.Items) != 0 || res.RV != 1 {
		t.Errorf("List(rv=1) = %+v, %v, want empty page at rv 1", res, err)
	}
	got, err := s.Create("configmaps", "ns/a", newConfigMap("ns", "a", 1))
	if err != nil {
		t.Fatalf("Create() error = %v", err)
	}
	if rv := view(got).RV; rv != "2" {
		t.Errorf("Create() resourceVersion = %q, want %q", rv, "2")
	}
}

// TestErrors pins each error of the contract to the call that returns it.
func TestErrors(t *testing.T) {
	s := New(Options{})
	mustCreate(t, s, "configmaps", "ns/a")                       // rv 2
	mustCreate(t, s, "configmaps", "ns/b")                       // rv 3
	if _, err := s.Delete("configmaps", "ns/b", 0); err != nil { // rv 4
		t.Fatalf("Delete() error = %v", err)
	}
	if err := s.Compact(3); err != nil {
		t.Fatalf("Compact(3) error = %v", err)
	}
	tests := []struct {
		name string
		call func() error
		want error
	}{
		{"create live key", func() error { _, err := s.Create("configmaps", "ns/a", newConfigMap("ns", "a", 0)); return err }, ErrAlreadyExists},
		{"update missing key", func() error { _, err := s.Update("configmaps", "ns/b", newConfigMap("ns", "b", 0), 0); return err }, ErrNotFound},
		{"update missing resource", func() error { _, err := s.Update("secrets", "ns/a", newConfigMap("ns", "a", 0), 0); return err }, ErrNotFound},
		{"update stale rv", func() error { _, err := s.Update("configmaps", "ns/a", newConfigMap("ns", "a", 0), 3); return err }, ErrConflict},
		{"delete stale rv", func() error { _, err := s.Delete("configmaps", "ns/a", 1); return err }, ErrConflict},
		{"delete missing key", func() error { _, err := s.Delete("configmaps", "ns/b", 0); return err }, ErrNotFound},
		{"get deleted key", func() error { _, err := s.Get("configmaps", "ns/b", 0); return err }, ErrNotFound},
		{"get before delete", func() error { _, err := s.Get("configmaps", "ns/b", 3); return err }, nil},
		{"get compacted rv", func() error { _, err := s.Get("configmaps", "ns/a", 2); return err }, ErrCompacted},
		{"get negative rv", func() error { _, err := s.Get("configmaps", "ns/a", -1); return err }, ErrCompacted},
		{"get future rv", func() error { _, err := s.Get("configmaps", "ns/a", 5); return err }, ErrFutureRV},
		{"list compacted rv", func() error { _, err := s.List("configmaps", ListOptions{RV: 2}); return err }, ErrCompacted},
		{"list future rv", func() error { _, err := s.List("configmaps", ListOptions{RV: 5}); return err }, ErrFutureRV},
		{"changes compacted rv", func() error { _, _, err := s.Changes("configmaps", 2); return err }, ErrCompacted},
		{"changes at compacted rv", func() error { _, _, err := s.Changes("configmaps", 3); return err }, nil},
		{"changes future rv", func() error { _, _, err := s.Changes("configmaps", 100); return err }, nil},
		{"compact future rv", func() error { return s.Compact(5) }, ErrFutureRV},
		{"compact old rv", func() error { return s.Compact(2) }, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.call(); !errors.Is(err, tt.want) || (tt.want == nil && err != nil) {
				t.Errorf("error = %v, want %v", err, tt.want)
			}
		})
	}
	if got := s.CurrentRV(); got != 4 {
		t.Errorf("CurrentRV() after failed writes = %d, want 4", got)
	}
}

func TestCreateWithoutMetadata(t *testing.T) {
	s := New(Options{})
	if _, err := s.Create("statuses", "a", &metav1.Status{}); err == nil {
		t.Errorf("Create(*metav1.Status) error = nil, want an error")
	}
	if got := s.CurrentRV(); got != 1 {
		t.Errorf("CurrentRV() after failed Create = %d, want 1", got)
	}
}

func mustCreate(t testing.TB, s *Store, resource, key string) {
	t.Helper()
	if _, err := s.Create(resource, key, newConfigMap("ns", key, 0)); err != nil {
		t.Fatalf("Create(%s, %s) error = %v", resource, key, err)
	}
}

// TestDeleteEvent checks that a delete reports a copy stamped with its own RV
// and leaves the stored last state, which older reads still return, alone.
func TestDeleteEvent(t *testing.T) {
	s := New(Options{})
	mustCreate(t, s, "configmaps", "ns/a") // rv 2
	got, err := s.Delete("configmaps", "ns/a", 2)
	if err != nil {
		t.Fatalf("Delete() error = %v", err)
	}
	evs, _, err := s.Changes("configmaps", 2)
	if err != nil {
		t.Fatalf("Changes() error = %v", err)
	}
	old, err := s.Get("configmaps", "ns/a", 2)
	if err != nil {
		t.Fatalf("Get(rv=2) error = %v", err)
	}
	want := []eventView{{
		Type: string(watch.Deleted), Resource: "configmaps", Key: "ns/a", RV: 3,
		Object:     &objView{Namespace: "ns", Name: "ns/a", RV: "3", V: "0"},
		PrevObject: &objView{Namespace: "ns", Name: "ns/a", RV: "2", V: "0"},
	}}
	if diff := cmp.Diff(want, viewEvents(evs)); diff != "" {
		t.Errorf("Changes() mismatch (-want +got):\n%s", diff)
	}
	if evs[0].Object() != got || evs[0].PrevObject() != old {
		t.Errorf("Delete() returned %p, event has %p (prev %p, stored %p); want the event's objects", got, evs[0].Object(), evs[0].PrevObject(), old)
	}
}

// TestCompactForgetsIdleResources checks that compaction drops resources with
// nothing left to read, and that dropping one loses nothing.
func TestCompactForgetsIdleResources(t *testing.T) {
	s := New(Options{})
	mustCreate(t, s, "configmaps", "ns/a")
	if _, err := s.Delete("configmaps", "ns/a", 0); err != nil {
		t.Fatalf("Delete() error = %v", err)
	}
	if err := s.Compact(s.CurrentRV()); err != nil {
		t.Fatalf("Compact() error = %v", err)
	}
	if n := len(s.resources); n != 0 {
		t.Errorf("len(resources) = %d after compacting everything away, want 0", n)
	}
	res, err := s.List("configmaps", ListOptions{RV: s.CurrentRV()})
	if err != nil || len(res.Items) != 0 {
		t.Errorf("List() = %v, %v, want empty", res.Items, err)
	}
}

// TestListFilterSkipsLeadingMisses checks a filtered List whose first keys
// do not match: without a limit it returns every match, and with one it
// fills the page past the misses and counts what follows as More (the
// walk is bounded by the prefix's rank range, not by the first item).
func TestListFilterSkipsLeadingMisses(t *testing.T) {
	s := New(Options{})
	for i, v := range []int{1, 3, 2, 5, 4, 6} {
		if _, err := s.Create("cm", fmt.Sprintf("ns/c%d", i), newConfigMap("ns", fmt.Sprintf("c%d", i), v)); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		limit    int
		wantKeys []string
		wantMore bool
	}{
		{0, []string{"ns/c2", "ns/c4", "ns/c5"}, false},
		{2, []string{"ns/c2", "ns/c4"}, true},
		{3, []string{"ns/c2", "ns/c4", "ns/c5"}, false},
	} {
		got, err := s.List("cm", ListOptions{Prefix: "ns/", Limit: tc.limit, Filter: isEven})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tc.wantKeys, got.Keys); diff != "" || got.More != tc.wantMore {
			t.Errorf("List(limit %d, even) keys (-want +got):\n%s\nMore = %v, want %v", tc.limit, diff, got.More, tc.wantMore)
		}
	}
}
