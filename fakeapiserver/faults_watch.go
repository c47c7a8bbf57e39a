package fakeapiserver

import (
	"bytes"
	"context"
	"errors"
	"net/http"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/lw-sim/lw-sim/faults"
	"github.com/lw-sim/lw-sim/internal/kubewire"
)

// errWatchFault ends a watch stream's send path when a fault ended it; the
// stream's context is cancelled by then, so no ERROR event follows.
var errWatchFault = errors.New("fakeapiserver: watch ended by an injected fault")

// watchFaults is the fault hook of one watch stream.
type watchFaults struct {
	st  *faults.Stream
	ctx context.Context
	w   http.ResponseWriter
	// stream is the response's stream serializer, whose framer frames a
	// cut's half event (the outputType's, not a copy of the whole
	// outputType: an idle watch holds its hook for its life).
	stream *runtime.StreamSerializerInfo
	// done is set once the stream was cut or hung from the send path, so
	// finish does not do it again.
	done bool
	// drain hands the events the stream has batched to the response
	// (eventWriter.drain), so that flush pushes them too; nil-safe.
	drain func() error
	// deadline is the stream's write deadline, cleared when it goes
	// silent for a hang (writeDeadline.idle); nil-safe.
	deadline *writeDeadline
}

// faultStream registers a watch stream with the injector. A fault that
// fires while the stream waits ends it by ending life's context (with
// cause faults.ErrStreamFault), which does not count as the watch's end
// for its write deadline (watchLife).
func (s *Server) faultStream(life *watchLife, req *request, out outputType) *watchFaults {
	st := s.faults.inj.OpenStreamCancel(req.r.Context(), faults.ParseRequest(req.r), life.cancel)
	return &watchFaults{st: st, ctx: life.ctx, w: req.w, stream: out.info.StreamSerializer}
}

// before is the hook of eventWriter.send, with the event's encoding: skip
// tells send not to write it; an error ends the stream. A cut writes half
// the event's frame and resets the connection (it does not return).
func (wf *watchFaults) before(ev *outEvent, data []byte) (skip bool, err error) {
	if wf == nil {
		return false, nil
	}
	switch wf.st.BeforeEvent(wf.ctx, faults.Event{Type: string(ev.typ), RV: ev.rv, InitialEventsEnd: ev.initialEnd, Flush: wf.flush}) {
	case faults.Send:
		return false, nil
	case faults.Skip:
		return true, nil
	case faults.Cut:
		wf.cut(data)
	case faults.Hang:
		// The events before this one were sent: the stream flushes per
		// batch, so push them out before going silent.
		wf.flush()
		wf.deadline.idle() // hung, not slow: no write is in flight
		wf.done = true
		wf.st.Hang()
	}
	return true, errWatchFault
}

// flush pushes what the stream has sent to the client.
func (wf *watchFaults) flush() {
	if wf.drain != nil {
		_ = wf.drain()
	}
	_ = http.NewResponseController(wf.w).Flush()
}

// cut writes the first half of data's frame, then resets the connection.
// It never returns.
func (wf *watchFaults) cut(data []byte) {
	wf.done = true
	// The events before this one were sent; only this one is cut.
	wf.flush()
	var frame bytes.Buffer
	_, _ = wf.stream.Framer.NewFrameWriter(&frame).Write(data)
	kubewire.Cut(wf.w, frame.Bytes())
}

// finish runs after the stream stopped: the cut or hang of a fault that
// fired while it was idle, then it unregisters the stream.
func (wf *watchFaults) finish() {
	defer wf.st.Close()
	if wf.done {
		return
	}
	switch wf.st.Finish() {
	case faults.Cut:
		kubewire.CutIdle(wf.w)
	case faults.Hang:
		wf.st.Hang()
	}
}
