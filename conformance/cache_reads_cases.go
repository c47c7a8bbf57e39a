package conformance

import (
	"context"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// cacheReadsCases are the cases of this file, in the order [Cases] runs
// them: the reads kube-apiserver v1.37.2 serves from its watch cache
// (apiserver pkg/storage/cacher/delegator.go), each as one apiserver
// answers it, with no fence where the cacher itself waits for freshness.
// The lagging, frozen, restarted and partitioned caches of several
// apiservers have no real counterpart here (one real apiserver, whose cache
// lags only by moments); fakeapiserver's apiserver_instance_test.go covers
// them.
func cacheReadsCases() []Case {
	return []Case{
		{Name: "CacheGetRV0", Run: runCacheGetRV0},
		{Name: "CacheGetRV0Missing", Run: runCacheGetRV0Missing},
		{Name: "CacheGetNotOlderThanJustWritten", Run: runCacheGetNotOlderThanJustWritten},
		{Name: "CacheGetUnsetReadsStorage", Run: runCacheGetUnsetReadsStorage},
		{Name: "CacheListConsistentSeesLastWrite", Run: runCacheListConsistentSeesLastWrite},
		{Name: "CacheListNotOlderThanJustWritten", Run: runCacheListNotOlderThanJustWritten},
		{Name: "CacheListExactJustWritten", Run: runCacheListExactJustWritten},
	}
}

// runCacheGetRV0: GET with resourceVersion "0" is served from the cache as
// it is (cacher.go Get, no wait); once the cache holds the write it is the
// object as written.
func runCacheGetRV0(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	rvs := e.createN(ctx, "a")
	e.catchUpCache(ctx)
	r := e.c.do(ctx, t, request{Path: e.cms() + "/a", Query: q("resourceVersion", "0")})
	r.mustCode(t, http.StatusOK, "get a rv=0")
	var o object
	r.decode(t, &o)
	if got := rvOf(t, o); got != rvs[0] {
		t.Errorf("GET a rv=0 resourceVersion = %d, want %d", got, rvs[0])
	}
}

// runCacheGetRV0Missing: a name the cache does not hold is the registry's
// 404 (storage.NewKeyNotFoundError from the cacher).
func runCacheGetRV0Missing(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	e.createN(ctx, "a")
	r := e.c.do(ctx, t, request{Path: e.cms() + "/zz", Query: q("resourceVersion", "0")})
	checkStatus(t, "get zz rv=0", r, wantStatus(http.StatusNotFound, metav1.StatusReasonNotFound,
		`configmaps "zz" not found`, &metav1.StatusDetails{Name: "zz", Kind: "configmaps"}))
}

// runCacheGetNotOlderThanJustWritten: GET at the RV of a write just
// acknowledged waits for the cache to reach it (watch_cache.go
// WaitUntilFreshAndGet) and returns that write, with no fence.
func runCacheGetNotOlderThanJustWritten(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	e.createN(ctx, "a")
	updated := rvOf(t, e.update(ctx, "a", "v2", nil))
	r := e.c.do(ctx, t, request{Path: e.cms() + "/a", Query: q("resourceVersion", itoa(updated))})
	r.mustCode(t, http.StatusOK, "get a at the update's rv")
	var o object
	r.decode(t, &o)
	if got := rvOf(t, o); got != updated {
		t.Errorf("GET a rv=%d resourceVersion = %d, want the update's", updated, got)
	}
}

// runCacheGetUnsetReadsStorage: GET without a resourceVersion reads etcd
// (delegator.go Get), so it sees a write just acknowledged.
func runCacheGetUnsetReadsStorage(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	e.createN(ctx, "a")
	updated := rvOf(t, e.update(ctx, "a", "v2", nil))
	if got := rvOf(t, e.get(ctx, "a")); got != updated {
		t.Errorf("GET a resourceVersion = %d, want the update's %d", got, updated)
	}
}

// runCacheListConsistentSeesLastWrite: a LIST without a resourceVersion is
// a consistent read: from the cache once it reached etcd's current
// revision (watch_cache.go waitAndListConsistent), so every write
// acknowledged before is in it, and its RV is no older.
func runCacheListConsistentSeesLastWrite(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	rvs := e.createN(ctx, "a", "b")
	l := e.list(ctx)
	if diff := cmp.Diff([]string{"a", "b"}, l.names()); diff != "" {
		t.Errorf("consistent list (-want +got):\n%s", diff)
	}
	if got := l.rv(t); got < rvs[1] {
		t.Errorf("consistent list resourceVersion = %d, want at least %d", got, rvs[1])
	}
}

// runCacheListNotOlderThanJustWritten: NotOlderThan at the RV of a write
// just acknowledged waits for the cache (watch_cache.go
// waitAndListLatestRV) and lists a state that holds it.
func runCacheListNotOlderThanJustWritten(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	rvs := e.createN(ctx, "a", "b")
	l := e.list(ctx, "resourceVersion", itoa(rvs[1]), "resourceVersionMatch", "NotOlderThan")
	if diff := cmp.Diff([]string{"a", "b"}, l.names()); diff != "" {
		t.Errorf("list NotOlderThan %d (-want +got):\n%s", rvs[1], diff)
	}
	if got := l.rv(t); got < rvs[1] {
		t.Errorf("list NotOlderThan %d resourceVersion = %d, want at least that", rvs[1], got)
	}
}

// runCacheListExactJustWritten: Exact at the RV of a write just
// acknowledged waits for the cache and lists the snapshot at exactly that
// RV (cacher.go ShouldDelegateExactRV → watch_cache.go
// waitAndListExactRV): the state after the first create only.
func runCacheListExactJustWritten(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	rvs := e.createN(ctx, "a")
	e.createN(ctx, "b")
	l := e.list(ctx, "resourceVersion", itoa(rvs[0]), "resourceVersionMatch", "Exact")
	if diff := cmp.Diff([]string{"a"}, l.names()); diff != "" {
		t.Errorf("list Exact %d (-want +got):\n%s", rvs[0], diff)
	}
	if got := l.rv(t); got != rvs[0] {
		t.Errorf("list Exact %d resourceVersion = %d, want exactly that", rvs[0], got)
	}
}
