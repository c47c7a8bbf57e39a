package fakeapiserver

import (
	"errors"
	"net/http"
	"strconv"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// toStatus is the one place where an error becomes the metav1.Status a
// client sees, as apiserver pkg/endpoints/handlers/responsewriters/status.go
// (ErrorToAPIStatus) does: API errors keep their code, reason and details;
// any other error is a 500 with no reason and err.Error() as message.
func toStatus(err error) *metav1.Status {
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

// writeError is the one writer of an error: err as a Status (toStatus),
// negotiated like any response but never as a Table, and in JSON when the
// Accept header allows nothing else, as the real server's error path does;
// with a Retry-After header when the Status asks for a retry — client-go's
// rest client retries such a request itself (responsewriters/writers.go
// ErrorNegotiated).
func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	st := toStatus(err)
	if st.Details != nil && st.Details.RetryAfterSeconds > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(int(st.Details.RetryAfterSeconds)))
	}
	out, nerr := s.negotiateOutput(statusRequest(r), false)
	if nerr != nil {
		out = outputType{info: s.codecs.SupportedMediaTypes()[0]}
	}
	s.respond(w, out, int(st.Code), st)
}
