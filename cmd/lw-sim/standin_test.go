package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/cobra"
)

func TestCommandArgs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		argv []string
		want []string
	}{
		{argv: []string{"lw-sim", "serve", "--tls"}, want: []string{"serve", "--tls"}},
		{argv: []string{"/tmp/assets/kube-apiserver", "--secure-port=1"}, want: []string{"kube-apiserver", "--secure-port=1"}},
		{argv: []string{"./etcd"}, want: []string{"etcd"}},
		{argv: []string{"etcd", "--help"}, want: []string{"etcd", "--help"}},
		{argv: []string{"/usr/local/bin/lw-sim-etcd", "version"}, want: []string{"version"}},
		{argv: nil, want: nil},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, commandArgs(tt.argv)); diff != "" {
			t.Errorf("commandArgs(%q) mismatch (-want +got):\n%s", tt.argv, diff)
		}
	}
}

// TestParseStandInFlags: flags the stand-in defines are parsed (with "_"
// read as "-"); any other is dropped with its value and named in one
// warning; positional arguments and bad values are usage errors.
func TestParseStandInFlags(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		args        []string
		wantPort    int
		wantVerbose bool
		wantWarning string // "" for no warning
		wantUsage   bool
	}{
		{name: "known", args: []string{"--secure-port=7", "--verbose"}, wantPort: 7, wantVerbose: true},
		{name: "known, separate value", args: []string{"--secure-port", "7"}, wantPort: 7},
		{name: "underscore", args: []string{"--secure_port=9"}, wantPort: 9},
		{name: "shorthand", args: []string{"-p", "8", "-V"}, wantPort: 8, wantVerbose: true},
		{
			name:        "unknown with = and separate values",
			args:        []string{"--max-requests-inflight=5", "--secure-port", "7", "--feature-gates", "A=true", "--profiling", "--verbose"},
			wantPort:    7,
			wantVerbose: true,
			wantWarning: "--max-requests-inflight=5 --feature-gates A=true --profiling",
		},
		{name: "unknown shorthand", args: []string{"-x", "--secure-port=3"}, wantPort: 3, wantWarning: "-x"},
		{name: "positional", args: []string{"extra"}, wantUsage: true},
		{name: "bad value", args: []string{"--secure-port=seven"}, wantUsage: true},
		{name: "after --", args: []string{"--", "--nope"}, wantUsage: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cmd := &cobra.Command{Use: "stand-in"}
			port := cmd.Flags().IntP("secure-port", "p", 1, "")
			verbose := cmd.Flags().BoolP("verbose", "V", false, "")
			cmd.Flags().SetNormalizeFunc(wordSepNormalize)
			var stderr bytes.Buffer
			err := parseStandInFlags(cmd, tt.args, &stderr)
			if gotUsage := errors.As(err, new(*usageError)); gotUsage != tt.wantUsage || (err != nil && !gotUsage) {
				t.Fatalf("parseStandInFlags(%q) = %v, want usage error: %t", tt.args, err, tt.wantUsage)
			}
			if tt.wantUsage {
				return
			}
			if *port != tt.wantPort || *verbose != tt.wantVerbose {
				t.Errorf("parseStandInFlags(%q): port=%d verbose=%t, want %d %t", tt.args, *port, *verbose, tt.wantPort, tt.wantVerbose)
			}
			want := ""
			if tt.wantWarning != "" {
				want = "lw-sim stand-in: warning: ignoring flags it does not emulate: " + tt.wantWarning + "\n"
			}
			if got := stderr.String(); got != want {
				t.Errorf("parseStandInFlags(%q) stderr = %q, want %q", tt.args, got, want)
			}
		})
	}
}

// TestStandInHelpFlags: envtest reads each binary's --help to decide what
// to pass (controlplane process.CheckFlag, the regexp `(?m)^\s*--FLAG\b`):
// etcd must list --unsafe-no-fsync, kube-apiserver must not list
// --insecure-port (which kube-apiserver v1.24 removed) and must list what
// envtest passes.
func TestStandInHelpFlags(t *testing.T) {
	t.Parallel()
	tests := []struct {
		command    string
		wantListed []string
		wantAbsent []string
	}{
		{command: etcdName, wantListed: []string{"unsafe-no-fsync", "listen-client-urls", "data-dir"}},
		{
			command: kubeAPIServerName,
			wantListed: []string{
				"advertise-address", "etcd-servers", "cert-dir", "secure-port", "bind-address", "disable-admission-plugins",
				"service-cluster-ip-range", "allow-privileged", "authorization-mode", "client-ca-file", "service-account-issuer",
				"service-account-key-file", "service-account-signing-key-file",
			},
			wantAbsent: []string{"insecure-port", "insecure-bind-address"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.command, func(t *testing.T) {
			t.Parallel()
			var stdout, stderr bytes.Buffer
			// As envtest runs it: the binary's name, then --help.
			if err := run(t.Context(), commandArgs([]string{"/assets/" + tt.command, "--help"}), &stdout, &stderr); err != nil {
				t.Fatalf("%s --help = %v (stderr %q)", tt.command, err, stderr.String())
			}
			for _, f := range tt.wantListed {
				if !helpListsFlag(stdout.String(), f) {
					t.Errorf("%s --help does not list --%s", tt.command, f)
				}
			}
			for _, f := range tt.wantAbsent {
				if helpListsFlag(stdout.String(), f) {
					t.Errorf("%s --help lists --%s; envtest would pass it", tt.command, f)
				}
			}
		})
	}
}

// helpListsFlag is envtest's CheckFlag test on help output.
func helpListsFlag(help, flag string) bool {
	for line := range strings.Lines(help) {
		rest := strings.TrimLeft(line, " \t")
		if after, ok := strings.CutPrefix(rest, "-"+string(flag[0])+", "); ok {
			rest = after
		}
		if name, ok := strings.CutPrefix(rest, "--"+flag); ok && (name == "" || !isFlagNameByte(name[0])) {
			return true
		}
	}
	return false
}

func isFlagNameByte(b byte) bool {
	return b == '-' || b == '_' || b >= 'a' && b <= 'z' || b >= '0' && b <= '9' || b >= 'A' && b <= 'Z'
}

// standInRun is a stand-in command running in a goroutine of the test.
type standInRun struct {
	stdout, stderr *syncBuffer
	cancel         context.CancelFunc
	result         chan error
}

// startStandIn runs lw-sim as argv (argv[0] picks the stand-in, as
// main does) and returns once its stdout contains ready; the test fails
// at once if run returns first. Cleanup stops it.
func startStandIn(t *testing.T, ready string, argv ...string) *standInRun {
	t.Helper()
	r := &standInRun{stdout: newSyncBuffer(), stderr: newSyncBuffer(), result: make(chan error, 1)}
	ctx, cancel := context.WithCancel(context.Background())
	r.cancel = cancel
	returned, markReturned := context.WithCancelCause(context.Background())
	go func() {
		err := run(ctx, commandArgs(argv), r.stdout, r.stderr)
		markReturned(fmt.Errorf("run(%q) returned early: %v", argv, err))
		r.result <- err
	}()
	t.Cleanup(func() {
		cancel()
		<-returned.Done()
	})
	r.stdout.waitFor(returned, t, ready)
	return r
}

// stop cancels the run, as SIGTERM does in main, and returns its result.
func (r *standInRun) stop() error {
	r.cancel()
	return <-r.result
}

// freePort returns a loopback port that was free a moment ago, as
// envtest's addr.Suggest picks the ports it passes.
func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	p, _ := strconv.Atoi(port)
	return p
}
