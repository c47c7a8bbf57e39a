package fakeapiserver

import (
	"crypto/tls"
	"fmt"
	"net"

	"k8s.io/client-go/util/cert"
)

// selfSignedTLS makes a serving certificate for the loopback names, signed by
// a fresh self-signed CA, and returns the server TLS config and the CA PEM
// that clients must trust.
func selfSignedTLS() (*tls.Config, []byte, error) {
	certPEM, keyPEM, err := cert.GenerateSelfSignedCertKey("localhost",
		[]net.IP{net.ParseIP("127.0.0.1"), net.ParseIP("::1")}, []string{"localhost"})
	if err != nil {
		return nil, nil, fmt.Errorf("fakeapiserver: self-signed certificate: %w", err)
	}
	pair, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return nil, nil, fmt.Errorf("fakeapiserver: load self-signed certificate: %w", err)
	}
	// GenerateSelfSignedCertKey returns the serving cert followed by its CA,
	// so the whole chain is what a client trusts.
	return &tls.Config{Certificates: []tls.Certificate{pair}, MinVersion: tls.VersionTLS12}, certPEM, nil
}
