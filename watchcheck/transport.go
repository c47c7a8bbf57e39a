package watchcheck

import (
	"bytes"
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/watch"
)

// Transport records every JSON watch response that goes through it, as a
// [Stream] per request: install it with rest.Config.WrapTransport =
// t.Wrap, and set rest.Config.ContentType (and AcceptContentTypes) to
// "application/json", since only JSON streams are decoded. A frame cut in
// half (a reset mid-event) is not an event and is not recorded, as a
// client cannot decode it either.
type Transport struct {
	// mu guards the fields below.
	mu      sync.Mutex
	streams []*recording
	skipped int
}

type recording struct {
	mu     sync.Mutex
	stream Stream
	buf    []byte
}

// Wrap returns rt with recording; its signature fits
// rest.Config.WrapTransport.
func (t *Transport) Wrap(rt http.RoundTripper) http.RoundTripper {
	return roundTripper{t: t, next: rt}
}

// Streams returns a copy of every stream recorded so far, in the order
// they were opened.
func (t *Transport) Streams() []Stream {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]Stream, 0, len(t.streams))
	for _, r := range t.streams {
		r.mu.Lock()
		s := r.stream
		s.Events = append([]Event(nil), s.Events...)
		r.mu.Unlock()
		out = append(out, s)
	}
	return out
}

// Skipped counts the watch responses that could not be recorded (not
// JSON, or a request whose parameters did not parse).
func (t *Transport) Skipped() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.skipped
}

type roundTripper struct {
	t    *Transport
	next http.RoundTripper
}

func (rt roundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := rt.next.RoundTrip(req)
	if err != nil || resp.StatusCode != http.StatusOK || !isWatch(req) {
		return resp, err
	}
	s, ok := streamOf(req)
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	rt.t.mu.Lock()
	defer rt.t.mu.Unlock()
	if !ok || mt != "application/json" {
		rt.t.skipped++
		return resp, nil
	}
	r := &recording{stream: s}
	rt.t.streams = append(rt.t.streams, r)
	resp.Body = &teeBody{ReadCloser: resp.Body, r: r}
	return resp, nil
}

func isWatch(req *http.Request) bool {
	q := req.URL.Query()
	return q.Get("watch") == "true" || q.Get("watch") == "1" || strings.Contains(req.URL.Path, "/watch/")
}

// streamOf reads a watch request's parameters.
func streamOf(req *http.Request) (Stream, bool) {
	q := req.URL.Query()
	s := Stream{Name: req.URL.RequestURI()}
	if v := q.Get("resourceVersion"); v != "" {
		rv, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return s, false
		}
		s.StartRV = rv
	}
	// RV "" or "0" without sendInitialEvents=false gets initial events
	// (synthetic ADDED for the state it starts at; the end bookmark only
	// with sendInitialEvents=true and allowWatchBookmarks).
	s.InitialEvents = q.Get("sendInitialEvents") == "true" || (s.StartRV == 0 && q.Get("sendInitialEvents") != "false")
	if v := q.Get("labelSelector"); v != "" {
		sel, err := labels.Parse(v)
		if err != nil {
			return s, false
		}
		s.Selector = sel
	}
	parts := strings.Split(strings.Trim(strings.Replace(req.URL.Path, "/watch/", "/", 1), "/"), "/")
	for i := 0; i+1 < len(parts); i++ {
		if parts[i] == "namespaces" && i+2 < len(parts) {
			s.Namespace = parts[i+1]
			parts = append(parts[:i], parts[i+2:]...)
			break
		}
	}
	// /api/v1/RES or /apis/GROUP/VERSION/RES.
	switch {
	case len(parts) == 3 && parts[0] == "api":
		s.Resource = parts[2]
	case len(parts) == 4 && parts[0] == "apis":
		s.Resource = parts[3] + "." + parts[1]
	default:
		return s, false
	}
	return s, true
}

// teeBody records each complete frame (a JSON object ending in a
// newline) as it is read.
type teeBody struct {
	io.ReadCloser
	r *recording
}

func (b *teeBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if n > 0 {
		b.r.add(p[:n])
	}
	return n, err
}

func (r *recording) add(data []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.buf = append(r.buf, data...)
	for {
		nl := bytes.IndexByte(r.buf, '\n')
		if nl < 0 {
			return
		}
		frame := r.buf[:nl]
		r.buf = r.buf[nl+1:]
		if e, ok := decodeFrame(frame); ok {
			r.stream.Events = append(r.stream.Events, e)
		}
	}
}

// frame is a JSON watch event as metav1.WatchEvent carries it.
type frame struct {
	Type   watch.EventType `json:"type"`
	Object struct {
		Code     int32 `json:"code"`
		Metadata struct {
			Name            string            `json:"name"`
			Namespace       string            `json:"namespace"`
			UID             string            `json:"uid"`
			ResourceVersion string            `json:"resourceVersion"`
			Labels          map[string]string `json:"labels"`
			Annotations     map[string]string `json:"annotations"`
		} `json:"metadata"`
	} `json:"object"`
}

func decodeFrame(b []byte) (Event, bool) {
	if len(bytes.TrimSpace(b)) == 0 {
		return Event{}, false
	}
	var f frame
	if err := json.Unmarshal(b, &f); err != nil {
		return Event{}, false
	}
	if f.Type == watch.Error {
		return Event{Type: f.Type, Code: f.Object.Code}, true
	}
	m := f.Object.Metadata
	e, err := fromMeta(f.Type, m.Namespace, m.Name, m.UID, m.ResourceVersion, m.Labels, m.Annotations)
	return e, err == nil
}
