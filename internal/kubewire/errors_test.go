package kubewire

import (
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestTooLargeResourceVersion: the Status of the watch cache's 504 as
// kube-apiserver answers it (conformance list_cases.go checks the same
// against the real server).
func TestTooLargeResourceVersion(t *testing.T) {
	t.Parallel()
	want := metav1.Status{
		Status: metav1.StatusFailure, Code: http.StatusGatewayTimeout, Reason: metav1.StatusReasonTimeout,
		Message: "Timeout: Too large resource version: 1002, current: 7",
		Details: &metav1.StatusDetails{
			Causes:            []metav1.StatusCause{{Type: metav1.CauseTypeResourceVersionTooLarge, Message: "Too large resource version"}},
			RetryAfterSeconds: 1,
		},
	}
	if diff := cmp.Diff(want, TooLargeResourceVersion(1002, 7).ErrStatus); diff != "" {
		t.Errorf("TooLargeResourceVersion(1002, 7) mismatch (-want +got):\n%s", diff)
	}
}

// TestTooOldAndStorageUnreachable: the watch cache's 410 for a watch from
// before its window and the 504 of a storage that never answers, as
// kube-apiserver words them.
func TestTooOldAndStorageUnreachable(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		got, want metav1.Status
	}{
		{TooOldResourceVersion(5, 9).ErrStatus, metav1.Status{
			Status: metav1.StatusFailure, Code: http.StatusGone, Reason: metav1.StatusReasonExpired,
			Message: "too old resource version: 5 (9)",
		}},
		{StorageUnreachable().ErrStatus, metav1.Status{
			Status: metav1.StatusFailure, Code: http.StatusGatewayTimeout, Reason: metav1.StatusReasonTimeout,
			Message: "Timeout: request did not complete within the allotted timeout", Details: &metav1.StatusDetails{},
		}},
	} {
		if diff := cmp.Diff(tt.want, tt.got); diff != "" {
			t.Errorf("%s mismatch (-want +got):\n%s", tt.want.Message, diff)
		}
	}
}
