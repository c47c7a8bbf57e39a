package fakeapiserver

import (
	"context"
	"math"
	"strconv"
	"time"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/lw-sim/lw-sim/internal/kubewire"
)

// freshnessTimeout is how long a read that needs a resourceVersion the
// server has not reached yet waits before answering 504 (cacher
// watch_cache.go blockTimeout).
const freshnessTimeout = 3 * time.Second

// parseRequestedRV parses a resourceVersion a request asks for as the
// apiserver's APIObjectVersioner does: "" and "0" are 0; anything but a
// uint64 is an invalid-value error ("resourceVersion: Invalid value:
// ..."). A uint64 past int64 is valid, and an RV no store reaches: reads
// wait for it and answer the 504 "Too large resource version" naming it.
func parseRequestedRV(rv string) (uint64, error) {
	if rv == "" || rv == "0" {
		return 0, nil
	}
	n, err := strconv.ParseUint(rv, 10, 64)
	if err != nil {
		return 0, field.ErrorList{field.Invalid(field.NewPath("resourceVersion"), rv, err.Error())}.ToAggregate()
	}
	return n, nil
}

// parseResourceVersion parses a stored object's resourceVersion, which the
// store wrote and so fits an int64; a request's goes through
// [parseRequestedRV].
func parseResourceVersion(rv string) (int64, error) {
	n, err := parseRequestedRV(rv)
	return storeRV(n), err
}

// storeRV is the store resourceVersion a requested one stands for: itself,
// or the largest when it is past int64 (a point the store never reaches).
func storeRV(rv uint64) int64 {
	return int64(min(rv, math.MaxInt64))
}

// waitForRV blocks until the watch cache of inst has reached rv, for at
// most freshnessTimeout of the server's clock, then fails with the real
// "Too large resource version" 504 naming the cache's RV (apiserver
// pkg/storage/cacher/watch_cache.go waitUntilFreshLocked). It returns the
// cache's position once reached. A fresh instance's cache is the store, so
// this waits for the store's RV; a stale one's moves with the store's
// writes (a lag in events), the clock (a lag in time) or a fault's end.
func (s *Server) waitForRV(ctx context.Context, inst *apiserverInstance, rv uint64) (int64, error) {
	if err := s.faultTooLargeRV(ctx, storeRV(rv)); err != nil { // injected 504 (faults_request.go)
		return 0, err
	}
	return s.waitForCache(ctx, inst, rv)
}

// waitForCache is waitForRV without the injected 504: the wait of a
// consistent read, which no TooLargeRV fault answers. A storage view
// (etcd, for a resource with no watch cache) does not wait: it has rv or
// answers etcd3's 504 at once.
func (s *Server) waitForCache(ctx context.Context, inst *apiserverInstance, rv uint64) (int64, error) {
	if inst.uncached {
		cur, _ := inst.cacheRV()
		if !reached(cur, rv) {
			return 0, kubewire.StorageTooLargeResourceVersion(rv, cur)
		}
		return cur, nil
	}
	if cur, _ := inst.cacheRV(); reached(cur, rv) {
		return cur, nil
	}
	timer := s.cfg.Clock.NewTimer(freshnessTimeout)
	defer timer.Stop()
	for {
		written := s.store.Notify()
		changed, anyWrite, due, stop := inst.wakeups()
		cur, _ := inst.cacheRV()
		if reached(cur, rv) {
			stop()
			return cur, nil
		}
		select {
		case <-written:
		case <-changed:
		case <-anyWrite:
		case <-due:
		case <-timer.C():
			stop()
			return 0, kubewire.TooLargeResourceVersion(rv, cur)
		case <-ctx.Done():
			stop()
			return 0, kubewire.TooLargeResourceVersion(rv, cur)
		}
		stop()
	}
}

// reached reports whether the store at current has reached the requested
// rv.
func reached(current int64, rv uint64) bool {
	return current >= 0 && uint64(current) >= rv
}
