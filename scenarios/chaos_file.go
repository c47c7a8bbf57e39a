package scenarios

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/lw-sim/lw-sim/fakeapiserver"
	"github.com/lw-sim/lw-sim/listwatch"
)

// ChaosFileVersion is the version of the chaos file format this package
// reads and writes.
const ChaosFileVersion = 1

// chaosSettle bounds, in virtual time, how long a replay lets the client
// converge once the schedule is over and the faults are cleared: the
// largest backoff (30 s) plus a watch deadline (2·5 min + 30 s), with room.
const chaosSettle = 15 * time.Minute

// chaosOtherNS is the namespace of "write-elsewhere": one the client does
// not watch, so the RV moves with no event for it.
const chaosOtherNS = "elsewhere"

// ChaosFile is a replayable chaos schedule: what the client chaos property
// test (listwatch's TestRapidClientChaos) drew in a failing check, as JSON,
// until the scenario file format of issue 12 replaces it. A replay runs
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
// A fault is [fakeapiserver.Fault] in its JSON form (the control API's).
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
	Op      string                      `json:"op"`
	Name    string                      `json:"name,omitempty"`
	Fault   *fakeapiserver.Fault        `json:"fault,omitempty"`
	Advance fakeapiserver.FaultDuration `json:"advance,omitempty"`
}

// ReadChaosFile reads and validates a chaos file.
func ReadChaosFile(path string) (*ChaosFile, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("scenarios: %w", err)
	}
	var f ChaosFile
	dec := json.NewDecoder(strings.NewReader(string(b)))
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
		f.Name = strings.TrimSuffix(path[strings.LastIndex(path, "/")+1:], ".json")
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

// Scenario turns f into a runnable scenario.
func (f *ChaosFile) Scenario() *Scenario {
	return &Scenario{
		Name:    f.Name,
		Summary: "replay of a chaos schedule: " + f.Note,
		Seed:    1,
		Config: func(c *fakeapiserver.Config) {
			c.Watch.HistoryMinEvents = f.HistoryMinEvents
			c.Watch.HistoryMinAge = -1
		},
		Steps: f.steps,
	}
}

// chaosNS is the namespace the client watches.
const chaosNS = "default"

func (f *ChaosFile) steps(e *Env) error {
	if _, err := e.quiet.CoreV1().Namespaces().Create(e.ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: chaosOtherNS}}, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("scenarios: %w", err)
	}
	live := map[string]bool{}
	var client *Client
	for i, op := range f.Ops {
		var err error
		switch op.Op {
		case "write":
			if live[op.Name] {
				_, err = e.Update(chaosNS, op.Name, fmt.Sprint(i))
			} else {
				_, err = e.Create(chaosNS, op.Name, fmt.Sprint(i))
			}
			live[op.Name] = true
		case "delete":
			_, err = e.Delete(chaosNS, op.Name)
			delete(live, op.Name)
		case "write-elsewhere":
			_, err = e.Create(chaosOtherNS, fmt.Sprintf("elsewhere-%d", i), "x")
		case "start-client":
			client, err = e.StartClient(chaosNS, listwatch.Options{WatchList: f.Client.WatchList, PageSize: f.Client.PageSize})
		case "fault":
			fault := *op.Fault
			e.Fault(fmt.Sprintf("%s %+v", fault.Kind, fault), func() { _, err = e.srv.Faults().Add(fault) })
		case "advance":
			e.Step(time.Duration(op.Advance))
		}
		if err != nil {
			return fmt.Errorf("scenarios: op %d (%s): %w", i, op.Op, err)
		}
		e.settle()
	}
	if client == nil {
		return e.Expect(true, "no client to check")
	}
	e.srv.Faults().Clear()
	e.Note("faults cleared; the client has %s of virtual time to converge", chaosSettle)
	var diff string
	waited := time.Duration(0)
	for ; waited <= chaosSettle; waited += time.Second {
		want, err := e.chaosState(chaosNS)
		if err != nil {
			return err
		}
		if diff = cmp.Diff(want, storeState(client)); diff == "" {
			break
		}
		e.clock.Step(time.Second)
		e.settle()
	}
	// The verdict is at the end of the window, whenever the client got
	// there: how many real-time settles that took depends on the machine's
	// load, and the timeline must not.
	e.clock.Step(max(0, chaosSettle-waited))
	e.Note("the server answered %d watch(es) with 410 Expired", e.srv.WatchStats().Expired)
	if diff != "" {
		return e.Expect(false, "the client's store equals the server's state; it does not (-server +store):\n%s", diff)
	}
	return e.Expect(true, "the client's store equals the server's state")
}

// settle gives the client's goroutines a moment of real time to act on
// what the last op did (the clock is fake; the HTTP traffic is real).
func (e *Env) settle() { time.Sleep(5 * time.Millisecond) }

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
func storeState(c *Client) map[string]string {
	out := map[string]string{}
	for _, o := range c.Indexer().List() {
		cm := o.(*corev1.ConfigMap)
		out[cm.Namespace+"/"+cm.Name] = cm.ResourceVersion
	}
	return out
}
