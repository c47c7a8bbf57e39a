package faultproxy

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/lw-sim/lw-sim/faults"
	"github.com/lw-sim/lw-sim/internal/kubewire"
)

// maxListBody bounds a LIST body the proxy buffers to read its continue
// token and RV (kube-apiserver's own response limit is far larger, but a
// test cluster's pages are small).
const maxListBody = 256 << 20

// hopHeaders are the hop-by-hop headers a proxy must not forward (RFC 9110
// 7.6.1), plus Authorization, which the upstream credentials replace.
var hopHeaders = []string{"Connection", "Keep-Alive", "Proxy-Authenticate", "Proxy-Authorization", "Te", "Trailer", "Transfer-Encoding", "Upgrade", "Authorization"}

// serveHTTP is the proxy: control API, request faults, the instance
// faults (instance.go), then forwarding.
func (p *Proxy) serveHTTP(w http.ResponseWriter, r *http.Request) {
	if p.control != nil && faults.IsControlPath(r.URL.Path) {
		p.control.ServeHTTP(w, r)
		return
	}
	if strings.Trim(p.upstream.Path, "/") != "" && hasDotSegment(r.URL.Path) {
		kubewire.WriteStatus(w, errDotSegments) // guard.go
		return
	}
	info := faults.ParseRequest(r)
	ctx, out := p.inj.Request(r.Context(), info)
	r = r.WithContext(ctx)
	if out.Fail != nil {
		kubewire.WriteStatus(w, out.Fail)
		return
	}
	if p.inst.isPartitioned() && delegatesToStorage(r, info) {
		kubewire.WriteStatus(w, errStorageUnreachable()) // instance.go
		return
	}
	// A watch takes the restart channel before the floor check: a restart
	// in between ends it at once, and its client's re-watch gets the 410.
	restarted := p.inst.restartedChan()
	if err := p.inst.expiredWatch(info); err != nil {
		writeWatchError(w, err)
		return
	}
	if err := p.tooLargeRV(ctx, info); err != nil {
		kubewire.WriteStatus(w, err)
		return
	}
	if info.Verb == "watch" {
		p.serveWatch(w, r, info, restarted)
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

// continueRV reads the RV of a continue token; 0 for a token that is not
// one (the upstream answers it with its 400).
func continueRV(token string) int64 {
	c, _ := kubewire.ParseContinue(token)
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
	if info.Verb == "watch" {
		// And uncompressed: kube-apiserver gzips a watch-list stream
		// (sendInitialEvents) for a client that accepts gzip, as
		// client-go does, and the frame reader would read the gzip
		// bytes as no frame at all, ending the stream empty.
		out.Header.Del("Accept-Encoding")
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
		kubewire.WriteStatus(w, badGateway(err))
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
	if err == nil && resp.StatusCode == http.StatusOK {
		p.noteList(r.Context(), body)
	}
	w.WriteHeader(resp.StatusCode)
	if err != nil || cut {
		// An upstream cut is cut for the client too, as is a CutList's.
		kubewire.Cut(w, body)
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
