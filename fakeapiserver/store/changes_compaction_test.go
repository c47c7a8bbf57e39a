package store

import (
	"errors"
	"strconv"
	"strings"
	"testing"
)

// TestChangesSurviveOtherResourcesCompaction: compaction moved by other
// resources' writes does not cut off a reader of a quiet resource that has
// seen all of its events, as the watch cache's history is per resource;
// a reader that would miss one of the resource's own dropped events gets
// ErrCompacted.
func TestChangesSurviveOtherResourcesCompaction(t *testing.T) {
	s := New(Options{})
	cm := createRV(t, s, "configmaps", "ns/a")
	for _, k := range []string{"ns/s1", "ns/s2", "ns/s3"} {
		createRV(t, s, "secrets", k)
	}
	if err := s.Compact(s.CurrentRV()); err != nil {
		t.Fatal(err)
	}
	evs, _, err := s.Changes("configmaps", cm)
	if err != nil || len(evs) != 0 {
		t.Errorf("Changes(configmaps, %d) after compacting to %d = %d events, %v; want none, nil", cm, s.CompactedRV(), len(evs), err)
	}
	if _, _, err := s.Changes("configmaps", cm-1); !errors.Is(err, ErrCompacted) {
		t.Errorf("Changes(configmaps, %d) = %v, want ErrCompacted: its create at %d was dropped", cm-1, err, cm)
	}
	if _, _, err := s.Changes("secrets", cm); !errors.Is(err, ErrCompacted) {
		t.Errorf("Changes(secrets, %d) = %v, want ErrCompacted", cm, err)
	}
}

// createRV creates a ConfigMap-shaped object under key and returns its RV.
func createRV(t *testing.T, s *Store, resource, key string) int64 {
	t.Helper()
	ns, name, _ := strings.Cut(key, "/")
	obj, err := s.Create(resource, key, newConfigMap(ns, name, 1))
	if err != nil {
		t.Fatalf("Create(%s, %s) = %v", resource, key, err)
	}
	rv, err := strconv.ParseInt(view(obj).RV, 10, 64)
	if err != nil {
		t.Fatalf("Create(%s, %s) rv: %v", resource, key, err)
	}
	return rv
}
