// Command lw-sim is an in-memory fake kube-apiserver for testing List &
// Watch. Run "lw-sim --help" for its commands.
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

// Exit statuses, as kubectl and the flag package use them.
const (
	exitFailure = 1 // the command ran and failed
	exitUsage   = 2 // the command line could not be parsed
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	// Run as DIR/kube-apiserver or DIR/etcd (lw-sim envtest-assets), it
	// is that stand-in command.
	err := run(ctx, commandArgs(os.Args), os.Stdout, os.Stderr)
	stop()
	if err == nil {
		return
	}
	fmt.Fprintln(os.Stderr, "lw-sim:", err)
	if errors.As(err, new(*usageError)) {
		os.Exit(exitUsage)
	}
	os.Exit(exitFailure)
}

// run is the whole program behind main: it runs the command args name
// until it is done or ctx is cancelled. Help goes to stdout and returns
// nil; a bad command line prints the command's usage to stderr and returns
// a *usageError.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	root := newRootCommand(stdout, stderr)
	// A nil slice would make cobra read os.Args.
	root.SetArgs(append([]string{}, args...))
	cmd, err := root.ExecuteContextC(ctx)
	if errors.As(err, new(*usageError)) {
		fmt.Fprint(stderr, cmd.UsageString())
	}
	return err
}
