// Command lw-sim is an in-memory fake kube-apiserver for testing List &
// Watch. Run "lw-sim" without arguments for its commands.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// usage lists the commands; each command documents its flags under --help.
const usage = `lw-sim is an in-memory fake kube-apiserver for testing List & Watch.

Usage:
  lw-sim <command> [flags]

Commands:
  serve   serve a fake API server until interrupted; writes a kubeconfig for kubectl
  proxy   a reverse proxy that injects list-watch faults in front of any apiserver
  demo    start a server in-process, LIST pods, WATCH from the list's resourceVersion,
          make changes and print what the watcher saw
  run     run a List & Watch scenario (or all) on a virtual clock: timeline, PASS/FAIL;
          run --list shows the scenarios and the questions they answer
  explain explain a scenario: its question, what kube-apiserver does, and a run's timeline

Run "lw-sim <command> --help" for the flags of a command.
`

// exitUsage is the exit status for a command line that could not be parsed,
// as the flag package uses for its own ExitOnError.
const exitUsage = 2

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	if err == nil {
		return
	}
	fmt.Fprintln(os.Stderr, "lw-sim:", err)
	if errors.As(err, new(*usageError)) {
		os.Exit(exitUsage)
	}
	os.Exit(1)
}

// run is the whole program behind main: it dispatches args[0] to a command,
// which runs until it is done or ctx is cancelled. Help goes to stdout and
// returns nil; a bad command line prints usage to stderr and returns a
// *usageError.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return &usageError{msg: "no command given"}
	}
	switch cmd, rest := args[0], args[1:]; cmd {
	case "serve":
		return runServe(ctx, rest, stdout, stderr)
	case "demo":
		return runDemo(ctx, rest, stdout, stderr)
	case "run":
		return runRun(ctx, rest, stdout, stderr)
	case "explain":
		return runExplain(ctx, rest, stdout, stderr)
	case "proxy":
		return runProxy(ctx, rest, stdout, stderr)
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, usage)
		return nil
	default:
		fmt.Fprint(stderr, usage)
		return &usageError{msg: fmt.Sprintf("unknown command %q", cmd)}
	}
}
