package fakeapiserver

import (
	"context"
	"net/http"

	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/apiserver/pkg/warning"
)

// headerWarnings is a warning.Recorder that sends each warning as a
// "299 -" Warning header on w at once, deduplicated, as kube-apiserver's
// recorder (endpoints/filters/warning.go) sends what code of
// k8s.io/apiserver records with warning.AddWarning (the bearer token
// authenticator, TokenRequest). Warnings must come before the response is
// written, as theirs do.
type headerWarnings struct {
	w    http.ResponseWriter
	seen map[string]bool
}

// withWarnings returns ctx with a recorder that writes to w.
func withWarnings(ctx context.Context, w http.ResponseWriter) context.Context {
	return warning.WithWarningRecorder(ctx, &headerWarnings{w: w})
}

// AddWarning implements warning.Recorder.
func (h *headerWarnings) AddWarning(agent, text string) {
	if text == "" || h.seen[text] {
		return
	}
	if h.seen == nil {
		h.seen = map[string]bool{}
	}
	h.seen[text] = true
	if v, err := utilnet.NewWarningHeader(299, agent, text); err == nil {
		h.w.Header().Add("Warning", v)
	}
}
