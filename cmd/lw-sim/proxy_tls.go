package main

import (
	"crypto/tls"
	"fmt"
	"net"

	"k8s.io/client-go/util/cert"
)

// proxyFront is how callers reach the proxy: its TLS (nil for plain HTTP),
// the CA they must trust, and the token they must send.
type proxyFront struct {
	tls   *tls.Config
	ca    []byte
	token string
}

// proxyTLS makes a self-signed serving certificate for the names callers
// may use: loopback, the --listen host (every interface address when it
// is unspecified, as 0.0.0.0 is) and the --allow-host names.
func proxyTLS(addr string, allowHost hostsFlag) (*tls.Config, []byte, error) {
	ips := []net.IP{net.ParseIP("127.0.0.1"), net.ParseIP("::1")}
	names := []string{"localhost"}
	host, _, _ := net.SplitHostPort(addr)
	switch ip := net.ParseIP(host); {
	case ip != nil && ip.IsUnspecified():
		if addrs, err := net.InterfaceAddrs(); err == nil {
			for _, a := range addrs {
				if n, ok := a.(*net.IPNet); ok {
					ips = append(ips, n.IP)
				}
			}
		}
	case ip != nil:
		ips = append(ips, ip)
	case host != "":
		names = append(names, host)
	}
	for _, h := range allowHost {
		if h != "*" {
			names = append(names, h)
		}
	}
	certPEM, keyPEM, err := cert.GenerateSelfSignedCertKey("localhost", ips, names)
	if err != nil {
		return nil, nil, fmt.Errorf("proxy: self-signed certificate: %w", err)
	}
	pair, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return nil, nil, fmt.Errorf("proxy: load self-signed certificate: %w", err)
	}
	// The PEM holds the serving certificate and its CA: clients trust both.
	return &tls.Config{Certificates: []tls.Certificate{pair}, MinVersion: tls.VersionTLS12}, certPEM, nil
}
