package kubewire

import (
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TooLargeRetryAfterSeconds is the Retry-After of the watch cache's
// "Too large resource version" 504, which makes client-go's rest client
// retry the request by itself.
const TooLargeRetryAfterSeconds = 1

// TooLargeResourceVersion is the watch cache's 504 for a read at want when
// it has only reached current (apiserver pkg/storage/errors.go
// NewTooLargeResourceVersionError, with Retry-After
// [TooLargeRetryAfterSeconds]). want is a uint64, as the versioner parses a
// requested resourceVersion: one past int64 is only ever too large.
func TooLargeResourceVersion(want uint64, current int64) *apierrors.StatusError {
	return tooLargeResourceVersion(want, current, TooLargeRetryAfterSeconds)
}

// StorageTooLargeResourceVersion is etcd3's 504 for a read at want when etcd
// is at current (apiserver pkg/storage/etcd3/store.go
// validateMinimumResourceVersion and listReadError): the same Status with
// no retry advice (retrySeconds 0: no Retry-After), answered at once.
func StorageTooLargeResourceVersion(want uint64, current int64) *apierrors.StatusError {
	return tooLargeResourceVersion(want, current, 0)
}

func tooLargeResourceVersion(want uint64, current int64, retryAfterSeconds int) *apierrors.StatusError {
	err := apierrors.NewTimeoutError(fmt.Sprintf("Too large resource version: %d, current: %d", want, current), retryAfterSeconds)
	err.ErrStatus.Details.Causes = []metav1.StatusCause{{
		Type:    metav1.CauseTypeResourceVersionTooLarge,
		Message: "Too large resource version",
	}}
	return err
}

// TooOldResourceVersion is the watch cache's 410 for a watch from rv when
// its window starts at floor (apiserver pkg/storage/cacher/
// watch_cache_history.go GetIntervalLocked): "too old resource version:
// rv (floor)", sent as the stream's one ERROR event.
func TooOldResourceVersion(rv, floor int64) *apierrors.StatusError {
	return apierrors.NewResourceExpired(fmt.Sprintf("too old resource version: %d (%d)", rv, floor))
}

// StorageTimeoutMessage is the answer of a request whose storage never
// answers: the timeout filter's 504 (apiserver pkg/server/filters/
// timeout.go).
const StorageTimeoutMessage = "request did not complete within the allotted timeout"

// StorageUnreachable is what a request an apiserver delegates to storage
// gets from an instance cut off its storage: the 504 Timeout of
// [StorageTimeoutMessage], with no Retry-After.
func StorageUnreachable() *apierrors.StatusError {
	return apierrors.NewTimeoutError(StorageTimeoutMessage, 0)
}
