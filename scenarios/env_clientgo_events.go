package scenarios

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"

	"k8s.io/apimachinery/pkg/watch"
)

// clientGoEvents is the body of a client-go client's watch response: it
// passes every byte on to client-go and records, as the frames go by, its
// events: the ERROR events, so that the timeline shows why a client-go
// client relisted, and the others Quiet, for the HTML diagram to draw on
// the stream's bar (the text timeline leaves them out: what the client
// did with them shows in its store). They enter the timeline where the
// clients settle after the step that caused them ([Env.placeSettled]),
// not as they arrive. The JSON watch encoding ends each frame with a
// newline.
type clientGoEvents struct {
	body io.ReadCloser
	t    *recordingTransport
	// stream is the watch's name in the timeline ("" for a client's
	// watch, which the diagram finds by its lane), so the diagram draws
	// the events on its stream's bar.
	stream string
	// buf holds the bytes of a frame not yet complete.
	buf []byte
}

func (r *clientGoEvents) Read(p []byte) (int, error) {
	n, err := r.body.Read(p)
	r.buf = append(r.buf, p[:n]...)
	for {
		i := bytes.IndexByte(r.buf, '\n')
		if i < 0 {
			break
		}
		r.frame(r.buf[:i])
		r.buf = r.buf[i+1:]
	}
	if err != nil {
		// Before client-go sees the end (an informer waits on the real
		// clock after it).
		switch {
		case errors.Is(err, io.EOF) && len(r.buf) == 0:
			r.t.realClockFrom("its watch ended", EndClosed)
		case errors.Is(err, io.EOF), isCut(err):
			r.t.realClockFrom("its watch was cut", EndCut)
		default:
			r.t.realClockFrom("its watch broke", EndBroken)
		}
	}
	return n, err
}

// frame records the frame f: an ERROR event in the text timeline, others
// Quiet, with their size.
func (r *clientGoEvents) frame(f []byte) {
	var fr struct {
		Type   watch.EventType `json:"type"`
		Object wireObject      `json:"object"`
	}
	if json.Unmarshal(f, &fr) != nil || fr.Type == "" {
		return
	}
	ev := wireEvent(fr.Type, fr.Object)
	en := r.t.e.entry(KindEvent, ev.RV, "%s", ev)
	en.Stream = r.stream
	if fr.Type != watch.Error {
		en.Quiet, en.Bytes = true, len(f)+1 // and its newline
	}
	r.t.record(en)
	if fr.Type == watch.Error {
		r.t.realClockFrom("its watch ended with an ERROR event", "")
	}
}

// Close closes the body; client-go closes it when it stops reading (after
// an ERROR event, or when it stops).
func (r *clientGoEvents) Close() error {
	r.t.realClockFrom("it closed its watch", "")
	return r.body.Close()
}
