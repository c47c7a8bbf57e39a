package main

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// repoRoot is the repository's root, relative to this package.
const repoRoot = "../.."

var (
	// docCommandLine finds an lw-sim command line in prose or a code
	// block: the command and its arguments up to a backtick, quote,
	// parenthesis, shell operator or comma. One followed by a colon is a
	// line of output ("lw-sim serve: serving ..."), not a command.
	docCommandLine = regexp.MustCompile("(?:go run \\./cmd/lw-sim|bin/lw-sim|lw-sim) (serve|proxy|demo|run|explain|version|completion|envtest-assets)\\b((?: +[^\\s`\"')#&|;,]+)*)")
	// shellComment is a comment in a shell code block.
	shellComment = regexp.MustCompile(`(^|\s)#\s.*$`)
	// docFlag is a --flag written in the README.
	docFlag = regexp.MustCompile("`(?:[^`]*\\s)?--([a-z][a-z-]*)")
)

// foreignFlags are flags the README names that belong to other programs.
var foreignFlags = []string{
	"server-side", // kubectl apply --server-side
	"as",          // kubectl --as
}

// TestDocCommandLinesParse: every lw-sim command line in the README and the
// scenarios' docs parses: the command exists, its flags exist with that
// spelling, and its arguments are what it takes.
func TestDocCommandLinesParse(t *testing.T) {
	t.Parallel()
	lines := docCommandLines(t)
	if len(lines) < 20 {
		t.Fatalf("found %d lw-sim command lines in the docs, want at least 20: the extraction is broken", len(lines))
	}
	for _, l := range lines {
		if err := parseCommandLine(l.args); err != nil {
			t.Errorf("%s: lw-sim %s: %v", l.where, strings.Join(l.args, " "), err)
		}
	}
}

// TestDocFlagsExist: every --flag the README names is a flag of some lw-sim
// command (or of a program in foreignFlags).
func TestDocFlagsExist(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile(filepath.Join(repoRoot, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	known := map[string]bool{}
	var visit func(*cobra.Command)
	visit = func(c *cobra.Command) {
		c.InitDefaultHelpFlag()
		c.Flags().VisitAll(func(f *pflag.Flag) { known[f.Name] = true })
		for _, sub := range c.Commands() {
			visit(sub)
		}
	}
	visit(newRootCommand(io.Discard, io.Discard))
	for _, m := range docFlag.FindAllStringSubmatch(string(readme), -1) {
		if name := m[1]; !known[name] && !slices.Contains(foreignFlags, name) {
			t.Errorf("README names --%s, which no lw-sim command has", name)
		}
	}
}

// docLine is one command line found in a document.
type docLine struct {
	where string   // file:line
	args  []string // after "lw-sim"
}

// docDirs are the directories whose documentation, doc comments and
// example files are searched for lw-sim command lines, besides README.md.
var docDirs = []string{"scenarios", "listwatch"}

// docCommandLines extracts the lw-sim command lines of README.md and of
// the docs, Go doc comments and YAML examples under docDirs.
func docCommandLines(t *testing.T) []docLine {
	t.Helper()
	files := []string{filepath.Join(repoRoot, "README.md")}
	for _, dir := range docDirs {
		err := filepath.WalkDir(filepath.Join(repoRoot, dir), func(path string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && isDocFile(path) {
				files = append(files, path)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	var lines []docLine
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, text := range strings.Split(string(data), "\n") {
			lines = append(lines, commandLinesIn(f+":"+strconv.Itoa(i+1), text)...)
		}
	}
	return lines
}

// isDocFile reports whether path may hold lw-sim command lines for people.
func isDocFile(path string) bool {
	switch filepath.Ext(path) {
	case ".md", ".txt", ".yaml":
		return true
	case ".go":
		return !strings.HasSuffix(path, "_test.go")
	}
	return false
}

// commandLinesIn returns the lw-sim command lines of one line of text.
func commandLinesIn(where, text string) []docLine {
	if strings.HasSuffix(where[:strings.LastIndex(where, ":")], ".md") {
		// A comment in a shell block is prose, not part of the command.
		text = shellComment.ReplaceAllString(text, "")
	}
	var lines []docLine
	for _, m := range docCommandLine.FindAllStringSubmatchIndex(text, -1) {
		if m[1] < len(text) && text[m[1]] == ':' {
			continue
		}
		// "[--html OUT]" in a synopsis is an optional flag.
		rest := strings.NewReplacer("[", "", "]", "").Replace(text[m[4]:m[5]])
		lines = append(lines, docLine{where: where, args: append([]string{text[m[2]:m[3]]}, strings.Fields(rest)...)})
	}
	return lines
}

// parseCommandLine parses args as lw-sim would, without running the
// command: the command, its flags and its arguments.
func parseCommandLine(args []string) error {
	root := newRootCommand(io.Discard, io.Discard)
	cmd, rest, err := root.Find(args)
	if err != nil {
		return err
	}
	if cmd == root {
		return &usageError{msg: "no such command"}
	}
	if len(args) == 1 {
		// Prose naming a command ("lw-sim explain prints them"), not a
		// command line: the command exists, which is all it claims.
		return nil
	}
	if err := cmd.ParseFlags(rest); errors.Is(err, pflag.ErrHelp) {
		return nil
	} else if err != nil {
		return err
	}
	return cmd.ValidateArgs(cmd.Flags().Args())
}
