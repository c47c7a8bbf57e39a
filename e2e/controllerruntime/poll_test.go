package controllerruntime

import (
	"context"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
)

// poll calls cond every 10ms until it reports done, failing the test when
// ctx ends (at the test binary's deadline: testdeadline) with what and, if
// given, the detail of the last attempt. An error from cond is retried: the
// manager's cache may not know a kind yet.
func poll(ctx context.Context, t *testing.T, what string, cond func(context.Context) (bool, error), detail ...func() string) {
	t.Helper()
	var lastErr error
	err := wait.PollUntilContextCancel(ctx, 10*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		done, err := cond(ctx)
		lastErr = err
		return done && err == nil, nil
	})
	if err == nil {
		return
	}
	msg := "waiting for " + what + ": " + err.Error()
	if lastErr != nil {
		msg += "; last error: " + lastErr.Error()
	}
	for _, d := range detail {
		msg += "; " + d()
	}
	t.Fatal(msg)
}

// containsAll reports whether s contains every one of subs.
func containsAll(s string, subs ...string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}
