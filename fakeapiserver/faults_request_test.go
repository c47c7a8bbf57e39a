package fakeapiserver

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/pager"

	"github.com/lw-sim/lw-sim/faults"
)

// listCMs lists default/configmaps through client-go and returns the error
// and the virtual time it took.
func (b *bubble) listCMs(t *testing.T, opts metav1.ListOptions) (time.Duration, error) {
	t.Helper()
	start := time.Now()
	_, err := b.cs.CoreV1().ConfigMaps("default").List(t.Context(), opts)
	return time.Since(start), err
}

func TestFaultFailRequest(t *testing.T) {
	tests := []struct {
		name   string
		fault  faults.Fault
		is     func(error) bool // nil: the client must succeed
		took   time.Duration
		reason string
	}{
		{
			name:   "429 with Retry-After is retried by client-go",
			fault:  faults.Fault{Kind: faults.FailRequest, Code: 429, Times: 3},
			took:   3 * time.Second,
			reason: "the rest client waits Retry-After (1 s) and retries, up to 10 times",
		},
		{
			name:  "429 more than the rest client retries",
			fault: faults.Fault{Kind: faults.FailRequest, Code: 429, Times: 11},
			is:    apierrors.IsTooManyRequests, took: 10 * time.Second,
		},
		{name: "500", fault: faults.Fault{Kind: faults.FailRequest, Code: 500}, is: apierrors.IsInternalError},
		{name: "503", fault: faults.Fault{Kind: faults.FailRequest, Code: 503}, is: apierrors.IsServiceUnavailable},
		{name: "504", fault: faults.Fault{Kind: faults.FailRequest, Code: 504}, is: apierrors.IsTimeout},
		{name: "503 with Retry-After", fault: faults.Fault{Kind: faults.FailRequest, Code: 503, RetryAfterSeconds: 2, Times: 2}, took: 4 * time.Second},
		{name: "latency", fault: faults.Fault{Kind: faults.Latency, Delay: faults.Duration(1500 * time.Millisecond)}, took: 1500 * time.Millisecond},
		{
			name:  "cut LIST",
			fault: faults.Fault{Kind: faults.CutList},
			is:    func(err error) bool { return strings.Contains(err.Error(), "unexpected EOF") },
		},
		{
			name:  "other verbs are not hit",
			fault: faults.Fault{Kind: faults.FailRequest, Code: 500, Match: faults.Match{Verbs: []string{"watch"}}},
		},
		{
			name:  "other resources are not hit",
			fault: faults.Fault{Kind: faults.FailRequest, Code: 500, Match: faults.Match{Resource: "pods"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				b := startBubble(t)
				b.mustCreate(t, configMap("default", "a", "v", nil))
				b.srv.InjectFault(t, tt.fault)
				took, err := b.listCMs(t, metav1.ListOptions{})
				switch {
				case tt.is == nil && err != nil:
					t.Errorf("List() = %v, want success (%s)", err, tt.reason)
				case tt.is != nil && (err == nil || !tt.is(err)):
					t.Errorf("List() = %v, want the %s error", err, tt.name)
				}
				if took != tt.took {
					t.Errorf("List() took %v, want %v", took, tt.took)
				}
			})
		})
	}
}

func TestFaultListPage(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := startBubble(t)
		for _, n := range []string{"a", "b", "c", "d", "e"} {
			b.mustCreate(t, configMap("default", n, "v", nil))
		}
		b.srv.InjectFault(t, faults.Fault{Kind: faults.FailRequest, Code: 500, Match: faults.Match{Resource: "configmaps", Page: 2}})
		list := b.cs.CoreV1().ConfigMaps("default").List
		first, err := list(t.Context(), metav1.ListOptions{Limit: 2})
		if err != nil {
			t.Fatalf("List(page 1) = %v", err)
		}
		if _, err := list(t.Context(), metav1.ListOptions{Limit: 2, Continue: first.Continue}); !apierrors.IsInternalError(err) {
			t.Errorf("List(page 2) = %v, want the injected 500", err)
		}
		// The fault fired once; a pager now walks all pages.
		p := pager.New(func(ctx context.Context, o metav1.ListOptions) (runtimeObject, error) { return list(ctx, o) })
		p.PageSize = 2
		if _, _, err := p.List(t.Context(), metav1.ListOptions{}); err != nil {
			t.Errorf("pager.List after the fault = %v", err)
		}
	})
}

func TestFaultTooLargeRV(t *testing.T) {
	tests := []struct {
		name    string
		fault   faults.Fault
		rvDelta int64 // read at current + rvDelta
		want504 bool
	}{
		{name: "future rv answered at once", fault: faults.Fault{Kind: faults.TooLargeRV}, rvDelta: 5, want504: true},
		{name: "current rv still served", fault: faults.Fault{Kind: faults.TooLargeRV}, rvDelta: 0},
		{name: "all reads", fault: faults.Fault{Kind: faults.TooLargeRV, AllReads: true}, rvDelta: -2, want504: true},
		{name: "lag 3, at current", fault: faults.Fault{Kind: faults.TooLargeRV, Lag: 3}, rvDelta: 0, want504: true},
		{name: "lag 3, at current-3", fault: faults.Fault{Kind: faults.TooLargeRV, Lag: 3}, rvDelta: -3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				b := startBubble(t)
				for _, n := range []string{"a", "b", "c", "d"} {
					b.mustCreate(t, configMap("default", n, "v", nil))
				}
				b.srv.InjectFault(t, tt.fault)
				rv := b.srv.store.CurrentRV() + tt.rvDelta
				start := time.Now()
				resp, err := b.http.Get(b.srv.URL() + "/api/v1/namespaces/default/configmaps?resourceVersionMatch=NotOlderThan&resourceVersion=" + formatRV(rv))
				if err != nil {
					t.Fatal(err)
				}
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if got := resp.StatusCode == http.StatusGatewayTimeout; got != tt.want504 {
					t.Fatalf("LIST(rv=%d) = %d %s, want 504: %v", rv, resp.StatusCode, body, tt.want504)
				}
				if tt.want504 {
					if !bytes.Contains(body, []byte("Too large resource version")) || resp.Header.Get("Retry-After") != "1" || time.Since(start) != 0 {
						t.Errorf("LIST(rv=%d) = %s (Retry-After %q, after %v), want the immediate Too large resource version 504", rv, body, resp.Header.Get("Retry-After"), time.Since(start))
					}
				}
			})
		})
	}
}

func TestFaultTriggers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := startBubble(t)
		at := b.srv.store.CurrentRV() + 2
		b.srv.InjectFault(t, faults.Fault{Kind: faults.FailRequest, Code: 500, Match: faults.Match{Verbs: []string{"list"}}, Trigger: faults.Trigger{AtRV: at}})
		b.srv.InjectFault(t, faults.Fault{Kind: faults.FailRequest, Code: 503, Match: faults.Match{Verbs: []string{"get"}}, Trigger: faults.Trigger{Request: 3}})
		if _, err := b.listCMs(t, metav1.ListOptions{}); err != nil {
			t.Errorf("List() before rv %d = %v, want success", at, err)
		}
		b.mustCreate(t, configMap("default", "a", "v", nil))
		b.mustCreate(t, configMap("default", "b", "v", nil))
		if _, err := b.listCMs(t, metav1.ListOptions{}); !apierrors.IsInternalError(err) {
			t.Errorf("List() at rv %d = %v, want the injected 500", at, err)
		}
		var got []bool
		for range 4 {
			_, err := b.cs.CoreV1().ConfigMaps("default").Get(t.Context(), "a", metav1.GetOptions{})
			got = append(got, apierrors.IsServiceUnavailable(err))
		}
		if diff := cmp.Diff([]bool{false, false, true, false}, got); diff != "" {
			t.Errorf("Get() x4 with a 503 on the 3rd (-want +got):\n%s", diff)
		}
		recs := b.srv.Faults().Records()
		if len(recs) != 2 || recs[0].RV != at || recs[0].Request.Verb != "list" || recs[1].Request.Name != "a" || !recs[0].Time.Equal(time.Now()) {
			t.Errorf("Records() = %+v, want the 500 at rv %d and the 503 on get a, stamped now", recs, at)
		}
	})
}

func TestFaultCompact(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := startBubble(t)
		old := b.mustCreate(t, configMap("default", "a", "v", nil))
		b.mustCreate(t, configMap("default", "b", "v", nil))
		b.srv.InjectFault(t, faults.Fault{Kind: faults.Compact})
		_, err := b.listCMs(t, metav1.ListOptions{ResourceVersion: old, ResourceVersionMatch: metav1.ResourceVersionMatchExact})
		if !apierrors.IsResourceExpired(err) {
			t.Errorf("List(rv=%s, Exact) after Compact = %v, want 410 Expired", old, err)
		}
	})
}

func TestFaultInvalid(t *testing.T) {
	srv, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	for _, f := range []faults.Fault{{Kind: "Nope"}, {Kind: faults.FailRequest, Code: 418}, {Kind: faults.Latency}, {Kind: faults.EndWatch, Streams: "some"}} {
		if _, err := srv.Faults().Add(f); err == nil {
			t.Errorf("Add(%+v) = nil error, want invalid", f)
		}
	}
}

func TestFaultControlAPI(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := startBubble(t, WithConfig(func(c *Config) { c.ControlAPI = true }))
		post := func(body string) *http.Response {
			resp, err := b.http.Post(b.srv.URL()+"/_lwsim/faults", "application/json", strings.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { resp.Body.Close() })
			return resp
		}
		if resp := post(`{"kind":"FailRequest","code":503,"retryAfterSeconds":1,"times":2,"match":{"verbs":["list"]}}`); resp.StatusCode != http.StatusCreated {
			t.Fatalf("POST fault = %d", resp.StatusCode)
		}
		if resp := post(`{"kind":"FailRequest","code":418}`); resp.StatusCode != http.StatusBadRequest {
			t.Errorf("POST invalid fault = %d, want 400", resp.StatusCode)
		}
		if took, err := b.listCMs(t, metav1.ListOptions{}); err != nil || took != 2*time.Second {
			t.Errorf("List() = %v after %v, want success after two 1 s retries", err, took)
		}
		var recs []faults.Record
		getJSON(t, b, "/_lwsim/faults/records", &recs)
		if len(recs) != 2 || recs[0].FaultID != "f1" {
			t.Errorf("GET records = %+v, want 2 records of f1", recs)
		}
		req, _ := http.NewRequest(http.MethodDelete, b.srv.URL()+"/_lwsim/faults/f1", nil)
		if resp, err := b.http.Do(req); err != nil || resp.StatusCode != http.StatusOK {
			t.Errorf("DELETE f1 = %v %v", resp, err)
		} else {
			resp.Body.Close()
		}
		var st []faults.Status
		getJSON(t, b, "/_lwsim/faults", &st)
		if len(st) != 1 || st[0].State != "removed" || st[0].Fired != 2 {
			t.Errorf("GET faults = %+v, want f1 removed after firing twice", st)
		}
	})
}

func TestFaultControlAPIOffByDefault(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := startBubble(t)
		resp, err := b.http.Get(b.srv.URL() + "/_lwsim/faults")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound {
			t.Errorf("GET /_lwsim/faults without ControlAPI = %d, want 404", resp.StatusCode)
		}
	})
}

func TestFaultControlAPIToken(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := startBubble(t, WithToken("s3cret"), WithConfig(func(c *Config) { c.ControlAPI = true }))
		for token, want := range map[string]int{"": http.StatusForbidden, "wrong": http.StatusUnauthorized, "s3cret": http.StatusOK} {
			req, _ := http.NewRequest(http.MethodGet, b.srv.URL()+"/_lwsim/faults", nil)
			if token != "" {
				req.Header.Set("Authorization", "Bearer "+token)
			}
			resp, err := b.http.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != want {
				t.Errorf("GET /_lwsim/faults with token %q = %d, want %d", token, resp.StatusCode, want)
			}
		}
	})
}

// getJSON GETs path and decodes the JSON answer into v.
func getJSON(t *testing.T, b *bubble, path string, v any) {
	t.Helper()
	resp, err := b.http.Get(b.srv.URL() + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
}
