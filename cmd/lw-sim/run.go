package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/lw-sim/lw-sim/scenarios"
)

// runAll is the scenario name that runs the whole library.
const runAll = "all"

var runCommand = command{
	name: "run",
	summary: `Run a built-in scenario (or "all") against an in-process fake kube-apiserver on
a virtual clock and print its timeline and PASS or FAIL. Each scenario answers
one of the seed article's List & Watch questions; --list shows them. Exits
non-zero if an expectation fails, naming the file and the expectation.

A FILE (.yaml, .yml or .json) is a scenario file: objects to seed, listwatch
clients, a timeline of writes, faults, clock steps, raw LISTs and WATCHes, and
expectations (see scenarios.File and the README). A chaos schedule written by a
failing client chaos property test (scenarios.ChaosFile) is one too.

Usage: lw-sim run NAME|all|FILE... [--seed N] [--json]
       lw-sim run --list`,
}

// runFlags are the flags of run (and, but for list, explain).
type runFlags struct {
	seed   uint64
	asJSON bool
	list   bool
}

// runRun is "lw-sim run".
func runRun(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet(runCommand)
	var f runFlags
	fs.Uint64Var(&f.seed, "seed", 0, "seed for the scenario's random choices (0: the scenario's own seed)")
	fs.BoolVar(&f.asJSON, "json", false, "print the result(s) as JSON instead of text")
	fs.BoolVar(&f.list, "list", false, "list the scenarios and the questions they answer")
	help, names, err := parseWithName(runCommand, fs, args, stdout, stderr)
	if help || err != nil {
		return err
	}
	if f.list {
		if len(names) > 0 {
			printUsage(runCommand, fs, stderr)
			return &usageError{msg: "run: --list takes no scenario name"}
		}
		return listScenarios(stdout)
	}
	if len(names) == 0 {
		printUsage(runCommand, fs, stderr)
		return &usageError{msg: "run: want a scenario name, all, or scenario files"}
	}
	var scs []*scenarios.Scenario
	for _, name := range names {
		more, err := resolveScenarios(name)
		if err != nil {
			return err
		}
		scs = append(scs, more...)
	}
	results := make([]*scenarios.Result, 0, len(scs))
	var failed []string
	for _, sc := range scs {
		res, err := scenarios.Run(ctx, sc, scenarios.RunOptions{Seed: f.seed})
		if err != nil {
			failed = append(failed, describeFailure(sc, err))
			if !errors.Is(err, scenarios.ErrExpectation) && ctx.Err() != nil {
				return err
			}
		}
		results = append(results, res)
		if !f.asJSON {
			printResult(stdout, sc, res)
		}
	}
	if f.asJSON {
		var v any = results
		if len(names) == 1 && names[0] != runAll {
			v = results[0]
		}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(v); err != nil {
			return err
		}
	} else if len(scs) > 1 {
		fmt.Fprintf(stdout, "%d of %d scenarios passed\n", len(scs)-len(failed), len(scs))
	}
	if len(failed) > 0 {
		return fmt.Errorf("run: %d scenario(s) failed:\n  %s", len(failed), strings.Join(failed, "\n  "))
	}
	return nil
}

// resolveScenarios is what one argument of run or explain names: a
// built-in, every built-in ("all"), or a scenario file (.yaml, .yml or
// .json, chaos schedules included).
func resolveScenarios(name string) ([]*scenarios.Scenario, error) {
	switch {
	case name == runAll:
		return scenarios.Library(), nil
	case isScenarioFile(name):
		f, err := scenarios.LoadFile(name)
		if err != nil {
			return nil, err
		}
		sc := f.Scenario()
		sc.Source = name
		return []*scenarios.Scenario{sc}, nil
	default:
		sc, err := scenarios.Lookup(name)
		if err != nil {
			return nil, err
		}
		return []*scenarios.Scenario{sc}, nil
	}
}

// isScenarioFile reports whether name is a file name, not a built-in's.
func isScenarioFile(name string) bool {
	for _, ext := range []string{".yaml", ".yml", ".json"} {
		if strings.HasSuffix(name, ext) {
			return true
		}
	}
	return false
}

// describeFailure names a failed run: the scenario, its file if any, and
// the error (the failed expectation).
func describeFailure(sc *scenarios.Scenario, err error) string {
	where := sc.Name
	if sc.Source != "" {
		where = sc.Source
	}
	return where + ": " + err.Error()
}

// printResult prints one run as text: header, timeline, verdict.
func printResult(w io.Writer, sc *scenarios.Scenario, res *scenarios.Result) {
	fmt.Fprintf(w, "=== RUN   %s (seed %d)\n", sc.Name, res.Seed)
	for _, q := range sc.Questions() {
		fmt.Fprintf(w, "    Q: %s\n       %s\n", q.English, q.Chinese)
	}
	_ = res.Timeline.Write(w, "    ")
	if res.Passed {
		fmt.Fprintf(w, "--- PASS: %s\n\n", sc.Name)
		return
	}
	fmt.Fprintf(w, "--- FAIL: %s: %s\n\n", sc.Name, res.Error)
}

// listScenarios prints every scenario with the questions it answers, then
// which scenarios answer each of the article's questions.
func listScenarios(w io.Writer) error {
	lib := scenarios.Library()
	for _, sc := range lib {
		fmt.Fprintf(w, "%s\n    %s\n", sc.Name, sc.Summary)
		for _, q := range sc.Questions() {
			fmt.Fprintf(w, "    Q: %s\n       %s\n", q.English, q.Chinese)
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w, "The seed article's questions (section 7) and the scenarios that answer them:")
	for i, q := range scenarios.Questions() {
		var by []string
		for _, sc := range lib {
			for _, id := range sc.Answers {
				if id == q.ID {
					by = append(by, sc.Name)
				}
			}
		}
		fmt.Fprintf(w, "  %d. %s\n     %s\n     → %s\n", i+1, q.Chinese, q.English, strings.Join(by, ", "))
	}
	return nil
}

// parseWithName parses flags that may come before or after positional
// arguments ("run NAME --seed 3" as well as "run --seed 3 NAME") and
// returns the positional ones. Help and errors are handled as parseFlags
// does.
func parseWithName(cmd command, fs *flag.FlagSet, args []string, stdout, stderr io.Writer) (help bool, names []string, err error) {
	for {
		err := fs.Parse(args)
		switch {
		case errors.Is(err, flag.ErrHelp):
			printUsage(cmd, fs, stdout)
			return true, nil, nil
		case err != nil:
			printUsage(cmd, fs, stderr)
			return false, nil, &usageError{msg: fmt.Sprintf("%s: %v", cmd.name, err)}
		}
		if fs.NArg() == 0 {
			return false, names, nil
		}
		names = append(names, fs.Arg(0))
		args = fs.Args()[1:]
	}
}
