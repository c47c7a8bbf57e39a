package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"
)

// ginkgoSuite is the part of a ginkgo JSON report (types.Report) read here.
type ginkgoSuite struct {
	SuiteSucceeded bool
	SpecReports    []ginkgoSpec
}

// ginkgoSpec is the part of a ginkgo spec report (types.SpecReport) read
// here.
type ginkgoSpec struct {
	ContainerHierarchyTexts []string
	LeafNodeType            string
	LeafNodeText            string
	State                   string
	RunTime                 time.Duration // nanoseconds in the JSON
	Failure                 *struct{ Message string }
}

// Outcomes of a spec, as counted in the table.
const (
	outcomePassed  = "passed"
	outcomeFailed  = "failed"  // failed, panicked, timedout, interrupted, aborted
	outcomeSkipped = "skipped" // skipped or pending
)

// specResult is one spec's outcome and, when it failed, the first line of
// its failure.
type specResult struct {
	Outcome string
	Message string
}

// suiteResult is one suite's run: its counts, how long the process ran,
// and each spec's outcome by name (a spec's containers and its text,
// joined by spaces).
type suiteResult struct {
	Package                        string
	Specs, Passed, Failed, Skipped int
	Wall                           time.Duration // the test binary's run
	Setup                          time.Duration // its BeforeSuite: envtest's start, mostly
	Build                          time.Duration // go test -c
	ExitCode                       int
	// Note says why the suite has no spec results (no report: it crashed
	// or was killed) or that a suite-level node (BeforeSuite, ...) failed.
	Note    string
	Results map[string]specResult
}

// readSuiteReport reads the ginkgo JSON report of pkg's run; a missing or
// broken report is a suite with a note and no specs.
func readSuiteReport(path, pkg string) suiteResult {
	r := suiteResult{Package: pkg, Results: map[string]specResult{}}
	data, err := os.ReadFile(path)
	if err != nil {
		r.Note = "no report (the suite crashed or was killed): " + err.Error()
		return r
	}
	var suites []ginkgoSuite
	if err := json.Unmarshal(data, &suites); err != nil || len(suites) == 0 {
		r.Note = fmt.Sprintf("unreadable report: %v", err)
		return r
	}
	for _, s := range suites[0].SpecReports {
		if s.LeafNodeType == "BeforeSuite" || s.LeafNodeType == "SynchronizedBeforeSuite" {
			r.Setup += s.RunTime
		}
		if s.LeafNodeType != "It" {
			if outcome(s.State) == outcomeFailed {
				r.Note = fmt.Sprintf("%s %s: %s", s.LeafNodeType, s.State, failureLine(s))
			}
			continue
		}
		r.add(specName(s), specResult{Outcome: outcome(s.State), Message: failureLine(s)})
	}
	return r
}

// add records one spec. Two specs with the same name (a table's repeated
// entry, or a pending copy of a spec) are one, with the worse outcome
// that ran: failed over passed over skipped.
func (r *suiteResult) add(name string, s specResult) {
	r.Specs++
	switch s.Outcome {
	case outcomePassed:
		r.Passed++
	case outcomeFailed:
		r.Failed++
	default:
		r.Skipped++
	}
	if prev, ok := r.Results[name]; ok && outcomeRank[prev.Outcome] >= outcomeRank[s.Outcome] {
		return
	}
	r.Results[name] = s
}

// outcomeRank orders outcomes for add: a failure of either copy of a spec
// wins, and a skipped copy never hides one that ran.
var outcomeRank = map[string]int{outcomeSkipped: 0, outcomePassed: 1, outcomeFailed: 2}

// specName is a spec's full text: its containers' texts and its own.
func specName(s ginkgoSpec) string {
	return strings.Join(append(append([]string{}, s.ContainerHierarchyTexts...), s.LeafNodeText), " ")
}

// outcome maps a ginkgo SpecState to passed, failed or skipped.
func outcome(state string) string {
	switch state {
	case "passed":
		return outcomePassed
	case "skipped", "pending":
		return outcomeSkipped
	}
	return outcomeFailed
}

// failureLine is a spec's failure message on one line (gomega's first
// line is often only "Expected success, but got an error:"), cut to 300
// bytes, or "".
func failureLine(s ginkgoSpec) string {
	if s.Failure == nil {
		return ""
	}
	line := strings.Join(strings.Fields(s.Failure.Message), " ")
	if len(line) > 300 {
		line = line[:300] + "..."
	}
	return line
}
