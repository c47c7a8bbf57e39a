package main

import (
	"context"
	"crypto/tls"
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
are delayed. Clients use the kubeconfig it writes (plain HTTP on loopback).

What it forwards: the method, path, query, body and headers of each request,
with the upstream kubeconfig's credentials (token, client certificate,
impersonation settings) in place of the caller's. It never forwards the
caller's Authorization, Proxy-Authorization, Cookie or Impersonate-* headers,
so a caller acts upstream only as the upstream kubeconfig's user.

Anyone who can reach the proxy acts with those credentials: it listens on
loopback only unless --listen names another interface, and then it requires
--token (and --tls, as kubectl sends a token only over HTTPS) and warns.

  lw-sim proxy --upstream-kubeconfig ~/.kube/config --control &
  curl -H 'Content-Type: application/json' -d '{"kind":"EndWatch"}' \
    http://127.0.0.1:6444/_lwsim/faults

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
	var cfg faultproxy.Config
	fs.StringVar(&cfg.Token, "token", "", "require this bearer `token` from callers (401 otherwise); it goes into the\n"+
		"written kubeconfig and is never forwarded. Required with a --listen beyond\n"+
		"loopback. Needs --tls: kubectl sends a kubeconfig's token only over HTTPS")
	useTLS := fs.Bool("tls", false, "serve HTTPS with a fresh self-signed certificate; its CA goes into the kubeconfig")
	var allowHost hostsFlag
	fs.Var(&allowHost, "allow-host", allowHostUsage)
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
	if err := checkProxyExposure(addr, cfg.Token, *useTLS); err != nil {
		printUsage(proxyCommand, fs, stderr)
		return err
	}
	if !isLoopback(addr) {
		fmt.Fprintf(stderr, "lw-sim proxy: warning: listening on %s, beyond loopback; every caller with the token acts upstream as the upstream kubeconfig's user\n", addr)
	}
	up, err := clientcmd.BuildConfigFromFlags("", *upstream)
	if err != nil {
		return fmt.Errorf("proxy: upstream kubeconfig: %w", err)
	}
	cfg.Upstream, cfg.ControlAPI, cfg.AllowedHosts = up, *control, allowedHosts(addr, allowHost)
	p, err := faultproxy.New(cfg)
	if err != nil {
		return err
	}
	defer p.Close()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("proxy: %w", err)
	}
	front := proxyFront{token: cfg.Token}
	if *useTLS {
		if front.tls, front.ca, err = proxyTLS(addr, allowHost); err != nil {
			return errors.Join(err, ln.Close())
		}
	}
	return proxyUntilDone(ctx, p, ln, *kubeconfig, up.Host, front, stdout)
}

// checkProxyExposure refuses a proxy beyond loopback without a caller
// token (it would lend the upstream credentials to the network), and a
// token without TLS (kubectl would not send it).
func checkProxyExposure(addr, token string, useTLS bool) error {
	if !isLoopback(addr) && token == "" {
		return &usageError{msg: fmt.Sprintf("proxy: --listen %s is beyond loopback: --token (and --tls) required, as the proxy acts with the upstream kubeconfig's credentials", addr)}
	}
	if token != "" && !useTLS {
		return &usageError{msg: "proxy: --token needs --tls: kubectl and client-go send a kubeconfig's token only over HTTPS"}
	}
	return nil
}

// proxyUntilDone serves p on ln until ctx is cancelled.
//
// Shutdown chain: ctx is cancelled → p.Close releases hung streams →
// http.Server.Close closes the listener and connections → the serving
// goroutine returns on served.
func proxyUntilDone(ctx context.Context, p *faultproxy.Proxy, ln net.Listener, kubeconfig, upstream string, front proxyFront, stdout io.Writer) error {
	hs := &http.Server{Handler: p.Handler(), ReadHeaderTimeout: proxyReadHeaderTimeout}
	url := "http://" + ln.Addr().String()
	if front.tls != nil {
		ln = tls.NewListener(ln, front.tls)
		url = "https://" + ln.Addr().String()
	}
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	err := writeProxyKubeconfig(url, kubeconfig, front)
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

// writeProxyKubeconfig writes a kubeconfig for the proxy at url with the
// callers' token and CA when set (the proxy holds the upstream credentials).
func writeProxyKubeconfig(url, path string, front proxyFront) error {
	abs, err := filepath.Abs(path)
	if err != nil {
		return fmt.Errorf("proxy: kubeconfig path: %w", err)
	}
	cfg := clientcmdapi.NewConfig()
	cluster := clientcmdapi.NewCluster()
	cluster.Server = url
	cluster.CertificateAuthorityData = front.ca
	kctx := clientcmdapi.NewContext()
	kctx.Cluster, kctx.AuthInfo, kctx.Namespace = "lw-sim-proxy", "lw-sim-proxy", "default"
	cfg.Clusters["lw-sim-proxy"] = cluster
	user := clientcmdapi.NewAuthInfo()
	user.Token = front.token
	cfg.AuthInfos["lw-sim-proxy"] = user
	cfg.Contexts["lw-sim-proxy"] = kctx
	cfg.CurrentContext = "lw-sim-proxy"
	if err := clientcmd.WriteToFile(*cfg, abs); err != nil {
		return fmt.Errorf("proxy: write kubeconfig: %w", err)
	}
	return nil
}
