package fakeapiserver

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/lw-sim/lw-sim/internal/kubewire"
)

// failure is the Status of an API error as ErrorToAPIStatus builds it.
func failure(code int32, reason metav1.StatusReason, message string) metav1.Status {
	return metav1.Status{
		TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   metav1.StatusFailure, Code: code, Reason: reason, Message: message,
	}
}

// invalidListOptions is the 422 of handlers/get.go listOpts for one field
// error (apimachinery pkg/apis/meta/internalversion/validation
// ValidateListOptions).
func invalidListOptions(field string, causeType metav1.CauseType, detail string) metav1.Status {
	st := failure(http.StatusUnprocessableEntity, metav1.StatusReasonInvalid,
		`ListOptions.meta.k8s.io "" is invalid: `+field+": "+detail)
	st.Details = &metav1.StatusDetails{Group: "meta.k8s.io", Kind: "ListOptions",
		Causes: []metav1.StatusCause{{Type: causeType, Message: detail, Field: field}}}
	return st
}

// checkStatus compares an error answer with want twice: as a structure
// (go-cmp) and byte for byte against want's JSON, which encoding/json
// writes in the field order kube-apiserver's encoder uses.
func checkStatus(t *testing.T, what string, got rawList, want metav1.Status) {
	t.Helper()
	if got.code != int(want.Code) {
		t.Errorf("%s code = %d, want %d", what, got.code, want.Code)
	}
	if diff := cmp.Diff(want, got.status); diff != "" {
		t.Errorf("%s Status mismatch (-want +got):\n%s", what, diff)
	}
	wantBody, err := json.Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	if gotBody := bytes.TrimSpace(got.body); !bytes.Equal(gotBody, wantBody) {
		t.Errorf("%s body =\n%s\nwant\n%s", what, gotBody, wantBody)
	}
}

// Tokens v1.37.2 gave [observed] (made for namespace t2 of the real server;
// only their JSON matters here).
const (
	tokenRV0       = "eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MCwic3RhcnQiOiIvYiJ9"     // rv 0
	tokenV2        = "eyJ2IjoibWV0YS5rOHMuaW8vdjIiLCJydiI6NSwic3RhcnQiOiIvYiJ9"     // v meta.k8s.io/v2
	tokenTraversal = "eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6NSwic3RhcnQiOiIvLi4veCJ9" // start /../x
)

// TestListErrors pins every 400 and 422 a LIST can get, body for body
// (apimachinery pkg/apis/meta/internalversion/validation ValidateListOptions,
// apiserver pkg/storage/interfaces.go ValidateListOptions,
// pkg/storage/continue.go DecodeContinue, apimachinery pkg/labels/selector.go).
func TestListErrors(t *testing.T) {
	srv := Start(t)
	cs := srv.Clientset()
	fiveCMs(t, cs)
	c := newListClient(t, srv)
	good := c.get(t, listPath("t1", query("limit", "2"))).list.Continue
	emptyStart := encodeTokenJSON(`{"v":"meta.k8s.io/v1","rv":5,"start":""}`)
	badRequest := func(msg string) metav1.Status {
		return failure(http.StatusBadRequest, metav1.StatusReasonBadRequest, msg)
	}
	forbidden := func(field, detail string) metav1.Status {
		return invalidListOptions(field, metav1.CauseType("FieldValueForbidden"), "Forbidden: "+detail)
	}
	tests := []struct {
		name string
		path string
		want metav1.Status
	}{
		// 422: apimachinery internalversion/validation ValidateListOptions.
		{"Exact without RV", listPath("t1", query("resourceVersionMatch", "Exact")),
			forbidden("resourceVersionMatch", "resourceVersionMatch is forbidden unless resourceVersion is provided")},
		{"NotOlderThan without RV", listPath("t1", query("resourceVersionMatch", "NotOlderThan")),
			forbidden("resourceVersionMatch", "resourceVersionMatch is forbidden unless resourceVersion is provided")},
		{"match with continue", listPath("t1", query("resourceVersionMatch", "NotOlderThan", "resourceVersion", "5", "continue", good)),
			forbidden("resourceVersionMatch", "resourceVersionMatch is forbidden when continue is provided")},
		{"unknown match", listPath("t1", query("resourceVersionMatch", "Bogus", "resourceVersion", "5")),
			invalidListOptions("resourceVersionMatch", metav1.CauseTypeFieldValueNotSupported,
				`Unsupported value: "Bogus": supported values: "Exact", "NotOlderThan", ""`)},
		{"Exact with 0", listPath("t1", query("resourceVersionMatch", "Exact", "resourceVersion", "0")),
			forbidden("resourceVersionMatch", `resourceVersionMatch "exact" is forbidden for resourceVersion "0"`)},
		{"sendInitialEvents", listPath("t1", query("sendInitialEvents", "true")),
			forbidden("sendInitialEvents", "sendInitialEvents is forbidden for list")},
		{"sendInitialEvents false", listPath("t1", query("sendInitialEvents", "false")),
			forbidden("sendInitialEvents", "sendInitialEvents is forbidden for list")},
		// 400: parameter decoding.
		{"limit not a number", listPath("t1", query("limit", "abc")),
			badRequest(`strconv.ParseInt: parsing "abc": invalid syntax`)},
		{"bad label selector", listPath("t1", query("labelSelector", "===")),
			badRequest(`found '==', expected: !, identifier, or 'end of string'`)},
		// 400: field-selector conversion, per kind.
		{"configmaps field", listPath("t1", query("fieldSelector", "data.k=v")),
			badRequest(`"data.k" is not a known field selector: only "metadata.name", "metadata.namespace"`)},
		{"pods field", "/api/v1/pods?fieldSelector=spec.bogus%3Dx",
			badRequest(`field label not supported: spec.bogus`)},
		{"nodes namespace field", "/api/v1/nodes?fieldSelector=metadata.namespace%3Dx",
			badRequest(`field label not supported: metadata.namespace`)},
		// 400: storage ValidateListOptions.
		{"RV not a number", listPath("t1", query("resourceVersion", "abc")),
			badRequest(`invalid resource version: resourceVersion: Invalid value: "abc": strconv.ParseUint: parsing "abc": invalid syntax`)},
		{"RV not a number Exact", listPath("t1", query("resourceVersion", "abc", "resourceVersionMatch", "Exact")),
			badRequest(`invalid resource version: resourceVersion: Invalid value: "abc": strconv.ParseUint: parsing "abc": invalid syntax`)},
		{"RV negative", listPath("t1", query("resourceVersion", "-1", "limit", "2")),
			badRequest(`invalid resource version: resourceVersion: Invalid value: "-1": strconv.ParseUint: parsing "-1": invalid syntax`)},
		{"continue with RV", listPath("t1", query("resourceVersion", "6", "continue", good)),
			badRequest("specifying resource version is not allowed when using continue")},
		{"continue not JSON", listPath("t1", query("continue", "abc")),
			badRequest("invalid continue token: continue key is not valid: invalid character 'i' looking for beginning of value")},
		{"continue not base64", listPath("t1", query("continue", "a!")),
			badRequest("invalid continue token: continue key is not valid: illegal base64 data at input byte 1")},
		{"continue checked before RV", listPath("t1", query("continue", "abc", "resourceVersion", "6")),
			badRequest("invalid continue token: continue key is not valid: invalid character 'i' looking for beginning of value")},
		{"continue rv 0", listPath("t1", query("continue", tokenRV0)),
			badRequest("invalid continue token: continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)")},
		{"continue version", listPath("t1", query("continue", tokenV2)),
			badRequest("invalid continue token: continue key is not valid: server does not recognize this encoded version meta.k8s.io/v2")},
		{"continue traversal", listPath("t1", query("continue", tokenTraversal)),
			badRequest("invalid continue token: continue key is not valid: /../x")},
		{"continue empty start", listPath("t1", query("continue", emptyStart)),
			badRequest("invalid continue token: continue key is not valid: encoded start key empty (version meta.k8s.io/v1)")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := c.get(t, tt.path)
			checkStatus(t, "LIST "+tt.path, got, tt.want)
			if got.header.Get(compactedRevisionHeader) != "0" {
				t.Errorf("LIST %s %s = %q, want \"0\"", tt.path, compactedRevisionHeader, got.header.Get(compactedRevisionHeader))
			}
		})
	}
}

// encodeTokenJSON makes a continue token of raw JSON.
func encodeTokenJSON(js string) string {
	return kubewire.EncodeContinueJSON([]byte(js))
}

// TestListTooOld checks the 410 of an exact read below the compaction
// point, and that NotOlderThan with the same RV still answers (apiserver
// pkg/storage/etcd3/errors.go interpretListError, pkg/storage/cacher/delegator.go
// GetList).
func TestListTooOld(t *testing.T) {
	srv := Start(t)
	cs := srv.Clientset()
	rvs := fiveCMs(t, cs)
	if err := srv.Compact(rvs[2]); err != nil {
		t.Fatal(err)
	}
	c := newListClient(t, srv)
	old := strconv.FormatInt(rvs[1], 10)
	tooOld := failure(http.StatusGone, metav1.StatusReasonExpired, "The resourceVersion for the provided list is too old.")
	for _, q := range []url.Values{
		query("resourceVersion", old, "resourceVersionMatch", "Exact"),
		query("resourceVersion", old, "limit", "2"),
	} {
		got := c.get(t, listPath("t1", q))
		checkStatus(t, "LIST "+q.Encode(), got, tooOld)
		if h := got.header.Get(compactedRevisionHeader); h != strconv.FormatInt(rvs[2], 10) {
			t.Errorf("LIST %s %s = %q, want %d", q.Encode(), compactedRevisionHeader, h, rvs[2])
		}
	}
	for _, q := range []url.Values{
		query("resourceVersion", old),
		query("resourceVersion", old, "resourceVersionMatch", "NotOlderThan", "limit", "2"),
		query("resourceVersion", strconv.FormatInt(rvs[2], 10), "resourceVersionMatch", "Exact"),
	} {
		if got := c.get(t, listPath("t1", q)); got.code != http.StatusOK {
			t.Errorf("LIST %s = %d %s, want 200", q.Encode(), got.code, got.body)
		}
	}
}

// TestListExpiredContinue checks the inconsistent-continue 410 of
// etcd3/errors.go handleCompactedErrorForPaging and that its rv -1 token
// continues from the latest state (pkg/storage/interfaces.go
// ValidateListOptions).
func TestListExpiredContinue(t *testing.T) {
	srv := Start(t)
	cs := srv.Clientset()
	fiveCMs(t, cs)
	c := newListClient(t, srv)
	first := c.get(t, listPath("t1", query("limit", "2")))
	// cm-c changes after the first page; the consistent list would not show it.
	cm := newCM("t1", "cm-c", 33, nil)
	cm.ResourceVersion = ""
	updated, err := cs.CoreV1().ConfigMaps("t1").Update(t.Context(), cm, metav1.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Compact(srv.store.CurrentRV()); err != nil {
		t.Fatal(err)
	}

	got := c.get(t, listPath("t1", query("limit", "2", "continue", first.list.Continue)))
	want := failure(http.StatusGone, metav1.StatusReasonExpired, inconsistentContinue)
	want.ListMeta.Continue = encodeTokenJSON(`{"v":"meta.k8s.io/v1","rv":-1,"start":"cm-b\u0000"}`)
	checkStatus(t, "expired continue", got, want)
	if tok, _ := decodeTokenJSON(got.status.Continue); tok != `{"v":"meta.k8s.io/v1","rv":-1,"start":"cm-b\u0000"}` {
		t.Errorf("expired continue token = %s, want rv -1 from cm-b", tok)
	}

	next := c.get(t, listPath("t1", query("limit", "2", "continue", got.status.Continue)))
	cur := strconv.FormatInt(srv.store.CurrentRV(), 10)
	if next.code != http.StatusOK || next.list.ResourceVersion != cur {
		t.Fatalf("LIST with the rv -1 token = %d rv %q, want 200 at the latest rv %s", next.code, next.list.ResourceVersion, cur)
	}
	if diff := cmp.Diff([]cmView{
		{Namespace: "t1", Name: "cm-c", RV: updated.ResourceVersion, V: "33"},
		{Namespace: "t1", Name: "cm-d", RV: next.list.Items[1].ResourceVersion, V: "4"},
	}, viewCMs(next.list.Items)); diff != "" {
		t.Errorf("rv -1 page items mismatch (-want +got):\n%s", diff)
	}
	tok, _ := decodeTokenJSON(next.list.Continue)
	if want := `{"v":"meta.k8s.io/v1","rv":` + cur + `,"start":"/cm-d\u0000"}`; tok != want {
		t.Errorf("token after the rv -1 page = %s, want %s", tok, want)
	}
}

// TestListTooLargeResourceVersion runs the 3 s freshness wait on a fake
// clock: every RV-constrained LIST with an RV ahead of the store blocks
// until the clock has moved 3 s, then answers the 504 with Retry-After
// (apiserver pkg/storage/cacher/watch_cache.go waitUntilFreshLocked). No test
// sleeps 3 s.
func TestListTooLargeResourceVersion(t *testing.T) {
	clk := testingclock.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	srv := Start(t, WithClock(clk))
	cs := srv.Clientset()
	fiveCMs(t, cs)
	c := newListClient(t, srv)
	cur := srv.store.CurrentRV()
	future := strconv.FormatInt(cur+1000, 10)
	futureToken := kubewire.EncodeContinue("t1/cm-b", "t1/", cur+1000, true)
	want := failure(http.StatusGatewayTimeout, metav1.StatusReasonTimeout,
		"Timeout: Too large resource version: "+future+", current: "+strconv.FormatInt(cur, 10))
	want.Details = &metav1.StatusDetails{
		Causes:            []metav1.StatusCause{{Type: metav1.CauseTypeResourceVersionTooLarge, Message: "Too large resource version"}},
		RetryAfterSeconds: 1,
	}
	for _, q := range []url.Values{
		query("resourceVersion", future),
		query("resourceVersion", future, "resourceVersionMatch", "NotOlderThan"),
		query("resourceVersion", future, "resourceVersionMatch", "Exact"),
		query("resourceVersion", future, "limit", "2"),
		query("continue", futureToken, "limit", "2"),
	} {
		got := getAfterClockStep(t, c, clk, listPath("t1", q), freshnessTimeout)
		checkStatus(t, "LIST "+q.Encode(), got, want)
		if h := got.header.Get("Retry-After"); h != "1" {
			t.Errorf("LIST %s Retry-After = %q, want \"1\"", q.Encode(), h)
		}
	}
}

// TestListWaitsForResourceVersion checks that a LIST for an RV just ahead
// of the store answers as soon as a write reaches it, before the 3 s.
func TestListWaitsForResourceVersion(t *testing.T) {
	clk := testingclock.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	srv := Start(t, WithClock(clk))
	cs := srv.Clientset()
	ensureNamespace(t, cs, "t1")
	next := srv.store.CurrentRV() + 1
	c := newListClient(t, srv)
	base := clk.Waiters()
	done := make(chan rawList, 1)
	go func() {
		done <- c.do(listPath("t1", query("resourceVersion", strconv.FormatInt(next, 10), "resourceVersionMatch", "Exact")))
	}()
	waitForWaiters(t, clk, base+1)
	createCM(t, cs, newCM("t1", "a", 1, nil))
	got := recvList(t, done)
	if got.code != http.StatusOK || got.list.ResourceVersion != strconv.FormatInt(next, 10) || len(got.list.Items) != 1 {
		t.Errorf("LIST at the next RV = %d rv %q with %d items, want 200 at %d with 1 item", got.code, got.list.ResourceVersion, len(got.list.Items), next)
	}
}

// getAfterClockStep sends a LIST that must block on the fake clock, checks
// it is still blocked just before step has passed, then steps the clock and
// returns the answer.
func getAfterClockStep(t *testing.T, c *listClient, clk *testingclock.FakeClock, path string, step time.Duration) rawList {
	t.Helper()
	base := clk.Waiters()
	done := make(chan rawList, 1)
	go func() { done <- c.do(path) }()
	waitForWaiters(t, clk, base+1)
	clk.Step(step - time.Millisecond)
	select {
	case got := <-done:
		t.Fatalf("LIST %s answered %d before the clock reached %v", path, got.code, step)
	default:
	}
	clk.Step(time.Millisecond)
	return recvList(t, done)
}

// waitForWaiters waits (in real time; only a hang fails it) until the fake
// clock has n timers, i.e. the request under test has started its wait.
func waitForWaiters(t *testing.T, clk *testingclock.FakeClock, n int) {
	t.Helper()
	hung := hangGuard(t)
	for clk.Waiters() < n {
		select {
		case <-hung:
			t.Fatalf("fake clock waiters = %d, want %d before the test's deadline", clk.Waiters(), n)
		case <-time.After(time.Millisecond):
		}
	}
}

// recvList receives a LIST answer from a goroutine (only a hang fails it).
func recvList(t *testing.T, ch <-chan rawList) rawList {
	t.Helper()
	select {
	case got := <-ch:
		if got.err != nil {
			t.Fatal(got.err)
		}
		return got
	case <-hangGuard(t):
		t.Fatal("LIST did not answer before the test's deadline")
		return rawList{}
	}
}

// TestListResourceVersionPastInt64 (issue 21): a resourceVersion the
// versioner reads as a uint64 but past int64 is one no store reaches, so
// every read waits, then answers the 504 naming it, as kube-apiserver does;
// it wrapped to a negative RV before (a 200 or a 410). Past uint64 it is
// the versioner's 400.
func TestListResourceVersionPastInt64(t *testing.T) {
	clk := testingclock.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	srv := Start(t, WithClock(clk))
	fiveCMs(t, srv.Clientset())
	c := newListClient(t, srv)
	cur := strconv.FormatInt(srv.store.CurrentRV(), 10)
	for _, rv := range []string{"9223372036854775808", "18446744073709551615"} {
		want := failure(http.StatusGatewayTimeout, metav1.StatusReasonTimeout, "Timeout: Too large resource version: "+rv+", current: "+cur)
		want.Details = &metav1.StatusDetails{
			Causes:            []metav1.StatusCause{{Type: metav1.CauseTypeResourceVersionTooLarge, Message: "Too large resource version"}},
			RetryAfterSeconds: 1,
		}
		for _, q := range []url.Values{
			query("resourceVersion", rv),
			query("resourceVersion", rv, "resourceVersionMatch", "Exact"),
			query("resourceVersion", rv, "limit", "2"),
		} {
			checkStatus(t, "LIST "+q.Encode(), getAfterClockStep(t, c, clk, listPath("t1", q), freshnessTimeout), want)
		}
		checkStatus(t, "GET at "+rv, getAfterClockStep(t, c, clk, "/api/v1/namespaces/t1/configmaps/cm-a?resourceVersion="+rv, freshnessTimeout), want)
	}
	got := c.do(listPath("t1", query("resourceVersion", "18446744073709551616")))
	checkStatus(t, "LIST past uint64", got, failure(http.StatusBadRequest, metav1.StatusReasonBadRequest,
		`invalid resource version: resourceVersion: Invalid value: "18446744073709551616": strconv.ParseUint: parsing "18446744073709551616": value out of range`))
}
