package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// report is a ginkgo JSON report (the fields read) of a suite with a
// BeforeSuite and four specs.
const report = `[{"SuiteSucceeded": false, "SpecReports": [
 {"LeafNodeType": "BeforeSuite", "State": "passed", "RunTime": 1500000000},
 {"ContainerHierarchyTexts": ["Client", "Create"], "LeafNodeType": "It", "LeafNodeText": "creates", "State": "passed"},
 {"ContainerHierarchyTexts": ["Client"], "LeafNodeType": "It", "LeafNodeText": "finalizes", "State": "failed",
  "Failure": {"Message": "Expected success, but got an error:\n    the server could not find the requested resource"}},
 {"ContainerHierarchyTexts": ["Client"], "LeafNodeType": "It", "LeafNodeText": "webhooks", "State": "timedout"},
 {"ContainerHierarchyTexts": ["Client"], "LeafNodeType": "It", "LeafNodeText": "later", "State": "pending"}
]}]`

// goTestOutput is -test.v output around the ginkgo suite's Go test.
const goTestOutput = `=== RUN   TestMapper
=== RUN   TestMapper/cached
--- PASS: TestMapper (0.10s)
    --- PASS: TestMapper/cached (0.05s)
    --- FAIL: TestMapper/lazy (0.05s)
--- FAIL: TestSuite (3.00s)
`

func TestReadAndCompare(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write("suite_test.go", "package x\nfunc TestSuite(t *testing.T) { RunSpecs(t, \"x\") }\n")
	r := readSuiteReport(write("report.json", report), "pkg/client")
	r.addGoTests(write("out.log", goTestOutput), dir)
	want := map[string]specResult{
		"Client Create creates":     {Outcome: outcomePassed},
		"Client finalizes":          {Outcome: outcomeFailed, Message: "Expected success, but got an error: the server could not find the requested resource"},
		"Client webhooks":           {Outcome: outcomeFailed},
		"Client later":              {Outcome: outcomeSkipped},
		"go test TestMapper/cached": {Outcome: outcomePassed},
		"go test TestMapper/lazy":   {Outcome: outcomeFailed},
	}
	if diff := cmp.Diff(want, r.Results); diff != "" {
		t.Errorf("suite results mismatch (-want +got):\n%s", diff)
	}
	if r.Specs != 6 || r.Passed != 2 || r.Failed != 3 || r.Skipped != 1 {
		t.Errorf("counts = %d specs, %d passed, %d failed, %d skipped; want 6, 2, 3, 1", r.Specs, r.Passed, r.Failed, r.Skipped)
	}

	exp := &expected{Suites: []expectedSuite{{Package: "pkg/client", Passed: 4, Passing: []string{
		"Client Create creates", "Client finalizes", "Client webhooks", "go test TestMapper/lazy",
	}}}}
	ex := []exemption{{Package: "pkg/client", Spec: "Client webhooks", Reason: "admission webhooks (issue 23)"}}
	c := compare(exp, ex, []suiteResult{r})
	gotRegressions := []string{}
	for _, d := range c.regressions {
		gotRegressions = append(gotRegressions, d.Spec)
	}
	if diff := cmp.Diff([]string{"Client finalizes", "go test TestMapper/lazy"}, gotRegressions); diff != "" {
		t.Errorf("regressions mismatch (-want +got):\n%s", diff)
	}
	if len(c.exemptFailing) != 1 || c.exemptFailing[0].Reason != "admission webhooks (issue 23)" {
		t.Errorf("exempt failures = %+v, want Client webhooks with its reason", c.exemptFailing)
	}
	if len(c.onlyHere) != 1 || c.onlyHere[0].Spec != "go test TestMapper/cached" {
		t.Errorf("passing here only = %+v, want go test TestMapper/cached", c.onlyHere)
	}

	var table bytes.Buffer
	printTable(&table, "lw-sim", []suiteResult{r}, exp)
	if !strings.Contains(table.String(), "| pkg/client | 6 | 4 | 2 | 3 | 0.0 s | 1.5 s |") {
		t.Errorf("table =\n%s\nwant the row: 6 specs, 4 passed real, 2 passed lw-sim, 3 failed, set-up 1.5 s", table.String())
	}
}

// TestNoReport: a suite that crashed before writing its report has a note,
// and every spec the reference passed is a regression.
func TestNoReport(t *testing.T) {
	r := readSuiteReport(filepath.Join(t.TempDir(), "missing.json"), "pkg/cache")
	if !strings.HasPrefix(r.Note, "no report") {
		t.Errorf("Note = %q, want it to start with \"no report\"", r.Note)
	}
	exp := &expected{Suites: []expectedSuite{{Package: "pkg/cache", Passing: []string{"Cache works"}}}}
	c := compare(exp, nil, []suiteResult{r})
	if len(c.regressions) != 1 || !strings.HasPrefix(c.regressions[0].Message, "not run: no report") {
		t.Errorf("regressions = %+v, want Cache works, not run", c.regressions)
	}
}

// TestDuplicateSpecNames: of two specs with one name, a failure wins and
// a skipped copy never hides one that ran.
func TestDuplicateSpecNames(t *testing.T) {
	tests := []struct {
		outcomes []string
		want     string
	}{
		{outcomes: []string{outcomeSkipped, outcomePassed}, want: outcomePassed},
		{outcomes: []string{outcomePassed, outcomeSkipped}, want: outcomePassed},
		{outcomes: []string{outcomePassed, outcomeFailed}, want: outcomeFailed},
		{outcomes: []string{outcomeFailed, outcomePassed}, want: outcomeFailed},
		{outcomes: []string{outcomeSkipped, outcomeSkipped}, want: outcomeSkipped},
	}
	for _, tt := range tests {
		r := suiteResult{Results: map[string]specResult{}}
		for _, o := range tt.outcomes {
			r.add("same", specResult{Outcome: o})
		}
		if got := r.Results["same"].Outcome; got != tt.want {
			t.Errorf("add(%q) = %s, want %s", tt.outcomes, got, tt.want)
		}
	}
}
