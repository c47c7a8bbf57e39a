package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/lw-sim/lw-sim/internal/testdeadline"
	"github.com/lw-sim/lw-sim/scenarios"
)

func TestRunList(t *testing.T) {
	t.Parallel()
	var stdout, stderr bytes.Buffer
	if err := run(t.Context(), []string{"run", "--list"}, &stdout, &stderr); err != nil {
		t.Fatalf("run(run --list) = %v, want nil", err)
	}
	out := stdout.String()
	for _, sc := range scenarios.Library() {
		if !strings.Contains(out, sc.Name+"\n") {
			t.Errorf("run --list lacks scenario %s", sc.Name)
		}
	}
	if want := "watch-cache-window\n"; !strings.Contains(out, want) || !strings.Contains(out, "    proved by conformance cases: WatchTooOldRV, ListExactOldState, ListExactCompacted\n") {
		t.Errorf("run --list lacks the conformance cases that prove watch-cache-window:\n%s", out)
	}
	for _, q := range scenarios.Questions() {
		if !strings.Contains(out, q.Chinese) || !strings.Contains(out, q.English) {
			t.Errorf("run --list lacks question %s", q.ID)
		}
		// The id is what a file's answers: takes.
		if !strings.Contains(out, "("+string(q.ID)+")") || !strings.Contains(out, "Q "+string(q.ID)+": ") {
			t.Errorf("run --list does not show question id %s", q.ID)
		}
	}
}

func TestRunOne(t *testing.T) {
	t.Parallel()
	ctx, cancel := testdeadline.Context(t)
	defer cancel()
	var stdout, stderr bytes.Buffer
	if err := run(ctx, []string{"run", "watch-timeout"}, &stdout, &stderr); err != nil {
		t.Fatalf("run(run watch-timeout) = %v, want nil; stdout:\n%s", err, stdout.String())
	}
	out := stdout.String()
	for _, want := range []string{
		"=== RUN   watch-timeout (seed 4)",
		"watch 请求会有超时问题吗？",
		"+1h0m10s",
		"the server ended the response (clean end of stream, no final event)",
		"--- PASS: watch-timeout",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("run watch-timeout output lacks %q:\n%s", want, out)
		}
	}
}

func TestRunJSONSeed(t *testing.T) {
	t.Parallel()
	ctx, cancel := testdeadline.Context(t)
	defer cancel()
	var stdout, stderr bytes.Buffer
	// The flag after the name works as well as before it.
	if err := run(ctx, []string{"run", "list-chunking", "--seed", "77", "-o", "json"}, &stdout, &stderr); err != nil {
		t.Fatalf("run(run list-chunking --seed 77 -o json) = %v, want nil", err)
	}
	var res scenarios.Result
	if err := json.Unmarshal(stdout.Bytes(), &res); err != nil {
		t.Fatalf("run -o json output is not a Result: %v\n%s", err, stdout.String())
	}
	if res.Scenario != "list-chunking" || res.Seed != 77 || !res.Passed || len(res.Timeline) == 0 {
		t.Errorf("run -o json = scenario %q seed %d passed %v with %d entries, want list-chunking 77 true and a timeline",
			res.Scenario, res.Seed, res.Passed, len(res.Timeline))
	}
}

func TestRunAll(t *testing.T) {
	t.Parallel()
	ctx, cancel := testdeadline.Context(t)
	defer cancel()
	var stdout, stderr bytes.Buffer
	if err := run(ctx, []string{"run", "all"}, &stdout, &stderr); err != nil {
		t.Fatalf("run(run all) = %v, want nil; stdout:\n%s", err, stdout.String())
	}
	n := len(scenarios.Library())
	if want := "passed\n"; !strings.HasSuffix(stdout.String(), want) || strings.Count(stdout.String(), "--- PASS") != n {
		t.Errorf("run all: %d PASS lines, want %d; output:\n%s", strings.Count(stdout.String(), "--- PASS"), n, stdout.String())
	}
}

func TestRunErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		args      []string
		wantUsage bool
		wantErr   error
	}{
		{name: "no name", args: []string{"run"}, wantUsage: true},
		{name: "bad file", args: []string{"run", "../../scenarios/testdata/files/unknown-field.yaml"}, wantErr: scenarios.ErrFile},
		{name: "explain two", args: []string{"explain", "a", "b"}, wantUsage: true},
		{name: "list with name", args: []string{"run", "--list", "watch-timeout"}, wantUsage: true},
		{name: "bad flag", args: []string{"run", "--nope"}, wantUsage: true},
		{name: "unknown scenario", args: []string{"run", "nope"}, wantErr: scenarios.ErrUnknownScenario},
		{name: "explain unknown", args: []string{"explain", "nope"}, wantErr: scenarios.ErrUnknownScenario},
		{name: "explain no name", args: []string{"explain"}, wantUsage: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var stdout, stderr bytes.Buffer
			err := run(t.Context(), tt.args, &stdout, &stderr)
			if tt.wantUsage && !errors.As(err, new(*usageError)) {
				t.Errorf("run(%q) = %v, want a usage error", tt.args, err)
			}
			if tt.wantErr != nil && !errors.Is(err, tt.wantErr) {
				t.Errorf("run(%q) = %v, want %v", tt.args, err, tt.wantErr)
			}
		})
	}
}

func TestPrintResultFail(t *testing.T) {
	t.Parallel()
	sc, err := scenarios.Lookup("watch-timeout")
	if err != nil {
		t.Fatal(err)
	}
	res := &scenarios.Result{Scenario: sc.Name, Seed: 4, Error: "scenario watch-timeout: expectation failed: x",
		Timeline: scenarios.Timeline{{Kind: scenarios.KindCheck, Text: "FAIL: x"}}}
	var out bytes.Buffer
	printResult(&out, sc, res)
	if !strings.Contains(out.String(), "FAIL: x") || !strings.Contains(out.String(), "--- FAIL: watch-timeout: scenario watch-timeout: expectation failed: x") {
		t.Errorf("printResult(failed) =\n%s\nwant the FAIL check and a --- FAIL line", out.String())
	}
}

// TestRunChaosFile: "lw-sim run FILE.json" replays a chaos schedule, the
// same every time.
func TestRunChaosFile(t *testing.T) {
	t.Parallel()
	ctx, cancel := testdeadline.Context(t)
	defer cancel()
	const file = "../../scenarios/testdata/chaos/relist-after-restart-deletes.json"
	var outs []string
	for range 2 {
		var stdout, stderr bytes.Buffer
		if err := run(ctx, []string{"run", file}, &stdout, &stderr); err != nil {
			t.Fatalf("run(run %s) = %v, want nil; stdout:\n%s", file, err, stdout.String())
		}
		outs = append(outs, stdout.String())
	}
	for _, want := range []string{"delete default/a", "answered 1 watch(es) with 410 Expired", "--- PASS: relist-after-restart-deletes"} {
		if !strings.Contains(outs[0], want) {
			t.Errorf("output lacks %q:\n%s", want, outs[0])
		}
	}
	if outs[0] != outs[1] {
		t.Errorf("two replays differ (-first +second):\n%s", cmp.Diff(outs[0], outs[1]))
	}
}

// TestRunFiles: "lw-sim run FILE..." runs every file and fails naming the
// file and the expectation that did not hold.
func TestRunFiles(t *testing.T) {
	t.Parallel()
	ctx, cancel := testdeadline.Context(t)
	defer cancel()
	const good, bad = "../../scenarios/testdata/files/relist-stays-in-sync.yaml", "../../scenarios/testdata/files/wrong-expectation.yaml"
	var stdout, stderr bytes.Buffer
	err := run(ctx, []string{"run", good, bad}, &stdout, &stderr)
	if err == nil || !strings.Contains(err.Error(), bad+": scenario wrong-expectation:") || !strings.Contains(err.Error(), "w1: events [DELETED alpha]") || strings.Contains(err.Error(), good) {
		t.Fatalf("run(run good bad) = %v, want a failure naming %s and its expectation only", err, bad)
	}
	for _, want := range []string{"--- PASS: relist-stays-in-sync", "--- FAIL: wrong-expectation", "1 of 2 scenarios passed"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, stdout.String())
		}
	}
}
