package main

import (
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// standInNames are the programs lw-sim stands in for when its executable
// is run under their name (a link lw-sim envtest-assets writes): run as
// kube-apiserver, it is "lw-sim kube-apiserver".
var standInNames = []string{kubeAPIServerName, etcdName}

// commandArgs returns the arguments of run for a process started as
// argv: argv[1:], preceded by the stand-in command when argv[0]'s base
// name is one of standInNames.
func commandArgs(argv []string) []string {
	if len(argv) == 0 {
		return nil
	}
	args := argv[1:]
	if name := filepath.Base(argv[0]); slices.Contains(standInNames, name) {
		args = append([]string{name}, args...)
	}
	return args
}

// newStandInCommand returns a command that parses its own flags with
// parseStandInFlags (so flags of the real program it does not emulate are
// dropped with a warning, not refused), prints its help for -h/--help,
// and otherwise calls runE.
func newStandInCommand(cmd *cobra.Command, runE func(cmd *cobra.Command) error) *cobra.Command {
	cmd.DisableFlagParsing = true
	// The arguments are flags until parsed; parseStandInFlags refuses
	// positional ones.
	cmd.Args = cobra.ArbitraryArgs
	// The real programs spell flags with - or _ alike
	// (component-base/cli/flag WordSepNormalizeFunc).
	cmd.Flags().SetNormalizeFunc(wordSepNormalize)
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		cmd.InitDefaultHelpFlag()
		if err := parseStandInFlags(cmd, args, cmd.ErrOrStderr()); err != nil {
			return err
		}
		if help, _ := cmd.Flags().GetBool("help"); help {
			return cmd.Help()
		}
		return runE(cmd)
	}
	return cmd
}

// parseStandInFlags parses args into cmd's flags. A flag cmd does not
// define is dropped, with its value (the next argument when it has no
// "=value" and that argument is not a flag: the real programs take no
// positional arguments), and named in one warning on stderr; a bad value
// of a defined flag or a positional argument is a usage error, as the
// real program refuses them.
func parseStandInFlags(cmd *cobra.Command, args []string, stderr io.Writer) error {
	fs := cmd.Flags()
	var kept, ignored []string
	for i := 0; i < len(args); i++ {
		arg := args[i]
		if arg == "--" {
			kept = append(kept, args[i:]...)
			break
		}
		name, hasValue, ok := flagName(arg)
		if !ok || lookupFlag(fs, name, arg) != nil {
			kept = append(kept, arg)
			continue
		}
		ignored = append(ignored, arg)
		if !hasValue && i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") {
			i++
			ignored = append(ignored, args[i])
		}
	}
	if len(ignored) > 0 {
		fmt.Fprintf(stderr, "lw-sim %s: warning: ignoring flags it does not emulate: %s\n", cmd.Name(), strings.Join(ignored, " "))
	}
	if err := fs.Parse(kept); err != nil {
		return usagef(cmd, "%v", err)
	}
	if rest := fs.Args(); len(rest) > 0 {
		return usagef(cmd, "takes no arguments, got %q", rest)
	}
	return nil
}

// flagName splits a command-line argument that is a flag ("--name",
// "--name=value", "-n", "-n=value", "-nvalue") into its name (without
// dashes; the shorthand letter for one dash) and whether it carries its
// value. ok is false for anything else ("-", "value").
func flagName(arg string) (name string, hasValue, ok bool) {
	switch {
	case strings.HasPrefix(arg, "--") && len(arg) > 2:
		name, _, hasValue = strings.Cut(arg[2:], "=")
		return name, hasValue, true
	case strings.HasPrefix(arg, "-") && len(arg) > 1:
		// pflag reads "-vN" and "-v=N" as shorthand v with value N.
		return arg[1:2], len(arg) > 2, true
	}
	return "", false, false
}

// lookupFlag finds the flag named in arg: by name for "--", by shorthand
// for "-".
func lookupFlag(fs *pflag.FlagSet, name, arg string) *pflag.Flag {
	if strings.HasPrefix(arg, "--") {
		return fs.Lookup(name)
	}
	return fs.ShorthandLookup(name)
}

// wordSepNormalize treats _ in a flag name as -, as kube-apiserver and
// etcd's flag sets do.
func wordSepNormalize(_ *pflag.FlagSet, name string) pflag.NormalizedName {
	return pflag.NormalizedName(strings.ReplaceAll(name, "_", "-"))
}
