package serving

import (
	"bytes"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestSelfSignedTLSNames: the certificate covers loopback and the hosts,
// IP addresses as IP SANs and names as DNS SANs; "*" is no name.
func TestSelfSignedTLSNames(t *testing.T) {
	t.Parallel()
	_, caPEM, err := SelfSignedTLS([]string{"dev.example", "*", "192.0.2.7", ""})
	if err != nil {
		t.Fatal(err)
	}
	block, _ := pem.Decode(caPEM)
	cert, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	// GenerateSelfSignedCertKey adds its host (localhost) to the names.
	if diff := cmp.Diff([]string{"dev.example", "localhost"}, slices.Compact(slices.Sorted(slices.Values(cert.DNSNames)))); diff != "" {
		t.Errorf("DNS SANs mismatch (-want +got):\n%s", diff)
	}
	var ips []string
	for _, ip := range cert.IPAddresses {
		ips = append(ips, ip.String())
	}
	if diff := cmp.Diff([]string{"127.0.0.1", "::1", "192.0.2.7"}, ips); diff != "" {
		t.Errorf("IP SANs mismatch (-want +got):\n%s", diff)
	}
}

// TestFront serves over real HTTP, knows its URL, and after Close stops
// Serve (Background's result is nil) and refuses a new Serve.
func TestFront(t *testing.T) {
	t.Parallel()
	f, err := NewFront(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "ok") }), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if f.CA() != nil {
		t.Errorf("CA() of a plain HTTP front = %q, want nil", f.CA())
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := Background(ln, f.Serve, ErrClosed)
	if want := "http://" + ln.Addr().String(); f.URL() != want {
		t.Errorf("URL() = %q, want %q", f.URL(), want)
	}
	resp, err := http.Get(f.URL())
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(body) != "ok" {
		t.Errorf("GET = %q, want ok", body)
	}
	if err := f.Close(); err != nil {
		t.Errorf("Close = %v", err)
	}
	if err := <-done; err != nil {
		t.Errorf("Background result after Close = %v, want nil", err)
	}
	if err := f.Serve(ln); !errors.Is(err, ErrClosed) {
		t.Errorf("Serve after Close = %v, want ErrClosed", err)
	}
}

// TestLogRequests: one line with method, URI, status and duration at debug
// level; no wrapper at all when the logger is above debug.
func TestLogRequests(t *testing.T) {
	t.Parallel()
	next := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusTeapot) })
	var buf bytes.Buffer
	h := LogRequests(slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug})), next)
	srv := &http.Server{Handler: h}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := Background(ln, srv.Serve, http.ErrServerClosed)
	resp, err := http.Get("http://" + ln.Addr().String() + "/x?y=1")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	// The response may arrive before the handler returns and logs;
	// Shutdown waits for active connections to go idle, so the line is
	// written before the read below.
	if err := srv.Shutdown(t.Context()); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if line := buf.String(); !strings.Contains(line, "msg=request method=GET uri=\"/x?y=1\" status=418 duration=") || strings.Count(line, "\n") != 1 {
		t.Errorf("request log = %q, want one line with method, URI, status 418 and duration", line)
	}

	quiet := slog.New(slog.NewTextHandler(io.Discard, nil)) // info level
	if got := LogRequests(quiet, teapot{}); got != (teapot{}) {
		t.Errorf("LogRequests at info level = %T, want the handler itself", got)
	}
}

// teapot is a comparable handler.
type teapot struct{}

func (teapot) ServeHTTP(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusTeapot) }
