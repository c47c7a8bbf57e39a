package fakeapiserver

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/lw-sim/lw-sim/fakeapiserver/store"
)

// outEvent is one event on its way to a client.
type outEvent struct {
	typ watch.EventType
	obj runtime.Object
	// rv names the encoding in the shared cache (see encodeKey); unused
	// for ERROR events, which are never cached.
	rv         int64
	initialEnd bool
	// enc is obj's encoding cache when obj is a stored version (or a
	// delete's copy), nil otherwise (bookmarks, errors, restamped objects).
	enc *store.Encodings
}

// eventWriter is the one send path of a watch stream: it encodes an event
// in the negotiated framing (or takes the shared encoding of it) and writes
// it; flush pushes a batch to the client, so the client sees each event as
// it happens.
type eventWriter struct {
	s       *Server
	hub     *watchHub
	res     *resourceInfo
	out     outputType
	include metav1.IncludeObjectPolicy
	// frames frames events into batch; w is the response they go out on.
	frames io.Writer
	batch  eventBatch
	w      http.ResponseWriter
	rc     *http.ResponseController
	// deadline is the write deadline: the slow-consumer one, and the end
	// of the watch (watch_deadline.go); nil-safe.
	deadline *writeDeadline
	// faults is the stream's fault hook (faults_watch.go); nil-safe.
	faults *watchFaults
}

// beginStream writes the 200 and the headers and flushes them, so the
// client's Watch() returns before any event (handlers/watch.go BeginStream).
func (s *Server) beginStream(ctx context.Context, req *request, out outputType, p listParams) (*watchStream, error) {
	rc := http.NewResponseController(req.w)
	h := req.w.Header()
	h.Set("Content-Type", watchContentType(out))
	h.Set("Transfer-Encoding", "chunked")
	req.w.WriteHeader(http.StatusOK)
	if err := rc.Flush(); err != nil {
		return nil, fmt.Errorf("flush watch headers: %w", err)
	}
	enc := &eventWriter{
		s: s, hub: s.watch, res: req.res, out: out, include: includeObjectParam(req.r),
		batch: eventBatch{pool: &s.watch.batches},
		w:     req.w,
		rc:    rc,
	}
	enc.frames = out.info.StreamSerializer.Framer.NewFrameWriter(&enc.batch)
	bookmarks := p.opts.AllowWatchBookmarks
	return &watchStream{s: s, ctx: ctx, req: req, p: p, enc: enc, bookmarks: bookmarks}, nil
}

// watchContentType is the stream's Content-Type: plain application/json for
// JSON even when the client asked for ;stream=watch [observed], the
// ;stream=watch form for protobuf.
func watchContentType(out outputType) string {
	if out.info.MediaType == runtime.ContentTypeJSON {
		return runtime.ContentTypeJSON
	}
	return out.info.MediaType + ";stream=watch"
}

// send writes one event, encoded once per (event, rendering) for all
// watchers of the server while it stays in the shared cache, into the
// stream's batch. It does not flush; the caller flushes at the end of a
// batch of events, which then goes out in one write (a very large batch
// goes out as it grows, without a flush).
func (e *eventWriter) send(ev outEvent) error {
	var data []byte
	var err error
	if ev.typ == watch.Error {
		data, err = e.encodeEvent(ev)
	} else {
		key := encodeKey{
			res: e.res, rv: ev.rv, typ: ev.typ, initialEnd: ev.initialEnd,
			mediaType: e.out.info.MediaType, table: e.out.table, include: e.include,
		}
		data, err = e.hub.encoded.get(key, func() ([]byte, error) { return e.encodeEvent(ev) })
	}
	if err != nil {
		return err
	}
	if skip, err := e.faults.before(ev, data); skip || err != nil { // faults_watch.go
		return err
	}
	if err := e.deadline.beforeWrite(true); err != nil { // watch_deadline.go
		return err
	}
	_, _ = e.frames.Write(data) // into the batch: never fails
	e.hub.sent.Add(1)
	if e.batch.len() >= batchWriteThrough {
		return e.drain()
	}
	return nil
}

// flush pushes what was sent to the client.
func (e *eventWriter) flush() error {
	_ = e.deadline.beforeWrite(false) // never refused
	if err := e.drain(); err != nil {
		return err
	}
	if err := e.rc.Flush(); err != nil {
		return e.writeFailed(fmt.Errorf("flush watch events: %w", err))
	}
	return nil
}

// drain hands the batch to the response in one write, without flushing.
// The write deadline is the one the last send or flush set.
func (e *eventWriter) drain() error {
	data := e.batch.bytes()
	if len(data) == 0 {
		return nil
	}
	_, err := e.w.Write(data)
	e.batch.release()
	if err != nil {
		return e.writeFailed(fmt.Errorf("write watch events: %w", err))
	}
	return nil
}

// writeFailed counts a write that failed on the slow-consumer deadline
// (not one failed because the watch ended).
func (e *eventWriter) writeFailed(err error) error {
	var ne net.Error
	if e.deadline.watchEnded() {
		return err
	}
	if errors.Is(err, os.ErrDeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()) {
		e.hub.slow.Add(1)
	}
	return err
}

// encodeEvent encodes one watch event envelope with its object.
func (e *eventWriter) encodeEvent(ev outEvent) ([]byte, error) {
	raw, err := e.objectBytes(ev)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	we := &metav1.WatchEvent{Type: string(ev.typ), Object: runtime.RawExtension{Raw: raw}}
	if err := e.out.info.StreamSerializer.Serializer.Encode(we, &buf); err != nil {
		return nil, fmt.Errorf("encode watch event: %w", err)
	}
	return buf.Bytes(), nil
}

// objectBytes is the event's object as the serializer encodes it: from
// the version's cached encoding for a built-in resource in JSON or
// protobuf, else encoded here, as a one-row Table when the client asked for
// tables (Status objects are never converted).
func (e *eventWriter) objectBytes(ev outEvent) ([]byte, error) {
	obj := ev.obj
	if _, isStatus := obj.(*metav1.Status); e.out.table && !isStatus && ev.typ != watch.Bookmark {
		table, err := e.s.toTable(e.res, []runtime.Object{obj}, metav1.ListMeta{}, e.include, false)
		if err != nil {
			return nil, err
		}
		return encode(e.out.info, table)
	}
	if ev.enc != nil && e.res.custom == nil {
		switch e.out.info.MediaType {
		case runtime.ContentTypeJSON:
			return cachedJSON(e.out.info, ev.enc, obj)
		case runtime.ContentTypeProtobuf:
			return protobufObject(ev.enc, obj)
		}
	}
	return encode(e.out.info, obj)
}
