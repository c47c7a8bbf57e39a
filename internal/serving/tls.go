package serving

import (
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"os"

	"k8s.io/client-go/util/cert"
)

// SelfSignedTLS makes a serving certificate signed by a fresh self-signed
// CA and returns the server's TLS config and the PEM that clients must
// trust. The certificate is valid for the loopback names (127.0.0.1, ::1,
// localhost) and for hosts: an IP address as an IP SAN (an unspecified
// one, 0.0.0.0 or ::, as every interface address, since that is what it
// listens on), any other name as a DNS SAN; "*" and "" are skipped.
func SelfSignedTLS(hosts []string) (*tls.Config, []byte, error) {
	ips, names := certSANs(hosts)
	certPEM, keyPEM, err := cert.GenerateSelfSignedCertKey("localhost", ips, names)
	if err != nil {
		return nil, nil, fmt.Errorf("self-signed certificate: %w", err)
	}
	pair, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return nil, nil, fmt.Errorf("load self-signed certificate: %w", err)
	}
	// GenerateSelfSignedCertKey returns the serving cert followed by its CA,
	// so the whole chain is what a client trusts.
	return &tls.Config{Certificates: []tls.Certificate{pair}, MinVersion: tls.VersionTLS12}, certPEM, nil
}

// CertificateFiles loads a serving certificate chain and its private key
// from PEM files, as kube-apiserver's --tls-cert-file and
// --tls-private-key-file (or the apiserver.crt and apiserver.key of its
// --cert-dir), and returns the server's TLS config and the chain's PEM.
// The files are read once: unlike kube-apiserver, which reloads them when
// they change, a front keeps what it read. A client that trusts the
// returned PEM trusts exactly these certificates (Go accepts a certificate
// found among the roots as its own chain), which is how [Front.CA] lets a
// caller reach the front without knowing the issuer.
func CertificateFiles(certFile, keyFile string) (*tls.Config, []byte, error) {
	if certFile == "" || keyFile == "" {
		return nil, nil, errors.New("serving certificate: need both a certificate file and a key file")
	}
	// Each file is read once, so the chain returned is the one served.
	chain, err := os.ReadFile(certFile)
	if err != nil {
		return nil, nil, fmt.Errorf("serving certificate: %w", err)
	}
	key, err := os.ReadFile(keyFile)
	if err != nil {
		return nil, nil, fmt.Errorf("serving certificate: %w", err)
	}
	pair, err := tls.X509KeyPair(chain, key)
	if err != nil {
		return nil, nil, fmt.Errorf("serving certificate %s: %w", certFile, err)
	}
	return &tls.Config{Certificates: []tls.Certificate{pair}, MinVersion: tls.VersionTLS12}, chain, nil
}

// certSANs splits the loopback names and hosts into IP and DNS SANs.
func certSANs(hosts []string) ([]net.IP, []string) {
	ips := []net.IP{net.ParseIP("127.0.0.1"), net.ParseIP("::1")}
	names := []string{"localhost"}
	for _, h := range hosts {
		switch ip := net.ParseIP(h); {
		case h == "" || h == "*":
		case ip != nil && ip.IsUnspecified():
			ips = append(ips, interfaceIPs()...)
		case ip != nil:
			ips = append(ips, ip)
		default:
			names = append(names, h)
		}
	}
	return ips, names
}

// interfaceIPs are this machine's interface addresses, or none when they
// cannot be read (the certificate then covers the other names only).
func interfaceIPs() []net.IP {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return nil
	}
	var ips []net.IP
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok {
			ips = append(ips, n.IP)
		}
	}
	return ips
}
