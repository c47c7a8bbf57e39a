package bench

import (
	"errors"
	"testing"

	"github.com/lw-sim/lw-sim/faults"
)

// TestFanoutDropsRoundsWithAnEndedWatch: a fan-out round in which the
// server ends a watch early (as kube-apiserver ends a slow watcher's) is
// dropped and run again, so one such round does not cost the bench its
// table; a server that ends a watch in every round still fails it, after
// as many extra rounds as asked for.
func TestFanoutDropsRoundsWithAnEndedWatch(t *testing.T) {
	f := startFake(t)
	c, err := newClients(f.Target)
	if err != nil {
		t.Fatal(err)
	}
	for _, ns := range []string{"w", "w2"} {
		if err := createNamespace(t.Context(), c.cs, ns); err != nil {
			t.Fatal(err)
		}
	}
	opts := Options{Watchers: 3, Writes: 5, Workers: 2, Rounds: 2}
	end := faults.Fault{Kind: faults.EndWatch, Streams: faults.NewStreams, Trigger: faults.Trigger{Events: 2}}

	once := end
	once.Times = 1
	if _, err := f.Server.Faults().Add(once); err != nil {
		t.Fatal(err)
	}
	m, err := measureFanout(t.Context(), c, "w", opts)
	if err != nil {
		t.Fatalf("measureFanout with one ended watch: %v", err)
	}
	if len(m) != 1 || m[0].Value <= 0 {
		t.Errorf("measureFanout = %+v, want one positive rate", m)
	}
	if n := len(f.Server.Faults().Records()); n != 1 {
		t.Fatalf("the EndWatch fault fired %d times, want 1", n)
	}

	f.Server.Faults().Clear()
	if _, err := f.Server.Faults().Add(end); err != nil {
		t.Fatal(err)
	}
	// Another namespace: a round names its configmaps by its number.
	if _, err := measureFanout(t.Context(), c, "w2", opts); !errors.Is(err, errWatchClosed) {
		t.Errorf("measureFanout with a watch ended every round = %v, want errWatchClosed", err)
	}
}
