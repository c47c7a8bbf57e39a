package faultproxy

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/lw-sim/lw-sim/faults"
	"github.com/lw-sim/lw-sim/internal/kubewire"
)

// eventObject is what the proxy reads of a watch event's object.
type eventObject struct {
	Metadata struct {
		ResourceVersion string            `json:"resourceVersion"`
		Annotations     map[string]string `json:"annotations"`
	} `json:"metadata"`
}

// serveWatch proxies a watch stream event by event, through the stream
// faults. Ending the stream cancels the upstream request.
func (p *Proxy) serveWatch(w http.ResponseWriter, r *http.Request, info faults.RequestInfo) {
	ctx, st := p.inj.OpenStream(r.Context(), info)
	defer st.Close()
	resp, err := p.transport.RoundTrip(p.upstreamRequest(r.WithContext(ctx), info))
	if err != nil {
		kubewire.WriteStatus(w, badGateway(err))
		return
	}
	defer resp.Body.Close()
	copyHeader(w.Header(), resp.Header)
	w.WriteHeader(resp.StatusCode)
	rc := http.NewResponseController(w)
	_ = rc.Flush()
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
		copyFlushing(w, rc, resp.Body)
		return
	}
	if p.relayEvents(ctx, w, rc, st, resp.Body) {
		return
	}
	if errors.Is(context.Cause(ctx), faults.ErrStreamFault) {
		switch st.Finish() {
		case faults.Cut:
			kubewire.CutIdle(w)
		case faults.Hang:
			st.Hang()
		}
	}
}

// relayEvents copies events until the upstream ends or a fault stops the
// stream; it reports whether a fault already did all there was to do.
func (p *Proxy) relayEvents(ctx context.Context, w http.ResponseWriter, rc *http.ResponseController, st *faults.Stream, body io.Reader) bool {
	frames := kubewire.NewFrameReader(body)
	for {
		f, err := frames.Next()
		if err != nil {
			return false
		}
		// f.Raw is the frame's own copy of its bytes.
		frame := append(f.Raw, '\n')
		switch st.BeforeEvent(ctx, p.observeEvent(f)) {
		case faults.Send:
			if _, err := w.Write(frame); err != nil || rc.Flush() != nil {
				return true
			}
		case faults.Skip:
		case faults.Cut:
			kubewire.Cut(w, frame)
		case faults.Hang:
			st.Hang()
			return true
		case faults.End:
			return true
		}
	}
}

// observeEvent notes the RV of a relayed event and returns what the stream
// faults need to know of it.
func (p *Proxy) observeEvent(f kubewire.Frame) faults.Event {
	var o eventObject
	_ = json.Unmarshal(f.Object, &o)
	rv, _ := strconv.ParseInt(o.Metadata.ResourceVersion, 10, 64)
	if f.Type != "ERROR" && rv > 0 {
		p.observeRV(rv)
	}
	return faults.Event{Type: f.Type, RV: rv, InitialEventsEnd: o.Metadata.Annotations[metav1.InitialEventsAnnotationKey] == "true"}
}

// copyFlushing copies a stream the proxy does not frame, flushing as it
// goes.
func copyFlushing(w io.Writer, rc *http.ResponseController, body io.Reader) {
	buf := make([]byte, 32<<10)
	for {
		n, err := body.Read(buf)
		if n > 0 {
			if _, werr := w.Write(buf[:n]); werr != nil || rc.Flush() != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}
