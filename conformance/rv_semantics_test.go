package conformance

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/lw-sim/lw-sim/scenarios"
)

var updateDocs = flag.Bool("update-docs", false, "rewrite docs/rv-semantics.md from RVSemantics")

// rvSemanticsDoc is where the reference lives.
const rvSemanticsDoc = "../docs/rv-semantics.md"

// lessonsByCase maps each conformance case to the built-in scenarios
// (lw-sim's lessons) whose proves: names it, in the library's order.
func lessonsByCase() map[string][]string {
	out := map[string][]string{}
	for _, sc := range scenarios.Library() {
		for _, c := range sc.Proves {
			out[c] = append(out[c], sc.Name)
		}
	}
	return out
}

// renderRVSemantics is the reference as Markdown: one table per verb,
// each row with the lessons that teach it (those whose proves: names one
// of its cases, from lessons).
func renderRVSemantics(rows []RVSemantic, lessons map[string][]string) []byte {
	var b bytes.Buffer
	b.WriteString(`# resourceVersion: what GET, LIST and WATCH do with it

What kube-apiserver v1.37.2 does with each shape of request, one row each, with the conformance cases that check
it against the real server (` + "`make conformance-real`" + `) and against lw-sim (` + "`go test ./conformance/`" + `).
A resourceVersion is opaque: compare two only for equality, never add to one or order them, except where a row
says the server does. The lessons are lw-sim's scenarios that show the row (` + "`lw-sim explain NAME`" + `); each names
the cases in its ` + "`proves:`" + `. Generated from ` + "`conformance/rv_semantics.go`" + ` and the lessons' ` + "`proves:`" + ` by
` + "`go test ./conformance/ -run TestRVSemanticsDoc -update-docs`" + `; do not edit by hand.
`)
	verb := ""
	for _, r := range rows {
		if r.Verb != verb {
			verb = r.Verb
			fmt.Fprintf(&b, "\n## %s\n\n| request | answer | checked by | lessons |\n|---|---|---|---|\n", verb)
		}
		cases := make([]string, len(r.Cases))
		var taught []string
		for i, c := range r.Cases {
			cases[i] = "`" + c + "`"
			for _, l := range lessons[c] {
				if !slices.Contains(taught, l) {
					taught = append(taught, l)
				}
			}
		}
		teach := "—"
		if len(taught) > 0 {
			teach = "`" + strings.Join(taught, "`, `") + "`"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", r.Request, r.Answer, strings.Join(cases, ", "), teach)
	}
	return b.Bytes()
}

// TestRVSemanticsDoc: every case the reference names is a case of the
// suite, and docs/rv-semantics.md is the reference rendered.
func TestRVSemanticsDoc(t *testing.T) {
	var names []string
	for _, c := range Cases() {
		names = append(names, c.Name)
	}
	for _, r := range RVSemantics() {
		if len(r.Cases) == 0 {
			t.Errorf("%s %s: no case checks it", r.Verb, r.Request)
		}
		for _, c := range r.Cases {
			if !slices.Contains(names, c) {
				t.Errorf("%s %s: no case %q", r.Verb, r.Request, c)
			}
		}
	}
	want := renderRVSemantics(RVSemantics(), lessonsByCase())
	if *updateDocs {
		if err := os.WriteFile(rvSemanticsDoc, want, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(rvSemanticsDoc)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s is stale (-rendered +file); run go test ./conformance/ -run TestRVSemanticsDoc -update-docs:\n%s", rvSemanticsDoc, diff)
	}
}
