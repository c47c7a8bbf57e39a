// Package rapidfail lets a test require a property check to fail: the
// mutant tests of fakeapiserver and listwatch plant a bug and demand that
// rapid catches it, and which check caught it.
package rapidfail

import (
	"fmt"
	"testing"
)

// Recorder is a testing.TB (and so a rapid.TB) that records the first
// failure instead of failing the test it wraps. Logging is dropped: a
// mutant's failing runs would flood the output. Use it with rapid.Check,
// then read Failed and Message.
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
