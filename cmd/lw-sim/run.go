package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/lw-sim/lw-sim/scenarios"
)

const (
	// runAll is the scenario name that runs the whole library.
	runAll = "all"
	// scenarioBound is how long run and explain let one scenario run, a
	// guard against a fake that is stuck: a scenario takes milliseconds on
	// a quiet machine, seconds on a loaded one. Its waits for the server
	// and clients end there, never at a budget of their own (package
	// scenarios, env.go), so a slow machine does not fail a right run.
	scenarioBound = 10 * time.Minute
)

// runOptions are the flags of run.
type runOptions struct {
	seed   uint64
	output outputFlag
	asJSON bool // --json, deprecated for -o json
	list   bool
}

func newRunCommand() *cobra.Command {
	var o runOptions
	cmd := &cobra.Command{
		Use:   "run NAME|all|FILE... | --list",
		Short: "Run List & Watch scenarios on a virtual clock: timeline, PASS or FAIL",
		Long: `Run a built-in scenario (or "all") against an in-process fake kube-apiserver on
a virtual clock and print its timeline and PASS or FAIL. Each scenario answers
one of the List & Watch questions lw-sim grew from; --list shows them. Exits
non-zero if an expectation fails, naming the file and the expectation.

A FILE (.yaml, .yml or .json) is a scenario file: objects to seed, listwatch
clients, a timeline of writes, faults, clock steps, raw LISTs and WATCHes, and
expectations (see package scenarios/scenariofile and the README). The client chaos
property test writes its shrunk failures as such files; older chaos schedules
(scenarios.ChaosFile JSON) load too.

With -o json or -o yaml it prints the result (a list of results for "all" or
several names) as data instead of text.`,
		Example: `  lw-sim run --list
  lw-sim run watch-timeout
  lw-sim run all
  lw-sim run list-chunking --seed 77 -o json
  lw-sim run scenarios/testdata/files/relist-stays-in-sync.yaml`,
		Args: func(cmd *cobra.Command, names []string) error {
			if o.list && len(names) > 0 {
				return errors.New("--list takes no scenario name")
			}
			if !o.list && len(names) == 0 {
				return errors.New("want a scenario name, all, or scenario files")
			}
			return nil
		},
		ValidArgsFunction: completeScenarioNames,
		RunE: func(cmd *cobra.Command, names []string) error {
			if o.asJSON {
				fmt.Fprintln(cmd.ErrOrStderr(), "Flag --json has been deprecated, use -o json")
				o.output = outputJSON
			}
			if o.list {
				return listScenarios(cmd.OutOrStdout(), o.output)
			}
			return runScenarios(cmd.Context(), names, o, cmd.OutOrStdout())
		},
	}
	f := cmd.Flags()
	f.Uint64Var(&o.seed, "seed", 0, "seed for the scenario's random choices (0: the scenario's own seed)")
	addOutputFlag(cmd, &o.output)
	f.BoolVar(&o.asJSON, "json", false, "print the result(s) as JSON (deprecated: use -o json)")
	// Hidden from help and still accepted, as scripts use it. Not
	// MarkDeprecated: cobra prints that notice with Print, to stdout, which
	// would spoil the JSON; RunE warns on stderr instead.
	_ = f.MarkHidden("json")
	f.BoolVar(&o.list, "list", false, "list the scenarios and the questions they answer")
	return cmd
}

// runScenario runs sc within scenarioBound.
func runScenario(ctx context.Context, sc *scenarios.Scenario, opts scenarios.RunOptions) (*scenarios.Result, error) {
	ctx, cancel := context.WithTimeout(ctx, scenarioBound)
	defer cancel()
	return scenarios.Run(ctx, sc, opts)
}

// runScenarios runs what names name, in order, and prints each result as
// text, or all of them as data with -o.
func runScenarios(ctx context.Context, names []string, o runOptions, stdout io.Writer) error {
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
		res, err := runScenario(ctx, sc, scenarios.RunOptions{Seed: o.seed})
		if err != nil {
			failed = append(failed, describeFailure(sc, err))
			if !errors.Is(err, scenarios.ErrExpectation) && ctx.Err() != nil {
				return err
			}
		}
		results = append(results, res)
		if !o.output.isData() {
			printResult(stdout, sc, res)
		}
	}
	if o.output.isData() {
		var v any = results
		if len(names) == 1 && names[0] != runAll {
			v = results[0]
		}
		if err := o.output.print(stdout, v); err != nil {
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

// completeScenarioNames completes run and explain arguments: the built-in
// names (and all), or files.
func completeScenarioNames(_ *cobra.Command, _ []string, _ string) ([]string, cobra.ShellCompDirective) {
	names := []string{runAll}
	for _, sc := range scenarios.Library() {
		names = append(names, sc.Name+"\t"+sc.Summary)
	}
	return names, cobra.ShellCompDirectiveDefault
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
