package conformance

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain checks that no case leaks a goroutine (watch readers are joined
// in t.Cleanup). Idle keep-alive connections of client-go's shared,
// cached transports are not leaks of ours and are ignored.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m,
		goleak.IgnoreAnyFunction("net/http.(*persistConn).readLoop"),
		goleak.IgnoreAnyFunction("net/http.(*persistConn).writeLoop"),
		goleak.IgnoreAnyFunction("golang.org/x/net/http2.(*ClientConn).readLoop"),
		goleak.IgnoreAnyFunction("net/http.(*http2ClientConn).readLoop"),
		goleak.IgnoreAnyFunction("k8s.io/klog/v2.(*flushDaemon).run.func1"),
	)
}
