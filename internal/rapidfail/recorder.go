// Package rapidfail lets a test require a property check to fail: the
// mutant tests of fakeapiserver and listwatch plant a bug and demand that
// rapid catches it, and which check caught it.
package rapidfail

import (
	"flag"
	"fmt"
	"regexp"
	"strconv"
	"testing"
)

// Recorder is a testing.TB (and so a rapid.TB) that records the first
// failure instead of failing the test it wraps. Logging is dropped: a
// mutant's failing runs would flood the output. Use it with rapid.Check,
// then read Failed, Message and Checks.
//
// Its Name is the wrapped test's with "/search" appended, a name no
// fail file is saved under (run with -rapid.nofailfile, as
// [NoFailFiles] sets it): rapid replays the fail files saved under a
// test's name before it draws anything, so a mutant killed once would
// otherwise be "killed" by the replay of its old failure ever after,
// and the kill would say nothing about the search.
type Recorder struct {
	testing.TB
	failed bool
	msg    string
}

// New wraps t.
func New(t testing.TB) *Recorder { return &Recorder{TB: t} }

// Failed reports whether a failure was recorded.
func (r *Recorder) Failed() bool { return r.failed }

// Message is the first failure's message ("" for Fail and FailNow).
func (r *Recorder) Message() string { return r.msg }

// Name implements testing.TB; see the type's doc.
func (r *Recorder) Name() string { return r.TB.Name() + "/search" }

func (r *Recorder) Helper()                           {}
func (r *Recorder) Errorf(format string, args ...any) { r.fail(fmt.Sprintf(format, args...)) }
func (r *Recorder) Error(args ...any)                 { r.fail(fmt.Sprint(args...)) }
func (r *Recorder) Fatalf(format string, args ...any) { r.fail(fmt.Sprintf(format, args...)) }
func (r *Recorder) Fatal(args ...any)                 { r.fail(fmt.Sprint(args...)) }
func (r *Recorder) Fail()                             { r.failed = true }
func (r *Recorder) FailNow()                          { r.failed = true }
func (r *Recorder) Logf(string, ...any)               {}
func (r *Recorder) Log(...any)                        {}

// fail records msg if it is the first failure.
func (r *Recorder) fail(msg string) {
	if !r.failed {
		r.msg = msg
	}
	r.failed = true
}

// rapidFailed is how rapid.Check reports a failure: the number of checks
// that passed before the failing one.
var rapidFailed = regexp.MustCompile(`^\[rapid\] (?:failed|panic) after (\d+) tests`)

// Checks is the number of the check that failed (the passing ones before
// it plus one), read from rapid's report; 0 if none failed or the
// report is not rapid's.
func (r *Recorder) Checks() int {
	m := rapidFailed.FindStringSubmatch(r.msg)
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(m[1])
	return n + 1
}

// NoFailFiles sets rapid's -rapid.nofailfile flag for the rest of the
// test: a killed mutant's failure is not saved, so no later run replays
// it instead of searching.
func NoFailFiles(t testing.TB) {
	f := flag.Lookup("rapid.nofailfile")
	if f == nil {
		t.Fatal("rapidfail: no -rapid.nofailfile flag (is pgregory.net/rapid linked in?)")
	}
	old := f.Value.String()
	if err := f.Value.Set("true"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = f.Value.Set(old) })
}
