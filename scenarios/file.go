package scenarios

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/lw-sim/lw-sim/conformance/casenames"
	"github.com/lw-sim/lw-sim/internal/suggest"
	"github.com/lw-sim/lw-sim/scenarios/scenariofile"
)

// FileVersion is the version of the scenario file format this package
// reads.
const FileVersion = scenariofile.Version

// ErrFile is wrapped by every error of reading a scenario file.
var ErrFile = scenariofile.ErrFile

// File is a scenario file ([scenariofile.File]: its schema, with an
// example) as this package runs it: [File.Scenario] turns it into a
// runnable [Scenario].
type File scenariofile.File

// LoadFile reads the scenario file at path. A chaos schedule
// ([ChaosFile] JSON, with "ops") is accepted and converted.
func LoadFile(path string) (*File, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("scenarios: %w", err)
	}
	return ParseFile(path, b)
}

// ParseFile parses b, the contents of the scenario file path (named in
// errors), as [scenariofile.Parse] does: unknown fields are errors naming
// the file, the line and the field. A chaos schedule is converted.
func ParseFile(path string, b []byte) (*File, error) {
	if isChaosJSON(b) {
		cf, err := parseChaosFile(path, b)
		if err != nil {
			return nil, err
		}
		return cf.File(), nil
	}
	f, err := scenariofile.Parse(path, b)
	if err != nil {
		return nil, err
	}
	if err := checkAnswers(path, b, f.Answers); err != nil {
		return nil, err
	}
	if err := checkProves(path, b, f.Proves); err != nil {
		return nil, err
	}
	return (*File)(f), nil
}

// checkAnswers refuses an answers: id that names none of the article's
// questions (which `lw-sim run --list` shows with their ids).
func checkAnswers(path string, b []byte, answers []string) error {
	var ids []string
	for _, q := range Questions() {
		ids = append(ids, string(q.ID))
	}
	for i, a := range answers {
		if !slices.Contains(ids, a) {
			return scenariofile.Errorf(path, b, fmt.Sprintf("answers[%d]", i), "answers[%d]: no question %q (want one of %s)%s",
				i, a, strings.Join(ids, ", "), suggest.DidYouMean(a, ids))
		}
	}
	return nil
}

// checkProves refuses a proves: name that is no conformance case, and one
// named twice.
func checkProves(path string, b []byte, proves []string) error {
	names := casenames.Names()
	for i, c := range proves {
		where := fmt.Sprintf("proves[%d]", i)
		if !slices.Contains(names, c) {
			return scenariofile.Errorf(path, b, where, "%s: no conformance case %q (conformance.Cases; docs/rv-semantics.md names those of resourceVersion)%s",
				where, c, suggest.DidYouMean(c, names))
		}
		if slices.Contains(proves[:i], c) {
			return scenariofile.Errorf(path, b, where, "%s: case %q is named twice", where, c)
		}
	}
	return nil
}
