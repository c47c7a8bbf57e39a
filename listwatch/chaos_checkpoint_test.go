package listwatch

import (
	"strings"
	"sync/atomic"
	"testing"

	"k8s.io/client-go/tools/cache"
	"pgregory.net/rapid"

	"github.com/lw-sim/lw-sim/internal/rapidfail"
)

// dropFirstUpdate loses the handler's first update and delivers every
// later one: the handler's view is wrong until the object changes again,
// then right. Only a quiescent point in between can see it.
type dropFirstUpdate struct {
	cache.ResourceEventHandler
	dropped *atomic.Bool
}

func (d dropFirstUpdate) OnUpdate(old, obj any) {
	if d.dropped.CompareAndSwap(false, true) {
		return
	}
	d.ResourceEventHandler.OnUpdate(old, obj)
}

// TestChaosCheckpointCatchesTransientLoss: the client machine's
// mid-schedule quiescent points check the invariants. On a fixed schedule
// (create a; sync; update a, the update lost; update a again), a client
// that loses one update and delivers the next passes the check after the
// schedule alone, and fails the handler invariant at a quiescent point
// between the two updates.
func TestChaosCheckpointCatchesTransientLoss(t *testing.T) {
	rapidfail.NoFailFiles(t)
	defer setFlag(t, "rapid.checks", "1")()
	defer setFlag(t, "rapid.shrinktime", "1s")()
	for _, tc := range []struct {
		name       string
		checkpoint bool
	}{{"after the schedule only", false}, {"mid-schedule", true}} {
		t.Run(tc.name, func(t *testing.T) {
			ft := rapidfail.New(t)
			rapid.Check(ft, func(rt *rapid.T) {
				inBubble(t, rt, func(t *testing.T, rt *rapid.T) {
					mut := clientMutant{wrapHandler: func(h cache.ResourceEventHandler) cache.ResourceEventHandler {
						return dropFirstUpdate{h, new(atomic.Bool)}
					}}
					r := startChaosRun(t, 100)
					r.writeKey(rt, "a", false)
					r.startSubject("listwatch", mut)
					r.checkpoint(rt)
					r.writeKey(rt, "a", false) // lost
					if tc.checkpoint {
						r.checkpoint(rt)
					}
					r.writeKey(rt, "a", false) // delivered: the view is right again
					r.finish(rt)
				})
			})
			switch {
			case !tc.checkpoint && ft.Failed():
				t.Fatalf("the check after the schedule saw the healed loss (the test no longer shows what only a mid-schedule point sees):\n%s", ft.Message())
			case tc.checkpoint && !ft.Failed():
				t.Fatal("a mid-schedule quiescent point missed an update the handler lost")
			case tc.checkpoint && !strings.Contains(ft.Message(), "handler: quiescent point 2 (mid-schedule): listwatch: "):
				t.Fatalf("failed, but not the handler invariant at the mid-schedule point:\n%s", ft.Message())
			}
		})
	}
}
