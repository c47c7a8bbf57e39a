package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"

	"github.com/lw-sim/lw-sim/fakeapiserver"
	"github.com/lw-sim/lw-sim/internal/testdeadline"
	"github.com/lw-sim/lw-sim/scenarios"
)

// runOK runs lw-sim args and returns stdout and stderr; a failure fails the
// test.
func runOK(t *testing.T, args ...string) (stdout, stderr string) {
	t.Helper()
	ctx, cancel := testdeadline.Context(t)
	defer cancel()
	var out, errOut bytes.Buffer
	if err := run(ctx, args, &out, &errOut); err != nil {
		t.Fatalf("run(%q) = %v, want nil; stderr:\n%s", args, err, errOut.String())
	}
	return out.String(), errOut.String()
}

// TestVersion: lw-sim version names the Kubernetes release the fake's
// /version answers, in text and as JSON and YAML that parse back.
func TestVersion(t *testing.T) {
	t.Parallel()
	served, err := fakeapiserver.Start(t).Clientset().Discovery().ServerVersion()
	if err != nil {
		t.Fatalf("ServerVersion() = %v", err)
	}
	text, _ := runOK(t, "version")
	for _, want := range []string{"lw-sim version: ", "Go version: go1.", "Kubernetes version (emulated): " + served.GitVersion + "\n"} {
		if !strings.Contains(text, want) {
			t.Errorf("version output lacks %q:\n%s", want, text)
		}
	}
	for _, format := range []string{"json", "yaml"} {
		out, _ := runOK(t, "version", "-o", format)
		var got versionInfo
		if err := yaml.UnmarshalStrict([]byte(out), &got); err != nil {
			t.Fatalf("version -o %s output does not parse back: %v\n%s", format, err, out)
		}
		if diff := cmp.Diff(*served, got.Kubernetes); diff != "" {
			t.Errorf("version -o %s kubernetes differs from the server's /version (-served +printed):\n%s", format, diff)
		}
		if got.Version == "" || got.GoVersion == "" {
			t.Errorf("version -o %s = %+v, want the module and Go versions", format, got)
		}
	}
}

// TestCompletion: lw-sim completion SHELL writes cobra's script, and the
// __complete command the scripts call completes commands, flags and
// values.
func TestCompletion(t *testing.T) {
	t.Parallel()
	for _, shell := range []string{"bash", "zsh", "fish", "powershell"} {
		script, _ := runOK(t, "completion", shell)
		if !strings.Contains(script, "lw-sim") || !strings.Contains(script, "__complete") {
			t.Errorf("completion %s: script does not call lw-sim __complete:\n%.300s", shell, script)
		}
	}
	tests := []struct {
		args []string
		want []string
	}{
		{args: []string{""}, want: []string{"serve", "proxy", "run", "explain", "demo", "version"}},
		{args: []string{"serve", "--"}, want: []string{"--listen", "--kubeconfig", "--insecure-http", "--token", "--authorization-mode", "--control", "--v"}},
		{args: []string{"run", "-o", ""}, want: []string{"json", "yaml"}},
		{args: []string{"explain", ""}, want: []string{"watch-cache-window"}},
	}
	for _, tt := range tests {
		out, _ := runOK(t, append([]string{"__complete"}, tt.args...)...)
		for _, want := range tt.want {
			if !strings.Contains(out, "\n"+want) && !strings.HasPrefix(out, want) {
				t.Errorf("__complete %q lacks %q:\n%s", tt.args, want, out)
			}
		}
	}
}

func TestCompletionUnknownShell(t *testing.T) {
	t.Parallel()
	var stdout, stderr bytes.Buffer
	err := run(t.Context(), []string{"completion", "tcsh"}, &stdout, &stderr)
	if !errors.As(err, new(*usageError)) {
		t.Errorf("run(completion tcsh) = %v, want a usage error", err)
	}
}

// TestOutputData: every -o json|yaml output parses back into its type.
func TestOutputData(t *testing.T) {
	t.Parallel()
	for _, format := range []string{"json", "yaml"} {
		t.Run(format, func(t *testing.T) {
			t.Parallel()
			out, _ := runOK(t, "run", "list-chunking", "--seed", "77", "-o", format)
			var res scenarios.Result
			if err := yaml.UnmarshalStrict([]byte(out), &res); err != nil {
				t.Fatalf("run -o %s does not parse back: %v\n%s", format, err, out)
			}
			if res.Scenario != "list-chunking" || res.Seed != 77 || !res.Passed || len(res.Timeline) == 0 {
				t.Errorf("run -o %s = %+v, want list-chunking, seed 77, passed, a timeline", format, res)
			}

			out, _ = runOK(t, "run", "--list", "-o", format)
			var c catalog
			if err := yaml.UnmarshalStrict([]byte(out), &c); err != nil {
				t.Fatalf("run --list -o %s does not parse back: %v\n%s", format, err, out)
			}
			if diff := cmp.Diff(newCatalog(), c); diff != "" {
				t.Errorf("run --list -o %s mismatch (-want +got):\n%s", format, diff)
			}

			out, _ = runOK(t, "explain", "expired-continue", "-o", format)
			var e explanation
			if err := yaml.UnmarshalStrict([]byte(out), &e); err != nil {
				t.Fatalf("explain -o %s does not parse back: %v\n%s", format, err, out)
			}
			if e.Scenario.Name != "expired-continue" || e.Scenario.Explanation == "" || e.Result == nil || !e.Result.Passed {
				t.Errorf("explain -o %s = %+v, want the scenario, its explanation and a passed result", format, e)
			}
		})
	}
}

// TestRunDeprecatedJSON: --json still prints the JSON -o json prints, and
// warns on stderr only.
func TestRunDeprecatedJSON(t *testing.T) {
	t.Parallel()
	oldOut, oldErr := runOK(t, "run", "watch-timeout", "--json")
	newOut, _ := runOK(t, "run", "watch-timeout", "-o", "json")
	if oldOut != newOut {
		t.Errorf("run --json and run -o json differ (-o json +--json):\n%s", cmp.Diff(newOut, oldOut))
	}
	if !json.Valid([]byte(oldOut)) || !strings.Contains(oldErr, "deprecated") {
		t.Errorf("run --json: stdout valid JSON %t, stderr %q; want JSON and a deprecation notice", json.Valid([]byte(oldOut)), oldErr)
	}
}

func TestBadOutputFormat(t *testing.T) {
	t.Parallel()
	var stdout, stderr bytes.Buffer
	err := run(t.Context(), []string{"version", "-o", "xml"}, &stdout, &stderr)
	if !errors.As(err, new(*usageError)) || !strings.Contains(err.Error(), `output format "xml"`) {
		t.Errorf("run(version -o xml) = %v, want a usage error naming the format", err)
	}
	if !strings.Contains(stderr.String(), "lw-sim version [flags]") {
		t.Errorf("version -o xml stderr = %q, want the usage", stderr.String())
	}
}

// TestExitStatus runs main itself (the test binary as lw-sim): 0 and the
// help on stdout for --help and for no command (as kubectl), 2 and usage
// on stderr for a bad command line, 1 for a failure.
func TestExitStatus(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args       []string
		wantCode   int
		wantStderr []string
		wantStdout []string
	}{
		{args: []string{"--help"}, wantCode: 0, wantStdout: []string{"Available Commands:"}},
		{args: []string{"serve", "--nope"}, wantCode: 2, wantStderr: []string{"Usage:\n  lw-sim serve [flags]", "lw-sim: serve: unknown flag: --nope"}},
		{args: []string{"run", "-o", "xml", "watch-timeout"}, wantCode: 2, wantStderr: []string{"lw-sim run", `lw-sim: run: invalid argument "xml"`}},
		{args: []string{"serv"}, wantCode: 2, wantStderr: []string{`lw-sim: unknown command "serv" (did you mean serve?)`}},
		{args: []string{}, wantCode: 0, wantStdout: []string{"lw-sim is an in-memory fake kube-apiserver", "Available Commands:"}},
		{args: []string{"run", "no-such-scenario"}, wantCode: 1, wantStderr: []string{`unknown scenario "no-such-scenario"`}},
	}
	for _, tt := range tests {
		cmd := exec.CommandContext(t.Context(), os.Args[0], tt.args...)
		cmd.Env = append(os.Environ(), runAsMainEnv+"=1")
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		code := 0
		if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatalf("lw-sim %q: %v", tt.args, err)
		}
		if code != tt.wantCode {
			t.Errorf("lw-sim %q exit status = %d, want %d; stderr:\n%s", tt.args, code, tt.wantCode, stderr.String())
		}
		for _, want := range tt.wantStderr {
			if !strings.Contains(stderr.String(), want) {
				t.Errorf("lw-sim %q stderr lacks %q:\n%s", tt.args, want, stderr.String())
			}
		}
		for _, want := range tt.wantStdout {
			if !strings.Contains(stdout.String(), want) {
				t.Errorf("lw-sim %q stdout lacks %q:\n%s", tt.args, want, stdout.String())
			}
		}
	}
}
