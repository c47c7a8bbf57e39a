package listwatch

import (
	"context"
	"fmt"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"pgregory.net/rapid"

	"github.com/lw-sim/lw-sim/fakeapiserver"
)

// TestRapidGuarantees runs the client against the fake while rapid draws a
// random schedule of writes, watch cuts, compactions and partitions (new
// watches held back while the server moves on, so compaction turns the
// re-watch into a 410). After the schedule, with faults healed and the
// server quiet, guarantees 1–3 must hold. Each check uses a namespace of
// its own on one shared server.
func TestRapidGuarantees(t *testing.T) {
	t.Parallel()
	srv := fakeapiserver.Start(t)
	cs := srv.Clientset()
	checks, relists := 0, 0
	rapid.Check(t, func(rt *rapid.T) {
		checks++
		ns := fmt.Sprintf("rapid-%d", checks)
		if _, err := cs.CoreV1().Namespaces().Create(context.Background(),
			&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
			rt.Fatalf("Create(namespace %s) = %v", ns, err)
		}
		e := &env{t: rt, tt: t, srv: srv, cs: cs, ns: ns}
		e.lw = &faultLW{inner: FromTyped(cs.CoreV1().ConfigMaps(ns)), srv: srv}
		e.oracle = startOracle(t, cs, ns)
		defer e.oracle.stop()

		rec, log := newRecorder(), &traceLog{}
		pageSize := rapid.Int64Range(1, 4).Draw(rt, "pageSize")
		c := New(e.lw, Options{Handler: rec, Trace: log.add, Backoff: fastBackoff, PageSize: pageSize})
		ctx, cancel := context.WithCancel(context.Background())
		var wg sync.WaitGroup
		wg.Go(func() { c.Run(ctx) })
		defer func() { cancel(); wg.Wait() }()

		exists := map[string]bool{}
		held := false
		ops := rapid.IntRange(1, 25).Draw(rt, "ops")
		for range ops {
			switch op := rapid.SampledFrom([]string{"write", "write", "write", "cut", "compact", "partition"}).Draw(rt, "op"); op {
			case "write":
				key := rapid.SampledFrom([]string{"a", "b", "c", "d"}).Draw(rt, "key")
				switch {
				case !exists[key]:
					e.create(key)
					exists[key] = true
				case rapid.Bool().Draw(rt, "delete"):
					e.del(key)
					exists[key] = false
				default:
					e.update(key)
				}
			case "cut":
				e.lw.cut()
			case "compact":
				e.compact()
			case "partition":
				if held {
					e.lw.release()
				} else {
					e.lw.hold()
					e.lw.cut()
				}
				held = !held
			}
		}
		if held {
			e.lw.release()
		}
		waitUntil(rt, "HasSynced", c.HasSynced)
		e.waitConverged(c.Indexer()) // guarantee 1
		rec.waitCaughtUp(rt, c.Indexer())
		// The oracle's own watch may lag the client: a version it has not
		// seen end yet (a delete the client's relist already reflects)
		// would count as current and never delivered.
		e.oracle.waitFor(rt, e.writes)
		rec.checkOrder(rt, true)                               // guarantee 2 (handler)
		rec.checkNoLoss(rt, e.oracle.versions(), log.held(rt)) // guarantees 3 and 2 (client RV)
		relists += log.count(TraceRelist)
	})
	t.Logf("%d schedules, %d relists after 410 among them", checks, relists)
}
