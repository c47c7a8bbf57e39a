package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/lw-sim/lw-sim/scenarios"
)

// explainOptions are the flags of explain.
type explainOptions struct {
	seed    uint64
	htmlOut string
	output  outputFlag
}

// explanation is explain's output as data: the scenario and its run.
type explanation struct {
	Scenario scenarioInfo      `json:"scenario"`
	Result   *scenarios.Result `json:"result"`
}

func newExplainCommand() *cobra.Command {
	var o explainOptions
	cmd := &cobra.Command{
		Use:   "explain NAME|FILE",
		Short: "Explain a scenario: its question, what kube-apiserver does, and a run's timeline",
		Long: `Explain a built-in scenario or a scenario file: the question(s) it answers, in English and in the
Chinese of the List & Watch article lw-sim grew from, what kube-apiserver does
and why, and the timeline of a run against an in-process fake kube-apiserver.
"lw-sim run --list" lists them.

With --html OUT it also writes OUT, one self-contained HTML page (no network):
the same explanation and the run's timeline as a sequence diagram, a lane per
client and one for the server, with a resourceVersion axis shaded below the
compaction and watch-cache horizons.

With -o json or -o yaml it prints the scenario and the run's result as data.`,
		Example: `  lw-sim explain watch-breaks
  lw-sim explain watch-cache-window --html watch-cache-window.html
  lw-sim explain scenarios/testdata/files/relist-stays-in-sync.yaml --seed 3 -o yaml`,
		Args: func(cmd *cobra.Command, names []string) error {
			if len(names) != 1 || names[0] == runAll {
				return errors.New("want one scenario name or file")
			}
			return nil
		},
		ValidArgsFunction: completeScenarioNames,
		RunE: func(cmd *cobra.Command, names []string) error {
			return runExplain(cmd.Context(), names[0], o, cmd.OutOrStdout())
		},
	}
	f := cmd.Flags()
	f.Uint64Var(&o.seed, "seed", 0, "seed for the run shown (0: the scenario's own seed)")
	f.StringVar(&o.htmlOut, "html", "", "also write the explanation and the timeline as a sequence diagram to this HTML `file`")
	addOutputFlag(cmd, &o.output)
	return cmd
}

// runExplain is "lw-sim explain NAME": it runs the scenario once and prints
// what it teaches with the run's timeline.
func runExplain(ctx context.Context, name string, o explainOptions, stdout io.Writer) error {
	scs, err := resolveScenarios(name)
	if err != nil {
		return err
	}
	sc := scs[0]
	res, runErr := runScenario(ctx, sc, scenarios.RunOptions{Seed: o.seed}) // run.go
	if o.htmlOut != "" {
		if err := writeHTMLFile(o.htmlOut, sc, res); err != nil {
			return err
		}
	}
	if o.output.isData() {
		return errors.Join(o.output.print(stdout, explanation{Scenario: describeScenario(sc, true), Result: res}), runErr)
	}
	printExplanation(stdout, sc, res, o)
	return runErr
}

// printExplanation writes the explanation of sc and its run res as text.
func printExplanation(w io.Writer, sc *scenarios.Scenario, res *scenarios.Result, o explainOptions) {
	fmt.Fprintf(w, "%s\n%s\n\n", sc.Name, strings.Repeat("=", len(sc.Name)))
	for _, q := range sc.Questions() {
		fmt.Fprintf(w, "Q: %s\n   %s\n", q.English, q.Chinese)
	}
	fmt.Fprintf(w, "\nIn short: %s\n\n", sc.Summary)
	if len(sc.Proves) > 0 {
		fmt.Fprintf(w, "Proved against the real kube-apiserver by the conformance cases %s (make conformance-real; docs/rv-semantics.md).\n\n", strings.Join(sc.Proves, ", "))
	}
	if sc.Explanation != "" {
		fmt.Fprintf(w, "%s\n\n", sc.Explanation)
	}
	fmt.Fprintf(w, "What happens, step by step (virtual time, resourceVersion, what), seed %d:\n\n", res.Seed)
	_ = res.Timeline.Write(w, "  ")
	if o.htmlOut != "" {
		fmt.Fprintf(w, "\nWrote %s (open it in a browser).\n", o.htmlOut)
	}
	if !res.Passed {
		fmt.Fprintf(w, "\nFAIL: %s\n", res.Error)
		return
	}
	fmt.Fprintln(w, "\nPASS: the fake behaved as described.")
}

// writeHTMLFile writes the HTML page of sc's run res to path, replacing it.
func writeHTMLFile(path string, sc *scenarios.Scenario, res *scenarios.Result) error {
	var buf bytes.Buffer
	if err := scenarios.WriteHTML(&buf, sc, res); err != nil {
		return err
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		return fmt.Errorf("explain: %w", err)
	}
	return nil
}
