package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
)

// usageError is a command line that could not be parsed; main exits with
// exitUsage for it.
type usageError struct {
	msg string
}

func (e *usageError) Error() string { return e.msg }

// command describes one subcommand for its --help text.
type command struct {
	name    string // as typed after lw-sim
	summary string // what the command does, one paragraph
}

// newFlagSet returns an empty flag set for cmd that prints nothing itself;
// parseFlags decides where usage goes.
func newFlagSet(cmd command) *flag.FlagSet {
	fs := flag.NewFlagSet(cmd.name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return fs
}

// parseFlags parses args into fs. For --help it prints cmd's usage to stdout
// and returns help=true; for a bad flag or a stray argument it prints the
// error and usage to stderr and returns a *usageError.
func parseFlags(cmd command, fs *flag.FlagSet, args []string, stdout, stderr io.Writer) (help bool, err error) {
	err = fs.Parse(args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		printUsage(cmd, fs, stdout)
		return true, nil
	case err != nil:
		printUsage(cmd, fs, stderr)
		return false, &usageError{msg: fmt.Sprintf("%s: %v", cmd.name, err)}
	case fs.NArg() > 0:
		printUsage(cmd, fs, stderr)
		return false, &usageError{msg: fmt.Sprintf("%s: unexpected argument %q", cmd.name, fs.Arg(0))}
	}
	return false, nil
}

// printUsage writes cmd's synopsis, summary and every flag with its
// default to w.
func printUsage(cmd command, fs *flag.FlagSet, w io.Writer) {
	fmt.Fprintf(w, "Usage: lw-sim %s [flags]\n\n%s\n", cmd.name, cmd.summary)
	hasFlags := false
	fs.VisitAll(func(*flag.Flag) { hasFlags = true })
	if !hasFlags {
		return
	}
	fmt.Fprint(w, "\nFlags:\n")
	fs.SetOutput(w)
	fs.PrintDefaults()
	fs.SetOutput(io.Discard)
}
