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
)

var updateDocs = flag.Bool("update-docs", false, "rewrite docs/rv-semantics.md from RVSemantics")

// rvSemanticsDoc is where the reference lives.
const rvSemanticsDoc = "../docs/rv-semantics.md"

// renderRVSemantics is the reference as Markdown: one table per verb.
func renderRVSemantics(rows []RVSemantic) []byte {
	var b bytes.Buffer
	b.WriteString(`# resourceVersion: what GET, LIST and WATCH do with it

What kube-apiserver v1.37.2 does with each shape of request, one row each, with the conformance cases that check
it against the real server (` + "`make conformance-real`" + `) and against lw-sim (` + "`go test ./conformance/`" + `).
A resourceVersion is opaque: compare two only for equality, never add to one or order them, except where a row
says the server does. Generated from ` + "`conformance/rv_semantics.go`" + ` by
` + "`go test ./conformance/ -run TestRVSemanticsDoc -update-docs`" + `; do not edit by hand.
`)
	verb := ""
	for _, r := range rows {
		if r.Verb != verb {
			verb = r.Verb
			fmt.Fprintf(&b, "\n## %s\n\n| request | answer | checked by |\n|---|---|---|\n", verb)
		}
		cases := make([]string, len(r.Cases))
		for i, c := range r.Cases {
			cases[i] = "`" + c + "`"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s |\n", r.Request, r.Answer, strings.Join(cases, ", "))
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
	want := renderRVSemantics(RVSemantics())
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
