package malformed

import (
	"bytes"
	"net/http"
	"strings"
	"testing"
)

// TestCorpus: the corpus is at least the 574 requests of issue 21's attack
// run, every name is unique, the same on every call, and every DELETE that
// a server might route to a collection carries the selector no object
// matches.
func TestCorpus(t *testing.T) {
	f := NewFixture("ns")
	c := Corpus(f)
	if len(c) < 574 {
		t.Errorf("len(Corpus) = %d, want at least 574", len(c))
	}
	seen := map[string]bool{}
	for _, r := range c {
		if seen[r.Name] {
			t.Errorf("duplicate name %q", r.Name)
		}
		seen[r.Name] = true
		if r.Method == http.MethodDelete && !isItemOfFixture(f, r.Path) && !strings.Contains(r.Query, noneSelector) {
			t.Errorf("%s: DELETE %s?%s has no label selector", r.Name, r.Path, r.Query)
		}
		if r.Method == http.MethodDelete && !isItemOfFixture(f, r.Path) && !strings.Contains(r.Query, "dryRun=All") &&
			r.Category() != "write" {
			t.Errorf("%s: DELETE %s?%s is no dry run", r.Name, r.Path, r.Query)
		}
	}
	again := Corpus(f)
	for i := range c {
		if i >= len(again) || c[i].Name != again[i].Name || c[i].Path != again[i].Path || c[i].Query != again[i].Query ||
			!bytes.Equal(c[i].Body, again[i].Body) {
			t.Fatalf("Corpus is not deterministic: request %d is %q, then %q", i, c[i].Name, again[min(i, len(again)-1)].Name)
		}
	}
	counts := map[string]int{}
	for _, r := range c {
		counts[r.Category()]++
	}
	t.Logf("corpus: %d requests %v", len(c), counts)
}

// isItemOfFixture reports whether p is the path of a fixture object.
func isItemOfFixture(f Fixture, p string) bool {
	for _, o := range f.Objects() {
		if p == o.Collection+"/"+o.Name {
			return true
		}
	}
	return false
}
