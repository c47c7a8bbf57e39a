package faults

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// statusFor builds FailRequest's error as kube-apiserver builds it for that
// code (apimachinery pkg/api/errors), so client-go classifies it as it
// would a real one (IsTooManyRequests, IsInternalError, ...).
func statusFor(f Fault, info *RequestInfo) *apierrors.StatusError {
	msg := f.Message
	if msg == "" {
		msg = fmt.Sprintf("injected by lw-sim fault %s", f.ID)
	}
	var err *apierrors.StatusError
	switch f.Code {
	case http.StatusTooManyRequests:
		// The max-in-flight filter's text (apiserver
		// pkg/server/filters/maxinflight.go tooManyRequests).
		if f.Message == "" {
			msg = "Too many requests, please try again later."
		}
		err = apierrors.NewTooManyRequests(msg, f.RetryAfterSeconds)
	case http.StatusInternalServerError:
		err = apierrors.NewInternalError(errors.New(msg))
	case http.StatusServiceUnavailable:
		err = apierrors.NewServiceUnavailable(msg)
	default:
		err = apierrors.NewTimeoutError(msg, 0)
	}
	if f.RetryAfterSeconds > 0 {
		if err.ErrStatus.Details == nil {
			err.ErrStatus.Details = &metav1.StatusDetails{}
		}
		err.ErrStatus.Details.RetryAfterSeconds = int32(f.RetryAfterSeconds)
	}
	if info != nil && info.Resource != "" && err.ErrStatus.Details != nil {
		gr := schema.ParseGroupResource(info.Resource)
		err.ErrStatus.Details.Group, err.ErrStatus.Details.Kind = gr.Group, gr.Resource
	}
	return err
}

// WriteStatus writes err's Status as JSON with its code, and Retry-After
// when the Status asks for a retry (responsewriters ErrorNegotiated). It is
// for writers that negotiate nothing (the proxy, the control API).
func WriteStatus(w http.ResponseWriter, err error) {
	var se apierrors.APIStatus
	st := metav1.Status{Status: metav1.StatusFailure, Code: http.StatusInternalServerError, Message: err.Error()}
	if errors.As(err, &se) {
		st = se.Status()
	}
	st.Kind, st.APIVersion = "Status", "v1"
	if st.Details != nil && st.Details.RetryAfterSeconds > 0 {
		w.Header().Set("Retry-After", retryAfter(st.Details.RetryAfterSeconds))
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-cache, private")
	w.WriteHeader(int(st.Code))
	_ = json.NewEncoder(w).Encode(&st)
}

// Group-resources named in control API errors.
var (
	emptyGR  = schema.GroupResource{}
	faultsGR = schema.GroupResource{Group: "lw-sim", Resource: "faults"}
)
