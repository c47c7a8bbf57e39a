package main

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestEnvironmental(t *testing.T) {
	for msg, want := range map[string]bool{
		"Unexpected error: <*net.OpError | 0x33be767ab630>: listen tcp 127.0.0.1:44607: bind: address already in use { Op: \"listen\"": true,
		"Expected <uint64>: 0 to be > <int>: 0": false,
		"":                                      false,
	} {
		if got := environmental(msg); got != want {
			t.Errorf("environmental(%q) = %v, want %v", msg, got, want)
		}
	}
}

func TestReplaceKeepsCounts(t *testing.T) {
	r := suiteResult{Package: "pkg/webhook", Results: map[string]specResult{}}
	r.add("a", specResult{Outcome: outcomePassed})
	r.add("b", specResult{Outcome: outcomeFailed, Message: "bind: address already in use"})
	r.add("c", specResult{Outcome: outcomeSkipped})
	r.replace("b", specResult{Outcome: outcomePassed})
	r.replace("missing", specResult{Outcome: outcomePassed})
	want := suiteResult{Package: "pkg/webhook", Specs: 3, Passed: 2, Skipped: 1, Results: map[string]specResult{
		"a": {Outcome: outcomePassed}, "b": {Outcome: outcomePassed}, "c": {Outcome: outcomeSkipped},
	}}
	if diff := cmp.Diff(want, r); diff != "" {
		t.Errorf("after replace (-want +got):\n%s", diff)
	}
}
