package fakeapiserver

import (
	"fmt"
	"net/http"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/lw-sim/lw-sim/internal/kubewire"
)

// invalidTimeoutInURL starts the 400's message for a malformed ?timeout=
// (apiserver pkg/endpoints/filters/request_deadline.go invalidTimeoutInURL).
const invalidTimeoutInURL = "invalid timeout specified in the request URL"

// longRunningVerbs and longRunningSubresources are kube-apiserver's
// long-running requests, which the request-deadline filter lets through
// without reading ?timeout= (kubernetes cmd/kube-apiserver/app/server.go:
// BasicLongRunningRequestCheck(watch, proxy; attach, exec, proxy, log,
// portforward)). A watch's deadline is its timeoutSeconds alone
// (handlers/get.go handleWatch: "we explicitly ignore ?timeout=").
var (
	longRunningVerbs        = map[string]bool{"watch": true, "proxy": true}
	longRunningSubresources = map[string]bool{"attach": true, "exec": true, "proxy": true, "log": true, "portforward": true}
)

// checkTimeoutParam is the request-deadline filter's parse of ?timeout=
// (request_deadline.go parseTimeout): a value time.ParseDuration rejects
// is a 400 BadRequest, for every request that is not long-running,
// non-resource paths included. kube-apiserver runs the filter outside
// authentication, so even a caller with a wrong token gets the 400.
// A valid value is accepted and, as the fake answers at once, not
// enforced (conformance/DIVERGENCES.md).
func checkTimeoutParam(r *http.Request) error {
	value := kubewire.QueryOf(r).Get("timeout")
	if value == "" {
		return nil
	}
	// A path RequestInfoFactory cannot read fails earlier, in the
	// request-info filter; routing answers it here.
	info, err := kubewire.RequestInfoOf(r)
	if err != nil || isLongRunning(info) {
		return nil
	}
	if _, err := time.ParseDuration(value); err != nil {
		return apierrors.NewBadRequest(fmt.Sprintf("%s - %s", invalidTimeoutInURL, err.Error()))
	}
	return nil
}

// isLongRunning is BasicLongRunningRequestCheck with kube-apiserver's sets.
func isLongRunning(info kubewire.RequestInfo) bool {
	return longRunningVerbs[info.Verb] || (info.IsResourceRequest && longRunningSubresources[info.Subresource])
}
