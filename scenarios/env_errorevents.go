package scenarios

import (
	"bytes"
	"encoding/json"
	"io"

	"k8s.io/apimachinery/pkg/watch"
)

// errorEvents is the body of a client-go client's watch response: it
// passes every byte on to client-go and records, as the frames go by, the
// ERROR events among them, so that the timeline shows why a client-go
// client relisted (its other events stay out: what it did with them shows
// in its store). The JSON watch encoding ends each frame with a newline.
type errorEvents struct {
	body io.ReadCloser
	t    *recordingTransport
	// stream is the watch's name in the timeline, so the diagram draws
	// the ERROR on its stream's bar.
	stream string
	// buf holds the bytes of a frame not yet complete.
	buf []byte
}

func (r *errorEvents) Read(p []byte) (int, error) {
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
	return n, err
}

// frame records the frame f if it is an ERROR event.
func (r *errorEvents) frame(f []byte) {
	var fr struct {
		Type   watch.EventType `json:"type"`
		Object wireObject      `json:"object"`
	}
	if json.Unmarshal(f, &fr) != nil || fr.Type != watch.Error {
		return
	}
	ev := wireEvent(fr.Type, fr.Object)
	en := r.t.e.entry(KindEvent, ev.RV, "%s", ev)
	en.Stream = r.stream
	r.t.record(en)
}

func (r *errorEvents) Close() error { return r.body.Close() }
