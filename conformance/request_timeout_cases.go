package conformance

// Cases for the ?timeout= query parameter, which kube-apiserver's
// request-deadline filter (apiserver pkg/endpoints/filters/
// request_deadline.go) parses for every request that is not long-running,
// before authentication.

import (
	"context"
	"fmt"
	"net/http"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// requestTimeoutCases are the cases of this file, in the order [Cases] runs them.
func requestTimeoutCases() []Case {
	return []Case{
		{Name: "RequestTimeoutParam", Run: runRequestTimeoutParam},
	}
}

// invalidTimeout is the 400 for a malformed ?timeout= of parse error msg.
func invalidTimeout(msg string) statusShape {
	return wantStatus(http.StatusBadRequest, metav1.StatusReasonBadRequest,
		"invalid timeout specified in the request URL - "+msg, nil)
}

// runRequestTimeoutParam: a ?timeout= that time.ParseDuration rejects is
// a 400 BadRequest on resource and non-resource paths alike (even for a
// caller without credentials, and before a create stores anything);
// valid durations, negative and zero ones included, are accepted; a watch
// ignores ?timeout= (only timeoutSeconds bounds it).
func runRequestTimeoutParam(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	for _, tc := range []struct{ value, msg string }{
		{"invalid", `time: invalid duration "invalid"`},
		{"1", `time: missing unit in duration "1"`},
		{"5 s", `time: unknown unit " s" in duration "5 s"`},
	} {
		r := e.c.do(ctx, t, request{Path: e.cms(), Query: q("timeout", tc.value)})
		checkStatus(t, fmt.Sprintf("list ?timeout=%q", tc.value), r, invalidTimeout(tc.msg))
	}
	for _, p := range []string{"/version", "/healthz", "/apis", "/api/v1", "/openapi/v2"} {
		r := e.c.do(ctx, t, request{Path: p, Query: q("timeout", "x")})
		checkStatus(t, "GET "+p+"?timeout=x", r, invalidTimeout(`time: invalid duration "x"`))
	}
	r := e.c.do(ctx, t, request{Method: http.MethodPost, Path: e.cms(), Query: q("timeout", "x"), Body: cm("tmo", nil, "v")})
	checkStatus(t, "create ?timeout=x", r, invalidTimeout(`time: invalid duration "x"`))
	r = e.c.do(ctx, t, request{Path: e.cms() + "/tmo"})
	r.mustCode(t, http.StatusNotFound, "get the configmap a rejected create named")
	if target.RESTConfig().BearerToken != "" {
		anon := anonymousClient(t, target)
		r = anon.do(ctx, t, request{Path: e.cms(), Query: q("timeout", "x")})
		checkStatus(t, "anonymous list ?timeout=x", r, invalidTimeout(`time: invalid duration "x"`))
	}
	for _, v := range []string{"10s", "1h", "0s", "-1s", "1.5s", "1000h", ""} {
		r := e.c.do(ctx, t, request{Path: e.cms(), Query: q("timeout", v)})
		r.mustCode(t, http.StatusOK, fmt.Sprintf("list ?timeout=%q", v))
	}
	w := e.c.watch(ctx, t, request{Path: e.cms(), Query: q("timeout", "invalid", "timeoutSeconds", "60")})
	e.create(ctx, "live", nil)
	if ev := w.mustNext(ctx, "watch ?timeout=invalid"); ev.Type != "ADDED" || nameOf(ev.Object) != "live" {
		t.Errorf("watch ?timeout=invalid event = %s %s, want ADDED live", ev.Type, nameOf(ev.Object))
	}
}
