package main

import (
	"regexp"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestRerunnable(t *testing.T) {
	for _, c := range []struct {
		pkg, name, msg string
		want           bool
	}{
		{"pkg/webhook", "Webhook when running a webhook server with a manager should reject create request for multi-webhook that rejects all requests",
			"Unexpected error: <*net.OpError | 0x33be767ab630>: listen tcp 127.0.0.1:44607: bind: address already in use { Op: \"listen\"", true},
		{"pkg/manager/internal/integration", "manger.Manager Start should start all components without deadlock controller warmup enabled",
			"Expected <uint64>: 0 to be > <int>: 0", false},
		{"pkg/cache", "Informer Cache without global DeepCopy Cache test as an Informer with structured objects should allow getting an informer by group/version/kind to be cancelled",
			"Expected an error to have occurred. Got: <nil>: nil", true},
		{"pkg/cache", "Multi-Namespace Informer Cache Cache test as a Reader with structured objects should return an error when context is cancelled", "", true},
		{"pkg/cache", "Informer Cache Cache test as an Informer with metadata-only objects should allow for get informer to be cancelled", "", true},
		{"pkg/cache", "Informer Cache Cache test as a Reader with structured objects should be able to list objects", "", false},
		{"pkg/client", "Informer Cache Cache test as a Reader with structured objects should return an error when context is cancelled", "", false},
		{"pkg/webhook", goTestPrefix + "TestX", "bind: address already in use", false},
		{"pkg/manager", "manger.Manager should not leak goroutines if the deprecated event broadcaster is used & events are emitted",
			"found unexpected goroutines:\n[Goroutine 2704 in state IO wait ... golang.org/x/net/http2.(*ClientConn).readLoop(0x167a43c96540)", true},
		{"pkg/manager", "manger.Manager should not leak goroutines if the default event broadcaster is used & events are emitted",
			"found unexpected goroutines:\n[Goroutine 2704 in state IO wait ... golang.org/x/net/http2.(*ClientConn).readLoop(0x167a43c96540)", true},
		{"pkg/manager", "manger.Manager should not leak goroutines if the deprecated event broadcaster is used & events are emitted",
			"found unexpected goroutines:\n[Goroutine 12 in state chan receive ... k8s.io/client-go/tools/cache.(*Reflector).ListAndWatch", false},
		{"pkg/manager", "manger.Manager should not leak goroutines when stopped",
			"found unexpected goroutines:\n[... golang.org/x/net/http2.(*ClientConn).readLoop", false},
	} {
		if got := rerunnable(c.pkg, c.name, c.msg); got != c.want {
			t.Errorf("rerunnable(%q, %q, %q) = %v, want %v", c.pkg, c.name, c.msg, got, c.want)
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

// TestFocusOn: the focus selects the spec alone where ginkgo matches it,
// after the suite's description and a space.
func TestFocusOn(t *testing.T) {
	name := "Informer Cache Cache test as an Informer with structured objects should allow getting an informer by group/version/kind to be cancelled"
	re := regexp.MustCompile(focusOn(name))
	for text, want := range map[string]bool{
		"Cache Suite " + name:                 true,
		"Cache Suite " + name + " too":        false,
		"Cache Suite Multi-Namespace " + name: true, // ginkgo's own focus is as loose; the full text is the spec's
		"Cache Suite " + name[:40]:            false,
	} {
		if got := re.MatchString(text); got != want {
			t.Errorf("focus %q on %q = %v, want %v", focusOn(name), text, got, want)
		}
	}
}
