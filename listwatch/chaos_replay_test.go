package listwatch

import (
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/client-go/util/consistencydetector"
	"pgregory.net/rapid"

	"github.com/lw-sim/lw-sim/internal/rapidfail"
)

// rapidSeed reads the seed rapid's failure report names.
var rapidSeed = regexp.MustCompile(`-rapid\.seed=(\d+)`)

// TestChaosReplayDeterminism measures how exactly one rapid seed replays
// the client machine: it finds a seed that kills a client mutant (or
// takes LWSIM_REPLAY_SEED), replays it LWSIM_REPLAY_N times (default 20)
// and fails unless every replay ends the same way (the same invariant
// with the same message, or a pass); it also counts equal traces (every
// request and stream event of every subject, chaosRun.trace), which
// show a difference in timing that the outcome does not. It is a measurement, not part of
// make test: set LWSIM_REPLAY_MUTANT to a client mutant's name, and
// LWSIM_REPLAY_KINDS to the subjects to run it in, comma-separated (by
// default this package's LIST+WATCH client only, as the mutant search
// does; "all" for all five, so client-go's draws are replayed too).
func TestChaosReplayDeterminism(t *testing.T) {
	name := os.Getenv("LWSIM_REPLAY_MUTANT")
	if name == "" {
		t.Skip("a measurement: set LWSIM_REPLAY_MUTANT (and LWSIM_REPLAY_KINDS, LWSIM_REPLAY_SEED, LWSIM_REPLAY_N)")
	}
	var mutant func() clientMutant
	for _, cm := range clientMutants {
		if cm.name == name {
			mutant = cm.mut
		}
	}
	if mutant == nil {
		t.Fatalf("no client mutant %q", name)
	}
	kinds := []string{"listwatch"}
	switch v := os.Getenv("LWSIM_REPLAY_KINDS"); v {
	case "":
	case "all":
		kinds = chaosKinds
	default:
		kinds = strings.Split(v, ",")
	}
	n := 20
	if v := os.Getenv("LWSIM_REPLAY_N"); v != "" {
		n, _ = strconv.Atoi(v)
	}
	rapidfail.NoFailFiles(t)
	defer consistencydetector.SetDataConsistencyDetectionForWatchListEnabledForTest(false)
	defer setFlag(t, "rapid.shrinktime", "1ms")()
	// run runs a search and returns rapid's report, how its first check
	// ended and that check's trace.
	run := func() (report, first, trace string) {
		calls := 0
		ft := rapidfail.New(t)
		rapid.Check(ft, func(rt *rapid.T) {
			calls++
			call := calls
			m := mutant()
			m.kinds = kinds
			inBubble(t, rt, func(t *testing.T, rt *rapid.T) {
				defer func() {
					p := recover()
					if call == 1 {
						first = "pass"
						if p != nil {
							first = fmt.Sprint(p)
						}
					}
					if p != nil {
						panic(p)
					}
				}()
				var stats chaosStats
				defer func() {
					if call == 1 {
						trace = stats.trace
					}
				}()
				runChaos(t, rt, m, &stats)
			})
		})
		return ft.Message(), first, trace
	}
	seed := os.Getenv("LWSIM_REPLAY_SEED")
	if seed == "" {
		report, _, _ := run()
		m := rapidSeed.FindStringSubmatch(report)
		if m == nil {
			t.Fatalf("no failing seed in rapid's report:\n%.800s", report)
		}
		seed = m[1]
	}
	defer setFlag(t, "rapid.checks", "1")()
	defer setFlag(t, "rapid.seed", seed)()
	outcomes, traces := map[string]int{}, map[string]int{}
	flaky := 0
	for range n {
		report, first, trace := run()
		outcomes[first]++
		traces[trace]++
		if strings.Contains(report, "flaky test") {
			flaky++
		}
	}
	most, mostTrace := 0, 0
	for _, c := range outcomes {
		most = max(most, c)
	}
	for _, c := range traces {
		mostTrace = max(mostTrace, c)
	}
	t.Logf("mutant %q in %v, seed %s: %d of %d replays ended the most common way (%d distinct outcomes), %d had the most common trace (%d distinct traces), rapid called %d flaky",
		name, kinds, seed, most, n, len(outcomes), mostTrace, len(traces), flaky)
	for o, c := range outcomes {
		t.Logf("%d×: %.300s", c, o)
	}
	if len(traces) > 1 {
		var two []string
		for tr := range traces {
			if two = append(two, tr); len(two) == 2 {
				break
			}
		}
		t.Logf("two of the traces (-one +other):\n%s", cmp.Diff(two[0], two[1]))
	}
	if len(outcomes) != 1 || len(traces) != 1 {
		t.Errorf("seed %s replayed %d different ways, with %d different traces", seed, len(outcomes), len(traces))
	}
}
