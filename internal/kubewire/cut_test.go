package kubewire

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestCutRecorder: without a connection to hijack, Cut writes half of the
// frame, at least one byte short, and aborts the handler.
func TestCutRecorder(t *testing.T) {
	t.Parallel()
	for _, frame := range []string{"x", "{}\n", string(idleFrame)} {
		rec := httptest.NewRecorder()
		got := func() (v any) {
			defer func() { v = recover() }()
			Cut(rec, []byte(frame))
			return nil
		}()
		if got != http.ErrAbortHandler {
			t.Errorf("Cut(%q) panicked with %v, want http.ErrAbortHandler", frame, got)
		}
		if want := frame[:len(frame)/2]; rec.Body.String() != want {
			t.Errorf("Cut(%q) wrote %q, want %q", frame, rec.Body.String(), want)
		}
	}
}

// TestCutOverTCP: a client reading a watch stream over real HTTP gets the
// frames before the cut, then a broken stream (not a clean io.EOF): what
// client-go sees when an apiserver dies mid-frame.
func TestCutOverTCP(t *testing.T) {
	t.Parallel()
	whole := AppendFrame(nil, "ADDED", []byte(`{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a","resourceVersion":"5"}}`))
	for name, cut := range map[string]func(http.ResponseWriter){
		"mid-frame": func(w http.ResponseWriter) { Cut(w, whole) },
		"idle":      CutIdle,
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				_, _ = w.Write(whole)
				cut(w)
			}))
			defer srv.Close()
			resp, err := srv.Client().Get(srv.URL)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			r := NewFrameReader(resp.Body)
			if f, err := r.Next(); err != nil || f.Type != "ADDED" {
				t.Fatalf("frame before the cut: %+v, %v", f, err)
			}
			_, err = r.Next()
			if err == nil || errors.Is(err, io.EOF) {
				t.Errorf("after the cut: %v, want a broken stream", err)
			}
			if !errors.Is(err, io.ErrUnexpectedEOF) && !strings.Contains(err.Error(), "reset") {
				t.Errorf("after the cut: %v, want unexpected EOF or connection reset", err)
			}
		})
	}
}
