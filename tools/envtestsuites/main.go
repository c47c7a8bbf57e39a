// Command envtestsuites runs controller-runtime's own envtest suites in
// envtest's normal mode (KUBEBUILDER_ASSETS) against the kube-apiserver and
// etcd executables of a directory, and prints one row per suite: specs,
// passed, failed, skipped, time. `make envtest-suites` runs them against
// lw-sim's stand-ins (lw-sim envtest-assets); `make envtest-suites-real`
// against a real kube-apiserver and etcd v1.37.2 built from Go modules,
// and records which specs pass there in expected.json.
//
// The suites are never copied into this repository. controller-runtime's
// module is fetched into the module cache (go mod download), copied to a
// work directory (the cache is read-only) whose go.mod is moved to the
// k8s.io libraries lw-sim uses, and its test packages are built there
// with go test -c. Each runs with ginkgo's JSON report, so runs compare
// spec by spec.
//
// With -expected, a spec expected.json lists as passing on the real
// server but that fails here is a regression, and the run exits 1 (a
// ginkgo spec whose failure blames the machine, or that is a known race
// the server's speed decides, retry.go, is first run again alone, once,
// and its rerun counts); a spec exempt.json lists, each with its reason, is
// reported apart and never fails the run. With -update the run is the
// reference and rewrites expected.json.
//
// Usage (from the repository root):
//
//	go run ./tools/envtestsuites -assets DIR [-label lw-sim] [-expected tools/envtestsuites/expected.json]
//	go run ./tools/envtestsuites -assets REALDIR -label real -update
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// defaultPackages are controller-runtime's packages whose suites start an
// envtest control plane (envtest.Environment, or controlplane.ControlPlane
// for internal/testing/controlplane, which tests the start-up itself).
var defaultPackages = []string{
	"pkg/builder",
	"pkg/cache",
	"pkg/client",
	"pkg/client/apiutil",
	"pkg/cluster",
	"pkg/controller",
	"pkg/controller/controllerutil",
	"pkg/envtest",
	"pkg/handler",
	"pkg/internal/controller",
	"pkg/internal/recorder",
	"pkg/internal/testing/controlplane",
	"pkg/manager",
	"pkg/manager/internal/integration",
	"pkg/metrics/filters",
	"pkg/reconcile",
	"pkg/source",
	"pkg/webhook",
}

// options are the command's flags.
type options struct {
	assets   string        // KUBEBUILDER_ASSETS of the run
	label    string        // what ran: "lw-sim" or "real"
	version  string        // controller-runtime version
	k8s      string        // version of the k8s.io libraries the suites are built with
	work     string        // work directory: module copy, binaries, reports, logs
	packages string        // comma-separated packages, default defaultPackages
	expected string        // expected.json: compared with, or written with update
	exempt   string        // exempt.json: known failures with their reasons
	update   bool          // this run is the reference: write expected
	reuse    bool          // read the last run's reports instead of running
	timeout  time.Duration // per suite (-test.timeout), a guard against a hang
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "envtestsuites:", err)
		os.Exit(1)
	}
}

// run parses args and runs the suites; it returns an error when a suite
// could not be built or run, or when a spec that passes on the real
// server failed.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	o, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	mod, err := prepareModule(ctx, o.work, o.version, o.k8s, stderr)
	if err != nil {
		return err
	}
	var results []suiteResult
	var build, wall time.Duration
	for _, pkg := range o.packageList() {
		r, err := runSuite(ctx, mod, pkg, o, stderr)
		if err != nil {
			return err
		}
		results = append(results, r)
		build, wall = build+r.Build, wall+r.Wall
	}
	fmt.Fprintf(stderr, "envtestsuites: built %d test binaries in %.0f s, ran them in %.0f s\n", len(results), build.Seconds(), wall.Seconds())
	var again []retried
	if !o.update && !o.reuse {
		// Only a comparison run retries: the reference run records what
		// the real server did, failures of the machine included.
		if again, err = retryEnvironmental(ctx, mod, o, results, stderr); err != nil {
			return err
		}
	}
	if o.update {
		if err := writeExpected(o.expected, o.version, results); err != nil {
			return err
		}
		printTable(stdout, o.label, results, nil)
		fmt.Fprintf(stdout, "\nwrote %s\n", o.expected)
		return nil
	}
	var exp *expected
	if o.expected != "" {
		if exp, err = readExpected(o.expected); err != nil {
			return err
		}
	}
	printTable(stdout, o.label, results, exp)
	if len(again) > 0 {
		printRetried(stdout, again)
	}
	if exp == nil {
		return nil
	}
	ex, err := readExempt(o.exempt)
	if err != nil {
		return err
	}
	c := compare(exp, ex, results)
	c.print(stdout, o.label)
	if n := len(c.regressions); n > 0 {
		return fmt.Errorf("%d spec(s) that pass on the real kube-apiserver failed on %s", n, o.label)
	}
	return nil
}

func parseFlags(args []string, stderr io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("envtestsuites", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.assets, "assets", "", "KUBEBUILDER_ASSETS: the directory of kube-apiserver, etcd (and kubectl) to run the suites with (required)")
	fs.StringVar(&o.label, "label", "lw-sim", "what the assets are, for the table: lw-sim or real")
	fs.StringVar(&o.version, "version", "v0.25.3", "controller-runtime `version` whose suites run")
	fs.StringVar(&o.k8s, "k8s", "v0.37.2", "`version` of the k8s.io libraries the suites are built with (lw-sim's)")
	fs.StringVar(&o.work, "work", filepath.Join(os.TempDir(), "lw-sim-envtest-suites"), "work `directory` (module copy, test binaries, reports, logs); reused")
	fs.StringVar(&o.packages, "packages", strings.Join(defaultPackages, ","), "comma-separated controller-runtime `packages`")
	fs.StringVar(&o.expected, "expected", "", "expected.json: specs that pass on the real server (compared with; written with -update)")
	fs.StringVar(&o.exempt, "exempt", "", "exempt.json: specs known to fail on lw-sim, each with its reason")
	fs.BoolVar(&o.update, "update", false, "this run is the reference: write -expected from it")
	fs.BoolVar(&o.reuse, "reuse", false, "run nothing: read the reports and logs the last run with this -label left in -work")
	fs.DurationVar(&o.timeout, "timeout", 20*time.Minute, "-test.timeout of each suite (a guard against a hung suite)")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if o.assets == "" {
		return o, errors.New("-assets is required")
	}
	if o.update && o.expected == "" {
		return o, errors.New("-update needs -expected")
	}
	var err error
	if o.assets, err = filepath.Abs(o.assets); err != nil {
		return o, err
	}
	if o.work, err = filepath.Abs(o.work); err != nil {
		return o, err
	}
	return o, nil
}

// packageList is -packages split.
func (o options) packageList() []string {
	var out []string
	for p := range strings.SplitSeq(o.packages, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}
