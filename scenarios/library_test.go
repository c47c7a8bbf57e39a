package scenarios

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestLibraryPasses(t *testing.T) {
	for _, sc := range Library() {
		t.Run(sc.Name, func(t *testing.T) {
			t.Parallel()
			res, err := Run(t.Context(), sc, RunOptions{})
			if err != nil {
				var b []byte
				for _, e := range res.Timeline {
					b = append(b, "\n  "+e.String()...)
				}
				t.Fatalf("Run(%s) = %v; timeline:%s", sc.Name, err, b)
			}
			if !res.Passed || res.Seed != sc.Seed {
				t.Errorf("Run(%s) = passed %v seed %d, want passed true seed %d", sc.Name, res.Passed, res.Seed, sc.Seed)
			}
		})
	}
}

// TestDeterministic runs every scenario twice with the same seed and
// requires identical timelines.
func TestDeterministic(t *testing.T) {
	for _, sc := range Library() {
		t.Run(sc.Name, func(t *testing.T) {
			t.Parallel()
			opts := RunOptions{Seed: 42}
			first, err := Run(t.Context(), sc, opts)
			if err != nil {
				t.Fatalf("Run(%s, seed 42) #1: %v", sc.Name, err)
			}
			second, err := Run(t.Context(), sc, opts)
			if err != nil {
				t.Fatalf("Run(%s, seed 42) #2: %v", sc.Name, err)
			}
			if diff := cmp.Diff(first.Timeline, second.Timeline); diff != "" {
				t.Errorf("Run(%s, seed 42) timelines differ (-first +second):\n%s", sc.Name, diff)
			}
		})
	}
}

func TestLookup(t *testing.T) {
	if _, err := Lookup("watch-timeout"); err != nil {
		t.Errorf("Lookup(watch-timeout) = %v, want nil", err)
	}
	if _, err := Lookup("nope"); !errors.Is(err, ErrUnknownScenario) {
		t.Errorf("Lookup(nope) = %v, want ErrUnknownScenario", err)
	}
}

// TestEveryQuestionAnswered: each of the article's nine questions has a
// scenario, and every scenario answers known questions with an explanation.
func TestEveryQuestionAnswered(t *testing.T) {
	answered := map[QuestionID]bool{}
	for _, sc := range Library() {
		if sc.Explanation == "" || sc.Summary == "" || len(sc.Answers) == 0 {
			t.Errorf("scenario %s lacks an explanation, summary or question", sc.Name)
		}
		for _, id := range sc.Answers {
			if _, ok := LookupQuestion(id); !ok {
				t.Errorf("scenario %s answers unknown question %q", sc.Name, id)
			}
			answered[id] = true
		}
	}
	for _, q := range Questions() {
		if !answered[q.ID] {
			t.Errorf("question %s (%s) has no scenario", q.ID, q.Chinese)
		}
	}
}

// TestFailedExpectation: a scenario whose expectation fails makes Run
// return ErrExpectation, with the FAIL in the timeline.
func TestFailedExpectation(t *testing.T) {
	sc := &Scenario{Name: "always-fails", Seed: 1, Steps: func(e *Env) error {
		if _, err := e.Create(Namespace, "x", "1"); err != nil {
			return err
		}
		return e.Expect(false, "the impossible")
	}}
	res, err := Run(t.Context(), sc, RunOptions{})
	if !errors.Is(err, ErrExpectation) {
		t.Fatalf("Run(always-fails) = %v, want ErrExpectation", err)
	}
	last := res.Timeline[len(res.Timeline)-1]
	if res.Passed || last.Kind != KindCheck || last.Text != "FAIL: the impossible" {
		t.Errorf("Run(always-fails) = passed %v, last entry %v; want failed with the FAIL check last", res.Passed, last)
	}
}

// TestExplanationsCiteNothingMissing: explanations are read by people who
// have the repository and lw-sim only; a section of a document that is not
// in it ("spec §4.4") is a dead reference.
func TestExplanationsCiteNothingMissing(t *testing.T) {
	for _, sc := range Library() {
		if strings.Contains(sc.Explanation, "§") || strings.Contains(sc.Explanation, "spec/") {
			t.Errorf("explanation of %s cites a document the repository does not have:\n%s", sc.Name, sc.Explanation)
		}
	}
}

// lessonsProvingNothing are the built-ins that name no conformance case,
// and why: what they teach is no answer of the server's a case can check.
var lessonsProvingNothing = map[string]string{
	"slow-consumer":      "the cut of a watcher that falls behind: no conformance case provokes it on kube-apiserver",
	"watch-cut-and-hang": "a connection cut or hung by the network (faults), and how clients notice: not the server's answer",
}

// TestLessonsProve: every built-in names the conformance cases that prove
// what it teaches against the real kube-apiserver (proves:, which the
// loader checks are cases), except those lessonsProvingNothing explains.
func TestLessonsProve(t *testing.T) {
	for _, sc := range Library() {
		_, exempt := lessonsProvingNothing[sc.Name]
		if exempt == (len(sc.Proves) > 0) {
			t.Errorf("scenario %s names %d conformance cases in proves:; want some unless it is one of lessonsProvingNothing (%v)", sc.Name, len(sc.Proves), exempt)
		}
	}
}
