package main

import (
	"context"
	"net"
	"path/filepath"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/lw-sim/lw-sim/fakeapiserver"
	"github.com/lw-sim/lw-sim/faultproxy"
	"github.com/lw-sim/lw-sim/internal/testdeadline"
)

// TestServeUntilDone: serve and proxy run their endpoint with the same
// helper; each announces itself, serves, and on cancel stops, returns nil
// and leaves no goroutine behind. Not parallel, so goleak sees only what
// this test started.
func TestServeUntilDone(t *testing.T) {
	upstream := fakeapiserver.Start(t)
	newEndpoints := map[string]func(t *testing.T) endpoint{
		"serve": func(t *testing.T) endpoint {
			srv, err := fakeapiserver.New(fakeapiserver.Config{})
			if err != nil {
				t.Fatal(err)
			}
			return srv
		},
		"proxy": func(t *testing.T) endpoint {
			p, err := faultproxy.New(faultproxy.Config{Upstream: upstream.RESTConfig()})
			if err != nil {
				t.Fatal(err)
			}
			return p
		},
	}
	for name, newEndpoint := range newEndpoints {
		t.Run(name, func(t *testing.T) {
			defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
			ep := newEndpoint(t)
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(t.Context())
			stdout := newSyncBuffer()
			kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
			result := make(chan error, 1)
			go func() {
				result <- serveUntilDone(ctx, ep, ln, announcement{name: name, kubeconfig: kubeconfig}, stdout)
			}()
			waitCtx, waitCancel := testdeadline.Context(t)
			defer waitCancel()
			stdout.waitFor(waitCtx, t, "lw-sim "+name+": kubeconfig "+kubeconfig+"\n")
			// The endpoint answers through the kubeconfig it wrote.
			if names := namespaceNames(t, (&serveRun{kubeconfig: kubeconfig}).restConfig(t)); len(names) == 0 {
				t.Errorf("%s: List(namespaces) through the kubeconfig is empty", name)
			}
			cancel()
			if err := <-result; err != nil {
				t.Errorf("serveUntilDone(%s) after cancel = %v, want nil", name, err)
			}
			if out := stdout.String(); !strings.HasPrefix(out, "lw-sim "+name+": serving http://127.0.0.1:") || !strings.HasSuffix(out, "lw-sim "+name+": stopped\n") {
				t.Errorf("serveUntilDone(%s) stdout = %q, want the serving line first and the stopped line last", name, out)
			}
		})
	}
}
