package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
)

// newRootCommand builds the lw-sim command tree writing to stdout and
// stderr. Every call builds a new tree (flags bind to the commands' own
// variables, never to globals), so tests may run many in parallel.
func newRootCommand(stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:   "lw-sim",
		Short: "An in-memory fake kube-apiserver for testing List & Watch",
		Long: `lw-sim is an in-memory fake kube-apiserver for testing List & Watch.

It serves kubectl and client-go (lw-sim serve), injects list-watch faults in
front of any apiserver (lw-sim proxy), and plays the List & Watch questions
it grew from as scenarios on a virtual clock (lw-sim run, lw-sim explain).`,
		Example: `  lw-sim demo
  lw-sim serve &
  kubectl --kubeconfig lw-sim.kubeconfig get namespaces
  lw-sim run --list
  lw-sim explain watch-cache-window --html watch-cache-window.html`,
		// The root runs only to show help (no command, as kubectl does)
		// or to refuse a command it does not know (ArbitraryArgs keeps
		// cobra from refusing it first, with an error main could not tell
		// from a failure).
		Args:          cobra.ArbitraryArgs,
		RunE:          runRoot,
		SilenceErrors: true, // main prints the error once
		SilenceUsage:  true, // run prints usage, for usage errors only
	}
	root.AddCommand(
		newServeCommand(),
		newProxyCommand(),
		newDemoCommand(),
		newRunCommand(),
		newExplainCommand(),
		newBenchCommand(),
		newEnvtestAssetsCommand(),
		newKubeAPIServerCommand(),
		newEtcdCommand(),
		newVersionCommand(),
	)
	// The root runs only to refuse, so its usage shows "lw-sim [command]"
	// alone; the commands below inherit the template unchanged.
	root.SetUsageTemplate(strings.Replace(root.UsageTemplate(), "{{if .Runnable}}", "{{if and .Runnable .HasParent}}", 1))
	// The completion command binds its output when it is made, so the
	// writers come first.
	root.SetOut(stdout)
	root.SetErr(stderr)
	addCompletionCommand(root)
	markUsageErrors(root)
	return root
}

// addCompletionCommand adds cobra's completion command (here rather than
// in Execute, so markUsageErrors sees it), refusing a shell it has no
// script for as a usage error rather than printing help.
func addCompletionCommand(root *cobra.Command) {
	root.InitDefaultCompletionCmd()
	for _, c := range root.Commands() {
		if c.Name() != "completion" {
			continue
		}
		c.Args = cobra.ArbitraryArgs
		c.RunE = func(cmd *cobra.Command, args []string) error {
			shells := make([]string, 0, len(cmd.Commands()))
			for _, sub := range cmd.Commands() {
				shells = append(shells, sub.Name())
			}
			if len(args) == 0 {
				return usagef(cmd, "want a shell: %s", strings.Join(shells, ", "))
			}
			return usagef(cmd, "no script for shell %q: want one of %s", args[0], strings.Join(shells, ", "))
		}
	}
}

// runRoot prints the help for "lw-sim" alone, on stdout with exit status
// 0 as kubectl does, and refuses "lw-sim NOT-A-COMMAND", suggesting the
// commands it may have meant.
func runRoot(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return cmd.Help()
	}
	msg := fmt.Sprintf("unknown command %q", args[0])
	if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
		msg += fmt.Sprintf(" (did you mean %s?)", strings.Join(s, " or "))
	}
	return usagef(cmd, "%s", msg)
}
