package fakeapiserver

import (
	"io"
	"net"
	"net/http"
	"testing"
)

// BenchmarkOpenAPIV2First measures a fresh default server's first GET of
// /openapi/v2 (server start and close excluded), in protobuf (what kubectl
// asks for first: apply, create and explain validate against it) and in
// JSON, gzipped (as client-go asks; the body is read, not decompressed,
// so the client's share is left out) or not. What is done once per
// process is paid by the first iteration only; run with -benchtime=1x in
// a fresh process to see it too.
func BenchmarkOpenAPIV2First(b *testing.B) {
	for _, bc := range []struct{ name, accept, encoding string }{
		{"protobuf-gzip", "application/com.github.proto-openapi.spec.v2@v1.0+protobuf", "gzip"},
		{"protobuf-identity", "application/com.github.proto-openapi.spec.v2@v1.0+protobuf", "identity"},
		{"json-gzip", "application/json", "gzip"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				b.StopTimer()
				srv, err := New(Config{})
				if err != nil {
					b.Fatalf("New: %v", err)
				}
				ln, err := net.Listen("tcp", "127.0.0.1:0")
				if err != nil {
					b.Fatalf("Listen: %v", err)
				}
				done := srv.ServeBackground(ln)
				tr := &http.Transport{}
				req, err := http.NewRequest(http.MethodGet, srv.URL()+"/openapi/v2", nil)
				if err != nil {
					b.Fatalf("NewRequest: %v", err)
				}
				req.Header.Set("Accept", bc.accept)
				req.Header.Set("Accept-Encoding", bc.encoding)
				b.StartTimer()
				resp, err := tr.RoundTrip(req)
				if err != nil {
					b.Fatalf("GET /openapi/v2: %v", err)
				}
				n, err := io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if err != nil || resp.StatusCode != http.StatusOK || n == 0 {
					b.Fatalf("GET /openapi/v2 = %d, %d bytes, %v", resp.StatusCode, n, err)
				}
				b.StopTimer()
				tr.CloseIdleConnections()
				if err := srv.Close(); err != nil {
					b.Fatalf("Close: %v", err)
				}
				if err := <-done; err != nil {
					b.Fatalf("Serve: %v", err)
				}
				b.StartTimer()
			}
		})
	}
}
