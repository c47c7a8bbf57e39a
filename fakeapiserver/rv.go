package fakeapiserver

import (
	"context"
	"fmt"
	"strconv"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

const (
	// freshnessTimeout is how long a read that needs a resourceVersion the
	// server has not reached yet waits before answering 504 (cacher
	// watch_cache.go blockTimeout).
	freshnessTimeout = 3 * time.Second
	// tooLargeRetryAfterSeconds is the Retry-After of that 504, which makes
	// client-go's rest client retry the request by itself.
	tooLargeRetryAfterSeconds = 1
)

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
			return tooLargeResourceVersion(rv, cur)
		case <-ctx.Done():
			return tooLargeResourceVersion(rv, cur)
		}
	}
}

// tooLargeResourceVersion is apiserver pkg/storage/errors.go
// (NewTooLargeResourceVersionError) as the watch cache returns it.
func tooLargeResourceVersion(want, current int64) error {
	err := apierrors.NewTimeoutError(fmt.Sprintf("Too large resource version: %d, current: %d", want, current), tooLargeRetryAfterSeconds)
	err.ErrStatus.Details.Causes = []metav1.StatusCause{{
		Type:    metav1.CauseTypeResourceVersionTooLarge,
		Message: "Too large resource version",
	}}
	return err
}
