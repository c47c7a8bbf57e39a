package serving

import (
	"crypto/tls"
	"net/http"
)

// HTTP/2 settings of kube-apiserver's secure serving (apiserver
// pkg/server/secure_serving.go Serve, without --http2-max-streams-per-connection).
const (
	// h2MaxConcurrentStreams is the streams a client may have open on one
	// connection: kube-apiserver's default, matching the initial limit
	// golang.org/x/net/http2 clients assume. client-go opens a further
	// connection when all of its connections are at the limit.
	h2MaxConcurrentStreams = 100
	// h2ResourceBody99Percentile is kube-apiserver's per-stream receive
	// window and largest frame read: "at least 99% of serialized resources
	// in surveyed clusters were smaller than 256kb".
	h2ResourceBody99Percentile = 256 << 10
)

// newServer is the http.Server of a front serving handler: HTTPS when
// tlsConfig is set, offering HTTP/2 (by ALPN) and HTTP/1.1 as
// kube-apiserver does, with its HTTP/2 settings; plain HTTP/1.1 otherwise
// (kube-apiserver serves no h2c, and client-go speaks HTTP/1.1 to an http
// URL). The server reads no idle or write timeouts besides the header
// one: watches live as long as their own deadlines say.
func newServer(handler http.Handler, tlsConfig *tls.Config) *http.Server {
	hs := &http.Server{Handler: handler, ReadHeaderTimeout: readHeaderTimeout}
	if tlsConfig == nil {
		return hs
	}
	var protocols http.Protocols
	protocols.SetHTTP1(true)
	protocols.SetHTTP2(true)
	hs.Protocols = &protocols
	hs.TLSConfig = tlsConfig
	hs.HTTP2 = &http.HTTP2Config{
		MaxConcurrentStreams:      h2MaxConcurrentStreams,
		MaxReadFrameSize:          h2ResourceBody99Percentile,
		MaxReceiveBufferPerStream: h2ResourceBody99Percentile,
		// Every stream may fill its window at once.
		MaxReceiveBufferPerConnection: h2ResourceBody99Percentile * h2MaxConcurrentStreams,
	}
	return hs
}
