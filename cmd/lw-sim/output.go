package main

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"sigs.k8s.io/yaml"
)

// The -o formats of commands whose output is data, as kubectl spells them;
// text is the default, for people.
const (
	outputText = ""
	outputJSON = "json"
	outputYAML = "yaml"
)

// outputFormats are the values -o accepts.
var outputFormats = []string{outputJSON, outputYAML}

// outputFlag is -o/--output: json, yaml, or unset for text. It refuses
// other values while the flags are parsed, so a bad -o is a usage error.
type outputFlag string

func (o *outputFlag) String() string { return string(*o) }

func (o *outputFlag) Set(v string) error {
	if !slices.Contains(outputFormats, v) {
		// kubectl's words for the same mistake.
		return fmt.Errorf("unable to match a printer suitable for the output format %q, allowed formats are: %s",
			v, strings.Join(outputFormats, ","))
	}
	*o = outputFlag(v)
	return nil
}

func (o *outputFlag) Type() string { return "string" }

var _ pflag.Value = (*outputFlag)(nil)

// addOutputFlag adds -o/--output to cmd, with shell completion of its values.
func addOutputFlag(cmd *cobra.Command, o *outputFlag) {
	cmd.Flags().VarP(o, "output", "o", "output format: one of ("+strings.Join(outputFormats, ", ")+"); text when unset")
	// The flag was just added, so registering its completion cannot fail.
	_ = cmd.RegisterFlagCompletionFunc("output", cobra.FixedCompletions(outputFormats, cobra.ShellCompDirectiveNoFileComp))
}

// isData reports whether o asks for data rather than text.
func (o outputFlag) isData() bool { return o != outputText }

// print writes v to w as JSON (indented by two spaces) or YAML (through
// its JSON form, so the json tags name the fields in both).
func (o outputFlag) print(w io.Writer, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("encode output: %w", err)
	}
	if o == outputYAML {
		if data, err = yaml.JSONToYAML(data); err != nil {
			return fmt.Errorf("encode output: %w", err)
		}
	} else {
		data = append(data, '\n')
	}
	_, err = w.Write(data)
	return err
}
