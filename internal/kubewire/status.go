package kubewire

import (
	"encoding/json"
	"errors"
	"net/http"
	"strconv"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ErrorToStatus is the Status a client sees for err, as kube-apiserver's
// ErrorToAPIStatus (apiserver pkg/endpoints/handlers/responsewriters/
// status.go) builds it: an API error keeps its code, reason and details
// (a missing status is Failure, a missing code 500, or 200 for Success);
// any other error is a 500 with no reason and err.Error() as message.
func ErrorToStatus(err error) *metav1.Status {
	var apiStatus apierrors.APIStatus
	if errors.As(err, &apiStatus) {
		st := apiStatus.Status()
		if st.Status == "" {
			st.Status = metav1.StatusFailure
		}
		if st.Code == 0 {
			st.Code = http.StatusInternalServerError
			if st.Status == metav1.StatusSuccess {
				st.Code = http.StatusOK
			}
		}
		st.Kind, st.APIVersion = "Status", "v1"
		return &st
	}
	return &metav1.Status{
		TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   metav1.StatusFailure,
		Code:     http.StatusInternalServerError,
		Message:  err.Error(),
	}
}

// SetRetryAfter sets the Retry-After header of an error answer whose
// Status asks for a retry, as responsewriters.ErrorNegotiated does; client-go's
// rest client then retries the request by itself.
func SetRetryAfter(h http.Header, st *metav1.Status) {
	if st.Details != nil && st.Details.RetryAfterSeconds > 0 {
		h.Set("Retry-After", strconv.Itoa(int(st.Details.RetryAfterSeconds)))
	}
}

// WriteStatus writes err's Status ([ErrorToStatus]) as JSON with its code,
// Retry-After ([SetRetryAfter]) and kube-apiserver's Cache-Control, for
// writers that negotiate nothing: the proxy, the fault control API, the
// Host guard.
func WriteStatus(w http.ResponseWriter, err error) {
	st := ErrorToStatus(err)
	SetRetryAfter(w.Header(), st)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-cache, private")
	w.WriteHeader(int(st.Code))
	_ = json.NewEncoder(w).Encode(st)
}
