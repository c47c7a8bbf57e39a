package main

import (
	"io"
	"log/slog"

	"github.com/spf13/cobra"
)

// requestLogLevel is the -v level from which serve and proxy log every
// request.
const requestLogLevel = 1

// addVerbosityFlag adds kubectl's -v/--v log level to cmd.
func addVerbosityFlag(cmd *cobra.Command, v *int) {
	cmd.Flags().IntVarP(v, "v", "v", 0,
		"log level, as kubectl's -v: 1 or more logs one line per request on stderr\n"+
			"(method, URI, status, duration; a watch's line comes when its stream ends)")
}

// newLogger is the logger of a server run at verbosity v: warnings always,
// and from requestLogLevel on the request log (logged at debug level), on
// stderr.
func newLogger(stderr io.Writer, v int) *slog.Logger {
	level := slog.LevelInfo
	if v >= requestLogLevel {
		level = slog.LevelDebug
	}
	return slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
}
