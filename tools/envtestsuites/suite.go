package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"
)

// envCleared are variables that would make envtest use something other
// than the assets: an existing cluster, or per-binary overrides.
var envCleared = []string{
	"USE_EXISTING_CLUSTER", "TEST_ASSET_KUBE_APISERVER", "TEST_ASSET_ETCD", "TEST_ASSET_KUBECTL", "KUBECONFIG",
}

const (
	// startTimeout is envtest's control-plane start timeout for the runs
	// (KUBEBUILDER_CONTROLPLANE_START_TIMEOUT, 20 s by default): a real
	// kube-apiserver on two loaded cores can take longer, and a slow start
	// is not what the suites measure.
	startTimeout = "2m"
	// ginkgoSeed fixes ginkgo's spec order, so two runs order specs alike.
	ginkgoSeed = "1"
	// interruptGrace is how long a suite interrupted by a signal has to
	// stop its control plane (ginkgo runs its cleanup on SIGINT) before it
	// is killed.
	interruptGrace = time.Minute
)

// suiteFiles are where a suite's test binary, report, log and run record
// live under the work directory.
type suiteFiles struct {
	bin, report, log, run string
}

func filesOf(o options, mod, pkg string) suiteFiles {
	name := strings.ReplaceAll(pkg, "/", "_")
	reports := filepath.Join(o.work, "reports", o.label)
	return suiteFiles{
		bin:    filepath.Join(o.work, "bin", filepath.Base(mod), name+".test"),
		report: filepath.Join(reports, name+".json"),
		log:    filepath.Join(o.work, "logs", o.label, name+".log"),
		run:    filepath.Join(reports, name+".run"),
	}
}

// runSuite builds the test binary of pkg in the module copy mod, runs it
// with the assets, and reads its ginkgo JSON report and its Go tests'
// results. With o.reuse it only reads what the last run with this label
// left. An error means the suite could not be built or started; a suite
// that fails or crashes is a result.
func runSuite(ctx context.Context, mod, pkg string, o options, log io.Writer) (suiteResult, error) {
	f := filesOf(o, mod, pkg)
	var build time.Duration
	if !o.reuse {
		var err error
		if build, err = buildAndRun(ctx, mod, pkg, f, o, log); err != nil {
			return suiteResult{}, err
		}
	}
	r := readSuiteReport(f.report, pkg)
	r.addGoTests(f.log, filepath.Join(mod, pkg))
	r.Build = build
	if _, err := fmt.Sscan(readString(f.run), &r.Wall, &r.ExitCode); err != nil && r.Note == "" {
		r.Note = "no run record: " + err.Error()
	}
	return r, nil
}

// buildAndRun builds pkg's test binary and runs it, recording how long it
// ran and its exit code in f.run; it returns how long the build took.
func buildAndRun(ctx context.Context, mod, pkg string, f suiteFiles, o options, log io.Writer) (time.Duration, error) {
	fmt.Fprintf(log, "envtestsuites: building %s\n", pkg)
	start := time.Now()
	if _, err := goCommand(ctx, mod, "test", "-c", "-o", f.bin, "./"+pkg); err != nil {
		return 0, err
	}
	build := time.Since(start)
	for _, d := range []string{filepath.Dir(f.report), filepath.Dir(f.log)} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return 0, err
		}
	}
	for _, old := range []string{f.report, f.run} {
		if err := os.Remove(old); err != nil && !errors.Is(err, os.ErrNotExist) {
			return 0, err
		}
	}
	// The suite's temporary files (envtest's certificate and data
	// directories, which specs that never stop their Environment leave
	// behind) go to a directory of its own, removed after it.
	tmp, err := os.MkdirTemp(o.work, "tmp-")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(tmp)
	fmt.Fprintf(log, "envtestsuites: running %s on %s (log %s)\n", pkg, o.label, f.log)
	wall, exit, err := runTestBinary(ctx, f.bin, filepath.Join(mod, pkg), f.log, tmp, o,
		"-test.v", "-test.timeout="+o.timeout.String(), "-ginkgo.json-report="+f.report, "-ginkgo.no-color", "-ginkgo.seed="+ginkgoSeed)
	if err != nil {
		return 0, err
	}
	if err := os.WriteFile(f.run, fmt.Appendf(nil, "%d %d\n", int64(wall), exit), 0o644); err != nil {
		return 0, err
	}
	if pids := leftoverProcesses(o.assets); len(pids) > 0 {
		// The suite ended without stopping a control plane it started:
		// it crashed, hit -test.timeout, or (as some upstream specs do)
		// replaced its suite's Environment by a new one before
		// AfterSuite stopped only the last. Its processes are in their
		// own process groups, so nothing else stops them.
		fmt.Fprintf(log, "envtestsuites: warning: %s left %d control-plane process(es) running: %v; stopping them\n", pkg, len(pids), pids)
		for _, pid := range pids {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
	return build, nil
}

// readString is the content of path, or "" when it cannot be read.
func readString(path string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	return string(data)
}

// runTestBinary runs bin in dir with the assets, its output in logPath, and
// returns how long it ran and its exit code. An error means it could not
// be started.
func runTestBinary(ctx context.Context, bin, dir, logPath, tmp string, o options, args ...string) (time.Duration, int, error) {
	out, err := os.Create(logPath)
	if err != nil {
		return 0, 0, err
	}
	defer out.Close()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = out, out
	cmd.Env = suiteEnv(o.assets, tmp)
	// On a signal, ginkgo stops the suite and its control plane itself.
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = interruptGrace
	start := time.Now()
	err = cmd.Run()
	wall := time.Since(start)
	var exitErr *exec.ExitError
	switch {
	case err == nil:
		return wall, 0, nil
	case errors.As(err, &exitErr):
		return wall, exitErr.ExitCode(), nil
	}
	return wall, 0, fmt.Errorf("run %s: %w", bin, err)
}

// suiteEnv is this process's environment with KUBEBUILDER_ASSETS set to
// assets and TMPDIR to tmp, the control-plane start timeout raised unless
// set, and envCleared removed.
func suiteEnv(assets, tmp string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if k == "KUBEBUILDER_ASSETS" || k == "TMPDIR" || slices.Contains(envCleared, k) {
			continue
		}
		env = append(env, kv)
	}
	env = append(env, "KUBEBUILDER_ASSETS="+assets, "TMPDIR="+tmp)
	if os.Getenv("KUBEBUILDER_CONTROLPLANE_START_TIMEOUT") == "" {
		env = append(env, "KUBEBUILDER_CONTROLPLANE_START_TIMEOUT="+startTimeout)
	}
	return env
}

// leftoverProcesses are the processes running an executable of the assets
// directory (Linux: /proc/PID/exe); nil elsewhere.
func leftoverProcesses(assets string) []int {
	if resolved, err := filepath.EvalSymlinks(assets); err == nil {
		assets = resolved
	}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var pids []int
	for _, e := range entries {
		var pid int
		if _, err := fmt.Sscanf(e.Name(), "%d", &pid); err != nil || pid == os.Getpid() {
			continue
		}
		exe, err := os.Readlink(filepath.Join("/proc", e.Name(), "exe"))
		if err == nil && filepath.Dir(exe) == assets {
			pids = append(pids, pid)
		}
	}
	return pids
}
