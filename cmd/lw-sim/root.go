package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
)

// newRootCommand builds the lw-sim command tree. Every call builds a new
// tree (flags bind to the commands' own variables, never to globals), so
// tests may run many in parallel.
func newRootCommand() *cobra.Command {
	root := &cobra.Command{
		Use:   "lw-sim",
		Short: "An in-memory fake kube-apiserver for testing List & Watch",
		Long: `lw-sim is an in-memory fake kube-apiserver for testing List & Watch.

It serves kubectl and client-go (lw-sim serve), injects list-watch faults in
front of any apiserver (lw-sim proxy), and plays the seed article's List &
Watch questions as scenarios on a virtual clock (lw-sim run, lw-sim explain).`,
		Example: `  lw-sim demo
  lw-sim serve &
  kubectl --kubeconfig lw-sim.kubeconfig get namespaces
  lw-sim run --list
  lw-sim explain watch-cache-window --html watch-cache-window.html`,
		// The root runs only to refuse: no command, or one it does not
		// know (ArbitraryArgs keeps cobra from refusing it first, with an
		// error main could not tell from a failure).
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
		newVersionCommand(),
	)
	// Added here rather than by Execute, so markUsageErrors sees it.
	root.InitDefaultCompletionCmd()
	markUsageErrors(root)
	return root
}

// runRoot refuses "lw-sim" alone and "lw-sim NOT-A-COMMAND", suggesting
// the commands it may have meant.
func runRoot(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return usagef(cmd, "no command given")
	}
	msg := fmt.Sprintf("unknown command %q", args[0])
	if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
		msg += fmt.Sprintf(" (did you mean %s?)", strings.Join(s, " or "))
	}
	return usagef(cmd, "%s", msg)
}
