package conformance

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"os"
	"time"

	"k8s.io/client-go/util/cert"
	"k8s.io/client-go/util/keyutil"
)

// ClientCertIssuer is the optional ability to make client certificates the
// server authenticates, as envtest's AddUser makes them: subject CN the
// user, O the groups. IssueClientCert returns [ErrNoClientCA] when the
// target has no client CA to sign with.
type ClientCertIssuer interface {
	IssueClientCert(user string, groups ...string) (certPEM, keyPEM []byte, err error)
}

// ErrNoClientCA is IssueClientCert's error on a target whose client CA is
// unknown (a cluster reached through a kubeconfig without LWSIM_CLIENT_CA).
var ErrNoClientCA = errors.New("conformance: the target's client CA is unknown")

// clientCA signs client certificates.
type clientCA struct {
	cert *x509.Certificate
	key  crypto.Signer
}

// newClientCA makes a fresh CA.
func newClientCA() (*clientCA, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	ca, err := cert.NewSelfSignedCACert(cert.Config{CommonName: "conformance-client-ca"}, key)
	if err != nil {
		return nil, err
	}
	return &clientCA{cert: ca, key: key}, nil
}

// loadClientCA reads a CA and its key (PEM files), as tools/realapiserver
// writes them.
func loadClientCA(certFile, keyFile string) (*clientCA, error) {
	certs, err := cert.CertsFromFile(certFile)
	if err != nil {
		return nil, err
	}
	keyPEM, err := os.ReadFile(keyFile)
	if err != nil {
		return nil, err
	}
	key, err := keyutil.ParsePrivateKeyPEM(keyPEM)
	if err != nil {
		return nil, err
	}
	signer, ok := key.(crypto.Signer)
	if !ok {
		return nil, fmt.Errorf("conformance: client CA key %s is no signer", keyFile)
	}
	return &clientCA{cert: certs[0], key: signer}, nil
}

// pool is the CA as a pool, for a server to trust.
func (ca *clientCA) pool() *x509.CertPool {
	p := x509.NewCertPool()
	p.AddCert(ca.cert)
	return p
}

// issue signs a client certificate for CN user, O groups, valid from an
// hour ago for notAfter (zero: a day from now).
func (ca *clientCA) issue(user string, groups []string, notAfter time.Time) (certPEM, keyPEM []byte, err error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	serial, err := rand.Int(rand.Reader, big.NewInt(1<<62))
	if err != nil {
		return nil, nil, err
	}
	if notAfter.IsZero() {
		notAfter = time.Now().Add(24 * time.Hour)
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: user, Organization: groups},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     notAfter,
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, key.Public(), ca.key)
	if err != nil {
		return nil, nil, err
	}
	keyPEM, err = keyutil.MarshalPrivateKeyToPEM(key)
	if err != nil {
		return nil, nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), keyPEM, nil
}
