package listwatch

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/lw-sim/lw-sim/faults"
	"github.com/lw-sim/lw-sim/scenarios/scenariofile"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// chaosFailureFile is where a failing check of TestRapidClientChaos
// writes its schedule, as a scenario file. rapid runs the shrunk case
// last, so the file left is the shrunk schedule; "lw-sim run FILE"
// replays it with the same clients. Once the bug is fixed, move it to
// scenarios/testdata/chaos/, where make test replays it for good.
const chaosFailureFile = "testdata/chaos-failures/TestRapidClientChaos.yaml"

// saveOnFailure writes the schedule if the check is failing (a panic on
// its way up), then lets the panic go on. rapid's own signals (a skip, a
// replay that ran out of data) are not failures.
func (r *chaosRun) saveOnFailure(kinds []string, historyMinEvents int) {
	p := recover()
	if p == nil {
		return
	}
	if fmt.Sprintf("%T", p) != "rapid.invalidData" {
		f, header := chaosReplay(p, kinds, historyMinEvents, r.steps)
		if err := writeChaosFailure(chaosFailureFile, f, header); err != nil {
			r.t.Logf("writing %s: %v", chaosFailureFile, err)
		}
	}
	panic(p)
}

// chaosReplay is the scenario file of a failing check: the subjects as
// its clients, with their User-Agents (the faults aim at them by it), the
// schedule as its timeline, and, as its header, what failed. The
// client-go subjects are in it only if the failure names them: an
// informer backs off on the real clock, so its part of a replay depends
// on the machine's speed, while this package's clients run on the
// replay's fake clock.
func chaosReplay(failure any, kinds []string, historyMinEvents int, steps []scenariofile.Step) (*scenariofile.File, string) {
	what, detail := "panic", fmt.Sprint(failure)
	if f, ok := failure.(chaosFailure); ok {
		what, detail = f.invariant, f.msg
	}
	var clients []scenariofile.Client
	replayed := map[string]bool{}
	for _, k := range kinds {
		if strings.HasPrefix(k, "listwatch") || strings.Contains(detail, k+": ") || strings.Contains(detail, k+" (synced") {
			clients = append(clients, chaosClient(k))
			replayed[k] = true
		}
	}
	f := scenariofile.NewChaosReplay("chaos-failure", "the "+what+" invariant broke", historyMinEvents, clients...)
	// The run's apiservers and how its clients meet them.
	f.APIServers = scenariofile.ChaosAPIServers(chaosAPIServers)
	for _, s := range steps {
		if s.StartClient == "" || replayed[s.StartClient] {
			f.Timeline = append(f.Timeline, s)
		}
	}
	header := "Written by listwatch's TestRapidClientChaos: a schedule that broke an invariant.\n" +
		"Replay it with: lw-sim run listwatch/" + chaosFailureFile + "\n" +
		"(the watch-list consistency detector the check may have had on is not replayed)\n\n" +
		what + ": " + detail
	return f, header
}

// chaosClient is the scenario file client of one subject kind.
func chaosClient(kind string) scenariofile.Client {
	c := scenariofile.Client{Name: kind, UserAgent: chaosSubjectAgent(kind)}
	switch kind {
	case "listwatch", "listwatch-watchlist":
		c.WatchList, c.PageSize = kind == "listwatch-watchlist", 2
	case "reflector":
		// client-go's default: watch-list where the feature gate allows.
		c.Kind, c.WatchList = scenariofile.KindReflector, true
	default:
		c.Kind, c.WatchList = scenariofile.KindInformer, kind == "informer"
	}
	return c
}

// writeChaosFailure writes the file to path.
func writeChaosFailure(path string, f *scenariofile.File, header string) error {
	b, err := f.Marshal(header)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}

// TestChaosFailureFile: the file a failing check writes is the committed
// example, byte for byte (scenarios' TestListwatchChaosFailureReplays
// replays that example with the scenario runner), and it reads back as
// the same scenario.
func TestChaosFailureFile(t *testing.T) {
	const golden = "testdata/chaos-failure-example.yaml"
	cut := faults.Fault{Kind: faults.CutWatch, Match: faults.Match{UserAgent: chaosAgent}}
	fail := faults.Fault{Kind: faults.FailRequest, Match: faults.Match{UserAgent: chaosAgent, Verbs: []string{"watch"}}, Code: 503, Times: 2}
	steps := []scenariofile.Step{
		{Write: &scenariofile.Write{Name: "a"}},
		{Write: &scenariofile.Write{Name: "b"}},
	}
	for _, k := range chaosKinds {
		steps = append(steps, scenariofile.Step{StartClient: k})
	}
	steps = append(steps,
		scenariofile.Step{Fault: &fail},
		scenariofile.Step{Fault: &cut},
		scenariofile.Step{Delete: &scenariofile.Write{Name: "a"}},
		scenariofile.Step{Create: &scenariofile.Write{Name: "elsewhere-1", Namespace: chaosOtherNS, Value: "x"}},
		scenariofile.Step{Fault: &faults.Fault{Kind: faults.Restart}},
		scenariofile.Step{Advance: faults.Duration(30 * time.Second)},
	)
	failure := chaosFailure{invariant: "store", msg: "listwatch (synced true): store != server (-server +store):\n  map[string]string{\n- \t\"default/b\": \"7\",\n  }"}
	f, header := chaosReplay(failure, chaosKinds, 4, steps)
	path := filepath.Join(t.TempDir(), "failure.yaml")
	if err := writeChaosFailure(path, f, header); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("failure file differs from %s (-want +got; -update rewrites it):\n%s", golden, diff)
	}
	back, err := scenariofile.Load(path)
	if err != nil {
		t.Fatalf("Load(written file): %v", err)
	}
	if diff := cmp.Diff(f, back); diff != "" {
		t.Errorf("the written file reads back differently (-written +read):\n%s", diff)
	}
	if !strings.Contains(string(got), "# store: listwatch (synced true)") {
		t.Errorf("the header does not say what failed:\n%s", got)
	}
	// A client-go subject the failure names is replayed too, and only it.
	f, _ = chaosReplay(chaosFailure{invariant: "order", msg: "informer-list: key default/a: rv 7 after 9"}, chaosKinds, 4, steps)
	var names []string
	for _, c := range f.Clients {
		names = append(names, c.Name)
	}
	if want := []string{"listwatch", "listwatch-watchlist", "informer-list"}; !slices.Equal(names, want) || len(f.Timeline) != len(steps)-2 {
		t.Errorf("clients %v and %d steps for an informer-list failure, want %v and %d steps", names, len(f.Timeline), want, len(steps)-2)
	}
}
