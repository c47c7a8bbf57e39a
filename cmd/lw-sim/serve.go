package main

import (
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/spf13/cobra"

	"github.com/lw-sim/lw-sim/fakeapiserver"
)

const (
	// defaultListen is kube-apiserver's secure port on loopback, so a
	// server started by hand sits where people expect an API server.
	defaultListen = "127.0.0.1:6443"
	// defaultKubeconfig is written in the working directory rather than
	// ~/.kube/config, so serve never touches the user's real clusters.
	defaultKubeconfig = "lw-sim.kubeconfig"
	// serveWatchMaxLag is serve's default SlowWatcherMaxLag: the events the
	// cacher buffers for one watcher before it ends it, its input and
	// result channels at their size for a watch without an index
	// (apiserver storage/cacher watch_cache_history.go
	// maxWatchChanSizeWithoutIndex = 100, each).
	serveWatchMaxLag = 2 * 100
	// serveWatchWriteTimeout is serve's default SlowWatcherWriteTimeout.
	// The cacher ends a watcher that stays blocked past its dispatch budget
	// (at most 100 ms, time_budget.go maxBudget) once those buffers are
	// full; here a write blocks only once the connection's buffers are full
	// too, and a client paused by a GC or a slow handler deserves more than
	// 100 ms, so a stall of 10 s ends the watch (with no ERROR, as there).
	serveWatchWriteTimeout = 10 * time.Second
)

// serveOptions are serve's flags that do not map onto a
// fakeapiserver.Config field directly.
type serveOptions struct {
	listen     listenFlags
	kubeconfig string
	verbosity  int
}

func newServeCommand() *cobra.Command {
	var cfg fakeapiserver.Config
	var o serveOptions
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve a fake kube-apiserver until interrupted; writes a kubeconfig for kubectl",
		Long: `Serve a fake kube-apiserver until SIGINT or SIGTERM, then shut down cleanly.
It prints its URL and writes a kubeconfig (context "lw-sim", made current)
that kubectl and client-go accept.

The server starts with what kube-apiserver creates itself (the namespaces
default, kube-system, kube-public and kube-node-lease, the Service
default/kubernetes, the API Priority and Fairness configuration, the local
APIServices) and keeps everything in memory.`,
		Example: `  lw-sim serve &
  kubectl --kubeconfig lw-sim.kubeconfig get pods -A

  # HTTPS with a bearer token, the fault control API and a request log:
  lw-sim serve --tls --token s3cret --control -v 1`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runServe(cmd, cfg, o)
		},
	}
	f := cmd.Flags()
	o.listen.add(cmd, defaultListen, "Port 0 picks a free port.")
	f.StringVar(&o.kubeconfig, "kubeconfig", defaultKubeconfig,
		"`path` of the kubeconfig to write (mode 0600, replaced if it exists)")
	f.BoolVar(&cfg.TLS, "tls", false,
		"serve HTTPS with a fresh self-signed certificate; its CA goes into the kubeconfig")
	f.StringVar(&cfg.Token, "token", "",
		"require this bearer `token` as kube-apiserver with RBAC does: a wrong token\n"+
			"gets 401; without one a caller may only GET /healthz, /livez, /readyz and\n"+
			"/version (403 otherwise). It goes into the kubeconfig. Needs --tls: kubectl\n"+
			"and client-go send a kubeconfig's token only over HTTPS")
	f.IntVar(&cfg.Watch.SlowWatcherMaxLag, "watch-max-lag", serveWatchMaxLag,
		"end a watch (no ERROR event, as kube-apiserver's cacher ends a blocked watcher)\n"+
			"that finds more than this many events of its resource waiting; 0: no limit")
	f.DurationVar(&cfg.Watch.SlowWatcherWriteTimeout, "watch-write-timeout", serveWatchWriteTimeout,
		"end a watch whose client has not taken an event for this `duration`; 0: no limit.\n"+
			"A watch always ends at its timeoutSeconds, read or not")
	f.BoolVar(&cfg.ControlAPI, "control", false,
		"serve the fault-injection control API under /_lwsim/faults (JSON; behind\n"+
			"--token when set). Off by default")
	f.IntVar(&cfg.ResponseCompressionLevel, "response-compression-level", 0,
		"gzip `level` of the responses over 128 KiB a client accepts gzip for (framing and\n"+
			"headers as kube-apiserver's either way): 0 sends stored blocks, cheapest on\n"+
			"loopback; 1 is kube-apiserver's level, for its bytes on the wire; -2 (Huffman\n"+
			"only) to 9")
	addVerbosityFlag(cmd, &o.verbosity)
	return cmd
}

// runServe is "lw-sim serve": flags go into a local fakeapiserver.Config
// (STYLE 9), the server runs until the command's context is cancelled, and
// a clean Close returns nil.
func runServe(cmd *cobra.Command, cfg fakeapiserver.Config, o serveOptions) error {
	if cfg.Token != "" && !cfg.TLS {
		return usagef(cmd, "--token needs --tls: kubectl and client-go send a kubeconfig's token only over HTTPS")
	}
	if l := cfg.ResponseCompressionLevel; l < -2 || l > 9 {
		return usagef(cmd, "--response-compression-level %d: want -2 to 9", l)
	}
	addr, err := o.listen.addr(cmd)
	if err != nil {
		return err
	}
	cfg.AllowedHosts = o.listen.allowedHosts(addr)
	cfg.Logger = newLogger(cmd.ErrOrStderr(), o.verbosity)
	if !isLoopback(addr) {
		fmt.Fprintf(cmd.ErrOrStderr(), "lw-sim serve: warning: listening on %s, beyond loopback; anyone who can reach it can read and write (consider --token)\n", addr)
	}
	srv, err := fakeapiserver.New(cfg)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return errors.Join(fmt.Errorf("serve: %w", err), srv.Close())
	}
	return serveUntilDone(cmd.Context(), srv, ln, announcement{
		name:       "serve",
		kubeconfig: o.kubeconfig,
		hints: func(kubeconfig string) []string {
			return []string{"try: kubectl --kubeconfig " + kubeconfig + " get namespaces", "stop with Ctrl-C"}
		},
	}, cmd.OutOrStdout())
}
