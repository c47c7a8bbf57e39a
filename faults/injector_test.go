package faults

import (
	"context"
	"encoding/json"
	"errors"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	clocktesting "k8s.io/utils/clock/testing"
)

// fakeTarget is a Target with a settable RV that counts state faults.
type fakeTarget struct {
	rv        atomic.Int64
	compacted atomic.Int64
	restarts  atomic.Int64
}

func (f *fakeTarget) CurrentRV() int64       { return f.rv.Load() }
func (f *fakeTarget) Compact(rv int64) error { f.compacted.Store(rv); return nil }
func (f *fakeTarget) Restart() error         { f.restarts.Add(1); return nil }

func newTestInjector(t *testing.T) (*Injector, *fakeTarget, *clocktesting.FakeClock) {
	t.Helper()
	tg := &fakeTarget{}
	clk := clocktesting.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	in := New(Config{Target: tg, Clock: clk})
	t.Cleanup(in.Close)
	return in, tg, clk
}

func mustAdd(t *testing.T, in *Injector, f Fault) string {
	t.Helper()
	id, err := in.Add(f)
	if err != nil {
		t.Fatalf("Add(%+v): %v", f, err)
	}
	return id
}

// outcomeOf runs one request and reduces what happened to a string.
func outcomeOf(in *Injector, info RequestInfo) string {
	_, out := in.Request(context.Background(), info)
	switch {
	case out.Fail != nil:
		return "fail"
	case out.CutList:
		return "cut"
	}
	return "ok"
}

func TestParseRequest(t *testing.T) {
	tests := []struct {
		method, target string
		want           RequestInfo
	}{
		{"GET", "/api/v1/namespaces/ns/pods?labelSelector=a%3Db", RequestInfo{Verb: "list", Resource: "pods", Namespace: "ns", LabelSelector: "a=b"}},
		{"GET", "/api/v1/pods?watch=true", RequestInfo{Verb: "watch", Resource: "pods"}},
		{"GET", "/apis/apps/v1/namespaces/ns/deployments/d", RequestInfo{Verb: "get", Resource: "deployments.apps", Namespace: "ns", Name: "d"}},
		{"GET", "/api/v1/watch/namespaces/ns/configmaps", RequestInfo{Verb: "watch", Resource: "configmaps", Namespace: "ns"}},
		{"DELETE", "/api/v1/namespaces/ns/configmaps", RequestInfo{Verb: "deletecollection", Resource: "configmaps", Namespace: "ns"}},
		{"PUT", "/api/v1/namespaces/ns", RequestInfo{Verb: "update", Resource: "namespaces", Name: "ns"}},
		{"PUT", "/api/v1/namespaces/ns/finalize", RequestInfo{Verb: "update", Resource: "namespaces", Name: "ns"}},
		// RequestInfoFactory's verbs: a named GET is a get whatever ?watch=
		// says, a HEAD reads like a GET, a field selector names a list.
		{"GET", "/api/v1/namespaces/ns/configmaps/cm?watch=true", RequestInfo{Verb: "get", Resource: "configmaps", Namespace: "ns", Name: "cm"}},
		{"HEAD", "/api/v1/namespaces/ns/configmaps", RequestInfo{Verb: "list", Resource: "configmaps", Namespace: "ns"}},
		{"GET", "/api/v1/namespaces/ns/configmaps?fieldSelector=metadata.name%3Dcm", RequestInfo{Verb: "list", Resource: "configmaps", Namespace: "ns", Name: "cm", FieldSelector: "metadata.name=cm"}},
		{"GET", "/api/v1/watch", RequestInfo{}},
		{"GET", "/version", RequestInfo{}},
	}
	for _, tt := range tests {
		got := ParseRequest(httptest.NewRequest(tt.method, tt.target, nil))
		if diff := cmp.Diff(tt.want, got, cmpopts.IgnoreFields(RequestInfo{}, "Method", "URI", "UserAgent")); diff != "" {
			t.Errorf("ParseRequest(%s %s) mismatch (-want +got):\n%s", tt.method, tt.target, diff)
		}
	}
}

func TestRequestTriggers(t *testing.T) {
	in, tg, _ := newTestInjector(t)
	list := RequestInfo{Verb: "list", Resource: "pods"}
	mustAdd(t, in, Fault{Kind: FailRequest, Code: 500, Times: 2, Trigger: Trigger{Request: 2}, Match: Match{Verbs: []string{"list"}}})
	mustAdd(t, in, Fault{Kind: CutList, Trigger: Trigger{AtRV: 10}})
	var got []string
	for i := range 5 {
		if i == 3 {
			tg.rv.Store(10)
		}
		got = append(got, outcomeOf(in, list))
	}
	if diff := cmp.Diff([]string{"ok", "fail", "fail", "cut", "ok"}, got); diff != "" {
		t.Errorf("outcomes (-want +got):\n%s", diff)
	}
	var states []State
	for _, st := range in.Faults() {
		states = append(states, st.State)
	}
	if diff := cmp.Diff([]State{Spent, Spent}, states); diff != "" {
		t.Errorf("states (-want +got):\n%s", diff)
	}
}

func TestStateFaults(t *testing.T) {
	in, tg, _ := newTestInjector(t)
	tg.rv.Store(7)
	mustAdd(t, in, Fault{Kind: Compact})
	if got := tg.compacted.Load(); got != 7 {
		t.Errorf("Compact now: compacted to %d, want 7", got)
	}
	mustAdd(t, in, Fault{Kind: Restart, Trigger: Trigger{AtRV: 9}})
	in.Poll()
	if tg.restarts.Load() != 0 {
		t.Fatal("Restart fired before rv 9")
	}
	tg.rv.Store(9)
	in.Poll()
	if got := tg.restarts.Load(); got != 1 {
		t.Errorf("Restart at rv 9: %d restarts, want 1", got)
	}
	recs := in.Records()
	if len(recs) != 2 || recs[1].RV != 9 || recs[1].Kind != Restart {
		t.Errorf("Records() = %+v", recs)
	}
}

func TestWindowExpires(t *testing.T) {
	in, _, clk := newTestInjector(t)
	mustAdd(t, in, Fault{Kind: TooLargeRV, AllReads: true, Window: Duration(time.Minute)})
	if err := in.TooLargeRV(context.Background(), 5); err == nil {
		t.Error("TooLargeRV in the window = nil, want the 504")
	}
	clk.Step(time.Minute)
	if err := in.TooLargeRV(context.Background(), 5); err != nil {
		t.Errorf("TooLargeRV after the window = %v, want nil", err)
	}
	if st := in.Faults()[0].State; st != Expired {
		t.Errorf("state after the window = %s, want expired", st)
	}
}

// TestRandomIsDeterministic: the same seed and request sequence give the
// same faults; another seed gives others.
func TestRandomIsDeterministic(t *testing.T) {
	run := func(seed uint64) []string {
		in, _, _ := newTestInjector(t)
		mustAdd(t, in, Fault{Kind: Random, Seed: seed, Probability: 0.5, Kinds: []Kind{FailRequest, CutList, Restart}})
		var out []string
		for i := range 50 {
			verb := []string{"list", "get", "watch"}[i%3]
			out = append(out, outcomeOf(in, RequestInfo{Verb: verb}))
		}
		for _, r := range in.Records() {
			out = append(out, string(r.Kind)+":"+r.Detail)
		}
		return out
	}
	a, b := run(1), run(1)
	if diff := cmp.Diff(a, b); diff != "" {
		t.Errorf("seed 1 twice (-first +second):\n%s", diff)
	}
	if cmp.Equal(a, run(2)) {
		t.Error("seeds 1 and 2 gave the same schedule")
	}
}

func TestStreamFaults(t *testing.T) {
	in, _, clk := newTestInjector(t)
	ctx, st := in.OpenStream(context.Background(), RequestInfo{Verb: "watch", Resource: "pods"})
	defer st.Close()
	mustAdd(t, in, Fault{Kind: WithholdBookmarks})
	mustAdd(t, in, Fault{Kind: CutWatch, Trigger: Trigger{Events: 2}})
	var got []Action
	for _, typ := range []string{"ADDED", "BOOKMARK", "MODIFIED", "DELETED"} {
		got = append(got, st.BeforeEvent(ctx, Event{Type: typ}))
	}
	if diff := cmp.Diff([]Action{Send, Skip, Send, Cut}, got); diff != "" {
		t.Errorf("actions (-want +got):\n%s", diff)
	}
	if !errors.Is(context.Cause(ctx), ErrStreamFault) || st.Finish() != Cut {
		t.Errorf("after the cut: cause %v, Finish %v; want ErrStreamFault, Cut", context.Cause(ctx), st.Finish())
	}
	// A stream opened later is outside the (default) open-streams scope.
	ctx2, st2 := in.OpenStream(context.Background(), RequestInfo{Verb: "watch"})
	defer st2.Close()
	mustAdd(t, in, Fault{Kind: EndWatch, Streams: NewStreams, Trigger: Trigger{After: Duration(time.Second)}})
	if a := st2.BeforeEvent(ctx2, Event{Type: "BOOKMARK"}); a != Send {
		t.Errorf("new stream bookmark = %v, want Send", a)
	}
	_, st3 := in.OpenStream(context.Background(), RequestInfo{Verb: "watch"})
	defer st3.Close()
	clk.Step(time.Second)
	if st3.Finish() != End {
		t.Errorf("stream 3 after 1s: Finish = %v, want End", st3.Finish())
	}
}

// TestOpenStreamCancel checks a stream registered with the caller's
// cancel: a fault that fires calls it with ErrStreamFault (once, however
// the fault ends) and Close leaves it alone.
func TestOpenStreamCancel(t *testing.T) {
	in, _, _ := newTestInjector(t)
	var causes []error
	st := in.OpenStreamCancel(context.Background(), RequestInfo{Verb: "watch", Resource: "pods"}, func(cause error) { causes = append(causes, cause) })
	mustAdd(t, in, Fault{Kind: EndWatch, Trigger: Trigger{Events: 1}})
	if a := st.BeforeEvent(context.Background(), Event{Type: "ADDED"}); a != Send {
		t.Errorf("before the fault: %v, want Send", a)
	}
	if a := st.Finish(); a != End {
		t.Errorf("after the fault: Finish = %v, want End", a)
	}
	st.Close()
	if diff := cmp.Diff([]error{ErrStreamFault}, causes, cmpopts.EquateErrors()); diff != "" {
		t.Errorf("cancel causes (-want +got):\n%s", diff)
	}
}

// TestHangReleasedBeforeIt checks that a stream whose hang was released
// before it hung (a restart releases every stream) does not hang.
func TestHangReleasedBeforeIt(t *testing.T) {
	in, _, _ := newTestInjector(t)
	_, st := in.OpenStream(context.Background(), RequestInfo{Verb: "watch"})
	defer st.Close()
	in.releaseAll()
	st.Hang() // returns at once: a hang waits for nothing else here
}

func TestFaultJSON(t *testing.T) {
	in := `{"kind":"DelayEvents","streams":"all","delay":"1.5s","trigger":{"events":3,"after":"2s"},"match":{"verbs":["watch"],"resource":"pods"}}`
	var f Fault
	if err := json.Unmarshal([]byte(in), &f); err != nil {
		t.Fatal(err)
	}
	want := Fault{Kind: DelayEvents, Streams: AllStreams, Delay: Duration(1500 * time.Millisecond),
		Trigger: Trigger{Events: 3, After: Duration(2 * time.Second)}, Match: Match{Verbs: []string{"watch"}, Resource: "pods"}}
	if diff := cmp.Diff(want, f); diff != "" {
		t.Errorf("Unmarshal mismatch (-want +got):\n%s", diff)
	}
	out, _ := json.Marshal(f)
	var back Fault
	if err := json.Unmarshal(out, &back); err != nil || !cmp.Equal(f, back) {
		t.Errorf("round trip of %s = %+v, %v", out, back, err)
	}
}

func TestHelpers(t *testing.T) {
	in, tg, _ := newTestInjector(t)
	if _, err := in.FailNext(2, 503, Match{Verbs: []string{"get"}}); err != nil {
		t.Fatal(err)
	}
	var got []string
	for range 3 {
		got = append(got, outcomeOf(in, RequestInfo{Verb: "get"}))
	}
	if diff := cmp.Diff([]string{"fail", "fail", "ok"}, got); diff != "" {
		t.Errorf("FailNext(2) outcomes (-want +got):\n%s", diff)
	}
	if _, err := in.RestartAPIServer(); err != nil || tg.restarts.Load() != 1 {
		t.Errorf("RestartAPIServer() = %v, %d restarts", err, tg.restarts.Load())
	}
}
