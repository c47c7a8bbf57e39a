package bench

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// Replays measure client-go against servers that cost nothing. A paged
// LIST is recorded once through the target, byte for byte as it
// travelled, and then served again to the same typed clientset in two
// ways:
//
//   - from memory, by a RoundTripper (no server, no network): what
//     client-go spends there is its own floor (building requests, reading
//     and decompressing bodies, decoding);
//   - over loopback HTTP, by a server that does nothing but look the
//     request up and write the recorded bytes: the floor of any server
//     reached through a socket on this machine.
//
// "LIST ÷ decode" of the two replays brackets what the fake can reach: the
// gap between a live LIST and the loopback replay is what the fake itself
// adds, the gap between the two replays what the network and net/http add.

// recorded is one response as it travelled.
type recorded struct {
	status int
	header http.Header
	body   []byte // as sent: gzipped when header says so
}

// recording is a traversal's responses, by request URI (path and query).
type recording struct {
	mu   sync.Mutex
	resp map[string]recorded
}

// lookup is the response recorded for uri.
func (r *recording) lookup(uri string) (recorded, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	rec, ok := r.resp[uri]
	return rec, ok
}

// recordingTransport forwards to next with Accept-Encoding set to
// acceptEncoding ("gzip" for what Go's transport asks by default) and
// keeps each response in into, body as it travelled (an explicit
// Accept-Encoding turns off the transport's transparent gunzip); the
// caller gets the response through memoryReplay, decompressed as Go's
// transport would.
type recordingTransport struct {
	next           http.RoundTripper
	acceptEncoding string
	into           *recording
}

func (t recordingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	req.Header.Set("Accept-Encoding", t.acceptEncoding)
	resp, err := t.next.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	body, err := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if err != nil {
		return nil, fmt.Errorf("record %s: %w", req.URL, err)
	}
	t.into.mu.Lock()
	t.into.resp[req.URL.RequestURI()] = recorded{status: resp.StatusCode, header: resp.Header.Clone(), body: body}
	t.into.mu.Unlock()
	return memoryReplay{t.into}.RoundTrip(req)
}

// record pages once through ns's pods with c's typed configuration,
// asking for acceptEncoding, and returns the responses.
func record(ctx context.Context, c *clients, ns string, limit int, acceptEncoding string) (*recording, error) {
	rec := &recording{resp: map[string]recorded{}}
	next := c.http.Transport
	if next == nil {
		next = http.DefaultTransport
	}
	cs, err := kubernetes.NewForConfigAndClient(c.cfg, &http.Client{Transport: recordingTransport{next: next, acceptEncoding: acceptEncoding, into: rec}})
	if err != nil {
		return nil, fmt.Errorf("recording clientset: %w", err)
	}
	if _, err := listWith(ctx, cs, ns, limit); err != nil {
		return nil, fmt.Errorf("record: %w", err)
	}
	return rec, nil
}

// memoryReplay answers each request from a recording, decompressing a
// gzipped body as Go's transport does for a client that did not ask for
// an encoding itself: a reader that gunzips as it is read, with
// Content-Encoding and Content-Length dropped.
type memoryReplay struct{ rec *recording }

func (t memoryReplay) RoundTrip(req *http.Request) (*http.Response, error) {
	r, ok := t.rec.lookup(req.URL.RequestURI())
	if !ok {
		return nil, fmt.Errorf("replay: nothing recorded for %s", req.URL)
	}
	resp := &http.Response{StatusCode: r.status, Header: r.header.Clone(), Request: req, ProtoMajor: 1, ProtoMinor: 1,
		Body: io.NopCloser(bytes.NewReader(r.body)), ContentLength: int64(len(r.body))}
	if resp.Header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(bytes.NewReader(r.body))
		if err != nil {
			return nil, fmt.Errorf("replay %s: %w", req.URL, err)
		}
		resp.Header.Del("Content-Encoding")
		resp.Header.Del("Content-Length")
		resp.Body, resp.ContentLength, resp.Uncompressed = io.NopCloser(zr), -1, true
	}
	return resp, nil
}

// memoryClientset is a typed clientset, configured as c's, whose requests
// rec answers from memory. It is built as client-go builds any (its
// wrapper round trippers around a transport); TLS settings would be
// refused beside a custom transport, and no connection is made.
func memoryClientset(c *clients, rec *recording) (kubernetes.Interface, error) {
	cfg := rest.CopyConfig(c.cfg)
	cfg.TLSClientConfig, cfg.Dial, cfg.Transport = rest.TLSClientConfig{}, nil, memoryReplay{rec}
	hc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return nil, fmt.Errorf("replaying http client: %w", err)
	}
	return kubernetes.NewForConfigAndClient(cfg, hc)
}

// wireReplay is a loopback HTTP server that answers each request from a
// recording: a lookup and one Write of the recorded bytes, with their
// Content-Length, as the fake writes a page.
type wireReplay struct {
	rec *recording
	srv *http.Server
	ln  net.Listener
	url string
}

// startWireReplay serves rec on 127.0.0.1 until Close.
func startWireReplay(rec *recording) (*wireReplay, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("replay server: %w", err)
	}
	w := &wireReplay{rec: rec, ln: ln, url: "http://" + ln.Addr().String()}
	w.srv = &http.Server{Handler: http.HandlerFunc(func(rw http.ResponseWriter, req *http.Request) {
		r, ok := rec.lookup(req.URL.RequestURI())
		if !ok {
			http.NotFound(rw, req)
			return
		}
		h := rw.Header()
		for k, v := range r.header {
			h[k] = v
		}
		h.Set("Content-Length", strconv.Itoa(len(r.body)))
		rw.WriteHeader(r.status)
		_, _ = rw.Write(r.body)
	})}
	go func() { _ = w.srv.Serve(ln) }() // ends with Close
	return w, nil
}

// Close stops the server and its connections.
func (w *wireReplay) Close() error {
	if err := w.srv.Close(); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// wireClientset is a typed clientset, configured as c's but reaching w
// over plain HTTP, asking for gzip as client-go does by default when
// acceptEncoding is empty, for acceptEncoding otherwise.
func wireClientset(c *clients, w *wireReplay, acceptEncoding string) (kubernetes.Interface, error) {
	cfg := rest.CopyConfig(c.cfg)
	cfg.Host, cfg.TLSClientConfig, cfg.Dial, cfg.Transport = w.url, rest.TLSClientConfig{}, nil, nil
	cfg.BearerToken, cfg.BearerTokenFile, cfg.Username, cfg.Password = "", "", "", ""
	hc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return nil, fmt.Errorf("replay http client: %w", err)
	}
	if acceptEncoding != "" {
		hc = identityClient(hc)
	}
	return kubernetes.NewForConfigAndClient(cfg, hc)
}

// replaySet is the four replaying clientsets of a traversal: from memory
// and over loopback, each asking for gzip (client-go's default) and for
// identity, and the servers to close after.
type replaySet struct {
	memoryZipped, memoryPlain, wireZipped, wirePlain kubernetes.Interface
	servers                                          []*wireReplay
}

// newReplaySet records ns's pods through c twice (gzip and identity) and
// builds the replaying clientsets.
func newReplaySet(ctx context.Context, c *clients, ns string, limit int) (*replaySet, error) {
	zipped, err := record(ctx, c, ns, limit, "gzip")
	if err != nil {
		return nil, err
	}
	plain, err := record(ctx, c, ns, limit, "identity")
	if err != nil {
		return nil, err
	}
	set := &replaySet{}
	if set.memoryZipped, err = memoryClientset(c, zipped); err != nil {
		return nil, err
	}
	if set.memoryPlain, err = memoryClientset(c, plain); err != nil {
		return nil, err
	}
	for _, r := range []struct {
		rec *recording
		enc string
		cs  *kubernetes.Interface
	}{{zipped, "", &set.wireZipped}, {plain, "identity", &set.wirePlain}} {
		w, err := startWireReplay(r.rec)
		if err != nil {
			return nil, errors.Join(err, set.Close())
		}
		set.servers = append(set.servers, w)
		if *r.cs, err = wireClientset(c, w, r.enc); err != nil {
			return nil, errors.Join(err, set.Close())
		}
	}
	return set, nil
}

// Close stops the loopback replay servers.
func (s *replaySet) Close() error {
	var errs []error
	for _, w := range s.servers {
		errs = append(errs, w.Close())
	}
	return errors.Join(errs...)
}
