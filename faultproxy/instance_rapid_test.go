package faultproxy

import (
	"context"
	"fmt"
	"maps"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"pgregory.net/rapid"

	"github.com/lw-sim/lw-sim/faults"
	"github.com/lw-sim/lw-sim/watchcheck"
)

// instanceOp is one step of the instance-fault machine.
type instanceOp struct {
	Kind string // write, delete, other, fault, proxyWrite, sleep
	Name string
	// Fault is the instance fault of a "fault" step.
	Fault faults.Fault
	Sleep time.Duration
}

func (o instanceOp) String() string {
	switch o.Kind {
	case "fault":
		return fmt.Sprintf("%s lag=%d delay=%v", o.Fault.Kind, o.Fault.Lag, time.Duration(o.Fault.Delay))
	case "sleep":
		return "sleep " + o.Sleep.String()
	}
	return o.Kind + " " + o.Name
}

// drawInstanceOp draws one step.
func drawInstanceOp(rt *rapid.T, label string) instanceOp {
	name := func() string { return "cm" + strconv.Itoa(rapid.IntRange(0, 3).Draw(rt, label+"name")) }
	switch rapid.IntRange(0, 11).Draw(rt, label) {
	case 0, 1, 2:
		return instanceOp{Kind: "write", Name: name()}
	case 3:
		return instanceOp{Kind: "delete", Name: name()}
	case 4:
		return instanceOp{Kind: "other", Name: name()}
	case 5:
		return instanceOp{Kind: "proxyWrite", Name: name()}
	case 6:
		f := faults.Fault{Kind: faults.LagAPIServer}
		if rapid.Bool().Draw(rt, label+"byEvents") {
			f.Lag = int64(rapid.IntRange(1, 3).Draw(rt, label+"lag"))
		} else {
			f.Delay = faults.Duration(time.Duration(rapid.IntRange(1, 30).Draw(rt, label+"delay")) * time.Second)
		}
		return instanceOp{Kind: "fault", Fault: f}
	case 7:
		return instanceOp{Kind: "fault", Fault: faults.Fault{Kind: faults.FreezeAPIServer}}
	case 8:
		return instanceOp{Kind: "fault", Fault: faults.Fault{Kind: faults.PartitionAPIServer}}
	case 9:
		return instanceOp{Kind: "fault", Fault: faults.Fault{Kind: faults.RestartAPIServer}}
	case 10:
		return instanceOp{Kind: "fault", Fault: faults.Fault{Kind: faults.HealAPIServer}}
	}
	return instanceOp{Kind: "sleep", Sleep: time.Duration(rapid.IntRange(1, 90).Draw(rt, label+"sleep")) * time.Second}
}

// TestRapidProxyInstanceFaults drives an informer through the proxy while
// a drawn schedule writes upstream and lags, freezes, partitions, restarts
// and heals the proxy. Invariants: while the proxy is frozen or
// partitioned no watch event reaches the client; a write through a
// partitioned proxy gets the 504 Timeout and one through a healthy proxy
// succeeds; in the end, healed, the informer converges to the upstream's
// state, and every stream it got keeps the watch guarantees against the
// history of the writes (watchcheck: in order, no gap, no repeat,
// bookmarks never ahead of events).
func TestRapidProxyInstanceFaults(t *testing.T) {
	var stats instanceStats
	rapid.Check(t, func(rt *rapid.T) {
		watchList := rapid.Bool().Draw(rt, "watchList")
		n := rapid.IntRange(1, 25).Draw(rt, "steps")
		ops := make([]instanceOp, n)
		for i := range ops {
			ops[i] = drawInstanceOp(rt, "op"+strconv.Itoa(i))
		}
		var failure string
		synctest.Test(t, func(t *testing.T) { failure = runInstanceMachine(t, watchList, ops, &stats) })
		if failure != "" {
			rt.Fatalf("watchList=%v, schedule %v:\n%s", watchList, ops, failure)
		}
	})
	t.Logf("%+v", stats)
	if stats.Expired == 0 || stats.HeldWrites == 0 || stats.Timeouts == 0 {
		t.Errorf("the machine never met a 410, a write while held or a partitioned write: %+v", stats)
	}
}

// instanceStats counts what the machine met, so a run that never reached
// the interesting states fails.
type instanceStats struct {
	// Expired counts ERROR 410 events the informer got.
	Expired int
	// HeldWrites counts upstream writes made while the proxy held watches.
	HeldWrites int
	// Timeouts counts writes through a partitioned proxy (504).
	Timeouts int
}

// runInstanceMachine runs ops and returns the first invariant broken ("" if
// none).
func runInstanceMachine(t *testing.T, watchList bool, ops []instanceOp, stats *instanceStats) string {
	tg := proxiedTarget(t)
	var rec watchcheck.Transport
	cfg := rest.CopyConfig(tg.rest)
	cfg.ContentType, cfg.AcceptContentTypes = "application/json", "application/json"
	cfg.WrapTransport = rec.Wrap
	ctx := context.Background()
	wcms := tg.writer.CoreV1().ConfigMaps("default")
	proxied := kubernetes.NewForConfigOrDie(tg.rest).CoreV1().ConfigMaps("default")
	var h watchcheck.History
	live := map[string]watchcheck.Change{}
	note := func(cm *corev1.ConfigMap) {
		c := watchcheck.Change{RV: mustRV(cm.ResourceVersion), Key: "default/" + cm.Name, UID: string(cm.UID), Labels: maps.Clone(cm.Labels)}
		h = append(h, c)
		live[cm.Name] = c
	}
	inf := informerThrough(t, cfg, watchList)
	synctest.Wait()

	// events counts the changes and bookmarks the client got; not the
	// ERROR 410 of a restarted proxy, which a partitioned or frozen
	// instance's watch cache answers too.
	events := func() int {
		n := 0
		for _, s := range rec.Streams() {
			for _, e := range s.Events {
				if e.Type != watch.Error {
					n++
				}
			}
		}
		return n
	}
	held := false // frozen or partitioned
	partitioned := false
	for i, op := range ops {
		before := events()
		switch op.Kind {
		case "write":
			cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: op.Name, Labels: map[string]string{"step": strconv.Itoa(i)}}}
			got, err := wcms.Update(ctx, cm, metav1.UpdateOptions{})
			if apierrors.IsNotFound(err) {
				got, err = wcms.Create(ctx, cm, metav1.CreateOptions{})
			}
			if err != nil {
				return fmt.Sprintf("step %d %v: %v", i, op, err)
			}
			note(got)
		case "delete":
			c, ok := live[op.Name]
			if !ok {
				continue
			}
			if err := wcms.Delete(ctx, op.Name, metav1.DeleteOptions{}); err != nil {
				return fmt.Sprintf("step %d %v: %v", i, op, err)
			}
			_, rv := upstreamState(t, tg) // the only writer: the list's RV is the delete's
			c.RV, c.Deleted = mustRV(rv), true
			h = append(h, c)
			delete(live, op.Name)
		case "other":
			s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: op.Name, Labels: map[string]string{"step": strconv.Itoa(i)}}}
			if _, err := tg.writer.CoreV1().Secrets("default").Update(ctx, s, metav1.UpdateOptions{}); apierrors.IsNotFound(err) {
				_, err = tg.writer.CoreV1().Secrets("default").Create(ctx, s, metav1.CreateOptions{})
				if err != nil {
					return fmt.Sprintf("step %d %v: %v", i, op, err)
				}
			} else if err != nil {
				return fmt.Sprintf("step %d %v: %v", i, op, err)
			}
		case "proxyWrite":
			// Through the proxy, a label patch: 504 when partitioned.
			patch := []byte(`{"metadata":{"labels":{"step":"p` + strconv.Itoa(i) + `"}}}`)
			got, err := proxied.Patch(ctx, op.Name, "application/merge-patch+json", patch, metav1.PatchOptions{})
			switch {
			case partitioned && !apierrors.IsTimeout(err):
				return fmt.Sprintf("step %d %v through a partitioned proxy: %v, want 504 Timeout", i, op, err)
			case partitioned:
				stats.Timeouts++
			case apierrors.IsNotFound(err):
				if _, ok := live[op.Name]; ok {
					return fmt.Sprintf("step %d %v: 404 for a live object", i, op)
				}
			case err != nil:
				return fmt.Sprintf("step %d %v: %v", i, op, err)
			default:
				note(got)
			}
		case "fault":
			if _, err := tg.inj.Add(op.Fault); err != nil {
				return fmt.Sprintf("step %d %v: %v", i, op, err)
			}
			switch op.Fault.Kind {
			case faults.FreezeAPIServer:
				held = true
			case faults.PartitionAPIServer:
				held, partitioned = true, true
			case faults.HealAPIServer:
				held, partitioned = false, false
			}
		case "sleep":
			time.Sleep(op.Sleep)
		}
		synctest.Wait()
		if held && (op.Kind == "write" || op.Kind == "delete") {
			stats.HeldWrites++
		}
		if op.Kind == "fault" && op.Fault.Kind == faults.HealAPIServer {
			continue
		}
		if after := events(); held && after != before {
			return fmt.Sprintf("step %d %v: %d watch events reached the client of a frozen or partitioned proxy", i, op, after-before)
		}
	}

	if _, err := tg.inj.Add(faults.Fault{Kind: faults.HealAPIServer}); err != nil {
		return err.Error()
	}
	// Longer than the Reflector's largest backoff and a watch's timeout.
	time.Sleep(15 * time.Minute)
	synctest.Wait()
	want, _ := upstreamState(t, tg)
	if diff := cmp.Diff(want, storeState(inf)); diff != "" {
		return "informer after heal (-upstream +informer):\n" + diff
	}
	for _, s := range rec.Streams() {
		for _, e := range s.Events {
			if e.Type == watch.Error && e.Code == 410 {
				stats.Expired++
			}
		}
	}
	if err := watchcheck.Check(h, rec.Streams()...); err != nil {
		var b strings.Builder
		for _, s := range rec.Streams() {
			fmt.Fprintf(&b, "\n%s: %+v", s.Name, s.Events)
		}
		return err.Error() + b.String()
	}
	return ""
}
