package faults

import (
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

// Group-resources named in control API errors.
var (
	emptyGR  = schema.GroupResource{}
	faultsGR = schema.GroupResource{Group: "lw-sim", Resource: "faults"}
)
