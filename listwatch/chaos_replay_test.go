package listwatch

import (
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

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
// with the same message, or a pass). It is a measurement, not part of
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
	// run runs a search and returns rapid's report and how its first
	// check ended.
	run := func() (report, first string) {
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
				runChaos(t, rt, m, nil)
			})
		})
		return ft.Message(), first
	}
	seed := os.Getenv("LWSIM_REPLAY_SEED")
	if seed == "" {
		report, _ := run()
		m := rapidSeed.FindStringSubmatch(report)
		if m == nil {
			t.Fatalf("no failing seed in rapid's report:\n%.800s", report)
		}
		seed = m[1]
	}
	defer setFlag(t, "rapid.checks", "1")()
	defer setFlag(t, "rapid.seed", seed)()
	outcomes := map[string]int{}
	flaky := 0
	for range n {
		report, first := run()
		outcomes[first]++
		if strings.Contains(report, "flaky test") {
			flaky++
		}
	}
	most := 0
	for _, c := range outcomes {
		most = max(most, c)
	}
	t.Logf("mutant %q in %v, seed %s: %d of %d replays ended the most common way, %d distinct outcomes, rapid called %d flaky",
		name, kinds, seed, most, n, len(outcomes), flaky)
	for o, c := range outcomes {
		t.Logf("%d×: %.300s", c, o)
	}
	if len(outcomes) != 1 {
		t.Errorf("seed %s replayed %d different ways", seed, len(outcomes))
	}
}
