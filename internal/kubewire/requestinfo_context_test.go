package kubewire

import (
	"net/http/httptest"
	"reflect"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestRequestInfoOf: a request WithRequestInfo parsed is read from its
// context, error included, and not parsed again; one it did not parse is
// parsed on the spot.
func TestRequestInfoOf(t *testing.T) {
	t.Parallel()
	for _, path := range []string{"/api/v1/namespaces/ns/pods/p", "/api/v1/watch", "/healthz"} {
		var n atomic.Int64
		r := httptest.NewRequest("GET", path, nil)
		r = r.WithContext(WithParseCount(r.Context(), &n))
		wantInfo, wantErr := NewRequestInfo(r)
		r = WithRequestInfo(r)
		for range 3 {
			info, err := RequestInfoOf(r)
			if diff := cmp.Diff(wantInfo, info); diff != "" || (err == nil) != (wantErr == nil) {
				t.Errorf("RequestInfoOf(%s) = %v (-want +got):\n%s", path, err, diff)
			}
		}
		if got := n.Load(); got != 2 {
			t.Errorf("%s: %d parses, want 2 (the test's own and WithRequestInfo's)", path, got)
		}
		bare := httptest.NewRequest("GET", path, nil)
		bare = bare.WithContext(WithParseCount(bare.Context(), &n))
		_, _ = RequestInfoOf(bare)
		if n.Load() != 3 {
			t.Errorf("%s: RequestInfoOf of a request nothing parsed made %d parses in all, want 3", path, n.Load())
		}
	}
}

// TestQueryOf: a request WithRequestInfo parsed answers its query from
// its context, the same values r.URL.Query() parses, repeated and
// malformed parameters included; one it did not parse is parsed on the
// spot.
func TestQueryOf(t *testing.T) {
	t.Parallel()
	for _, target := range []string{
		"/api/v1/pods", "/api/v1/pods?limit=500&continue=abc", "/api/v1/pods?watch=1&watch=0&labelSelector=a%3Db",
		"/api/v1/pods?timeout=1s&bad=%zz&=x&y", "/healthz?verbose&exclude=etcd&exclude=log",
	} {
		r := httptest.NewRequest("GET", target, nil)
		want := r.URL.Query()
		if diff := cmp.Diff(want, QueryOf(r)); diff != "" {
			t.Errorf("QueryOf(%s) before WithRequestInfo (-want +got):\n%s", target, diff)
		}
		r = WithRequestInfo(r)
		if diff := cmp.Diff(want, QueryOf(r)); diff != "" {
			t.Errorf("QueryOf(%s) (-want +got):\n%s", target, diff)
		}
		held := QueryOf(r)
		ReleaseQuery(r)
		if diff := cmp.Diff(want, QueryOf(r)); diff != "" {
			t.Errorf("QueryOf(%s) after ReleaseQuery (-want +got):\n%s", target, diff)
		}
		if len(held) > 0 && reflect.ValueOf(QueryOf(r)).UnsafePointer() == reflect.ValueOf(held).UnsafePointer() {
			t.Errorf("QueryOf(%s) after ReleaseQuery is the query it released", target)
		}
	}
}
