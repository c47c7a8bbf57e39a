package fakeapiserver

import (
	"net/http"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/lw-sim/lw-sim/internal/kubewire"
)

// toStatus is the one place where an error becomes the metav1.Status a
// client sees (kubewire.ErrorToStatus, kube-apiserver's ErrorToAPIStatus).
func toStatus(err error) *metav1.Status { return kubewire.ErrorToStatus(err) }

// writeError is the one writer of an error: err as a Status (toStatus),
// negotiated like any response but never as a Table, and in JSON when the
// Accept header allows nothing else, as the real server's error path does;
// with a Retry-After header when the Status asks for a retry — client-go's
// rest client retries such a request itself (responsewriters/writers.go
// ErrorNegotiated).
func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	st := toStatus(err)
	kubewire.SetRetryAfter(w.Header(), st)
	out, nerr := s.negotiateOutput(statusRequest(r), false)
	if nerr != nil {
		out = outputType{info: s.codecs.SupportedMediaTypes()[0]}
	}
	s.respond(w, r, out, int(st.Code), st)
}
