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
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/lw-sim/lw-sim/fakeapiserver/store"
)

// outEvent is one event on its way to a client.
type outEvent struct {
	typ watch.EventType
	// obj is the event's object; nil for a stored version, which enc
	// holds and object reads only when its encoding is not cached.
	obj runtime.Object
	// rv names the encoding in the shared cache (see encodeKey); unused
	// for ERROR events, which are never cached.
	rv         int64
	initialEnd bool
	// enc is obj's encoding cache when obj is a stored version (or a
	// delete's copy), nil otherwise (bookmarks, errors, restamped objects).
	enc *store.Encodings
}

// object is the event's object: obj, or the stored version enc holds
// (which may decode it: store.Encodings.Object).
func (ev *outEvent) object() runtime.Object {
	if ev.obj != nil {
		return ev.obj
	}
	return ev.enc.Object()
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
	// auditID is the response's Audit-Id: [Server.WatchEndedSlow] looks
	// the watch up by it.
	auditID string
	// headersSent is set once the stream has encoded an event: a Table
	// watch sends its column definitions with the first one only.
	headersSent bool
}

// beginStream writes the 200 and the headers and flushes them, so the
// client's Watch() returns before any event (handlers/watch.go BeginStream).
func (s *Server) beginStream(ctx context.Context, req *request, out outputType, p listParams) (*watchStream, error) {
	w := req.w
	rc := http.NewResponseController(w)
	h := w.Header()
	h.Set("Content-Type", watchContentType(out))
	h.Set("Transfer-Encoding", "chunked")
	gzipped := watchListGzipped(req.r, p.opts) // watch_gzip.go
	if gzipped {
		h.Set("Content-Encoding", "gzip")
		h.Add("Vary", "Accept-Encoding")
	}
	w.WriteHeader(http.StatusOK)
	if err := rc.Flush(); err != nil {
		return nil, fmt.Errorf("flush watch headers: %w", err)
	}
	if gzipped {
		// The headers went out plain; the body is compressed from here.
		w = &perFlushGzip{ResponseWriter: w, pool: &s.gzips}
		rc = http.NewResponseController(w)
	}
	enc := &eventWriter{
		s: s, hub: s.watch, res: req.res, out: out, include: includeObjectParam(req.r),
		batch:   eventBatch{pool: &s.watch.batches},
		w:       w,
		rc:      rc,
		auditID: h.Get("Audit-Id"),
	}
	enc.frames = out.info.StreamSerializer.Framer.NewFrameWriter(&enc.batch)
	return &watchStream{
		s: s, ctx: ctx, req: req, enc: enc,
		prefix: p.prefix, filter: p.filter,
		initialEvents: sendsInitialEvents(p.opts), rvGiven: p.opts.ResourceVersion != "",
		bookmarks: p.opts.AllowWatchBookmarks,
	}, nil
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

// errNotAList ends a watch whose client asked for
// PartialObjectMetadataList: the transformation fails on every event's
// object (asPartialObjectMetadataList: not a list), the untransformed
// object then fails to encode with the meta.k8s.io codecs, and
// kube-apiserver's watch server ends the stream at that event without
// writing it (handlers/watch.go "Failed to encode watch event") [observed].
var errNotAList = errors.New("fakeapiserver: PartialObjectMetadataList asked for a watch event")

// send writes one event, encoded once per (event, rendering) for all
// watchers of the server while it stays in the shared cache, into the
// stream's batch. It does not flush; the caller flushes at the end of a
// batch of events, which then goes out in one write (a very large batch
// goes out as it grows, without a flush).
//
// A Table watch sends its column definitions with its first event only:
// watchEmbeddedEncoder sets NoHeaders once it has encoded one (handlers/
// response.go). Its rows' ages are computed when the event is encoded, on
// the server's clock, and a Table encoding is shared only within one
// second of that clock, as kube-apiserver shares one event's encoding
// among the watchers it dispatches the event to at once
// (cacher.go dispatchEvent, cachingObject); encodings of the other forms
// do not depend on the time and are shared while they stay cached.
//
// The event is passed by pointer, and its bytes are looked up in a
// function of their own, so the frames under a watch's follow loop stay
// small: an idle watch keeps the stack its path to the client needs
// (watch_handoff.go), and this is the path every event takes.
func (e *eventWriter) send(ev *outEvent) error {
	if e.out.target == targetPartialList && ev.typ != watch.Error {
		return errNotAList
	}
	data, err := e.eventBytes(ev)
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

// eventBytes is ev in the stream's framing: from the shared cache (encoded
// there on a miss), or encoded here for an ERROR, which is never cached.
// Not inlined into send: its frame (the cache key) is on the stack only
// while it runs, not under the writes that follow.
//
//go:noinline
func (e *eventWriter) eventBytes(ev *outEvent) ([]byte, error) {
	headers := e.out.isTable() && !e.headersSent
	e.headersSent = true
	if ev.typ == watch.Error {
		return e.encodeEvent(ev, headers)
	}
	key := encodeKey{
		res: e.res, rv: ev.rv, typ: ev.typ, initialEnd: ev.initialEnd,
		mediaType: e.out.info.MediaType, target: e.out.target, targetGV: e.out.targetGV,
		include: e.include, headers: headers,
	}
	if e.out.isTable() {
		key.ageSecond = e.tableSecond()
	}
	return e.hub.encoded.get(&key, func() ([]byte, error) { return e.encodeEvent(ev, headers) })
}

// tableSecond is the second a Table event's ages are computed in: of the
// server's clock, or of the wall clock for a custom resource, whose table
// convertor (apiextensions-apiserver's) reads that.
func (e *eventWriter) tableSecond() int64 { return e.res.readStrategy().tableSecond(e.s) }

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

// close sends what the stream has batched and ends the body: a gzipped
// stream's last member gets its trailer (handlers/watch.go rw.Close).
func (e *eventWriter) close() {
	_ = e.drain()
	if g, ok := e.w.(*perFlushGzip); ok {
		_ = g.Close()
	}
}

// writeFailed counts a write that failed on the slow-consumer deadline
// (not one failed because the watch ended).
func (e *eventWriter) writeFailed(err error) error {
	var ne net.Error
	if e.deadline.watchEnded() {
		return err
	}
	if errors.Is(err, os.ErrDeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()) {
		e.hub.endedSlow(e.auditID)
	}
	return err
}

// encodeEvent encodes one watch event envelope with its object; headers
// is set for the first event of a Table watch.
func (e *eventWriter) encodeEvent(ev *outEvent, headers bool) ([]byte, error) {
	raw, err := e.objectBytes(ev, headers)
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

// objectBytes is the event's object as the serializer encodes it, in the
// form the client asked for (watchEmbeddedEncoder: Status objects are
// never transformed, bookmarks are): a one-row Table; the object's
// metadata, from the version's cached metadata; or the object itself,
// from the version's cached encoding for a built-in resource in JSON or
// protobuf, else encoded here. A custom resource is first defaulted by its
// CRD's current schema (customresource_view.go); in JSON, one its schema
// leaves as stored is its stored encoding.
func (e *eventWriter) objectBytes(ev *outEvent, headers bool) ([]byte, error) {
	if ev.obj == nil {
		// A stored version: its cached encoding, when that is the
		// answer, without reading the object unless it is not cached.
		if b, ok, err := e.cachedBytes(ev, nil); ok {
			return b, err
		}
	}
	obj := ev.object()
	if _, isStatus := obj.(*metav1.Status); isStatus {
		return encode(e.out.info, obj)
	}
	if ev.typ != watch.Bookmark || !e.res.convertsOnRead() {
		// A bookmark of a converted built-in version is an empty object
		// of the watched version, which kube-apiserver encodes from the
		// internal type: no v2 defaults, no round-trip annotations
		// (builtin_conversion.go).
		var err error
		if obj, err = e.s.readView(e.res, obj, ev.enc); err != nil {
			return nil, err
		}
	}
	switch e.out.target {
	case targetTable:
		return e.tableBytes(obj, headers)
	case targetPartial:
		enc := ev.enc
		if e.res.convertsOnRead() {
			enc = nil // the stored object's metadata, not the view's
		}
		return partialObjectBytes(e.out.info, enc, obj, e.out.targetGV)
	}
	if b, ok, err := e.cachedBytes(ev, obj); ok {
		return b, err
	}
	return encode(e.out.info, obj)
}

// cachedBytes is the answer, from ev's version's encoding cache, for obj
// as the object itself (no Table, no metadata): a built-in's JSON or
// protobuf (its stored object is its view), or a custom resource's JSON
// when its CRD's schema leaves it as stored, in the served version
// (viewIsStored; customresource_store.go). obj nil is the stored version
// ev.enc holds, read only when its encoding is not cached yet (a
// protobuf envelope then names the kind its codec decodes to). ok is
// false when the answer needs encoding here: a view of its own, a
// built-in kept without a codec, no version.
func (e *eventWriter) cachedBytes(ev *outEvent, obj runtime.Object) (b []byte, ok bool, err error) {
	if ev.enc == nil || e.out.target != targetNone {
		return nil, false, nil
	}
	json := e.out.info.MediaType == runtime.ContentTypeJSON
	if e.res.readStrategy().reusesEncodings() {
		if json {
			b, err = cachedJSON(e.out.info, ev.enc, obj)
			return b, true, err
		}
		if e.out.info.MediaType != runtime.ContentTypeProtobuf {
			return nil, false, nil
		}
		var gvk schema.GroupVersionKind
		if obj != nil {
			gvk = obj.GetObjectKind().GroupVersionKind()
		} else if c, isProto := ev.enc.Codec().(*protobufCodec); isProto {
			gvk = c.gvk
		} else {
			return nil, false, nil
		}
		b, err = protobufObject(ev.enc, obj, gvk)
		return b, true, err
	}
	if !json || !e.s.splicesCustom(e.res) {
		return nil, false, nil
	}
	if same, asServed := viewIsStored(e.res, ev.enc); !same || !asServed {
		return nil, false, nil
	}
	b, err = ev.enc.Get(slotJSON, func() ([]byte, error) { return encodeItem(e.out.info, storedObject(obj, ev.enc)) })
	return b, true, err
}

// tableBytes is obj as the one-row Table of a watch event, with the
// column definitions only when headers is set (null otherwise, as
// NoHeaders leaves them).
func (e *eventWriter) tableBytes(obj runtime.Object, headers bool) ([]byte, error) {
	table, err := e.s.toTable(e.res, []runtime.Object{obj}, metav1.ListMeta{}, e.include, false)
	if err != nil {
		return nil, err
	}
	if !headers {
		table.ColumnDefinitions = nil
	}
	return encode(e.out.info, inTableVersion(table, e.out.targetGV))
}
