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

// waitForRV blocks until the store has reached rv, for at most
// freshnessTimeout of the server's clock, then fails with the real
// "Too large resource version" 504.
func (s *Server) waitForRV(ctx context.Context, rv uint64) error {
	if err := s.faultTooLargeRV(ctx, storeRV(rv)); err != nil { // injected 504 (faults_request.go)
		return err
	}
	if reached(s.store.CurrentRV(), rv) {
		return nil
	}
	timer := s.cfg.Clock.NewTimer(freshnessTimeout)
	defer timer.Stop()
	for {
		changed := s.store.Notify()
		cur := s.store.CurrentRV()
		if reached(cur, rv) {
			return nil
		}
		select {
		case <-changed:
		case <-timer.C():
			return kubewire.TooLargeResourceVersion(rv, cur)
		case <-ctx.Done():
			return kubewire.TooLargeResourceVersion(rv, cur)
		}
	}
}

// reached reports whether the store at current has reached the requested
// rv.
func reached(current int64, rv uint64) bool {
	return current >= 0 && uint64(current) >= rv
}
