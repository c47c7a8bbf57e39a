package realapiserver

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"os"
	"path/filepath"

	"k8s.io/client-go/util/cert"
	"k8s.io/client-go/util/keyutil"
)

// writeClientCA makes a CA for client certificates and writes it
// (client-ca.crt) and its key (client-ca.key) into dir; kube-apiserver
// trusts it (--client-ca-file), and conformance cases sign certificates
// with the key (LWSIM_CLIENT_CA). It returns the certificate's path. The
// CA survives restarts of kube-apiserver, which reads the same file.
func writeClientCA(dir string) (string, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return "", err
	}
	ca, err := cert.NewSelfSignedCACert(cert.Config{CommonName: "lwsim-conformance-client-ca"}, key)
	if err != nil {
		return "", err
	}
	keyPEM, err := keyutil.MarshalPrivateKeyToPEM(key)
	if err != nil {
		return "", err
	}
	caPEM, err := cert.EncodeCertificates(ca)
	if err != nil {
		return "", err
	}
	crt := filepath.Join(dir, "client-ca.crt")
	if err := os.WriteFile(crt, caPEM, 0o644); err != nil {
		return "", err
	}
	return crt, os.WriteFile(filepath.Join(dir, "client-ca.key"), keyPEM, 0o600)
}
