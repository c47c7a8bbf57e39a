package faultproxy

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/lw-sim/lw-sim/internal/faults"
)

// maxListBody bounds a LIST body the proxy buffers to read its continue
// token and RV (kube-apiserver's own response limit is far larger, but a
// test cluster's pages are small).
const maxListBody = 256 << 20

// hopHeaders are the hop-by-hop headers a proxy must not forward (RFC 9110
// 7.6.1), plus Authorization, which the upstream credentials replace.
var hopHeaders = []string{"Connection", "Keep-Alive", "Proxy-Authenticate", "Proxy-Authorization", "Te", "Trailer", "Transfer-Encoding", "Upgrade", "Authorization"}

// serveHTTP is the proxy: control API, request faults, then forwarding.
func (p *Proxy) serveHTTP(w http.ResponseWriter, r *http.Request) {
	if p.control != nil && faults.IsControlPath(r.URL.Path) {
		p.control.ServeHTTP(w, r)
		return
	}
	info := faults.ParseRequest(r)
	ctx, out := p.inj.Request(r.Context(), info)
	r = r.WithContext(ctx)
	if out.Fail != nil {
		faults.WriteStatus(w, out.Fail)
		return
	}
	if err := p.tooLargeRV(ctx, info); err != nil {
		faults.WriteStatus(w, err)
		return
	}
	if info.Verb == "watch" {
		p.serveWatch(w, r, info)
		return
	}
	p.forward(w, r, info, out.CutList)
}

// tooLargeRV applies TooLargeRV faults to the reads the watch cache checks:
// GET and LIST with a resourceVersion or continue token, and watch-list.
func (p *Proxy) tooLargeRV(ctx context.Context, info faults.RequestInfo) error {
	if info.Verb != "get" && info.Verb != "list" && !(info.Verb == "watch" && info.SendInitialEvents) {
		return nil
	}
	rv, _ := strconv.ParseInt(info.ResourceVersion, 10, 64)
	if info.Continue != "" {
		rv = continueRV(info.Continue)
	}
	return p.inj.TooLargeRV(ctx, rv)
}

// continueRV reads the RV of a continue token (apiserver
// pkg/storage/continue.go: base64 JSON {"v":...,"rv":N,"start":...}).
func continueRV(token string) int64 {
	raw, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(token, "="))
	if err != nil {
		return 0
	}
	var c struct {
		RV int64 `json:"rv"`
	}
	_ = json.Unmarshal(raw, &c)
	return c.RV
}

// upstreamRequest turns r into the request to the apiserver.
func (p *Proxy) upstreamRequest(r *http.Request, info faults.RequestInfo) *http.Request {
	out := r.Clone(r.Context())
	u := *p.upstream
	u.Path = strings.TrimSuffix(p.upstream.Path, "/") + r.URL.Path
	u.RawPath = ""
	u.RawQuery = r.URL.RawQuery
	out.URL, out.Host, out.RequestURI = &u, "", ""
	for _, h := range hopHeaders {
		out.Header.Del(h)
	}
	stripCallerCredentials(out.Header) // guard.go
	if info.Verb == "list" || info.Verb == "watch" {
		if a := out.Header.Get("Accept"); strings.Contains(a, "protobuf") || strings.Contains(a, "cbor") {
			// Watch events must be JSON for the proxy to frame them.
			out.Header.Set("Accept", "application/json")
		}
	}
	return out
}

// copyHeader copies an upstream response's end-to-end headers.
func copyHeader(dst, src http.Header) {
	for k, vs := range src {
		dst[k] = append([]string(nil), vs...)
	}
	for _, h := range hopHeaders {
		dst.Del(h)
	}
}

// forward proxies a request that is not a watch. A LIST body is buffered to
// note its continue token and RV, and cut when a CutList fault says so.
func (p *Proxy) forward(w http.ResponseWriter, r *http.Request, info faults.RequestInfo, cut bool) {
	resp, err := p.transport.RoundTrip(p.upstreamRequest(r, info))
	if err != nil {
		faults.WriteStatus(w, badGateway(err))
		return
	}
	defer resp.Body.Close()
	copyHeader(w.Header(), resp.Header)
	if info.Verb != "list" {
		w.WriteHeader(resp.StatusCode)
		_, _ = io.Copy(w, resp.Body)
		return
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxListBody))
	if err != nil {
		// The upstream cut it: cut it for the client too.
		w.WriteHeader(resp.StatusCode)
		faults.WriteTruncated(w, body)
		faults.Abort(w)
	}
	if resp.StatusCode == http.StatusOK {
		p.noteList(r.Context(), body)
	}
	w.WriteHeader(resp.StatusCode)
	if cut {
		faults.WriteTruncated(w, body)
		faults.Abort(w)
	}
	_, _ = w.Write(body)
}

// noteList reads a JSON list's metadata: its RV and continue token.
func (p *Proxy) noteList(ctx context.Context, body []byte) {
	var l struct {
		Metadata struct {
			ResourceVersion string `json:"resourceVersion"`
			Continue        string `json:"continue"`
		} `json:"metadata"`
	}
	if json.Unmarshal(body, &l) != nil {
		return
	}
	if rv, err := strconv.ParseInt(l.Metadata.ResourceVersion, 10, 64); err == nil {
		p.observeRV(rv)
	}
	p.inj.NoteContinue(ctx, l.Metadata.Continue)
}

// badGateway is the Status for an upstream that could not be reached.
func badGateway(err error) error {
	return apierrors.NewGenericServerResponse(http.StatusBadGateway, "", schemaEmpty, "", fmt.Sprintf("lw-sim proxy: upstream: %v", err), 0, false)
}

// watchEvent is what the proxy reads of a JSON watch event.
type watchEvent struct {
	Type   string `json:"type"`
	Object struct {
		Metadata struct {
			ResourceVersion string            `json:"resourceVersion"`
			Annotations     map[string]string `json:"annotations"`
		} `json:"metadata"`
	} `json:"object"`
}

// idleCutFrame is written, truncated, when a stream is cut while idle.
var idleCutFrame = []byte(`{"type":"MODIFIED","object":{"kind":"Status","apiVersion":"v1","metadata":{}}}` + "\n")

// serveWatch proxies a watch stream event by event, through the stream
// faults. Ending the stream cancels the upstream request.
func (p *Proxy) serveWatch(w http.ResponseWriter, r *http.Request, info faults.RequestInfo) {
	ctx, st := p.inj.OpenStream(r.Context(), info)
	defer st.Close()
	resp, err := p.transport.RoundTrip(p.upstreamRequest(r.WithContext(ctx), info))
	if err != nil {
		faults.WriteStatus(w, badGateway(err))
		return
	}
	defer resp.Body.Close()
	copyHeader(w.Header(), resp.Header)
	w.WriteHeader(resp.StatusCode)
	rc := http.NewResponseController(w)
	_ = rc.Flush()
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
		copyFlushing(w, rc, resp.Body)
		return
	}
	if p.relayEvents(ctx, w, rc, st, resp.Body) {
		return
	}
	if errors.Is(context.Cause(ctx), faults.ErrStreamFault) {
		switch st.Finish() {
		case faults.Cut:
			faults.WriteTruncated(w, idleCutFrame)
			faults.Abort(w)
		case faults.Hang:
			st.Hang()
		}
	}
}

// relayEvents copies events until the upstream ends or a fault stops the
// stream; it reports whether a fault already did all there was to do.
func (p *Proxy) relayEvents(ctx context.Context, w http.ResponseWriter, rc *http.ResponseController, st *faults.Stream, body io.Reader) bool {
	dec := json.NewDecoder(body)
	for {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return false
		}
		var ev watchEvent
		_ = json.Unmarshal(raw, &ev)
		rv, _ := strconv.ParseInt(ev.Object.Metadata.ResourceVersion, 10, 64)
		if ev.Type != "ERROR" && rv > 0 {
			p.observeRV(rv)
		}
		frame := append(bytes.Clone(raw), '\n')
		fe := faults.Event{Type: ev.Type, RV: rv, InitialEventsEnd: ev.Object.Metadata.Annotations["k8s.io/initial-events-end"] == "true"}
		switch st.BeforeEvent(ctx, fe) {
		case faults.Send:
			if _, err := w.Write(frame); err != nil || rc.Flush() != nil {
				return true
			}
		case faults.Skip:
		case faults.Cut:
			faults.WriteTruncated(w, frame)
			faults.Abort(w)
		case faults.Hang:
			st.Hang()
			return true
		case faults.End:
			return true
		}
	}
}

// copyFlushing copies a stream the proxy does not frame, flushing as it
// goes.
func copyFlushing(w io.Writer, rc *http.ResponseController, body io.Reader) {
	buf := make([]byte, 32<<10)
	for {
		n, err := body.Read(buf)
		if n > 0 {
			if _, werr := w.Write(buf[:n]); werr != nil || rc.Flush() != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}
