package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// environmentalFailures are failure messages that blame the machine, not
// the server under test. The one seen: a webhook spec's server could not
// bind the port controller-runtime had picked for it (its addr.Suggest
// binds port 0, closes the listener and hands the port out; until the
// webhook server binds it again, any other process binding port 0 can get
// it, and conformance-real, run beside the suites in .ci/run, binds
// hundreds).
var environmentalFailures = []string{
	"bind: address already in use",
}

// timingRaces are specs whose outcome is a race the server's speed or
// the machine's load decides, not the server's behaviour, each named by a
// pattern over its full text and, where set, a text its failure message
// must contain (any other failure of the spec is not rerun).
//
// pkg/cache's cancelled-context specs get an informer with a context
// already cancelled and expect a timeout error, but controller-runtime's
// Informers.Get starts the informer and returns it without an error when
// it has synced by the time it looks (its HasSynced check, then
// WaitForCacheSync's immediate first poll, come before the context).
// lw-sim answers the informer's LIST in a few hundred microseconds over
// the client's open HTTP/2 connection, so on a loaded machine, with the
// spec's goroutine descheduled, the informer sometimes wins (one of the
// fifteen in a full run beside conformance-real; none in runs of
// pkg/cache alone).
//
// pkg/manager's event-broadcaster leak specs stop the manager, call
// CloseIdleConnections once, then give goleak a second. x/net/http2's
// client forgets a cancelled watch's stream on the request's own
// goroutine, after the manager's Start has returned; on a loaded machine
// that can come after CloseIdleConnections, which then leaves the
// connection open (it was busy) and its read loop is reported as leaked.
// Only that failure, a client connection's read loop, is rerun: one of
// the 108 specs in a full run beside conformance-real; 3 of 3 runs of
// pkg/manager alone passed.
var timingRaces = map[string]timingRace{
	"pkg/cache": {name: regexp.MustCompile(`^(Informer Cache|Informer Cache without global DeepCopy|Multi-Namespace Informer Cache) Cache test as an? .* ` +
		`(should allow for get informer to be cancelled|should allow getting an informer by group/version/kind to be cancelled|should return an error when context is cancelled)$`)},
	"pkg/manager": {
		name: regexp.MustCompile(`^manger\.Manager should not leak goroutines if the (deprecated|default) event broadcaster is used & events are emitted$`),
		msg:  "http2.(*ClientConn).readLoop",
	},
}

// timingRace names the specs of one package that may lose a race: name
// matches their full text, and msg, if set, is in the failure message of
// the race (a failure without it is not the race).
type timingRace struct {
	name *regexp.Regexp
	msg  string
}

// rerunnable reports whether a failed spec is run again alone, once: its
// failure blames the machine (environmentalFailures), or it is one of the
// timingRaces. Plain Go tests are never rerun.
func rerunnable(pkg, name, msg string) bool {
	if strings.HasPrefix(name, goTestPrefix) {
		return false
	}
	for _, s := range environmentalFailures {
		if strings.Contains(msg, s) {
			return true
		}
	}
	race, ok := timingRaces[pkg]
	return ok && race.name.MatchString(name) && strings.Contains(msg, race.msg)
}

// retried is a spec run again because its first run failed for the
// machine or lost a timing race: its first failure and the rerun's
// outcome.
type retried struct {
	Package, Spec, FirstFailure string
	Rerun                       specResult
}

// retryEnvironmental runs again, once and alone (a ginkgo focus on its
// full text), each spec of results that failed and is rerunnable, and
// records the rerun's outcome in its place: the spec must still pass,
// on a machine its own run leaves quiet. A rerun whose report lacks the
// spec is a failure.
func retryEnvironmental(ctx context.Context, mod string, o options, results []suiteResult, log io.Writer) ([]retried, error) {
	var out []retried
	for i := range results {
		r := &results[i]
		for _, name := range sortedKeys(r.Results) {
			first := r.Results[name]
			if first.Outcome != outcomeFailed || !rerunnable(r.Package, name, first.Message) {
				continue
			}
			got, err := rerunSpec(ctx, mod, r.Package, name, o, log)
			if err != nil {
				return out, err
			}
			r.replace(name, got)
			out = append(out, retried{Package: r.Package, Spec: name, FirstFailure: first.Message, Rerun: got})
		}
	}
	return out, nil
}

// rerunSpec runs the spec called name of pkg's test binary alone, and
// returns its outcome; the first failure stands (as its outcome) when the
// rerun's report does not have the spec.
func rerunSpec(ctx context.Context, mod, pkg, name string, o options, log io.Writer) (specResult, error) {
	f := filesOf(o, mod, pkg)
	report := strings.TrimSuffix(f.report, ".json") + ".retry.json"
	logPath := strings.TrimSuffix(f.log, ".log") + ".retry.log"
	if err := os.Remove(report); err != nil && !os.IsNotExist(err) {
		return specResult{}, err
	}
	tmp, err := os.MkdirTemp(o.work, "tmp-")
	if err != nil {
		return specResult{}, err
	}
	defer os.RemoveAll(tmp)
	fmt.Fprintf(log, "envtestsuites: running %s %q again, alone (its failure was the machine's or a timing race's; log %s)\n", pkg, name, logPath)
	_, _, err = runTestBinary(ctx, f.bin, filepath.Join(mod, pkg), logPath, tmp, o,
		"-test.v", "-test.timeout="+o.timeout.String(), "-ginkgo.json-report="+report, "-ginkgo.no-color", "-ginkgo.seed="+ginkgoSeed,
		"-ginkgo.focus="+focusOn(name))
	if err != nil {
		return specResult{}, err
	}
	got, ok := readSuiteReport(report, pkg).Results[name]
	if !ok {
		return specResult{Outcome: outcomeFailed, Message: "rerun alone did not run the spec (" + report + ")"}, nil
	}
	return got, nil
}

// focusOn is a ginkgo focus that selects the spec called name: ginkgo
// matches a focus against the suite's description, a space and the
// spec's full text, and the description is not known here, so a spec
// whose full text ends with name's (Multi-Namespace Informer Cache ...
// after Informer Cache ...) runs too; only name's outcome is read.
func focusOn(name string) string {
	return " " + regexp.QuoteMeta(name) + "$"
}

// replace sets the outcome of the spec called name, which add recorded,
// keeping the counts in step.
func (r *suiteResult) replace(name string, s specResult) {
	prev, ok := r.Results[name]
	if !ok {
		return
	}
	for _, c := range []struct {
		outcome string
		delta   int
	}{{prev.Outcome, -1}, {s.Outcome, +1}} {
		switch c.outcome {
		case outcomePassed:
			r.Passed += c.delta
		case outcomeFailed:
			r.Failed += c.delta
		default:
			r.Skipped += c.delta
		}
	}
	r.Results[name] = s
}

// printRetried lists the specs run again and how each went.
func printRetried(w io.Writer, rs []retried) {
	fmt.Fprintf(w, "\nRun again alone after a failure of the machine or a lost timing race, not of the server (retry.go): %d\n", len(rs))
	for _, r := range rs {
		fmt.Fprintf(w, "- %s: %s\n    first run: %s\n    run again: %s %s\n", r.Package, r.Spec, r.FirstFailure, r.Rerun.Outcome, r.Rerun.Message)
	}
}
