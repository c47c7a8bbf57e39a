package main

import (
	"net"
	"strings"
)

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

// allowHostUsage documents --allow-host for serve and proxy alike.
const allowHostUsage = "also answer requests whose Host header is this `name` (repeatable,\n" +
	"comma-separated; \"*\" allows any). Requests naming other hosts get 403: a guard\n" +
	"against DNS rebinding by web pages. Always answered: IP addresses, localhost,\n" +
	"*.localhost and the --listen host"

// allowedHosts is the Host allowlist of a server listening on addr: the
// listen host (when it is a name; IP addresses and localhost names are
// always allowed) and the --allow-host names.
func allowedHosts(addr string, extra hostsFlag) []string {
	hosts := append([]string{}, extra...)
	if host, _, err := net.SplitHostPort(addr); err == nil && host != "" {
		hosts = append(hosts, host)
	}
	return hosts
}
