package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"time"
)

// expected is expected.json: the reference run, on a real kube-apiserver
// and etcd, as counts and the names of the specs that passed.
type expected struct {
	ControllerRuntime string          `json:"controllerRuntime"`
	Suites            []expectedSuite `json:"suites"`
}

// expectedSuite is one suite of the reference run.
type expectedSuite struct {
	Package string  `json:"package"`
	Specs   int     `json:"specs"`
	Passed  int     `json:"passed"`
	Failed  int     `json:"failed"`
	Skipped int     `json:"skipped"`
	Seconds float64 `json:"seconds"`
	// SetupSeconds is the BeforeSuite's time: envtest's start, mostly.
	SetupSeconds float64 `json:"setupSeconds"`
	Note         string  `json:"note,omitempty"`
	// Passing are the names of the specs that passed, sorted.
	Passing []string `json:"passing"`
}

// exemption is a spec of exempt.json: known to fail on lw-sim, and why.
type exemption struct {
	Package string `json:"package"`
	Spec    string `json:"spec"`
	Reason  string `json:"reason"`
}

func writeExpected(path, version string, results []suiteResult) error {
	exp := expected{ControllerRuntime: version}
	for _, r := range results {
		s := expectedSuite{
			Package: r.Package, Specs: r.Specs, Passed: r.Passed, Failed: r.Failed, Skipped: r.Skipped,
			Seconds: roundSeconds(r.Wall), SetupSeconds: roundSeconds(r.Setup), Note: r.Note, Passing: []string{},
		}
		for name, sr := range r.Results {
			if sr.Outcome == outcomePassed {
				s.Passing = append(s.Passing, name)
			}
		}
		slices.Sort(s.Passing)
		exp.Suites = append(exp.Suites, s)
	}
	data, err := json.MarshalIndent(exp, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(data, '\n'), 0o644)
}

func readExpected(path string) (*expected, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var exp expected
	if err := json.Unmarshal(data, &exp); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &exp, nil
}

// readExempt reads exempt.json; no path, or no file, is no exemption.
func readExempt(path string) ([]exemption, error) {
	if path == "" {
		return nil, nil
	}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var ex []exemption
	if err := json.Unmarshal(data, &ex); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return ex, nil
}

// specDiff is a spec whose outcome here differs from the reference's.
type specDiff struct {
	Package, Spec, Message, Reason string
}

// comparison is a run set against the reference.
type comparison struct {
	regressions   []specDiff // passed on real, not here, not exempt
	exemptFailing []specDiff // passed on real, not here, exempt (with its reason)
	exemptPassing []specDiff // exempt, yet passed here: the exemption can go
	onlyHere      []specDiff // passed here, not on real
}

// compare sets results against the reference: a spec the reference
// passed that did not pass here (failed, skipped, or missing because its
// suite crashed) is a regression unless exempt.
func compare(exp *expected, ex []exemption, results []suiteResult) comparison {
	reasons := map[[2]string]string{}
	for _, e := range ex {
		reasons[[2]string{e.Package, e.Spec}] = e.Reason
	}
	var c comparison
	for _, r := range results {
		ref := findSuite(exp, r.Package)
		passedRef := map[string]bool{}
		if ref != nil {
			for _, name := range ref.Passing {
				passedRef[name] = true
			}
		}
		for _, name := range sortedKeys(passedRef) {
			got, ok := r.Results[name]
			if ok && got.Outcome == outcomePassed {
				continue
			}
			d := specDiff{Package: r.Package, Spec: name, Message: got.Message}
			if !ok {
				d.Message = "not run: " + r.Note
			}
			if reason, exempt := reasons[[2]string{r.Package, name}]; exempt {
				d.Reason = reason
				c.exemptFailing = append(c.exemptFailing, d)
				continue
			}
			c.regressions = append(c.regressions, d)
		}
		for _, name := range sortedKeys(r.Results) {
			if r.Results[name].Outcome != outcomePassed {
				continue
			}
			if reason, exempt := reasons[[2]string{r.Package, name}]; exempt {
				c.exemptPassing = append(c.exemptPassing, specDiff{Package: r.Package, Spec: name, Reason: reason})
			}
			if !passedRef[name] {
				c.onlyHere = append(c.onlyHere, specDiff{Package: r.Package, Spec: name})
			}
		}
	}
	return c
}

func findSuite(exp *expected, pkg string) *expectedSuite {
	for i := range exp.Suites {
		if exp.Suites[i].Package == pkg {
			return &exp.Suites[i]
		}
	}
	return nil
}

func (c comparison) print(w io.Writer, label string) {
	printDiffs(w, fmt.Sprintf("Pass on real, fail on %s", label), c.regressions)
	printDiffs(w, fmt.Sprintf("Pass on real, fail on %s, exempt (exempt.json)", label), c.exemptFailing)
	printDiffs(w, fmt.Sprintf("Exempt, yet passed on %s this time (once a cause is fixed, remove its specs from exempt.json)", label), c.exemptPassing)
	printDiffs(w, fmt.Sprintf("Pass on %s only", label), c.onlyHere)
}

func printDiffs(w io.Writer, title string, diffs []specDiff) {
	fmt.Fprintf(w, "\n%s: %d\n", title, len(diffs))
	for _, d := range diffs {
		fmt.Fprintf(w, "- %s: %s\n", d.Package, d.Spec)
		if d.Reason != "" {
			fmt.Fprintf(w, "    reason: %s\n", d.Reason)
		}
		if d.Message != "" {
			fmt.Fprintf(w, "    %s\n", d.Message)
		}
	}
}

// printTable prints one markdown row per suite and a total; with the
// reference, its passes and times beside this run's. Set-up is the
// BeforeSuite (envtest's start, mostly); time is the whole test binary's.
func printTable(w io.Writer, label string, results []suiteResult, exp *expected) {
	var total suiteResult
	var totalRef expectedSuite
	if exp == nil {
		fmt.Fprintf(w, "| suite (%s) | specs | passed | failed | skipped | set-up | time |\n|---|---:|---:|---:|---:|---:|---:|\n", label)
	} else {
		fmt.Fprintf(w, "| suite | specs | passed real | passed %[1]s | failed %[1]s | set-up real | set-up %[1]s | time real | time %[1]s |\n"+
			"|---|---:|---:|---:|---:|---:|---:|---:|---:|\n", label)
	}
	for _, r := range results {
		total.Specs, total.Passed, total.Failed, total.Skipped = total.Specs+r.Specs, total.Passed+r.Passed, total.Failed+r.Failed, total.Skipped+r.Skipped
		total.Wall += r.Wall
		total.Setup += r.Setup
		pkg := r.Package
		if r.Note != "" {
			pkg += " (" + r.Note + ")"
		}
		if exp == nil {
			fmt.Fprintf(w, "| %s | %d | %d | %d | %d | %.1f s | %.1f s |\n", pkg, r.Specs, r.Passed, r.Failed, r.Skipped, r.Setup.Seconds(), r.Wall.Seconds())
			continue
		}
		ref := findSuite(exp, r.Package)
		if ref == nil {
			ref = &expectedSuite{}
		}
		totalRef.Passed += ref.Passed
		totalRef.Seconds += ref.Seconds
		totalRef.SetupSeconds += ref.SetupSeconds
		fmt.Fprintf(w, "| %s | %d | %d | %d | %d | %.1f s | %.1f s | %.1f s | %.1f s |\n", pkg, r.Specs, ref.Passed, r.Passed, r.Failed,
			ref.SetupSeconds, r.Setup.Seconds(), ref.Seconds, r.Wall.Seconds())
	}
	if exp == nil {
		fmt.Fprintf(w, "| **total** | %d | %d | %d | %d | %.1f s | %.1f s |\n", total.Specs, total.Passed, total.Failed, total.Skipped, total.Setup.Seconds(), total.Wall.Seconds())
		return
	}
	fmt.Fprintf(w, "| **total** | %d | %d | %d | %d | %.1f s | %.1f s | %.1f s | %.1f s |\n", total.Specs, totalRef.Passed, total.Passed, total.Failed,
		totalRef.SetupSeconds, total.Setup.Seconds(), totalRef.Seconds, total.Wall.Seconds())
}

func roundSeconds(d time.Duration) float64 {
	return float64(d.Round(100*time.Millisecond)) / float64(time.Second)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
