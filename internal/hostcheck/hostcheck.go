package hostcheck

import (
	"fmt"
	"net"
	"net/http"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/lw-sim/lw-sim/internal/kubewire"
)

// AnyHost in the allowed names turns the check off.
const AnyHost = "*"

// Checker decides which Host headers a server answers. The zero value
// allows only IP addresses and localhost names.
type Checker struct {
	names map[string]bool
	any   bool
}

// New returns a Checker that allows, besides IP addresses and localhost
// names (localhost and *.localhost, RFC 6761), each of names (case-
// insensitive, a trailing dot ignored; [AnyHost] allows every host).
func New(names ...string) *Checker {
	c := &Checker{names: map[string]bool{}}
	for _, n := range names {
		if n == AnyHost {
			c.any = true
			continue
		}
		c.names[normalize(n)] = true
	}
	return c
}

// ForListen returns a Checker for a server listening on addr (host:port):
// the listen host is allowed when it is a name, as are the extra names.
func ForListen(addr string, extra ...string) *Checker {
	names := append([]string(nil), extra...)
	if host, _, err := net.SplitHostPort(addr); err == nil && host != "" {
		names = append(names, host)
	}
	return New(names...)
}

// Allowed reports whether a request with this Host header (host or
// host:port) may be answered.
func (c *Checker) Allowed(hostHeader string) bool {
	if c.any {
		return true
	}
	host := hostHeader
	if h, _, err := net.SplitHostPort(hostHeader); err == nil {
		host = h
	}
	host = normalize(strings.TrimSuffix(strings.TrimPrefix(host, "["), "]"))
	switch {
	case host == "":
		// HTTP/1.0 without Host: not a browser (browsers always send one).
		return true
	case net.ParseIP(host) != nil:
		// An address literal involves no DNS, so nothing to rebind.
		return true
	case host == "localhost" || strings.HasSuffix(host, ".localhost"):
		return true
	}
	return c.names[host]
}

// Handler answers requests whose Host is not allowed with 403 and passes
// the others to next.
func (c *Checker) Handler(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !c.Allowed(r.Host) {
			WriteForbidden(w, r.Host)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// WriteForbidden writes the 403 Status for a refused host.
func WriteForbidden(w http.ResponseWriter, host string) {
	kubewire.WriteStatus(w, apierrors.NewForbidden(schema.GroupResource{}, "", fmt.Errorf(
		"host %q is not allowed: this local server answers only localhost names, IP addresses and the hosts given with --allow-host (a guard against DNS rebinding)", host)))
}

// normalize lower-cases a host name and drops a trailing dot.
func normalize(host string) string {
	return strings.TrimSuffix(strings.ToLower(host), ".")
}
