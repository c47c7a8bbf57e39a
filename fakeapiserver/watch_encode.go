package fakeapiserver

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
)

// eventWriter is the one send path of a watch stream: it encodes an event
// in the negotiated framing, writes it and flushes, so the client sees each
// event as it happens.
type eventWriter struct {
	s       *Server
	res     *resourceInfo
	out     outputType
	include metav1.IncludeObjectPolicy
	frames  io.Writer
	flush   func() error
	buf     bytes.Buffer
}

// beginStream writes the 200 and the headers and flushes them, so the
// client's Watch() returns before any event (handlers/watch.go BeginStream).
func (s *Server) beginStream(ctx context.Context, req *request, out outputType, p listParams) (*watchStream, error) {
	rc := http.NewResponseController(req.w)
	h := req.w.Header()
	h.Set("Content-Type", watchContentType(out))
	h.Set("Cache-Control", "no-cache, private")
	h.Set("Transfer-Encoding", "chunked")
	req.w.WriteHeader(http.StatusOK)
	if err := rc.Flush(); err != nil {
		return nil, fmt.Errorf("flush watch headers: %w", err)
	}
	enc := &eventWriter{
		s: s, res: req.res, out: out, include: includeObjectParam(req.r),
		frames: out.info.StreamSerializer.Framer.NewFrameWriter(req.w),
		flush:  rc.Flush,
	}
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

// send encodes and flushes one event.
func (e *eventWriter) send(typ watch.EventType, obj runtime.Object) error {
	raw, err := e.objectBytes(typ, obj)
	if err != nil {
		return err
	}
	e.buf.Reset()
	ev := &metav1.WatchEvent{Type: string(typ), Object: runtime.RawExtension{Raw: raw}}
	if err := e.out.info.StreamSerializer.Serializer.Encode(ev, &e.buf); err != nil {
		return fmt.Errorf("encode watch event: %w", err)
	}
	if _, err := e.frames.Write(e.buf.Bytes()); err != nil {
		return fmt.Errorf("write watch event: %w", err)
	}
	return e.flush()
}

// objectBytes encodes the event's object, as a one-row Table when the
// client asked for tables (Status objects are never converted).
func (e *eventWriter) objectBytes(typ watch.EventType, obj runtime.Object) ([]byte, error) {
	if _, isStatus := obj.(*metav1.Status); e.out.table && !isStatus && typ != watch.Bookmark {
		table, err := e.s.toTable(e.res, []runtime.Object{obj}, metav1.ListMeta{}, e.include)
		if err != nil {
			return nil, err
		}
		obj = table
	}
	return encode(e.out.info, obj)
}
