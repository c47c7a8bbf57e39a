package fakeapiserver

import (
	"context"
	"strconv"
	"time"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/lw-sim/lw-sim/internal/kubewire"
)

// freshnessTimeout is how long a read that needs a resourceVersion the
// server has not reached yet waits before answering 504 (cacher
// watch_cache.go blockTimeout).
const freshnessTimeout = 3 * time.Second

// parseResourceVersion parses a resourceVersion parameter as the apiserver's
// APIObjectVersioner does: "" and "0" are 0; anything but a uint64 is an
// invalid-value error ("resourceVersion: Invalid value: ...").
func parseResourceVersion(rv string) (int64, error) {
	if rv == "" || rv == "0" {
		return 0, nil
	}
	n, err := strconv.ParseUint(rv, 10, 64)
	if err != nil {
		return 0, field.ErrorList{field.Invalid(field.NewPath("resourceVersion"), rv, err.Error())}.ToAggregate()
	}
	return int64(n), nil
}

// waitForRV blocks until the store has reached rv, for at most
// freshnessTimeout of the server's clock, then fails with the real
// "Too large resource version" 504.
func (s *Server) waitForRV(ctx context.Context, rv int64) error {
	if err := s.faultTooLargeRV(ctx, rv); err != nil { // injected 504 (faults_request.go)
		return err
	}
	if s.store.CurrentRV() >= rv {
		return nil
	}
	timer := s.cfg.Clock.NewTimer(freshnessTimeout)
	defer timer.Stop()
	for {
		changed := s.store.Notify()
		cur := s.store.CurrentRV()
		if cur >= rv {
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
