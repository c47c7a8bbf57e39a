package scenarios

import (
	"embed"
	"errors"
	"fmt"
	"strings"

	"github.com/lw-sim/lw-sim/fakeapiserver"
)

// Sentinel errors.
var (
	// ErrExpectation is wrapped by the error of a run whose expectation
	// failed.
	ErrExpectation = errors.New("scenarios: expectation failed")
	// ErrUnknownScenario is wrapped by [Lookup] for a name not in the
	// library.
	ErrUnknownScenario = errors.New("scenarios: unknown scenario")
)

// Scenario is one runnable answer to one or more of the article's
// questions.
type Scenario struct {
	// Name is the scenario's stable, kebab-case name ("watch-timeout").
	Name string
	// Source is the file the scenario was loaded from, if the user gave
	// one; "" for a built-in.
	Source string
	// Answers lists the questions the scenario answers, the main one first.
	Answers []QuestionID
	// Proves names the conformance cases that check what the scenario
	// teaches against the real kube-apiserver (a file's proves:).
	Proves []string
	// Summary is the answer in one sentence.
	Summary string
	// Explanation teaches the edge case: what the real kube-apiserver
	// does, citing kube-apiserver's source where it helps, never a
	// document the repository does not have. The library loads it from
	// library/<Name>.txt.
	Explanation string
	// Seed is the default seed of a run; [RunOptions.Seed] overrides it.
	Seed uint64
	// Config adjusts the fake server's configuration before it starts.
	// The runner has already set the fake clock and turned periodic
	// compaction off (scenarios compact by hand). Optional.
	Config func(*fakeapiserver.Config)
	// Routes sends every request of a lane (a client's name, a list's or
	// watch's lane; [LaneScenario], or "", the scenario's own) to one apiserver instance, by
	// the server's [fakeapiserver.APIServerHeader]; other lanes go through
	// its load balancer. Optional.
	Routes map[string]string
	// RotateLanes, if not 0, sends each request of a lane that has no
	// route to the next of this many instances in turn, lane by lane
	// (a file's balancing "round-robin-per-lane"). Optional.
	RotateLanes int
	// Steps runs the scenario against env. It returns an error wrapping
	// [ErrExpectation] (see [Env.Expect]) when the server did not behave as
	// the scenario teaches, or any other error when it could not run.
	Steps func(env *Env) error
}

// Questions returns the questions s answers.
func (s *Scenario) Questions() []Question {
	qs := make([]Question, 0, len(s.Answers))
	for _, id := range s.Answers {
		if q, ok := LookupQuestion(id); ok {
			qs = append(qs, q)
		}
	}
	return qs
}

// library holds the explanations (NAME.txt) and the built-ins written
// as scenario files (NAME.yaml).
//
//go:embed library
var library embed.FS

// Library returns the built-in scenarios in teaching order (the article's
// question order). Each call builds new values, so callers may change them
// (a different Seed, ...) without affecting anyone else.
func Library() []*Scenario {
	scs, err := loadLibrary()
	if err != nil {
		// The explanations are embedded at build time and a test loads
		// them all, so this is a broken build, not a runtime condition.
		panic(err)
	}
	return scs
}

// Lookup returns the built-in scenario called name, or an error wrapping
// [ErrUnknownScenario].
func Lookup(name string) (*Scenario, error) {
	for _, s := range Library() {
		if s.Name == name {
			return s, nil
		}
	}
	return nil, fmt.Errorf("%w %q (see lw-sim run --list)", ErrUnknownScenario, name)
}

// loadLibrary builds the scenarios and attaches each one's explanation;
// every scenario must have exactly one explanation file and every file a
// scenario.
func loadLibrary() ([]*Scenario, error) {
	scs, err := builtins()
	if err != nil {
		return nil, err
	}
	names := make(map[string]bool, len(scs))
	for _, s := range scs {
		if names[s.Name] {
			return nil, fmt.Errorf("scenarios: duplicate scenario %q", s.Name)
		}
		names[s.Name] = true
		b, err := library.ReadFile("library/" + s.Name + ".txt")
		if err != nil {
			return nil, fmt.Errorf("scenarios: explanation of %q: %w", s.Name, err)
		}
		s.Explanation = strings.TrimSpace(string(b))
	}
	files, err := library.ReadDir("library")
	if err != nil {
		return nil, fmt.Errorf("scenarios: %w", err)
	}
	for _, f := range files {
		// Every explanation and every scenario file is some built-in's.
		if name := strings.TrimSuffix(strings.TrimSuffix(f.Name(), ".txt"), ".yaml"); !names[name] {
			return nil, fmt.Errorf("scenarios: library file %s has no scenario", f.Name())
		}
	}
	return scs, nil
}

// builtins is the library in teaching order.
func builtins() ([]*Scenario, error) {
	var errs []error
	file := func(name string) *Scenario {
		sc, err := libraryFile(name)
		errs = append(errs, err)
		return sc
	}
	scs := []*Scenario{
		file("watch-without-rv-floods-added"),
		file("selector-objects-leave"),
		file("watch-from-list-rv"),
		file("watch-is-server-push"),
		file("watch-timeout"),
		file("watch-breaks"),
		file("watch-cut-and-hang"),
		file("watch-cache-window"),
		file("slow-consumer"),
		file("no-lost-events"),
		file("lost-events"),
		file("watch-resumed-on-lagging-apiserver"),
		file("huge-list-paging"),
		file("watch-list-vs-paging"),
		file("list-chunking"),
		file("expired-continue"),
		file("list-rv-semantics"),
		file("consistent-read-from-cache"),
		file("get-by-resourceversion"),
		file("relist-back-in-time"),
		file("multi-apiserver-stale-relist"),
	}
	return scs, errors.Join(errs...)
}

// libraryFile is the built-in written as library/<name>.yaml.
func libraryFile(name string) (*Scenario, error) {
	path := "library/" + name + ".yaml"
	b, err := library.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("scenarios: %w", err)
	}
	f, err := ParseFile(path, b)
	if err != nil {
		return nil, err
	}
	if f.Name != name {
		return nil, fmt.Errorf("scenarios: %s names itself %q", path, f.Name)
	}
	return f.Scenario(), nil
}
