package kubewire

import (
	"encoding/json"
	"io"
)

// Frame is one event of a JSON watch stream, metav1.WatchEvent as
// kube-apiserver writes it: {"type":...,"object":...} and a newline.
type Frame struct {
	// Type is ADDED, MODIFIED, DELETED, BOOKMARK or ERROR.
	Type string `json:"type"`
	// Object is the event's object (a Status for ERROR), left encoded so
	// each reader decodes what it needs of it.
	Object json.RawMessage `json:"object"`
	// Raw is the frame as it came off the wire, without the newline that
	// ends it: what a relay forwards. It is the frame's own copy, which the
	// caller may append to. Set by [FrameReader.Next] only.
	Raw json.RawMessage `json:"-"`
	// Size is how many bytes of the stream the frame took, counted from
	// the end of the frame before it (so its newline is in the next
	// frame's size). Set by [FrameReader.Next] only.
	Size int `json:"-"`
}

// FrameReader reads the frames of a JSON watch stream.
type FrameReader struct {
	dec *json.Decoder
}

// NewFrameReader reads frames from body.
func NewFrameReader(body io.Reader) *FrameReader {
	return &FrameReader{dec: json.NewDecoder(body)}
}

// Next returns the next frame. At a clean end of the stream it returns
// io.EOF; a stream cut mid-frame gives io.ErrUnexpectedEOF or the
// connection's error. Errors are encoding/json's as they come, unwrapped,
// because callers show them as the stream's end ("unexpected EOF") the way
// client-go's decoder reports it.
func (r *FrameReader) Next() (Frame, error) {
	start := r.dec.InputOffset()
	var raw json.RawMessage
	if err := r.dec.Decode(&raw); err != nil {
		return Frame{}, err
	}
	var f Frame
	if err := json.Unmarshal(raw, &f); err != nil {
		return Frame{}, err
	}
	f.Raw, f.Size = raw, int(r.dec.InputOffset()-start)
	return f, nil
}

// AppendFrame appends the frame of an event of type typ whose object is
// the JSON object, and its newline, to dst; object is written as is, so it
// must be the compact JSON an encoder wrote.
func AppendFrame(dst []byte, typ string, object []byte) []byte {
	// json.Marshal of a string cannot fail.
	t, _ := json.Marshal(typ)
	dst = append(dst, `{"type":`...)
	dst = append(dst, t...)
	dst = append(dst, `,"object":`...)
	dst = append(dst, object...)
	return append(dst, "}\n"...)
}
