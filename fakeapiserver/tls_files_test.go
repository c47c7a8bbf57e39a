package fakeapiserver

import (
	"encoding/pem"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/cert"
)

// writeLeafCert writes, under dir, a serving certificate for 127.0.0.1
// and localhost signed by a fresh CA, as envtest writes apiserver.crt and
// apiserver.key into kube-apiserver's --cert-dir: the certificate file
// holds the leaf alone. It returns the paths and the CA's PEM.
func writeLeafCert(t *testing.T, dir string) (certFile, keyFile string, caPEM []byte) {
	t.Helper()
	chain, key, err := cert.GenerateSelfSignedCertKey("localhost", []net.IP{net.ParseIP("127.0.0.1")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	// GenerateSelfSignedCertKey returns the leaf followed by its CA.
	leaf, rest := pem.Decode(chain)
	certFile, keyFile = filepath.Join(dir, "apiserver.crt"), filepath.Join(dir, "apiserver.key")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(leaf), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, key, 0o600); err != nil {
		t.Fatal(err)
	}
	return certFile, keyFile, rest
}

// TestServeCertificateFromFiles: with Config.TLS naming files the server
// serves HTTPS with that certificate (a client trusting only its issuer
// gets through), and RESTConfig trusts it without knowing the issuer.
func TestServeCertificateFromFiles(t *testing.T) {
	t.Parallel()
	certFile, keyFile, caPEM := writeLeafCert(t, t.TempDir())
	srv := Start(t, WithConfig(func(cfg *Config) { cfg.TLS = &ServingTLS{CertFile: certFile, KeyFile: keyFile} }))
	if !strings.HasPrefix(srv.URL(), "https://") {
		t.Fatalf("URL() = %q, want https", srv.URL())
	}
	if diff := cmp.Diff(seededNamespaces, namespaceNames(t, srv.Clientset())); diff != "" {
		t.Errorf("List(namespaces) through RESTConfig mismatch (-want +got):\n%s", diff)
	}
	// envtest's clients trust the CA that signed the certificate.
	cs, err := kubernetes.NewForConfig(&rest.Config{Host: srv.URL(), TLSClientConfig: rest.TLSClientConfig{CAData: caPEM}})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(seededNamespaces, namespaceNames(t, cs)); diff != "" {
		t.Errorf("List(namespaces) by a client trusting the issuer mismatch (-want +got):\n%s", diff)
	}
}

// TestCertificateFilesInvalid: a certificate without its key, a missing
// file, or a key that is not the certificate's make New fail, naming the
// problem.
func TestCertificateFilesInvalid(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	certFile, keyFile, _ := writeLeafCert(t, dir)
	_, otherKey, _ := writeLeafCert(t, t.TempDir())
	tests := []struct {
		name       string
		cert, key  string
		wantSubstr string
	}{
		{name: "certificate alone", cert: certFile, wantSubstr: "need both"},
		{name: "key alone", key: keyFile, wantSubstr: "need both"},
		{name: "missing certificate", cert: filepath.Join(dir, "nope.crt"), key: keyFile, wantSubstr: "nope.crt"},
		{name: "key of another certificate", cert: certFile, key: otherKey, wantSubstr: "private key does not match public key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, err := New(Config{TLS: &ServingTLS{CertFile: tt.cert, KeyFile: tt.key}})
			if err == nil {
				_ = s.Close()
				t.Fatalf("New(CertFile=%q, KeyFile=%q) = nil error, want one containing %q", tt.cert, tt.key, tt.wantSubstr)
			}
			if !strings.Contains(err.Error(), tt.wantSubstr) {
				t.Errorf("New(CertFile=%q, KeyFile=%q) = %v, want it to contain %q", tt.cert, tt.key, err, tt.wantSubstr)
			}
		})
	}
}
