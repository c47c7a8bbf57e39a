//go:debug randseednop=0

package scenarios

import (
	"math/rand"
	"os"
	"testing"
	"testing/synctest"

	"github.com/google/go-cmp/cmp"
)

// TestReplaysInBubbleAreExact: a scenario file replayed in a
// testing/synctest bubble on the in-memory listener gives the same run
// every time. With this package's clients only, it is exact to the
// request: each client sends the same requests and gets the same
// responses and events at the same virtual times. With client-go's
// Reflector and informer beside them (whose watch timeouts and backoff
// jitter come from math/rand's global source, which two client-go clients
// draw from in whatever order the scheduler runs them, and whose
// informer backs off on the bubble's clock), the timeline — writes,
// faults, every client converging, the 410s — is the same every time,
// while client-go's own requests may move by a few virtual seconds.
// (Clients run side by side, so only each one's own sequence is
// compared.)
func TestReplaysInBubbleAreExact(t *testing.T) {
	for _, c := range []struct {
		path         string
		exactClients bool
	}{
		{"../listwatch/testdata/chaos-failure-example.yaml", true},
		{"testdata/files/chaos-with-informer.yaml", false},
	} {
		t.Run(c.path, func(t *testing.T) {
			f, err := LoadFile(c.path)
			if err != nil {
				t.Fatal(err)
			}
			var first *Result
			for i := range 3 {
				synctest.Test(t, func(t *testing.T) {
					res := replayInBubble(t, f)
					if i == 0 {
						first = res
						return
					}
					if diff := cmp.Diff(first.Timeline, res.Timeline); diff != "" {
						t.Errorf("replay #%d's timeline differs from the first (-first +this):\n%s", i+1, diff)
					}
					if !c.exactClients {
						return
					}
					if diff := cmp.Diff(byLane(first.clientEntries), byLane(res.clientEntries)); diff != "" {
						t.Errorf("replay #%d's clients differ from the first (-first +this):\n%s", i+1, diff)
					}
				})
			}
			if lanes := byLane(first.clientEntries); len(lanes) != len(f.Clients) {
				t.Errorf("%d clients recorded requests, want the file's %d: %v", len(lanes), len(f.Clients), lanes)
			}
		})
	}
}

// TestReplayFile replays the scenario file named by $LWSIM_REPLAY in a
// testing/synctest bubble and prints its timeline: `lw-sim run FILE` on
// virtual time throughout, client-go's backoffs included (see
// TestReplaysInBubbleAreExact for how exact that is). Skipped without it:
//
//	LWSIM_REPLAY=$PWD/listwatch/testdata/chaos-failure-example.yaml go test ./scenarios -run '^TestReplayFile$' -v
func TestReplayFile(t *testing.T) {
	path := os.Getenv("LWSIM_REPLAY")
	if path == "" {
		t.Skip("set LWSIM_REPLAY to a scenario file to replay it")
	}
	f, err := LoadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	synctest.Test(t, func(t *testing.T) {
		res := replayInBubble(t, f)
		t.Logf("%s\n%s", res.Scenario, timelineText(res.Timeline))
	})
}

// replayInBubble runs f in the current bubble, failing t if it fails.
func replayInBubble(t *testing.T, f *File) *Result {
	t.Helper()
	seedClientGo(f.Seed)
	res, err := Run(t.Context(), f.Scenario(), RunOptions{InMemory: true})
	if err != nil {
		t.Fatalf("replay failed: %v\n%s", err, timelineText(res.Timeline))
	}
	return res
}

// byLane splits client entries by client.
func byLane(entries []Entry) map[string][]Entry {
	out := map[string][]Entry{}
	for _, en := range entries {
		out[en.Lane] = append(out[en.Lane], en)
	}
	return out
}

// seedClientGo seeds math/rand's global source, from which client-go's
// Reflector draws its watch timeouts (tools/cache/reflector.go) and
// apimachinery's wait.Jitter its jitter: nothing in client-go takes a
// source. Go 1.24 made rand.Seed a no-op; the //go:debug randseednop=0
// line above makes it seed again, in this test binary only.
// TestSeedClientGo proves it does.
func seedClientGo(seed uint64) {
	rand.Seed(int64(seed)) //nolint:staticcheck // the only way to seed what client-go draws from
}

// TestSeedClientGo: seeding the global source repeats its draws, so
// replays seeded alike draw alike.
func TestSeedClientGo(t *testing.T) {
	seedClientGo(7)
	a := [3]int64{rand.Int63(), rand.Int63(), rand.Int63()}
	seedClientGo(7)
	b := [3]int64{rand.Int63(), rand.Int63(), rand.Int63()}
	if a != b {
		t.Fatalf("seeding math/rand's global source did not repeat its draws: %v then %v (is randseednop=0 set?)", a, b)
	}
}
