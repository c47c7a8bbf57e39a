package kubewire

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/google/go-cmp/cmp"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// TestErrorToStatus: ErrorToAPIStatus's rules for API errors, API errors
// missing their status or code, and plain errors.
func TestErrorToStatus(t *testing.T) {
	t.Parallel()
	typeMeta := metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}
	tests := []struct {
		name string
		err  error
		want metav1.Status
	}{
		{"API error", apierrors.NewNotFound(schemaGR("configmaps"), "cm"), metav1.Status{TypeMeta: typeMeta,
			Status: metav1.StatusFailure, Code: 404, Reason: metav1.StatusReasonNotFound, Message: `configmaps "cm" not found`,
			Details: &metav1.StatusDetails{Name: "cm", Kind: "configmaps"}}},
		{"no status, no code", &apierrors.StatusError{ErrStatus: metav1.Status{Message: "m"}},
			metav1.Status{TypeMeta: typeMeta, Status: metav1.StatusFailure, Code: 500, Message: "m"}},
		{"success without code", &apierrors.StatusError{ErrStatus: metav1.Status{Status: metav1.StatusSuccess}},
			metav1.Status{TypeMeta: typeMeta, Status: metav1.StatusSuccess, Code: 200}},
		{"plain error", errors.New("boom"), metav1.Status{TypeMeta: typeMeta, Status: metav1.StatusFailure, Code: 500, Message: "boom"}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, *ErrorToStatus(tt.err)); diff != "" {
			t.Errorf("%s: ErrorToStatus mismatch (-want +got):\n%s", tt.name, diff)
		}
	}
}

// TestWriteStatus: the JSON a non-negotiating writer sends, with
// kube-apiserver's headers, and Retry-After only when the Status asks.
func TestWriteStatus(t *testing.T) {
	t.Parallel()
	rec := httptest.NewRecorder()
	WriteStatus(rec, apierrors.NewTooManyRequests("slow down", 2))
	want := `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"slow down","reason":"TooManyRequests","details":{"retryAfterSeconds":2},"code":429}` + "\n"
	if rec.Code != http.StatusTooManyRequests || rec.Body.String() != want {
		t.Errorf("WriteStatus(429) = %d %s, want 429 %s", rec.Code, rec.Body, want)
	}
	wantHeader := http.Header{"Content-Type": {"application/json"}, "Cache-Control": {"no-cache, private"}, "Retry-After": {"2"}}
	if diff := cmp.Diff(wantHeader, rec.Header()); diff != "" {
		t.Errorf("WriteStatus(429) headers mismatch (-want +got):\n%s", diff)
	}
	rec = httptest.NewRecorder()
	WriteStatus(rec, apierrors.NewBadRequest("no"))
	if rec.Code != http.StatusBadRequest || rec.Header().Get("Retry-After") != "" {
		t.Errorf("WriteStatus(400) = %d, Retry-After %q; want 400 and none", rec.Code, rec.Header().Get("Retry-After"))
	}
}

// schemaGR is the core group-resource named resource.
func schemaGR(resource string) schema.GroupResource { return schema.GroupResource{Resource: resource} }
