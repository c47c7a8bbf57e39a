package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"strings"
	"sync"
	"testing"

	"go.uber.org/goleak"
)

// runAsMainEnv, when set to 1, makes the test binary run main() itself
// with its arguments, so TestExitStatus sees main's exit status and stderr.
const runAsMainEnv = "LWSIM_TEST_RUN_MAIN"

// TestMain fails the package if a test leaves a goroutine running; the serve
// and demo tests rely on it to prove that run stops its server and watch.
func TestMain(m *testing.M) {
	if os.Getenv(runAsMainEnv) == "1" {
		main()
		os.Exit(0)
	}
	goleak.VerifyTestMain(m)
}

func TestRunUsage(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		args       []string
		wantUsage  bool // want a *usageError
		wantStdout string
		wantStderr string
	}{
		{name: "no command", args: nil, wantStdout: "Commands:"}, // help, as kubectl
		{name: "unknown command", args: []string{"frobnicate"}, wantUsage: true, wantStderr: "Commands:"},
		{name: "help", args: []string{"help"}, wantStdout: "Commands:"},
		{name: "--help", args: []string{"--help"}, wantStdout: "Commands:"},
		{name: "serve --help", args: []string{"serve", "--help"}, wantStdout: "lw-sim serve [flags]"},
		{name: "demo --help", args: []string{"demo", "-h"}, wantStdout: "lw-sim demo [flags]"},
		{name: "serve bad flag", args: []string{"serve", "--nope"}, wantUsage: true, wantStderr: "lw-sim serve [flags]"},
		{name: "serve stray argument", args: []string{"serve", "extra"}, wantUsage: true, wantStderr: "lw-sim serve [flags]"},
		{name: "serve bad --listen", args: []string{"serve", "--listen", "6443"}, wantUsage: true},
		{name: "serve --token with --insecure-http", args: []string{"serve", "--token", "x", "--insecure-http"}, wantUsage: true, wantStderr: "lw-sim serve [flags]"},
		{name: "serve with a bad --authorization-mode", args: []string{"serve", "--authorization-mode", "ABAC"}, wantUsage: true, wantStderr: "lw-sim serve [flags]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var stdout, stderr bytes.Buffer
			err := run(t.Context(), tt.args, &stdout, &stderr)
			var ue *usageError
			if gotUsage := errors.As(err, &ue); gotUsage != tt.wantUsage {
				t.Errorf("run(%q) = %v, want usage error: %t", tt.args, err, tt.wantUsage)
			}
			if !tt.wantUsage && err != nil {
				t.Errorf("run(%q) = %v, want nil", tt.args, err)
			}
			if !strings.Contains(stdout.String(), tt.wantStdout) {
				t.Errorf("run(%q) stdout = %q, want it to contain %q", tt.args, stdout.String(), tt.wantStdout)
			}
			if !strings.Contains(stderr.String(), tt.wantStderr) {
				t.Errorf("run(%q) stderr = %q, want it to contain %q", tt.args, stderr.String(), tt.wantStderr)
			}
		})
	}
}

// TestServeHelpDocumentsEveryFlag checks that --help names every flag of
// serve with its meaning, as the issue asks.
func TestServeHelpDocumentsEveryFlag(t *testing.T) {
	t.Parallel()
	var stdout, stderr bytes.Buffer
	if err := run(t.Context(), []string{"serve", "--help"}, &stdout, &stderr); err != nil {
		t.Fatalf("run(serve --help) = %v, want nil", err)
	}
	for _, want := range []string{"--listen address", "--kubeconfig path", "--insecure-http", "--token token", "--authorization-mode", "--client-ca-file file", "127.0.0.1:6443", "lw-sim.kubeconfig"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("serve --help output lacks %q:\n%s", want, stdout.String())
		}
	}
}

// syncBuffer is an io.Writer that run's goroutine and the test share; the
// test waits on it for output without sleeping.
type syncBuffer struct {
	// mu guards the fields below.
	mu      sync.Mutex
	buf     bytes.Buffer
	changed chan struct{} // closed and replaced on every Write
}

func newSyncBuffer() *syncBuffer { return &syncBuffer{changed: make(chan struct{})} }

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	close(b.changed)
	b.changed = make(chan struct{})
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// waitFor returns the output once it contains want, or fails the test when
// ctx ends first.
func (b *syncBuffer) waitFor(ctx context.Context, t *testing.T, want string) string {
	t.Helper()
	for {
		b.mu.Lock()
		out, changed := b.buf.String(), b.changed
		b.mu.Unlock()
		if strings.Contains(out, want) {
			return out
		}
		select {
		case <-changed:
		case <-ctx.Done():
			t.Fatalf("output never contained %q (%v); got:\n%s", want, context.Cause(ctx), out)
		}
	}
}
