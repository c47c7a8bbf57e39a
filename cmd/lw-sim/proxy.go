package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"time"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/lw-sim/lw-sim/faultproxy"
)

const (
	// defaultProxyListen is next to serve's default port, so a server and
	// a proxy in front of it can both run with defaults.
	defaultProxyListen = "127.0.0.1:6444"
	// defaultProxyKubeconfig is the kubeconfig written for the proxy.
	defaultProxyKubeconfig = "lw-sim-proxy.kubeconfig"
	// proxyReadHeaderTimeout bounds a client's request headers.
	proxyReadHeaderTimeout = 30 * time.Second
)

var proxyCommand = command{
	name: "proxy",
	summary: `Run a reverse proxy in front of any apiserver (kind, k3s, a real cluster, an
lw-sim server) that injects list-watch faults: failed requests (429 with
Retry-After, 500, 503, 504), latency, cut LISTs, "too large resource version",
and watch streams that end, are cut mid-frame, hang, lose their bookmarks or
are delayed. Clients use the kubeconfig it writes (plain HTTP on loopback);
the proxy talks to the upstream with the upstream kubeconfig's credentials.

  lw-sim proxy --upstream-kubeconfig ~/.kube/config --control &
  curl -d '{"kind":"EndWatch"}' http://127.0.0.1:6444/_lwsim/faults

Watch and LIST requests asking for protobuf are sent upstream as JSON, so the
proxy can read events. Compaction and restarts need the apiserver's storage:
the proxy refuses them (use lw-sim serve --control for those).`,
}

// runProxy is "lw-sim proxy".
func runProxy(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet(proxyCommand)
	upstream := fs.String("upstream-kubeconfig", "", "`path` of the kubeconfig of the apiserver to proxy (its current context). Required")
	listen := fs.String("listen", defaultProxyListen, "`address` to listen on, host:port (a bare :port binds "+loopbackHost+")")
	kubeconfig := fs.String("kubeconfig", defaultProxyKubeconfig, "`path` of the kubeconfig to write for clients of the proxy (mode 0600)")
	control := fs.Bool("control", false, "serve the fault-injection control API under /_lwsim/faults")
	if help, err := parseFlags(proxyCommand, fs, args, stdout, stderr); help || err != nil {
		return err
	}
	if *upstream == "" {
		printUsage(proxyCommand, fs, stderr)
		return &usageError{msg: "proxy: --upstream-kubeconfig is required"}
	}
	addr, err := listenAddr(*listen)
	if err != nil {
		return &usageError{msg: fmt.Sprintf("proxy: %v", err)}
	}
	up, err := clientcmd.BuildConfigFromFlags("", *upstream)
	if err != nil {
		return fmt.Errorf("proxy: upstream kubeconfig: %w", err)
	}
	p, err := faultproxy.New(faultproxy.Config{Upstream: up, ControlAPI: *control})
	if err != nil {
		return err
	}
	defer p.Close()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("proxy: %w", err)
	}
	return proxyUntilDone(ctx, p, ln, *kubeconfig, up.Host, stdout)
}

// proxyUntilDone serves p on ln until ctx is cancelled.
//
// Shutdown chain: ctx is cancelled → p.Close releases hung streams →
// http.Server.Close closes the listener and connections → the serving
// goroutine returns on served.
func proxyUntilDone(ctx context.Context, p *faultproxy.Proxy, ln net.Listener, kubeconfig, upstream string, stdout io.Writer) error {
	hs := &http.Server{Handler: p.Handler(), ReadHeaderTimeout: proxyReadHeaderTimeout}
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	url := "http://" + ln.Addr().String()
	err := writeProxyKubeconfig(url, kubeconfig)
	if err == nil {
		fmt.Fprintf(stdout, "lw-sim proxy: serving %s -> %s\n", url, upstream)
		fmt.Fprintf(stdout, "lw-sim proxy: kubeconfig %s\n", kubeconfig)
		select {
		case <-ctx.Done():
		case err = <-served:
			err = fmt.Errorf("proxy: server stopped unexpectedly: %w", err)
			served <- nil
		}
	}
	p.Close()
	closeErr := hs.Close()
	if serveErr := <-served; serveErr != nil && !errors.Is(serveErr, http.ErrServerClosed) && err == nil {
		err = serveErr
	}
	if err == nil && closeErr == nil {
		fmt.Fprintln(stdout, "lw-sim proxy: stopped")
	}
	return errors.Join(err, closeErr)
}

// writeProxyKubeconfig writes a kubeconfig for the proxy at url: no
// credentials (the proxy holds the upstream ones).
func writeProxyKubeconfig(url, path string) error {
	abs, err := filepath.Abs(path)
	if err != nil {
		return fmt.Errorf("proxy: kubeconfig path: %w", err)
	}
	cfg := clientcmdapi.NewConfig()
	cluster := clientcmdapi.NewCluster()
	cluster.Server = url
	kctx := clientcmdapi.NewContext()
	kctx.Cluster, kctx.AuthInfo, kctx.Namespace = "lw-sim-proxy", "lw-sim-proxy", "default"
	cfg.Clusters["lw-sim-proxy"] = cluster
	cfg.AuthInfos["lw-sim-proxy"] = clientcmdapi.NewAuthInfo()
	cfg.Contexts["lw-sim-proxy"] = kctx
	cfg.CurrentContext = "lw-sim-proxy"
	if err := clientcmd.WriteToFile(*cfg, abs); err != nil {
		return fmt.Errorf("proxy: write kubeconfig: %w", err)
	}
	return nil
}
