package scenariofile

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestMarshalRoundTrip: every built-in scenario file, every test file and
// listwatch's chaos failure example (between them, every step kind) reads back equal after Marshal, and
// the header comes first as comments.
func TestMarshalRoundTrip(t *testing.T) {
	paths, err := filepath.Glob("../library/*.yaml")
	if err != nil || len(paths) < 10 {
		t.Fatalf("Glob = %d files, %v; want the built-ins", len(paths), err)
	}
	more, _ := filepath.Glob("../testdata/files/*.yaml")
	chaos, _ := filepath.Glob("../../listwatch/testdata/*.yaml")
	more = append(more, chaos...)
	kinds := map[string]bool{}
	for _, p := range append(paths, more...) {
		if strings.Contains(p, "unknown-field") {
			continue
		}
		f, err := Load(p)
		if err != nil {
			t.Fatal(err)
		}
		for i := range f.Timeline {
			k, _ := f.Timeline[i].Kind()
			kinds[k] = true
		}
		b, err := f.Marshal("line one\nline two")
		if err != nil {
			t.Fatalf("%s: Marshal: %v", p, err)
		}
		if !strings.HasPrefix(string(b), "# line one\n# line two\nversion: 1\n") {
			t.Errorf("%s: Marshal starts %q, want the header then version", p, b[:min(len(b), 60)])
		}
		back, err := Parse(p, b)
		if err != nil {
			t.Fatalf("%s: Parse(Marshal) = %v\n%s", p, err, b)
		}
		if diff := cmp.Diff(f, back); diff != "" {
			t.Errorf("%s: round trip differs (-loaded +marshalled):\n%s", p, diff)
		}
	}
	for _, k := range stepKinds {
		if !kinds[k.name] && k.name != "clearFaults" && k.name != "waitSync" {
			t.Errorf("no file uses step kind %s, so its round trip is not tested", k.name)
		}
	}
}

// TestParseRejects: what decoding accepts but the format does not is
// refused, with the place and the reason.
func TestParseRejects(t *testing.T) {
	for name, tc := range map[string]struct{ body, want string }{
		"resume-unpaused": {"version: 1\ntimeline: [{watch: {id: w}}, {resume: w}]", `timeline[1] (resume): no paused watch "w"`},
		"cache-unfilled":  {"version: 1\ntimeline: [{expectCache: {cache: naive, names: []}}]", `no naive cache "naive"`},
		"apply-unfilled":  {"version: 1\ntimeline: [{watch: {id: w}}, {expectEvents: {watch: w, apply: naive, events: []}}]", `no naive cache "naive"`},
		"pager-size":      {"version: 1\ntimeline: [{pager: {pageSize: 0}}]", "a positive pageSize"},
		"pager-nested":    {"version: 1\ntimeline: [{pager: {pageSize: 1, between: [{close: w}]}}]", `between[0] (close): no watch "w"`},
		"recorded-kind":   {"version: 1\ntimeline: [{expectRecorded: {kind: gossip, contains: [x]}}]", `kind "gossip"`},
		"less-one":        {"version: 1\ntimeline: [{expectLess: {values: [\"1\"]}}]", "two values or more"},
		"follow-async":    {"version: 1\ntimeline: [{list: {id: l, async: true, follow: true}}]", "cannot follow"},
		"silent-events":   {"version: 1\ntimeline: [{watch: {id: w}}, {expectEvents: {watch: w, silent: true, events: [{end: true}]}}]", "silent expects no events"},
		"unknown-nested":  {"version: 1\ntimeline:\n  - pager:\n      pageSize: 1\n      between: [{note: x, loud: true}]", `:5: unknown field "loud" in timeline[0].pager.between[0]`},
	} {
		_, err := Parse(name+".yaml", []byte(tc.body))
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), name+".yaml") {
			t.Errorf("%s: Parse = %v, want an error naming the file and containing %q", name, err, tc.want)
		}
	}
}
