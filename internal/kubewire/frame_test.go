package kubewire

import (
	"bytes"
	"errors"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// capturedFrames are frames of watch streams kube-apiserver v1.37 wrote
// (recorded from a real server: ADDED, ADDED, MODIFIED, DELETED, BOOKMARK, ERROR),
// one per line.
func capturedFrames(t *testing.T) []string {
	t.Helper()
	data, err := os.ReadFile("testdata/watch-run1.json")
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
}

// TestFrameReaderCaptured reads the captured stream: each frame's type,
// raw bytes and size, then a clean io.EOF.
func TestFrameReaderCaptured(t *testing.T) {
	t.Parallel()
	lines := capturedFrames(t)
	r := NewFrameReader(strings.NewReader(strings.Join(lines, "\n") + "\n"))
	var types []string
	for i, line := range lines {
		f, err := r.Next()
		if err != nil {
			t.Fatalf("frame %d: %v", i, err)
		}
		types = append(types, f.Type)
		if string(f.Raw) != line {
			t.Errorf("frame %d: Raw = %s, want the line as written", i, f.Raw)
		}
		// The newline before a frame counts in its size.
		if want := len(line) + min(i, 1); f.Size != want {
			t.Errorf("frame %d: Size = %d, want %d", i, f.Size, want)
		}
	}
	if diff := cmp.Diff([]string{"ADDED", "ADDED", "MODIFIED", "DELETED", "BOOKMARK", "ERROR"}, types); diff != "" {
		t.Errorf("types mismatch (-want +got):\n%s", diff)
	}
	if _, err := r.Next(); err != io.EOF {
		t.Errorf("after the last frame: %v, want io.EOF", err)
	}
}

// TestAppendFrameCaptured: the writer reproduces kube-apiserver's bytes
// for each captured frame from its type and object.
func TestAppendFrameCaptured(t *testing.T) {
	t.Parallel()
	for i, line := range capturedFrames(t) {
		f, err := NewFrameReader(strings.NewReader(line)).Next()
		if err != nil {
			t.Fatalf("frame %d: %v", i, err)
		}
		if got := AppendFrame(nil, f.Type, f.Object); string(got) != line+"\n" {
			t.Errorf("frame %d: AppendFrame = %s, want %s", i, got, line)
		}
	}
}

// TestFrameReaderBroken: a stream cut mid-frame ends in
// io.ErrUnexpectedEOF after its whole frames; JSON that is not a frame is
// an error.
func TestFrameReaderBroken(t *testing.T) {
	t.Parallel()
	lines := capturedFrames(t)
	cut := lines[0] + "\n" + lines[1][:len(lines[1])/2]
	r := NewFrameReader(strings.NewReader(cut))
	if f, err := r.Next(); err != nil || f.Type != "ADDED" {
		t.Fatalf("first frame: %+v, %v", f, err)
	}
	if _, err := r.Next(); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("half a frame: %v, want io.ErrUnexpectedEOF", err)
	}
	if _, err := NewFrameReader(strings.NewReader(`[1]`)).Next(); err == nil {
		t.Errorf("an array read as a frame")
	}
}

// TestIdleFrame: the frame a stream cut between events is cut in is a
// valid MODIFIED frame, so only the cut makes it a broken one.
func TestIdleFrame(t *testing.T) {
	t.Parallel()
	f, err := NewFrameReader(bytes.NewReader(idleFrame)).Next()
	if err != nil || f.Type != "MODIFIED" || !bytes.HasSuffix(idleFrame, []byte("\n")) {
		t.Errorf("idleFrame %q: %+v, %v", idleFrame, f, err)
	}
}
