package watchcheck

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/lw-sim/lw-sim/internal/kubewire"
)

// Transport records every JSON watch response that goes through it, as a
// [Stream] per request: install it with rest.Config.WrapTransport =
// t.Wrap, and set rest.Config.ContentType (and AcceptContentTypes) to
// "application/json", since only JSON streams are decoded. A frame cut in
// half (a reset mid-event) is not an event and is not recorded, as a
// client cannot decode it either; nor is anything after a frame that does
// not decode, where the client's watch ends.
type Transport struct {
	// mu guards the fields below.
	mu      sync.Mutex
	streams []*recording
	skipped int
}

// recording is one watch response being recorded.
type recording struct {
	// mu guards the fields below.
	mu     sync.Mutex
	stream Stream
	// buf holds the bytes read since the last whole frame.
	buf []byte
	// broken is set once a frame did not decode: the client's watch ends
	// there, and so does the recording.
	broken bool
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
	if err != nil || resp.StatusCode != http.StatusOK {
		return resp, err
	}
	info, err := kubewire.NewRequestInfo(req)
	if err != nil || info.Verb != "watch" {
		return resp, nil
	}
	s, ok := streamOf(req, info)
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

// streamOf reads the parameters of a watch request, whose path info is
// what kube-apiserver's RequestInfoFactory reads (kubewire); ok is false
// for parameters that do not parse.
func streamOf(req *http.Request, info kubewire.RequestInfo) (Stream, bool) {
	q := req.URL.Query()
	s := Stream{Name: req.URL.RequestURI(), Namespace: info.Namespace, Resource: info.Resource}
	if info.Group != "" {
		s.Resource += "." + info.Group
	}
	switch len(info.Parts) {
	case 1:
	case 2:
		// A watch of one object by its path: kube-apiserver selects it
		// with a metadata.name field selector (a conflicting one in the
		// query is a 400, never recorded).
		s.FieldSelector = fields.OneTermEqualSelector("metadata.name", info.Parts[1])
	default:
		return s, false
	}
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
	if v := q.Get("fieldSelector"); v != "" {
		sel, err := fields.ParseSelector(v)
		if err != nil {
			return s, false
		}
		if s.FieldSelector != nil {
			sel = fields.AndSelectors(s.FieldSelector, sel)
		}
		s.FieldSelector = sel
	}
	return s, true
}

// teeBody records the frames of a watch response as the client reads
// them.
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

// add takes bytes the client has just read and records the frames they
// complete. kube-apiserver ends every JSON frame with a newline, so only a
// read that brings one can complete a frame; the bytes up to the last
// newline then go through kubewire's frame reader, and what it has not
// consumed (a frame still arriving) waits for the next read. A
// FrameReader cannot simply sit on the body: the client, not the
// recorder, pulls the bytes, and a reader that hits the end of what has
// been read so far stops for good, so each batch gets a reader of its
// own. A frame that does not decode ends the recording, as it ends the
// client's watch (client-go's StreamWatcher stops at a decode error).
func (r *recording) add(data []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.broken {
		return
	}
	r.buf = append(r.buf, data...)
	end := bytes.LastIndexByte(r.buf, '\n') + 1
	if end == 0 {
		return
	}
	consumed, err := r.record(r.buf[:end])
	if err != nil {
		r.broken, r.buf = true, nil
		return
	}
	r.buf = append(r.buf[:0], r.buf[consumed:]...)
}

// record appends the events of the whole frames in b and returns how many
// bytes they took: all of b but a frame cut short at its end. The error
// is that of a frame that does not decode.
func (r *recording) record(b []byte) (int, error) {
	frames := kubewire.NewFrameReader(bytes.NewReader(b))
	consumed := 0
	for {
		f, err := frames.Next()
		switch {
		case errors.Is(err, io.EOF):
			// Only whitespace (the last newline) is left.
			return len(b), nil
		case errors.Is(err, io.ErrUnexpectedEOF):
			return consumed, nil
		case err != nil:
			return consumed, err
		}
		consumed += f.Size
		if e, ok := eventOf(f, r.stream.FieldSelector); ok {
			r.stream.Events = append(r.stream.Events, e)
		}
	}
}

// eventOf returns the event a frame carries; ok is false for an object
// that does not decode or a resourceVersion that is not a number, which
// the recording skips. Its fields are the built-in kinds' labels and the
// keys of the stream's own field selector (a custom resource's).
func eventOf(f kubewire.Frame, sel fields.Selector) (Event, bool) {
	var o map[string]any
	if err := json.Unmarshal(f.Object, &o); err != nil {
		return Event{}, false
	}
	typ := watch.EventType(f.Type)
	if typ == watch.Error {
		code, _ := o["code"].(float64)
		return Event{Type: typ, Code: int32(code)}, true
	}
	md, _ := o["metadata"].(map[string]any)
	str := func(k string) string { v, _ := md[k].(string); return v }
	strs := func(k string) map[string]string {
		m, _ := md[k].(map[string]any)
		if m == nil {
			return nil
		}
		out := make(map[string]string, len(m))
		for k, v := range m {
			out[k], _ = v.(string)
		}
		return out
	}
	e, err := fromMeta(typ, str("namespace"), str("name"), str("uid"), str("resourceVersion"), strs("labels"), strs("annotations"))
	if err != nil {
		return Event{}, false
	}
	if typ != watch.Bookmark {
		var extra []string
		if sel != nil {
			for _, r := range sel.Requirements() {
				if !strings.HasPrefix(r.Field, "metadata.") {
					extra = append(extra, r.Field)
				}
			}
		}
		e.Fields = FieldsOf(o, extra...)
	}
	return e, true
}
