package serving

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"
)

// ErrClosed is returned by [Front.Serve] after [Front.Close].
var ErrClosed = errors.New("serving: closed")

// readHeaderTimeout bounds a client's request headers; bodies and watch
// streams are not bounded by the front.
const readHeaderTimeout = 30 * time.Second

// Front serves one handler over HTTP, or HTTPS with a self-signed
// certificate, and records the URL it serves at. It is safe for concurrent
// use.
//
// Lifecycle: NewFront → Serve (blocks) → Close (Serve then returns
// ErrClosed). A Serve after Close returns ErrClosed at once.
type Front struct {
	handler http.Handler
	tls     *tls.Config // nil for plain HTTP
	ca      []byte      // PEM CA of the serving certificate, nil for plain HTTP

	// mu guards the fields below.
	mu     sync.Mutex
	hs     *http.Server
	url    string
	closed bool
}

// Options configure a [Front].
type Options struct {
	// TLS serves HTTPS with a fresh self-signed certificate (see
	// [SelfSignedTLS]) for loopback and Hosts.
	TLS bool
	// Hosts are the names and addresses, besides loopback, that the
	// certificate covers: the Host allowlist of the server. Without TLS,
	// unused.
	Hosts []string
	// ClientCAs, when set, makes the TLS handshake ask for a client
	// certificate issued by one of them, as kube-apiserver does with a
	// --client-ca-file (apiserver pkg/server/secure_serving.go:
	// RequestClientCert, the CAs named in the request); the handshake
	// verifies nothing, the server's authenticator does. Without TLS,
	// unused.
	ClientCAs *x509.CertPool
	// CertFile and KeyFile, when set, serve HTTPS with the certificate
	// chain and private key in these PEM files (see [CertificateFiles])
	// instead of a self-signed certificate, whatever TLS says. Both or
	// neither.
	CertFile, KeyFile string
}

// NewFront returns a front for handler, loading or making its certificate
// when it serves HTTPS.
func NewFront(handler http.Handler, o Options) (*Front, error) {
	f := &Front{handler: handler}
	var err error
	switch {
	case o.CertFile != "" || o.KeyFile != "":
		f.tls, f.ca, err = CertificateFiles(o.CertFile, o.KeyFile)
	case o.TLS:
		f.tls, f.ca, err = SelfSignedTLS(o.Hosts)
	}
	if err != nil {
		return nil, err
	}
	// Client CAs apply to a loaded certificate as to a made one.
	if f.tls != nil && o.ClientCAs != nil {
		f.tls.ClientAuth, f.tls.ClientCAs = tls.RequestClientCert, o.ClientCAs
	}
	return f, nil
}

// CA is the PEM that clients must trust to reach the front over TLS, nil
// for plain HTTP: the self-signed CA, or the certificate chain of
// [Options.CertFile]. The caller must not modify it.
func (f *Front) CA() []byte { return f.ca }

// Serve accepts connections on ln until Close and returns ErrClosed then;
// any other error is the listener's. The URL is known before the first
// Accept (see [Background]).
func (f *Front) Serve(ln net.Listener) error {
	f.mu.Lock()
	if f.closed {
		f.mu.Unlock()
		return ErrClosed
	}
	scheme := "http"
	if f.tls != nil {
		scheme = "https"
	}
	hs := newServer(f.handler, f.tls)
	f.hs = hs
	f.url = fmt.Sprintf("%s://%s", scheme, ln.Addr().String())
	f.mu.Unlock()
	var err error
	if f.tls != nil {
		// ServeTLS offers h2 and http/1.1 by ALPN (hs.Protocols) on a
		// clone of the config; the certificate is the config's.
		err = hs.ServeTLS(ln, "", "")
	} else {
		err = hs.Serve(ln)
	}
	if !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return ErrClosed
}

// URL is the base URL the front serves at ("" before Serve).
func (f *Front) URL() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.url
}

// Close closes the listener and every connection at once (a graceful
// Shutdown would wait for connections clients opened but never used, and
// for watch streams). Handlers still running are the owner's to end. It is
// safe to call more than once.
func (f *Front) Close() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return nil
	}
	f.closed = true
	if f.hs == nil {
		return nil
	}
	return f.hs.Close()
}
