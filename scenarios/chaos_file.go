package scenarios

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/lw-sim/lw-sim/fakeapiserver"
	"github.com/lw-sim/lw-sim/faults"
	"github.com/lw-sim/lw-sim/scenarios/scenariofile"
)

// ChaosFileVersion is the version of the chaos file format this package
// reads and writes.
const ChaosFileVersion = 1

// ChaosFile is a replayable chaos schedule in the JSON form the client
// chaos property test (listwatch's TestRapidClientChaos) wrote for a
// failing check before it wrote scenario files; schedules kept in that
// form (testdata/chaos) still load and replay. It is a profile of the
// scenario file format: [ChaosFile.File] is the
// [File] it stands for, and [LoadFile] accepts it. A replay runs
// this package's listwatch client on the ConfigMaps of "default", plays
// the ops in order on the run's fake clock, clears the faults, and expects
// the client's store to equal the server's state within 15 virtual
// minutes.
//
//	{
//	  "version": 1,
//	  "name": "relist-after-compaction",
//	  "note": "what it caught",
//	  "historyMinEvents": 4,
//	  "client": {"watchList": false, "pageSize": 2},
//	  "ops": [
//	    {"op": "write", "name": "a"},            // create, or update if it exists
//	    {"op": "delete", "name": "a"},
//	    {"op": "write-elsewhere"},               // a write the client does not see
//	    {"op": "start-client"},
//	    {"op": "fault", "fault": {"kind": "CutWatch", "match": {...}}},
//	    {"op": "advance", "advance": "30s"}
//	  ]
//	}
//
// A fault is [faults.Fault] in its JSON form (the control API's).
type ChaosFile struct {
	Version          int    `json:"version"`
	Name             string `json:"name"`
	Note             string `json:"note,omitempty"`
	HistoryMinEvents int    `json:"historyMinEvents,omitempty"`
	Client           struct {
		WatchList bool  `json:"watchList,omitempty"`
		PageSize  int64 `json:"pageSize,omitempty"`
	} `json:"client"`
	Ops []ChaosOp `json:"ops"`
}

// ChaosOp is one step of a [ChaosFile].
type ChaosOp struct {
	// Op is write, delete, write-elsewhere, start-client, fault or
	// advance.
	Op      string          `json:"op"`
	Name    string          `json:"name,omitempty"`
	Fault   *faults.Fault   `json:"fault,omitempty"`
	Advance faults.Duration `json:"advance,omitempty"`
}

// ReadChaosFile reads and validates a chaos file.
func ReadChaosFile(path string) (*ChaosFile, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("scenarios: %w", err)
	}
	return parseChaosFile(path, b)
}

// parseChaosFile parses and validates b, the chaos file path.
func parseChaosFile(path string, b []byte) (*ChaosFile, error) {
	var f ChaosFile
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("scenarios: chaos file %s: %w", path, err)
	}
	if f.Version != ChaosFileVersion {
		return nil, fmt.Errorf("scenarios: chaos file %s: version %d, want %d", path, f.Version, ChaosFileVersion)
	}
	for i, op := range f.Ops {
		switch op.Op {
		case "write", "delete":
			if op.Name == "" {
				return nil, fmt.Errorf("scenarios: chaos file %s: op %d (%s) has no name", path, i, op.Op)
			}
		case "fault":
			if op.Fault == nil {
				return nil, fmt.Errorf("scenarios: chaos file %s: op %d has no fault", path, i)
			}
		case "write-elsewhere", "start-client", "advance":
		default:
			return nil, fmt.Errorf("scenarios: chaos file %s: op %d: unknown op %q", path, i, op.Op)
		}
	}
	if f.Name == "" {
		f.Name = strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	}
	return &f, nil
}

// Write writes f as indented JSON to path.
func (f *ChaosFile) Write(path string) error {
	f.Version = ChaosFileVersion
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return fmt.Errorf("scenarios: %w", err)
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// Scenario turns f into a runnable scenario: the one of [ChaosFile.File].
func (f *ChaosFile) Scenario() *Scenario { return f.File().Scenario() }

// chaosClient is the name of a chaos file's one client.
const chaosClient = "listwatch"

// File is f in the scenario file format: a chaos schedule is a scenario
// with one listwatch client, its ops as the timeline, and the expectation
// that the client's store equals the server's state once the faults are
// cleared ([scenariofile.NewChaosReplay]).
func (f *ChaosFile) File() *File {
	out := scenariofile.NewChaosReplay(f.Name, f.Note, f.HistoryMinEvents,
		scenariofile.Client{Name: chaosClient, WatchList: f.Client.WatchList, PageSize: f.Client.PageSize})
	for i, op := range f.Ops {
		var s scenariofile.Step
		switch op.Op {
		case "write":
			s.Write = &scenariofile.Write{Name: op.Name}
		case "delete":
			s.Delete = &scenariofile.Write{Name: op.Name}
		case "write-elsewhere":
			s.Create = &scenariofile.Write{Name: fmt.Sprintf("elsewhere-%d", i), Namespace: scenariofile.ChaosOtherNamespace, Value: "x"}
		case "start-client":
			s.StartClient = chaosClient
		case "fault":
			s.Fault = op.Fault
		case "advance":
			s.Advance = op.Advance
		}
		out.Timeline = append(out.Timeline, s)
	}
	if n := chaosInstances(f.Ops); n > 1 {
		out.APIServers = scenariofile.ChaosAPIServers(n)
	}
	return (*File)(out)
}

// chaosAPIServers is how many apiservers the chaos property tests run;
// a schedule whose faults name an instance ran on at least that many.
const chaosAPIServers = 3

// chaosInstances is how many apiserver instances the schedule ops ran on:
// none named (1), or as many as the chaos tests run, or more if a fault
// names a later instance.
func chaosInstances(ops []ChaosOp) int {
	n := 1
	for _, op := range ops {
		if op.Fault == nil || op.Fault.APIServer == "" {
			continue
		}
		i, err := strconv.Atoi(strings.TrimPrefix(op.Fault.APIServer, "apiserver-"))
		if err != nil {
			continue
		}
		n = max(n, chaosAPIServers, i+1)
	}
	return n
}

// settle gives the clients' goroutines real time to act on what the last
// op did (the clock is fake; the HTTP traffic is real): until the server
// has seen no new watch, watch event or fault, and the clients have
// recorded nothing and have no request waiting for its answer, for
// settleQuiet (at least
// one settleStep, at most settleMax). A fixed sleep let a loaded machine
// replay a chaos file differently (a re-watch before or after a restart
// fault): the wait for quiet makes the replay follow the schedule, not
// the machine's speed. What the clients recorded then enters the
// timeline (placeSettled).
func (e *Env) settle() {
	last, quiet := e.activity(), time.Duration(0)
	for waited := time.Duration(0); quiet < settleQuiet && waited < settleMax; waited += settleStep {
		time.Sleep(settleStep)
		if now := e.activity(); now != last || e.inFlight.Load() > 0 {
			last, quiet = now, 0
			continue
		}
		quiet += settleStep
	}
	e.placeSettled()
}

// How settle waits for the clients.
const (
	settleStep  = 5 * time.Millisecond
	settleQuiet = 3 * settleStep
	settleMax   = time.Second
)

// activity is what settle watches: the server's watch counters, the
// faults fired, and how many entries the clients recorded (their
// requests, responses and decisions: a client paging through a LIST, slow
// under load, is busy though no watch moves).
type activity struct {
	watch  fakeapiserver.WatchStats
	faults int
	client int
}

func (e *Env) activity() activity {
	return activity{watch: e.srv.WatchStats(), faults: len(e.srv.Faults().Records()), client: e.clientRecorded()}
}

// chaosState is the server's ConfigMaps of ns: key → resourceVersion.
func (e *Env) chaosState(ns string) (map[string]string, error) {
	l, err := e.quiet.CoreV1().ConfigMaps(ns).List(e.ctx, metav1.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("scenarios: %w", err)
	}
	out := map[string]string{}
	for _, cm := range l.Items {
		out[cm.Namespace+"/"+cm.Name] = cm.ResourceVersion
	}
	return out, nil
}

// storeState is a client's store: key → resourceVersion.
func storeState(store cache.Store) map[string]string {
	out := map[string]string{}
	for _, o := range store.List() {
		cm := o.(*corev1.ConfigMap)
		out[cm.Namespace+"/"+cm.Name] = cm.ResourceVersion
	}
	return out
}

// isChaosJSON reports whether b looks like a chaos file: JSON with an
// "ops" list.
func isChaosJSON(b []byte) bool {
	b = bytes.TrimSpace(b)
	return len(b) > 0 && b[0] == '{' && bytes.Contains(b, []byte(`"ops"`))
}
