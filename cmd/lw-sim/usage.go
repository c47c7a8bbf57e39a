package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
)

// usageError is a command line that could not be parsed; main exits with
// exitUsage for it, and run prints the command's usage first.
type usageError struct {
	msg string
}

func (e *usageError) Error() string { return e.msg }

// usagef returns a *usageError of cmd, prefixed with its path below the
// root ("serve: ...").
func usagef(cmd *cobra.Command, format string, args ...any) error {
	return &usageError{msg: commandName(cmd) + fmt.Sprintf(format, args...)}
}

// commandName is "serve: " for lw-sim serve, "" for the root.
func commandName(cmd *cobra.Command) string {
	path := strings.TrimPrefix(cmd.CommandPath(), cmd.Root().Name())
	if path = strings.TrimSpace(path); path == "" {
		return ""
	}
	return path + ": "
}

// markUsageErrors makes every flag and argument error of the tree under
// root a *usageError: cobra reports both as plain errors, and a bad command
// line exits 2 whichever command it names.
func markUsageErrors(root *cobra.Command) {
	root.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error {
		return usagef(cmd, "%v", err)
	})
	var walk func(*cobra.Command)
	walk = func(cmd *cobra.Command) {
		if validate := cmd.Args; validate != nil {
			cmd.Args = func(cmd *cobra.Command, args []string) error {
				if err := validate(cmd, args); err != nil {
					return usagef(cmd, "%v", err)
				}
				return nil
			}
		}
		for _, sub := range cmd.Commands() {
			walk(sub)
		}
	}
	walk(root)
}
