package scenarios

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/lw-sim/lw-sim/faults"
	"github.com/lw-sim/lw-sim/scenarios/scenariofile"
)

// TestChaosFilesReplay replays every past chaos failure kept in
// testdata/chaos: each must pass against today's client. They are JSON
// chaos files (the first form) or the scenario files listwatch's
// TestRapidClientChaos writes (.yaml), moved here once fixed.
func TestChaosFilesReplay(t *testing.T) {
	files, err := filepath.Glob("testdata/chaos/*.json")
	yamls, yerr := filepath.Glob("testdata/chaos/*.yaml")
	files = append(files, yamls...)
	if err != nil || yerr != nil || len(files) == 0 {
		t.Fatalf("Glob = %v, %v, %v; want the kept chaos files", files, err, yerr)
	}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			var sc *Scenario
			if strings.HasSuffix(path, ".yaml") {
				f, err := LoadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				sc = f.Scenario()
			} else {
				cf, err := ReadChaosFile(path)
				if err != nil {
					t.Fatal(err)
				}
				sc = cf.Scenario()
			}
			res, err := Run(context.Background(), sc, RunOptions{})
			if err != nil {
				t.Fatalf("replay failed: %v\n%s", err, res.Timeline)
			}
		})
	}
}

// TestChaosFileRoundTrip: a file written by Write reads back the same, and
// bad files are refused with a reason.
func TestChaosFileRoundTrip(t *testing.T) {
	dir := t.TempDir()
	in, err := ReadChaosFile("testdata/chaos/relist-after-restart-deletes.json")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "x.json")
	if err := in.Write(path); err != nil {
		t.Fatal(err)
	}
	out, err := ReadChaosFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Ops) != len(in.Ops) || out.Name != in.Name || out.Ops[4].Fault.Code != 503 {
		t.Fatalf("round trip: got %+v, want %+v", out, in)
	}
	for name, body := range map[string]string{
		"version": `{"version": 2, "ops": []}`,
		"op":      `{"version": 1, "ops": [{"op": "explode"}]}`,
		"name":    `{"version": 1, "ops": [{"op": "write"}]}`,
		"fault":   `{"version": 1, "ops": [{"op": "fault"}]}`,
		"unknown": `{"version": 1, "ops": [], "extra": true}`,
	} {
		p := filepath.Join(dir, name+".json")
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := ReadChaosFile(p); err == nil || !strings.Contains(err.Error(), "chaos file") {
			t.Errorf("%s: ReadChaosFile = %v, want a chaos file error", name, err)
		}
	}
}

// TestListwatchChaosFailureReplays: the scenario file listwatch's chaos
// property test writes for a failing check (its committed example, which
// listwatch's TestChaosFailureFile proves is what the test writes) runs
// with this package's runner, passes against today's clients, and
// replays the same timeline twice.
func TestListwatchChaosFailureReplays(t *testing.T) {
	f, err := LoadFile("../listwatch/testdata/chaos-failure-example.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var timelines [2]Timeline
	for i := range timelines {
		res, err := Run(t.Context(), f.Scenario(), RunOptions{})
		if err != nil {
			t.Fatalf("replay #%d failed: %v\n%s", i+1, err, timelineText(res.Timeline))
		}
		timelines[i] = res.Timeline
	}
	if diff := cmp.Diff(timelines[0], timelines[1]); diff != "" {
		t.Errorf("two replays differ (-first +second):\n%s", diff)
	}
	if !hasEntry(timelines[0], KindFault, "CutWatch") || !hasEntry(timelines[0], KindCheck, "ok: listwatch-watchlist's store equals") {
		t.Errorf("the replay did not play the faults or check every client:\n%s", timelineText(timelines[0]))
	}
}

// hasEntry reports whether tl has an entry of kind whose text contains
// every part.
func hasEntry(tl Timeline, kind Kind, parts ...string) bool {
	for _, en := range tl {
		if en.Kind != kind {
			continue
		}
		all := true
		for _, p := range parts {
			all = all && strings.Contains(en.Text, p)
		}
		if all {
			return true
		}
	}
	return false
}

// TestChaosFileCarriesTopology: a chaos schedule whose faults name an
// apiserver instance converts to a file with the chaos tests' topology
// (three instances, the scenario pinned to apiserver-0, each client
// rotating over them); one that names none stays on one apiserver.
func TestChaosFileCarriesTopology(t *testing.T) {
	lag := &faults.Fault{Kind: faults.LagAPIServer, APIServer: "apiserver-2", Lag: 2}
	for _, c := range []struct {
		ops  []ChaosOp
		want scenariofile.APIServers
	}{
		{[]ChaosOp{{Op: "write", Name: "a"}, {Op: "fault", Fault: &faults.Fault{Kind: faults.Restart}}}, scenariofile.APIServers{}},
		{[]ChaosOp{{Op: "write", Name: "a"}, {Op: "fault", Fault: lag}}, scenariofile.ChaosAPIServers(3)},
	} {
		f := (&ChaosFile{Version: 1, Name: "x", Ops: c.ops}).File()
		if diff := cmp.Diff(c.want, f.APIServers); diff != "" {
			t.Errorf("ops %v: apiservers differ (-want +got):\n%s", c.ops, diff)
		}
	}
}
