package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/lw-sim/lw-sim/internal/serving"
)

const (
	// etcdName is the program "lw-sim etcd" stands in for, and its
	// command's name.
	etcdName = "etcd"
	// defaultListenClientURLs is etcd's --listen-client-urls default
	// (etcd server/v3 embed/config.go DefaultListenClientURLs).
	defaultListenClientURLs = "http://localhost:2379"
	// etcdHealthy is etcd's /health body when healthy (etcd server/v3
	// etcdserver/api/etcdhttp/health.go, Health marshalled).
	etcdHealthy = `{"health":"true","reason":""}`
	// etcdReadHeaderTimeout bounds a health check's request headers.
	etcdReadHeaderTimeout = 10 * time.Second
)

// etcdOptions are the etcd flags lw-sim etcd reads; the others envtest
// passes are accepted and never read.
type etcdOptions struct {
	listenClientURLs []string
	// accepted only: envtest passes them.
	advertiseClientURLs, listenPeerURLs []string
	dataDir                             string
	unsafeNoFsync                       bool
}

func newEtcdCommand() *cobra.Command {
	var o etcdOptions
	cmd := &cobra.Command{
		Use:    etcdName + " [flags]",
		Short:  "Stand in for etcd under envtest: answers health checks, stores nothing",
		Hidden: true, // reached as DIR/etcd (lw-sim envtest-assets)
		Long: `Answer etcd's health checks (GET /health, /livez, /readyz) over HTTP on
every --listen-client-urls URL until SIGINT or SIGTERM, so that envtest sees
an etcd start, become healthy and stop.

It stores nothing and speaks no etcd API: lw-sim kube-apiserver keeps every
object in its own memory and never connects to it. --data-dir is accepted
and left untouched. lw-sim envtest-assets writes this program as DIR/etcd;
run under that name, lw-sim is this command.

Any other etcd flag is accepted with a warning on stderr and ignored.`,
		Example: `  lw-sim etcd --listen-client-urls http://127.0.0.1:2379`,
	}
	f := cmd.Flags()
	f.StringSliceVar(&o.listenClientURLs, "listen-client-urls", []string{defaultListenClientURLs},
		"`URLs` to answer health checks on (http only)")
	f.StringSliceVar(&o.advertiseClientURLs, "advertise-client-urls", nil, "client `URLs` to advertise (accepted)")
	f.StringSliceVar(&o.listenPeerURLs, "listen-peer-urls", nil, "peer `URLs` (accepted; there are no peers)")
	f.StringVar(&o.dataDir, "data-dir", "", "data `directory` (accepted; nothing is stored)")
	f.BoolVar(&o.unsafeNoFsync, "unsafe-no-fsync", false, "skip fsync (accepted; nothing is written)")
	cmd = newStandInCommand(cmd, func(cmd *cobra.Command) error { return runEtcd(cmd, o) })
	parse := cmd.RunE
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		return parse(cmd, goFlagArgs(args))
	}
	return cmd
}

// goFlagArgs rewrites the Go flag package's single-dash long flags
// ("-data-dir=x"), which etcd accepts, to pflag's "--data-dir=x"; etcd has
// no one-letter flags.
func goFlagArgs(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		if len(a) > 2 && a[0] == '-' && a[1] != '-' {
			a = "-" + a
		}
		out[i] = a
	}
	return out
}

// runEtcd serves the health checks on every client URL until the
// command's context ends.
func runEtcd(cmd *cobra.Command, o etcdOptions) error {
	var lns []net.Listener
	closeAll := func() {
		for _, ln := range lns {
			_ = ln.Close()
		}
	}
	for _, raw := range o.listenClientURLs {
		addr, err := etcdListenAddr(raw)
		if err != nil {
			closeAll()
			return usagef(cmd, "--listen-client-urls: %v", err)
		}
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			closeAll()
			return fmt.Errorf("%s: %w", etcdName, err)
		}
		lns = append(lns, ln)
	}
	return serveEtcd(cmd.Context(), lns, cmd.OutOrStdout())
}

// etcdListenAddr is the host:port of a client URL; only http is served.
func etcdListenAddr(raw string) (string, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return "", err
	}
	if u.Scheme != "http" {
		return "", fmt.Errorf("%q: only http:// is served (the stand-in has no TLS)", raw)
	}
	if u.Port() == "" {
		return "", fmt.Errorf("%q: want a port", raw)
	}
	return u.Host, nil
}

// serveEtcd serves etcdHandler on every listener until ctx ends, then
// closes them and waits for the serving goroutines.
//
// Shutdown chain: ctx is cancelled → hs.Close closes every listener and
// connection → each Serve returns http.ErrServerClosed → its goroutine
// delivers nil on its Background channel.
func serveEtcd(ctx context.Context, lns []net.Listener, stdout io.Writer) error {
	hs := &http.Server{Handler: etcdHandler(), ReadHeaderTimeout: etcdReadHeaderTimeout}
	var dones []<-chan error
	for _, ln := range lns {
		dones = append(dones, serving.Background(ln, hs.Serve, http.ErrServerClosed))
		fmt.Fprintf(stdout, "lw-sim %s: serving health checks on http://%s (stores nothing)\n", etcdName, ln.Addr())
	}
	// Any listener failing stops them all, as a failed etcd exits.
	failed := make(chan error, len(dones))
	var wg sync.WaitGroup
	for _, done := range dones {
		wg.Go(func() {
			if err := <-done; err != nil {
				failed <- err
			}
		})
	}
	var err error
	select {
	case <-ctx.Done():
	case err = <-failed:
		err = fmt.Errorf("%s: %w", etcdName, err)
	}
	err = errors.Join(err, hs.Close())
	wg.Wait()
	close(failed)
	for e := range failed {
		err = errors.Join(err, e)
	}
	if err == nil {
		fmt.Fprintf(stdout, "lw-sim %s: stopped\n", etcdName)
	}
	return err
}

// etcdHandler answers GET /health as a healthy etcd does, and /livez and
// /readyz with "ok"; anything else is 404.
func etcdHandler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/health", func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet {
			w.Header().Set("Allow", http.MethodGet)
			http.Error(w, "Method Not Allowed", http.StatusMethodNotAllowed)
			return
		}
		_, _ = io.WriteString(w, etcdHealthy)
	})
	ok := func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "ok") }
	mux.HandleFunc("/livez", ok)
	mux.HandleFunc("/readyz", ok)
	return mux
}
