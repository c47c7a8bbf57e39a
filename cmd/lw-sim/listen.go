package main

import (
	"fmt"
	"net"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// loopbackHost is bound when --listen names only a port.
const loopbackHost = "127.0.0.1"

// listenFlags are --listen and --allow-host, which serve and proxy share:
// where to listen and which Host headers to answer.
type listenFlags struct {
	listen    string
	allowHost hostsFlag
}

// add adds --listen (default def; more is appended to its help) and
// --allow-host to cmd.
func (l *listenFlags) add(cmd *cobra.Command, def, more string) {
	cmd.Flags().StringVar(&l.listen, "listen", def,
		"`address` to listen on, host:port. A bare :port binds "+loopbackHost+"; other\n"+
			"interfaces are used only when named, e.g. 0.0.0.0:6443. "+more)
	cmd.Flags().Var(&l.allowHost, "allow-host",
		"also answer requests whose Host header is this `name` (repeatable,\n"+
			"comma-separated; \"*\" allows any). Requests naming other hosts get 403: a guard\n"+
			"against DNS rebinding by web pages. Always answered: IP addresses, localhost,\n"+
			"*.localhost and the --listen host")
}

// addr is --listen resolved by listenAddr; a malformed address is a usage
// error of cmd.
func (l *listenFlags) addr(cmd *cobra.Command) (string, error) {
	addr, err := listenAddr(l.listen)
	if err != nil {
		return "", usagef(cmd, "%v", err)
	}
	return addr, nil
}

// listenAddr resolves a --listen value: a missing host means loopback, so
// the server is exposed only when the user names another address.
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

// allowedHosts is the Host allowlist of a server listening on addr: the
// listen host (when it is a name; IP addresses and localhost names are
// always allowed) and the --allow-host names. The self-signed certificate
// of serve and proxy --tls covers the same names.
func (l *listenFlags) allowedHosts(addr string) []string {
	hosts := append([]string{}, l.allowHost...)
	if host, _, err := net.SplitHostPort(addr); err == nil && host != "" {
		hosts = append(hosts, host)
	}
	return hosts
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

// hostsFlag is a repeatable --allow-host: each use adds one or more
// comma-separated host names.
type hostsFlag []string

func (h *hostsFlag) String() string { return strings.Join(*h, ",") }

func (h *hostsFlag) Set(v string) error {
	for n := range strings.SplitSeq(v, ",") {
		if n = strings.TrimSpace(n); n != "" {
			*h = append(*h, n)
		}
	}
	return nil
}

func (h *hostsFlag) Type() string { return "strings" }

var _ pflag.Value = (*hostsFlag)(nil)
