package store

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/lw-sim/lw-sim/internal/testdeadline"
)

// writeCycle makes n writes to resource: it creates, updates and deletes the
// keys prefix/0..4 in turn, so every write succeeds without coordination.
func writeCycle(t *testing.T, s *Store, resource, prefix string, n int) {
	for i := range n {
		key := fmt.Sprintf("%s/%d", prefix, i%5)
		var err error
		switch (i / 5) % 3 {
		case 0:
			_, err = s.Create(resource, key, newConfigMap(prefix, key, i))
		case 1:
			_, err = s.Update(resource, key, newConfigMap(prefix, key, i), 0)
		default:
			_, err = s.Delete(resource, key, 0)
		}
		if err != nil {
			t.Errorf("write %d to %s %s: %v", i, resource, key, err)
			return
		}
	}
}

// watchAll follows resource with Changes from the start until it has seen
// want events, and returns their RVs in the order seen.
func watchAll(t *testing.T, s *Store, resource string, want int) []int64 {
	hung, cancel := testdeadline.Context(t) // only a hang fails the wait
	defer cancel()
	var seen []int64
	last := int64(0)
	for {
		evs, ch, err := s.Changes(resource, last)
		if err != nil {
			t.Errorf("Changes(%s, %d): %v", resource, last, err)
			return seen
		}
		for _, ev := range evs {
			if ev.RV <= last {
				t.Errorf("Changes(%s, %d) returned rv %d", resource, last, ev.RV)
			}
			last = ev.RV
			seen = append(seen, ev.RV)
		}
		if len(seen) >= want {
			return seen
		}
		select {
		case <-ch:
		case <-hung.Done():
			t.Errorf("watcher of %s: saw %d of %d events before the test's deadline", resource, len(seen), want)
			return seen
		}
	}
}

// TestConcurrentWatchersSeeEveryEventOnce runs writers and pull-based watchers
// together: each watcher must see each event of its resource exactly once, in
// RV order. It relies on TestMain's leak check to prove all goroutines end.
func TestConcurrentWatchersSeeEveryEventOnce(t *testing.T) {
	const writers, writesEach, watchersEach = 8, 150, 3
	resources := []string{"configmaps", "secrets"}
	s := New(Options{})
	perResource := writers / len(resources) * writesEach

	var wg sync.WaitGroup
	seen := make([][]int64, len(resources)*watchersEach)
	for i := range seen {
		wg.Go(func() { seen[i] = watchAll(t, s, resources[i%len(resources)], perResource) })
	}
	for w := range writers {
		wg.Go(func() { writeCycle(t, s, resources[w%len(resources)], fmt.Sprintf("w%d", w), writesEach) })
	}
	wg.Wait()

	for i, got := range seen {
		res := resources[i%len(resources)]
		evs, _, err := s.Changes(res, 0)
		if err != nil {
			t.Fatalf("Changes(%s, 0): %v", res, err)
		}
		var want []int64
		for _, ev := range evs {
			want = append(want, ev.RV)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("watcher %d of %s mismatch (-want +got):\n%s", i, res, diff)
		}
	}
	if got, want := s.CurrentRV(), int64(1+writers*writesEach); got != want {
		t.Errorf("CurrentRV() = %d, want %d", got, want)
	}
}

// TestConcurrentReadsAndCompaction races lists, gets and compaction against
// writers; every page must be a consistent, ordered state at its own RV.
//
// The store checkpoints every few writes, so reads between checkpoints
// replay writes over a checkpoint while writers edit the working tree:
// under -race, a reader touching a node a writer changes in place fails.
func TestConcurrentReadsAndCompaction(t *testing.T) {
	const writers, writesEach, readers = 4, 300, 4
	s := New(Options{})
	s.checkpointEvery = 3
	var wg sync.WaitGroup
	var writing sync.WaitGroup
	for w := range writers {
		writing.Go(func() { writeCycle(t, s, "configmaps", fmt.Sprintf("w%d", w), writesEach) })
	}
	done := make(chan struct{})
	wg.Go(func() {
		writing.Wait()
		close(done)
	})
	wg.Go(func() { compactUntil(t, s, done) })
	for range readers {
		wg.Go(func() { readUntil(t, s, done) })
	}
	wg.Wait()
}

// compactUntil keeps compacting to halfway between the compaction point and
// the current RV until done is closed.
func compactUntil(t *testing.T, s *Store, done <-chan struct{}) {
	for {
		select {
		case <-done:
			return
		default:
		}
		rv := (s.CompactedRV() + s.CurrentRV()) / 2
		if err := s.Compact(rv); err != nil {
			t.Errorf("Compact(%d): %v", rv, err)
			return
		}
	}
}

// readUntil lists pages at the latest RV and re-reads one of their items at
// the page's RV until done is closed. A Get may lose the race with
// compaction, which must then say ErrCompacted.
func readUntil(t *testing.T, s *Store, done <-chan struct{}) {
	for {
		select {
		case <-done:
			return
		default:
		}
		page, err := s.List("configmaps", ListOptions{Limit: 7})
		if err != nil {
			t.Errorf("List(): %v", err)
			return
		}
		if !slices.IsSorted(page.Keys) {
			t.Errorf("List() keys %q not sorted", page.Keys)
		}
		if len(page.Keys) == 0 {
			continue
		}
		obj, err := s.Get("configmaps", page.Keys[0], page.RV)
		switch {
		case errors.Is(err, ErrCompacted):
		case err != nil:
			t.Errorf("Get(%s, %d): %v", page.Keys[0], page.RV, err)
		case obj != page.Items[0]:
			t.Errorf("Get(%s, %d) returned another object than List at the same RV", page.Keys[0], page.RV)
		}
	}
}
