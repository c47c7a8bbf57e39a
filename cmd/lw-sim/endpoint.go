package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"path/filepath"

	"github.com/lw-sim/lw-sim/fakeapiserver"
	"github.com/lw-sim/lw-sim/faultproxy"
)

// endpoint is what serve and proxy run until a signal:
// *fakeapiserver.Server and *faultproxy.Proxy, which serve, describe
// themselves and stop alike.
type endpoint interface {
	// ServeBackground serves on ln in a goroutine and returns once it
	// accepts; the channel yields Serve's result once (nil after Close).
	ServeBackground(ln net.Listener) <-chan error
	URL() string
	WriteKubeconfig(path string) error
	Close() error
}

var (
	_ endpoint = (*fakeapiserver.Server)(nil)
	_ endpoint = (*faultproxy.Proxy)(nil)
)

// announcement is how an endpoint introduces itself on stdout. The first
// two lines are stable for scripts: "lw-sim NAME: serving URL[ -> UPSTREAM]"
// and "lw-sim NAME: kubeconfig PATH".
type announcement struct {
	name       string // the command: serve, proxy or kube-apiserver
	kubeconfig string // path to write the kubeconfig at; "" writes none
	upstream   string // what the endpoint forwards to, or ""
	// hints returns the lines printed after the first two, given the
	// kubeconfig's absolute path; nil for none.
	hints func(kubeconfig string) []string
}

// serveUntilDone serves ep on ln, writes its kubeconfig, announces it, and
// waits for ctx (the signal) or for Serve to fail. A clean stop prints
// "lw-sim NAME: stopped" and returns nil.
//
// Shutdown chain: ctx is cancelled → ep.Close ends every watch (and hung
// fault streams) and closes the listener and every connection → the
// ServeBackground goroutine returns and delivers Serve's result on done.
func serveUntilDone(ctx context.Context, ep endpoint, ln net.Listener, a announcement, stdout io.Writer) error {
	done := ep.ServeBackground(ln)
	err := a.announce(ep, stdout)
	if err == nil {
		select {
		case <-ctx.Done():
		case err = <-done:
			// done yields once and is then closed, so the receive below
			// returns nil at once.
			if err == nil {
				err = errors.New("closed")
			}
			err = fmt.Errorf("%s: server stopped unexpectedly: %w", a.name, err)
		}
	}
	closeErr := ep.Close()
	serveErr := <-done
	if err == nil && closeErr == nil && serveErr == nil {
		fmt.Fprintf(stdout, "lw-sim %s: stopped\n", a.name)
	}
	return errors.Join(err, closeErr, serveErr)
}

// announce writes the kubeconfig and tells the user where ep is.
func (a announcement) announce(ep endpoint, stdout io.Writer) error {
	if a.kubeconfig == "" {
		fmt.Fprintf(stdout, "lw-sim %s: serving %s\n", a.name, ep.URL())
		return nil
	}
	path, err := filepath.Abs(a.kubeconfig)
	if err != nil {
		return fmt.Errorf("%s: kubeconfig path: %w", a.name, err)
	}
	if err := ep.WriteKubeconfig(path); err != nil {
		return err
	}
	url := ep.URL()
	if a.upstream != "" {
		url += " -> " + a.upstream
	}
	fmt.Fprintf(stdout, "lw-sim %s: serving %s\n", a.name, url)
	fmt.Fprintf(stdout, "lw-sim %s: kubeconfig %s\n", a.name, path)
	if a.hints != nil {
		for _, h := range a.hints(path) {
			fmt.Fprintln(stdout, h)
		}
	}
	return nil
}
