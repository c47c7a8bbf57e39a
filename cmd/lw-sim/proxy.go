package main

import (
	"errors"
	"fmt"
	"net"

	"github.com/spf13/cobra"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/lw-sim/lw-sim/faultproxy"
)

const (
	// defaultProxyListen is next to serve's default port, so a server and
	// a proxy in front of it can both run with defaults.
	defaultProxyListen = "127.0.0.1:6444"
	// defaultProxyKubeconfig is the kubeconfig written for the proxy.
	defaultProxyKubeconfig = "lw-sim-proxy.kubeconfig"
)

// proxyOptions are proxy's flags that do not map onto a faultproxy.Config
// field directly.
type proxyOptions struct {
	upstream   string
	listen     listenFlags
	kubeconfig string
	verbosity  int
}

func newProxyCommand() *cobra.Command {
	var cfg faultproxy.Config
	var o proxyOptions
	cmd := &cobra.Command{
		Use:   "proxy --upstream-kubeconfig FILE",
		Short: "A reverse proxy that injects list-watch faults in front of any apiserver",
		Long: `Run a reverse proxy in front of any apiserver (kind, k3s, a real cluster, an
lw-sim server) that injects list-watch faults: failed requests (429 with
Retry-After, 500, 503, 504), latency, cut LISTs, "too large resource version",
and watch streams that end, are cut mid-frame, hang, lose their bookmarks or
are delayed. Clients use the kubeconfig it writes (plain HTTP on loopback).

What it forwards: the method, path, query, body and headers of each request,
with the upstream kubeconfig's credentials (token, client certificate,
impersonation settings) in place of the caller's. It never forwards the
caller's Authorization, Proxy-Authorization, Cookie or Impersonate-* headers,
nor identity and address claims (X-Remote-User, X-Remote-Group,
X-Remote-Extra-*, X-Forwarded-*, X-Real-Ip, Forwarded), so a caller acts
upstream only as the upstream kubeconfig's user. Behind an upstream URL with
a path prefix, a path with "." or ".." segments is refused (400).

Anyone who can reach the proxy acts with those credentials: it listens on
loopback only unless --listen names another interface, and then it requires
--token (and --tls, as kubectl sends a token only over HTTPS) and warns.

Watch and LIST requests asking for protobuf are sent upstream as JSON, so the
proxy can read events. Compaction and restarts need the apiserver's storage:
the proxy refuses them (use lw-sim serve --control for those). The apiserver
instance faults (LagAPIServer, FreezeAPIServer, PartitionAPIServer,
RestartAPIServer, HealAPIServer) act on the proxy itself, as the one
instance "apiserver-0" its clients talk to: lagged or held watch events,
the 504 of a partitioned instance, watches ended by a restart and the 410
for watches from before it. Cache reads still show the upstream's state.`,
		Example: `  lw-sim proxy --upstream-kubeconfig ~/.kube/config --control &
  curl -H 'Content-Type: application/json' -d '{"kind":"EndWatch"}' \
    http://127.0.0.1:6444/_lwsim/faults`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runProxy(cmd, cfg, o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.upstream, "upstream-kubeconfig", "", "`path` of the kubeconfig of the apiserver to proxy (its current context). Required")
	o.listen.add(cmd, defaultProxyListen, "Beyond loopback, --token and --tls are required.")
	f.StringVar(&o.kubeconfig, "kubeconfig", defaultProxyKubeconfig, "`path` of the kubeconfig to write for clients of the proxy (mode 0600)")
	f.BoolVar(&cfg.ControlAPI, "control", false, "serve the fault-injection control API under /_lwsim/faults")
	f.StringVar(&cfg.Token, "token", "", "require this bearer `token` from callers (401 otherwise); it goes into the\n"+
		"written kubeconfig and is never forwarded. Required with a --listen beyond\n"+
		"loopback. Needs --tls: kubectl sends a kubeconfig's token only over HTTPS")
	f.BoolVar(&cfg.TLS, "tls", false, "serve HTTPS with a fresh self-signed certificate; its CA goes into the kubeconfig")
	addVerbosityFlag(cmd, &o.verbosity)
	return cmd
}

// runProxy is "lw-sim proxy": flags go into a local faultproxy.Config, and
// the proxy runs until the command's context is cancelled.
func runProxy(cmd *cobra.Command, cfg faultproxy.Config, o proxyOptions) error {
	if o.upstream == "" {
		return usagef(cmd, "--upstream-kubeconfig is required")
	}
	addr, err := o.listen.addr(cmd)
	if err != nil {
		return err
	}
	if err := checkProxyExposure(cmd, addr, cfg); err != nil {
		return err
	}
	if !isLoopback(addr) {
		fmt.Fprintf(cmd.ErrOrStderr(), "lw-sim proxy: warning: listening on %s, beyond loopback; every caller with the token acts upstream as the upstream kubeconfig's user\n", addr)
	}
	if cfg.Upstream, err = clientcmd.BuildConfigFromFlags("", o.upstream); err != nil {
		return fmt.Errorf("proxy: upstream kubeconfig: %w", err)
	}
	cfg.AllowedHosts = o.listen.allowedHosts(addr)
	cfg.Logger = newLogger(cmd.ErrOrStderr(), o.verbosity)
	p, err := faultproxy.New(cfg)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return errors.Join(fmt.Errorf("proxy: %w", err), p.Close())
	}
	return serveUntilDone(cmd.Context(), p, ln, announcement{
		name:       "proxy",
		kubeconfig: o.kubeconfig,
		upstream:   cfg.Upstream.Host,
	}, cmd.OutOrStdout())
}

// checkProxyExposure refuses a proxy beyond loopback without a caller
// token (it would lend the upstream credentials to the network), and a
// token without TLS (kubectl would not send it).
func checkProxyExposure(cmd *cobra.Command, addr string, cfg faultproxy.Config) error {
	if !isLoopback(addr) && cfg.Token == "" {
		return usagef(cmd, "--listen %s is beyond loopback: --token (and --tls) required, as the proxy acts with the upstream kubeconfig's credentials", addr)
	}
	if cfg.Token != "" && !cfg.TLS {
		return usagef(cmd, "--token needs --tls: kubectl and client-go send a kubeconfig's token only over HTTPS")
	}
	return nil
}
