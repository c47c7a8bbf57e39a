package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/lw-sim/lw-sim/scenarios"
)

// questionInfo is one of the List & Watch article's questions as data
// (README.md, "The List & Watch article").
type questionInfo struct {
	ID      scenarios.QuestionID `json:"id"`
	English string               `json:"english"`
	Chinese string               `json:"chinese"`
	// AnsweredBy names the scenarios that answer it (run --list only).
	AnsweredBy []string `json:"answeredBy,omitempty"`
}

// scenarioInfo is a scenario as data: what it answers and teaches.
type scenarioInfo struct {
	Name      string         `json:"name"`
	Source    string         `json:"source,omitempty"`
	Summary   string         `json:"summary"`
	Questions []questionInfo `json:"questions"`
	// Proves names the conformance cases that check what it teaches
	// against the real kube-apiserver.
	Proves      []string `json:"proves,omitempty"`
	Explanation string   `json:"explanation,omitempty"`
}

// catalog is run --list as data: every scenario, then the article's
// questions with the scenarios that answer each.
type catalog struct {
	Scenarios []scenarioInfo `json:"scenarios"`
	Questions []questionInfo `json:"questions"`
}

// describeScenario is sc as data; the explanation only when withText.
func describeScenario(sc *scenarios.Scenario, withText bool) scenarioInfo {
	info := scenarioInfo{Name: sc.Name, Source: sc.Source, Summary: sc.Summary, Questions: []questionInfo{}, Proves: sc.Proves}
	for _, q := range sc.Questions() {
		info.Questions = append(info.Questions, questionInfo{ID: q.ID, English: q.English, Chinese: q.Chinese})
	}
	if withText {
		info.Explanation = sc.Explanation
	}
	return info
}

// newCatalog describes the built-in library.
func newCatalog() catalog {
	lib := scenarios.Library()
	var c catalog
	for _, sc := range lib {
		c.Scenarios = append(c.Scenarios, describeScenario(sc, false))
	}
	for _, q := range scenarios.Questions() {
		qi := questionInfo{ID: q.ID, English: q.English, Chinese: q.Chinese, AnsweredBy: []string{}}
		for _, sc := range lib {
			for _, id := range sc.Answers {
				if id == q.ID {
					qi.AnsweredBy = append(qi.AnsweredBy, sc.Name)
				}
			}
		}
		c.Questions = append(c.Questions, qi)
	}
	return c
}

// listScenarios prints the catalog: as data with -o, else every scenario
// with the questions it answers, then which scenarios answer each of the
// article's questions.
func listScenarios(w io.Writer, output outputFlag) error {
	c := newCatalog()
	if output.isData() {
		return output.print(w, c)
	}
	for _, sc := range c.Scenarios {
		fmt.Fprintf(w, "%s\n    %s\n", sc.Name, sc.Summary)
		for _, q := range sc.Questions {
			fmt.Fprintf(w, "    Q %s: %s\n       %s\n", q.ID, q.English, q.Chinese)
		}
		if len(sc.Proves) > 0 {
			fmt.Fprintf(w, "    proved by conformance cases: %s\n", strings.Join(sc.Proves, ", "))
		}
		fmt.Fprintln(w)
	}
	// The ids are what a scenario file's answers: names.
	fmt.Fprintln(w, "The List & Watch article's questions (its section 7), their ids (for a file's answers:) and the scenarios that answer them:")
	for i, q := range c.Questions {
		fmt.Fprintf(w, "  %d. %s (%s)\n     %s\n     → %s\n", i+1, q.Chinese, q.ID, q.English, strings.Join(q.AnsweredBy, ", "))
	}
	return nil
}
