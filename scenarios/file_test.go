package scenarios

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/lw-sim/lw-sim/scenarios/scenariofile"
)

// TestFileRuns: a file using clients, faults, raw LISTs with status
// expectations and list counting passes.
func TestFileRuns(t *testing.T) {
	f, err := LoadFile("testdata/files/relist-stays-in-sync.yaml")
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(t.Context(), f.Scenario(), RunOptions{})
	if err != nil {
		t.Fatalf("Run(relist-stays-in-sync) = %v; timeline:\n%s", err, timelineText(res.Timeline))
	}
}

// TestFileTemplatesEverywhere: awaitClient's contains, a LIST's expected
// names and its header values expand templates (unexpanded, the await
// waits out its window and the list expectation fails).
func TestFileTemplatesEverywhere(t *testing.T) {
	f, err := LoadFile("testdata/files/templates-everywhere.yaml")
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(t.Context(), f.Scenario(), RunOptions{})
	if err != nil {
		t.Fatalf("Run(templates-everywhere) = %v; timeline:\n%s", err, timelineText(res.Timeline))
	}
	// A file's watch id names its stream in the timeline.
	if text := timelineText(res.Timeline); !strings.Contains(text, "mine MODIFIED") {
		t.Errorf("the timeline does not label watch mine's event with its id:\n%s", text)
	}
}

// TestFileWrongExpectation: a file whose expected event is wrong fails
// with ErrExpectation, and the error names the scenario, the step and the
// expectation.
func TestFileWrongExpectation(t *testing.T) {
	f, err := LoadFile("testdata/files/wrong-expectation.yaml")
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(t.Context(), f.Scenario(), RunOptions{})
	if !errors.Is(err, ErrExpectation) {
		t.Fatalf("Run(wrong-expectation) = %v, want ErrExpectation", err)
	}
	for _, want := range []string{"wrong-expectation", "timeline[3] (expectEvents)", "w1: events [DELETED alpha]", "MODIFIED default/alpha"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not contain %q", err, want)
		}
	}
	if res.Passed {
		t.Error("Result.Passed = true, want false")
	}
}

// TestFileUnknownField: an unknown field is refused with file:line and
// the field's name and place.
func TestFileUnknownField(t *testing.T) {
	_, err := LoadFile("testdata/files/unknown-field.yaml")
	want := `testdata/files/unknown-field.yaml:7: unknown field "afterEvents" in timeline[1].fault.trigger`
	if !errors.Is(err, ErrFile) || err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("LoadFile(unknown-field) = %v, want ErrFile containing %q", err, want)
	}
}

// TestFileInvalid: what decoding accepts but the format does not is
// refused with the file and the reason.
func TestFileInvalid(t *testing.T) {
	dir := t.TempDir()
	for name, tc := range map[string]struct{ body, want string }{
		"version":    {`{"version": 2, "timeline": []}`, "version 2, want 1"},
		"two-fields": {"version: 1\ntimeline: [{note: x, advance: 1s}]", "timeline[0]: a step sets exactly one"},
		"no-client":  {"version: 1\ntimeline: [{startClient: lw}]", `timeline[0] (startClient): no client "lw"`},
		"no-watch":   {"version: 1\ntimeline: [{close: w9}]", `no watch "w9"`},
		"bad-kind":   {"version: 1\nclients: [{name: a, kind: operator}]\ntimeline: []", `kind "operator"`},
		"bad-type":   {"version: 1\nseed: many\ntimeline: []", `bad-bad-type.yaml:2: field seed: string value, want uint64`},
		"bad-nested": {"version: 1\ntimeline:\n  - note: x\n  - create: {name: [a]}", `bad-bad-nested.yaml:4: field timeline.create.name: array value, want string`},
		"top-level":  {"version: 1\ntimelines: []", `bad-top-level.yaml:2: unknown field "timelines"; did you mean "timeline"?`},
		"typo-step":  {"version: 1\ntimeline:\n  - note: x\n  - advnce: 1s", `bad-typo-step.yaml:4: unknown field "advnce" in timeline[1]; did you mean "advance"?`},
		"fault-kind": {"version: 1\ntimeline:\n  - note: x\n  - fault: {kind: EndWatc}", `bad-fault-kind.yaml:4: timeline[1] (fault): faults: invalid fault: unknown kind "EndWatc"`},
		"fault-hint": {"version: 1\ntimeline:\n  - fault: {kind: compact}", `; did you mean "Compact"?`},
		"fault-field": {"version: 1\ntimeline:\n  - note: x\n  - fault: {kind: Compact, lag: 1}",
			`bad-fault-field.yaml:4: timeline[1] (fault): faults: invalid fault: Compact: field lag does not belong to this kind (its own fields: rv)`},
		"trace": {"version: 1\nclients: [{name: lw}]\ntimeline:\n  - startClient: lw\n  - awaitClient: {client: lw, trace: synched}",
			`bad-trace.yaml:5: timeline[1] (awaitClient): trace "synched": no client reports it`},
		"trace-hint": {"version: 1\nclients: [{name: lw}]\ntimeline:\n  - awaitClient: {client: lw, trace: synched}", `; did you mean "synced"?`},
		"client-hint": {"version: 1\nclients: [{name: lw}]\ntimeline:\n  - note: x\n  - startClient: lv",
			`bad-client-hint.yaml:5: timeline[1] (startClient): no client "lv"; did you mean "lw"?`},
		"between": {"version: 1\ntimeline:\n  - pager:\n      pageSize: 1\n      between:\n        - note: x\n        - close: w1",
			`bad-between.yaml:7: timeline[0] (pager): between[1] (close): no watch "w1" opened before`},
		"client-kind":   {"version: 1\nclients:\n  - name: a\n  - name: b\n    kind: informr\ntimeline: []", `bad-client-kind.yaml:4: clients[1] (b): kind "informr": want one of listwatch, reflector, reflector-1.11, informer; did you mean "informer"?`},
		"get-name":      {"version: 1\ntimeline:\n  - note: x\n  - get: {query: resourceVersion=0}", `bad-get-name.yaml:4: timeline[1] (get): no name`},
		"list-name":     {"version: 1\ntimeline:\n  - list: {name: a}", `bad-list-name.yaml:3: timeline[0] (list): a list reads the collection: for one object, use a get step`},
		"delete-labels": {"version: 1\ntimeline:\n  - delete: {name: a, labels: {app: web}}", `bad-delete-labels.yaml:3: timeline[0] (delete): a delete sets no labels`},
		"route-alone":   {"version: 1\ntimeline:\n  - note: x\n  - route: {lane: a, apiserver: apiserver-1}", `bad-route-alone.yaml:4: timeline[1] (route): a route needs apiservers: {count: 2} or more`},
		"route-instance": {"version: 1\napiservers: {count: 2}\ntimeline:\n  - route: {lane: a, apiserver: apiserver-2}",
			`bad-route-instance.yaml:4: timeline[0] (route): apiserver "apiserver-2" is not one of apiserver-0 to apiserver-1; did you mean "apiserver-0"?`},
		"old-watchlist": {"version: 1\nclients:\n  - name: a\n    kind: reflector-1.11\n    watchList: true\ntimeline: []", `bad-old-watchlist.yaml:3: clients[0] (a): a 1.11-era Reflector has no watch-list`},
		"answers":       {"version: 1\nanswers:\n  - watch-rv\n  - watch-brakes\ntimeline: []", `bad-answers.yaml:4: answers[1]: no question "watch-brakes" (want one of `},
		"answer-hint":   {"version: 1\nanswers: [watch-brakes]\ntimeline: []", `; did you mean "watch-breaks"?`},
		"proves":        {"version: 1\nproves:\n  - WatchTooOldRV\n  - WatchTooOldRv\ntimeline: []", `bad-proves.yaml:4: proves[1]: no conformance case "WatchTooOldRv" (conformance.Cases; docs/rv-semantics.md names those of resourceVersion); did you mean "WatchTooOldRV"?`},
		"proves-twice":  {"version: 1\nproves: [GetRV0, GetRV0]\ntimeline: []", `bad-proves-twice.yaml:2: proves[1]: case "GetRV0" is named twice`},
		"expect":        {"version: 1\nclients: [{name: lw}]\ntimeline: []\nexpect:\n  storeEqualsServer: [lw, lx]", `bad-expect.yaml:5: expect.storeEqualsServer: no client "lx"; did you mean "lw"?`},
	} {
		p := filepath.Join(dir, "bad-"+name+".yaml")
		if err := os.WriteFile(p, []byte(tc.body), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := LoadFile(p)
		if !errors.Is(err, ErrFile) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), p) {
			t.Errorf("%s: LoadFile = %v, want ErrFile naming %s and containing %q", name, err, p, tc.want)
		}
	}
}

// TestTraceKindsAreListwatchs: the trace kinds a file may await are
// listwatch's TraceKind constants (read from its source, so a new one
// cannot be missed), "request", "response" and "event".
func TestTraceKindsAreListwatchs(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "../listwatch/trace.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	ast.Inspect(f, func(n ast.Node) bool {
		if vs, ok := n.(*ast.ValueSpec); ok {
			if id, ok := vs.Type.(*ast.Ident); ok && id.Name == "TraceKind" {
				for _, v := range vs.Values {
					want = append(want, strings.Trim(v.(*ast.BasicLit).Value, `"`))
				}
			}
		}
		return true
	})
	want = append(want, "request", "response", "event")
	if diff := cmp.Diff(want, scenariofile.TraceKinds); diff != "" {
		t.Errorf("scenariofile.TraceKinds differ from listwatch's TraceKinds, request, response and event (-want +got):\n%s", diff)
	}
}

// TestFileAcceptsChaosJSON: the kept chaos schedules load through the one
// loader.
func TestFileAcceptsChaosJSON(t *testing.T) {
	f, err := LoadFile("testdata/chaos/relist-after-restart-deletes.json")
	if err != nil {
		t.Fatal(err)
	}
	if f.Name != "relist-after-restart-deletes" || len(f.Timeline) != 11 || f.Timeline[4].Fault == nil || f.Timeline[4].Fault.Code != 503 {
		t.Fatalf("LoadFile(chaos) = %+v, want the chaos schedule as a file", f)
	}
}

func timelineText(tl Timeline) string {
	var b strings.Builder
	_ = tl.Write(&b, "  ")
	return b.String()
}

// TestFileMaxListsFails: a LIST bound the client exceeds fails the run,
// naming the client and the count.
func TestFileMaxListsFails(t *testing.T) {
	f, err := LoadFile("testdata/files/relist-stays-in-sync.yaml")
	if err != nil {
		t.Fatal(err)
	}
	f.Expect.MaxLists["lw"] = 1
	_, err = Run(t.Context(), f.Scenario(), RunOptions{})
	if !errors.Is(err, ErrExpectation) || !strings.Contains(err.Error(), "lw sent at most 1 LIST(s); it sent") {
		t.Fatalf("Run(maxLists 1) = %v, want ErrExpectation naming the bound", err)
	}
}

// TestFileClientGoClients: client-go's Reflector and informer in both
// watch modes run from a file and are checked like listwatch.
func TestFileClientGoClients(t *testing.T) {
	f, err := LoadFile("testdata/files/client-go-clients.yaml")
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(t.Context(), f.Scenario(), RunOptions{})
	if err != nil {
		t.Fatalf("Run(client-go-clients) = %v; timeline:\n%s", err, timelineText(res.Timeline))
	}
	again, err := Run(t.Context(), f.Scenario(), RunOptions{})
	if err != nil {
		t.Fatalf("Run(client-go-clients) #2 = %v", err)
	}
	if diff := cmp.Diff(res.Timeline, again.Timeline); diff != "" {
		t.Errorf("two runs of client-go-clients (seed 9) differ (-first +second):\n%s", diff)
	}
	// Each informer is in the timeline up to the cut (its first LIST or
	// watch-list at +0s), then says once that it waits on the real clock
	// from there, and nothing of it comes after.
	for _, lane := range []string{"informer", "informer-wl"} {
		var first, marks []Entry
		after := false
		for _, en := range res.Timeline {
			if en.Lane != lane {
				continue
			}
			switch {
			case en.Kind == KindClient && strings.Contains(en.Text, "waits on the real clock"):
				marks, after = append(marks, en), true
			case after:
				t.Errorf("%s: entry after its real-clock mark: %v", lane, en)
			case en.Kind == KindRequest:
				first = append(first, en)
			}
		}
		if len(first) == 0 || first[0].At != 0 {
			t.Errorf("%s: requests before the cut = %v, want its first at +0s", lane, first)
		}
		if len(marks) != 1 || marks[0].At != Offset(15*time.Second) || marks[0].End != EndCut {
			t.Errorf("%s: real-clock marks = %v, want one at +15s, the cut ending its watch (end %q)", lane, marks, EndCut)
		}
	}
}

// TestREADMEExampleIsTested: the example file the README shows is the
// one TestFileRuns runs.
func TestREADMEExampleIsTested(t *testing.T) {
	const path = "testdata/files/relist-stays-in-sync.yaml"
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	file, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(readme), "`scenarios/"+path+"`:\n\n```yaml\n")
	example, _, ok2 := strings.Cut(after, "```\n")
	_, body, ok3 := strings.Cut(string(file), "\nversion: 1\n")
	if !ok || !ok2 || !ok3 || "version: 1\n"+body != example {
		t.Errorf("README's example differs from %s:\n%s", path, cmp.Diff("version: 1\n"+body, example))
	}
}

// TestFileWrongNewExpectations: each kind of expectation the built-ins
// that used to be Go brought to the format fails the run when it is
// wrong, with an error naming the scenario, the step and what was
// expected.
func TestFileWrongNewExpectations(t *testing.T) {
	four := int64(4)
	for _, tc := range []struct {
		scenario, step string
		break_         func(s *scenariofile.Step)
		want           string
	}{
		{"list-chunking", "list", func(s *scenariofile.Step) { s.List.Expect.RemainingItemCount = &four }, "remainingItemCount 4"},
		{"slow-consumer", "drain", func(s *scenariofile.Step) { s.Drain.FewerThan = 1 }, "ended cleanly before 1 events"},
		{"watch-list-vs-paging", "expectLess", func(s *scenariofile.Step) { slices.Reverse(s.ExpectLess.Values) }, "expectLess"},
		{"lost-events", "expectCache", func(s *scenariofile.Step) { s.ExpectCache.Names = []string{"alpha", "charlie"} }, "the naive cache holds [alpha charlie]"},
		{"expired-continue", "pager", func(s *scenariofile.Step) { s.Pager.Expect.RV = "{{p1}}" }, "the pager (pageSize 2) lists rv"},
		{"huge-list-paging", "expectRecorded", func(s *scenariofile.Step) { s.ExpectRecorded.Count = 4 }, `4 response entries say "remainingItemCount 15"`},
		{"watch-cut-and-hang", "expectRecorded", func(s *scenariofile.Step) { s.ExpectRecorded.Contains = []string{"watch-end", "gave up"} }, `a client entry says "watch-end" and "gave up"`},
		{"no-lost-events", "expectRecorded", func(s *scenariofile.Step) { s.ExpectRecorded.Contains[1] = "type=DELETED key=default/delta" }, `a client entry says "applied" and "type=DELETED key=default/delta"`},
	} {
		t.Run(tc.scenario, func(t *testing.T) {
			t.Parallel()
			b, err := library.ReadFile("library/" + tc.scenario + ".yaml")
			if err != nil {
				t.Fatal(err)
			}
			f, err := ParseFile(tc.scenario+".yaml", b)
			if err != nil {
				t.Fatal(err)
			}
			i := lastStep(f, tc.step)
			tc.break_(&f.Timeline[i])
			_, err = Run(t.Context(), f.Scenario(), RunOptions{})
			where := fmt.Sprintf("timeline[%d] (%s)", i, tc.step)
			if !errors.Is(err, ErrExpectation) || !strings.Contains(err.Error(), tc.scenario) || !strings.Contains(err.Error(), where) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Run = %v, want ErrExpectation naming %s, %s and %q", err, tc.scenario, where, tc.want)
			}
		})
	}
}

// lastStep is the index of f's last step of kind.
func lastStep(f *File, kind string) int {
	i := -1
	for j := range f.Timeline {
		if k, _ := f.Timeline[j].Kind(); k == kind {
			i = j
		}
	}
	return i
}

// TestFailingExampleFails: the failing example the README points to
// (testdata/failing/rv0-relist-goes-back.yaml) fails, at its store check,
// with the deleted object back in the client's store.
func TestFailingExampleFails(t *testing.T) {
	f, err := LoadFile("testdata/failing/rv0-relist-goes-back.yaml")
	if err != nil {
		t.Fatal(err)
	}
	_, err = Run(t.Context(), f.Scenario(), RunOptions{})
	if !errors.Is(err, ErrExpectation) || !strings.Contains(err.Error(), `"default/bravo"`) {
		t.Fatalf("Run = %v, want an expectation failure with bravo back in the store", err)
	}
}

// TestStreamEndSlowIsPerWatch: of two watches open while the server ends
// one as too slow, only that one's end is EndSlowConsumer; the other,
// ended by a restart, is EndClosed.
func TestStreamEndSlowIsPerWatch(t *testing.T) {
	f, err := LoadFile("testdata/files/two-watchers-one-slow.yaml")
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(t.Context(), f.Scenario(), RunOptions{})
	if err != nil {
		t.Fatalf("Run(two-watchers-one-slow) = %v; timeline:\n%s", err, timelineText(res.Timeline))
	}
	got := map[string]StreamEnd{}
	for _, en := range res.Timeline {
		if en.End != "" {
			got[en.Stream] = en.End
		}
	}
	want := map[string]StreamEnd{"w1": EndSlowConsumer, "w2": EndClosed}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("stream ends (-want +got):\n%s\ntimeline:\n%s", diff, timelineText(res.Timeline))
	}
}
