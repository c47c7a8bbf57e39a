package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"path/filepath"
	"time"

	"github.com/lw-sim/lw-sim/fakeapiserver"
)

const (
	// defaultListen is kube-apiserver's secure port on loopback, so a
	// server started by hand sits where people expect an API server.
	defaultListen = "127.0.0.1:6443"
	// defaultKubeconfig is written in the working directory rather than
	// ~/.kube/config, so serve never touches the user's real clusters.
	defaultKubeconfig = "lw-sim.kubeconfig"
	// loopbackHost is bound when --listen names only a port.
	loopbackHost = "127.0.0.1"
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

var serveCommand = command{
	name: "serve",
	summary: `Serve a fake kube-apiserver until SIGINT or SIGTERM, then shut down cleanly.
It prints its URL and writes a kubeconfig (context "lw-sim", made current)
that kubectl and client-go accept:

  lw-sim serve &
  kubectl --kubeconfig lw-sim.kubeconfig get pods -A

The server starts empty but for the namespaces default, kube-system,
kube-public and kube-node-lease, and keeps everything in memory.`,
}

// runServe is "lw-sim serve": flags go into a local fakeapiserver.Config
// (STYLE 9), the server runs until ctx is cancelled, and a clean Close
// returns nil.
func runServe(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var cfg fakeapiserver.Config
	fs := newFlagSet(serveCommand)
	listen := fs.String("listen", defaultListen,
		"`address` to listen on, host:port. A bare :port binds "+loopbackHost+"; other\n"+
			"interfaces are used only when named, e.g. 0.0.0.0:6443. Port 0 picks a free port.")
	kubeconfig := fs.String("kubeconfig", defaultKubeconfig,
		"`path` of the kubeconfig to write (mode 0600, replaced if it exists)")
	fs.BoolVar(&cfg.TLS, "tls", false,
		"serve HTTPS with a fresh self-signed certificate; its CA goes into the kubeconfig")
	fs.StringVar(&cfg.Token, "token", "",
		"require this bearer `token` as kube-apiserver with RBAC does: a wrong token\n"+
			"gets 401; without one a caller may only GET /healthz, /livez, /readyz and\n"+
			"/version (403 otherwise). It goes into the kubeconfig. Needs --tls: kubectl\n"+
			"and client-go send a kubeconfig's token only over HTTPS")
	fs.IntVar(&cfg.Watch.SlowWatcherMaxLag, "watch-max-lag", serveWatchMaxLag,
		"end a watch (no ERROR event, as kube-apiserver's cacher ends a blocked watcher)\n"+
			"that finds more than this many events of its resource waiting; 0: no limit")
	fs.DurationVar(&cfg.Watch.SlowWatcherWriteTimeout, "watch-write-timeout", serveWatchWriteTimeout,
		"end a watch whose client has not taken an event for this `duration`; 0: no limit.\n"+
			"A watch always ends at its timeoutSeconds, read or not")
	var allowHost hostsFlag
	fs.Var(&allowHost, "allow-host", allowHostUsage)
	fs.BoolVar(&cfg.ControlAPI, "control", false,
		"serve the fault-injection control API under /_lwsim/faults (JSON; behind\n"+
			"--token when set). Off by default")
	if help, err := parseFlags(serveCommand, fs, args, stdout, stderr); help || err != nil {
		return err
	}
	if cfg.Token != "" && !cfg.TLS {
		printUsage(serveCommand, fs, stderr)
		return &usageError{msg: "serve: --token needs --tls: kubectl and client-go send a kubeconfig's token only over HTTPS"}
	}
	addr, err := listenAddr(*listen)
	if err != nil {
		return &usageError{msg: fmt.Sprintf("serve: %v", err)}
	}
	cfg.AllowedHosts = allowedHosts(addr, allowHost)
	if !isLoopback(addr) {
		fmt.Fprintf(stderr, "lw-sim serve: warning: listening on %s, beyond loopback; anyone who can reach it can read and write (consider --token)\n", addr)
	}
	srv, err := fakeapiserver.New(cfg)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return errors.Join(fmt.Errorf("serve: %w", err), srv.Close())
	}
	return serveUntilDone(ctx, srv, ln, *kubeconfig, stdout)
}

// serveUntilDone serves srv on ln, announces it, and waits for ctx or for
// Serve to fail.
//
// Shutdown chain: ctx is cancelled → Close ends every watch and shuts the
// HTTP server down → the ServeBackground goroutine returns and delivers
// Serve's result on done.
func serveUntilDone(ctx context.Context, srv *fakeapiserver.Server, ln net.Listener, kubeconfig string, stdout io.Writer) error {
	done := srv.ServeBackground(ln)
	err := announce(srv, kubeconfig, stdout)
	if err == nil {
		select {
		case <-ctx.Done():
		case err = <-done:
			// done yields once and is then closed, so the receive below
			// returns nil at once.
			if err == nil {
				err = fakeapiserver.ErrServerClosed
			}
			err = fmt.Errorf("serve: server stopped unexpectedly: %w", err)
		}
	}
	closeErr := srv.Close()
	serveErr := <-done
	if err == nil && closeErr == nil && serveErr == nil {
		fmt.Fprintln(stdout, "lw-sim serve: stopped")
	}
	return errors.Join(err, closeErr, serveErr)
}

// announce writes the kubeconfig and tells the user where the server is.
// The first two lines are stable for scripts: "serving URL" and
// "kubeconfig PATH".
func announce(srv *fakeapiserver.Server, kubeconfig string, stdout io.Writer) error {
	path, err := filepath.Abs(kubeconfig)
	if err != nil {
		return fmt.Errorf("serve: kubeconfig path: %w", err)
	}
	if err := srv.WriteKubeconfig(path); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "lw-sim serve: serving %s\n", srv.URL())
	fmt.Fprintf(stdout, "lw-sim serve: kubeconfig %s\n", path)
	fmt.Fprintf(stdout, "try: kubectl --kubeconfig %s get namespaces\n", path)
	fmt.Fprintln(stdout, "stop with Ctrl-C")
	return nil
}

// listenAddr resolves --listen: a missing host means loopback, so the
// server is exposed only when the user names another address.
func listenAddr(flagValue string) (string, error) {
	host, port, err := net.SplitHostPort(flagValue)
	if err != nil {
		return "", fmt.Errorf("--listen %q: %w", flagValue, err)
	}
	if host == "" {
		host = loopbackHost
	}
	return net.JoinHostPort(host, port), nil
}

// isLoopback reports whether addr (host:port) is reachable only from this
// machine.
func isLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
