package main

import (
	"crypto/rand"
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/client-go/util/cert"

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
	listen        listenFlags
	kubeconfig    string
	verbosity     int
	insecureHTTP  bool
	tls           bool // deprecated: TLS is the default
	authorization string
	clientCAFile  string
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

Like a cluster, it serves HTTPS with a fresh self-signed CA, requires a
bearer token (generated, or --token) that is the admin (system:apiserver in
system:masters), and authorizes with RBAC over kube-apiserver's bootstrap
policy: kubectl --as USER is then authorized as that user. The kubeconfig
holds the CA and the token. --insecure-http serves plain HTTP with no
credentials instead, every caller the admin.

The server starts with what kube-apiserver creates itself (the namespaces
default, kube-system, kube-public and kube-node-lease, the Service
default/kubernetes, the API Priority and Fairness configuration, the local
APIServices, the bootstrap RBAC policy) and keeps everything in memory.`,
		Example: `  lw-sim serve &
  kubectl --kubeconfig lw-sim.kubeconfig get pods -A
  kubectl --kubeconfig lw-sim.kubeconfig auth can-i list pods --as alice

  # A token of your choice, the fault control API and a request log:
  lw-sim serve --token s3cret --control -v 1

  # Plain HTTP, no credentials:
  lw-sim serve --insecure-http`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runServe(cmd, cfg, o)
		},
	}
	f := cmd.Flags()
	o.listen.add(cmd, defaultListen, "Port 0 picks a free port.")
	f.StringVar(&o.kubeconfig, "kubeconfig", defaultKubeconfig,
		"`path` of the kubeconfig to write (mode 0600, replaced if it exists)")
	f.BoolVar(&o.insecureHTTP, "insecure-http", false,
		"serve plain HTTP without credentials: every caller is the admin (kubectl and\n"+
			"client-go send a kubeconfig's credentials only over HTTPS)")
	f.BoolVar(&o.tls, "tls", false, "serve HTTPS (the default; deprecated)")
	_ = f.MarkHidden("tls")
	f.StringVar(&cfg.Token, "token", "",
		"the bearer `token` of the admin (system:apiserver in system:masters); default:\n"+
			"a fresh random one. It goes into the kubeconfig. A wrong token gets 401; a\n"+
			"caller without one is system:anonymous, who may only GET /healthz, /livez,\n"+
			"/readyz and /version (403 otherwise)")
	f.StringVar(&o.authorization, "authorization-mode", string(fakeapiserver.AuthorizationRBAC),
		"RBAC (as a cluster: the admin may do anything, other users what the stored\n"+
			"roles and bindings grant them) or AlwaysAllow (every authenticated caller\n"+
			"may do anything)")
	f.StringVar(&o.clientCAFile, "client-ca-file", "",
		"authenticate client certificates signed by a CA in this PEM `file`, as\n"+
			"kube-apiserver does: CN the user, O the groups")
	f.IntVar(&cfg.Watch.SlowWatcherMaxLag, "watch-max-lag", serveWatchMaxLag,
		"end a watch (no ERROR event, as kube-apiserver's cacher ends a blocked watcher)\n"+
			"that finds more than this many events of its resource waiting; 0: no limit")
	f.DurationVar(&cfg.Watch.SlowWatcherWriteTimeout, "watch-write-timeout", serveWatchWriteTimeout,
		"end a watch whose client has not taken an event for this `duration`; 0: no limit.\n"+
			"A watch always ends at its timeoutSeconds, read or not")
	f.BoolVar(&cfg.ControlAPI, "control", false,
		"serve the fault-injection control API under /_lwsim/faults (JSON; behind\n"+
			"the token unless --insecure-http). Off by default")
	f.IntVar(&cfg.ResponseCompressionLevel, "response-compression-level", 0,
		"gzip `level` of the responses over 128 KiB a client accepts gzip for (framing and\n"+
			"headers as kube-apiserver's either way): 0 sends stored blocks, cheapest on\n"+
			"loopback; 1 is kube-apiserver's level, for its bytes on the wire; -2 (Huffman\n"+
			"only) to 9")
	f.StringSliceVar(&cfg.Controllers, "controllers", nil,
		"kube-controller-manager controllers to run in the server, by their `names` there:\n"+
			"garbage-collector-controller (deleted owners' dependents go, or are orphaned, as\n"+
			"on a cluster), namespace-controller (a deleted namespace's content goes, then the\n"+
			"namespace), serviceaccount-controller (every namespace gets its \"default\"\n"+
			"ServiceAccount), validatingadmissionpolicy-status-controller (a policy's\n"+
			"status.typeChecking). None by default, as envtest runs none")
	f.IntVar(&cfg.APIServers.Count, "apiservers", 1,
		"run this many kube-apiserver `instances`, each with its own watch cache, over the\n"+
			"one store behind a load balancer; every response names its instance in the\n"+
			"X-Lw-Sim-Apiserver header, which a request may also set to pick one. Their\n"+
			"faults (LagAPIServer, FreezeAPIServer, PartitionAPIServer, RestartAPIServer,\n"+
			"HealAPIServer) go through --control")
	f.StringVar((*string)(&cfg.APIServers.Balancing), "balancing", string(fakeapiserver.BalanceRoundRobin),
		"how the load balancer spreads requests over --apiservers: round-robin,\n"+
			"sticky-connection (one instance per client connection, as an L4 balancer) or\n"+
			"sticky-client (per X-Lw-Sim-Client header, else remote IP and User-Agent)")
	addVerbosityFlag(cmd, &o.verbosity)
	return cmd
}

// serveAuth sets cfg's TLS, token, client CA and authorization from the
// flags: TLS and a token unless --insecure-http.
func serveAuth(cmd *cobra.Command, cfg *fakeapiserver.Config, o serveOptions) error {
	if o.insecureHTTP {
		if o.tls {
			return usagef(cmd, "--tls and --insecure-http exclude each other")
		}
		if cfg.Token != "" {
			return usagef(cmd, "--token needs HTTPS (drop --insecure-http): kubectl and client-go send a kubeconfig's token only over HTTPS")
		}
		if o.clientCAFile != "" {
			return usagef(cmd, "--client-ca-file needs HTTPS (drop --insecure-http): client certificates come with the TLS handshake")
		}
	} else {
		cfg.TLS = &fakeapiserver.ServingTLS{}
		if cfg.Token == "" {
			cfg.Token = rand.Text() // 26 base32 characters, 130 bits
		}
	}
	switch m := fakeapiserver.AuthorizationMode(o.authorization); m {
	case fakeapiserver.AuthorizationRBAC, fakeapiserver.AuthorizationAlwaysAllow:
		cfg.Authorization = m
	default:
		return usagef(cmd, "--authorization-mode %q: want RBAC or AlwaysAllow", o.authorization)
	}
	if o.clientCAFile != "" {
		pool, err := cert.NewPool(o.clientCAFile)
		if err != nil {
			return fmt.Errorf("serve: --client-ca-file: %w", err)
		}
		cfg.ClientCA = pool
	}
	return nil
}

// runServe is "lw-sim serve": flags go into a local fakeapiserver.Config
// (STYLE 9), the server runs until the command's context is cancelled, and
// a clean Close returns nil.
func runServe(cmd *cobra.Command, cfg fakeapiserver.Config, o serveOptions) error {
	if err := serveAuth(cmd, &cfg, o); err != nil {
		return err
	}
	if l := cfg.ResponseCompressionLevel; l < -2 || l > 9 {
		return usagef(cmd, "--response-compression-level %d: want -2 to 9", l)
	}
	if cfg.APIServers.Count < 1 {
		return usagef(cmd, "--apiservers %d: want 1 or more", cfg.APIServers.Count)
	}
	switch cfg.APIServers.Balancing {
	case fakeapiserver.BalanceRoundRobin, fakeapiserver.BalanceStickyPerConnection, fakeapiserver.BalanceStickyPerClient:
	default:
		return usagef(cmd, "--balancing %q: want round-robin, sticky-connection or sticky-client", cfg.APIServers.Balancing)
	}
	addr, err := o.listen.addr(cmd)
	if err != nil {
		return err
	}
	cfg.AllowedHosts = o.listen.allowedHosts(addr)
	cfg.Logger = newLogger(cmd.ErrOrStderr(), o.verbosity)
	if !isLoopback(addr) && o.insecureHTTP {
		fmt.Fprintf(cmd.ErrOrStderr(), "lw-sim serve: warning: listening on %s, beyond loopback, with --insecure-http; anyone who can reach it can read and write\n", addr)
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
