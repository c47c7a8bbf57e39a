package faultproxy

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

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
// faults and the instance's hold rules (hold.go), until the proxy
// restarts (restarted closes). Ending the stream cancels the upstream
// request.
func (p *Proxy) serveWatch(w http.ResponseWriter, r *http.Request, info faults.RequestInfo, restarted <-chan struct{}) {
	ctx, st := p.inj.OpenStream(r.Context(), info)
	defer st.Close()
	upCtx, upCancel := context.WithCancel(ctx)
	defer upCancel()
	resp, err := p.transport.RoundTrip(p.upstreamRequest(r.WithContext(upCtx), info))
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
	rl := relay{p: p, w: w, rc: rc, st: st, restarted: restarted}
	if rl.run(ctx, upCancel, resp.Body, info.SendInitialEvents) {
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

// relay writes one watch stream's frames to its client.
type relay struct {
	p         *Proxy
	w         http.ResponseWriter
	rc        *http.ResponseController
	st        *faults.Stream
	restarted <-chan struct{}
}

// run copies frames until the upstream ends, a fault stops the stream or
// the proxy restarts; it reports whether that already did all there was to
// do. A goroutine reads the upstream into an inbox, so frames the instance
// holds (hold.go) do not hold the upstream back; run stops it (cancel,
// then Close, so its read returns) and waits for it before it returns.
func (rl *relay) run(ctx context.Context, cancel context.CancelFunc, body io.ReadCloser, watchList bool) bool {
	in := newInbox()
	received := make(chan struct{})
	go func() {
		defer close(received)
		rl.p.receive(in, body, watchList)
	}()
	defer func() {
		cancel()
		_ = body.Close()
		<-received
	}()
	for {
		select {
		case <-rl.restarted:
			return true // a restarted apiserver ends its watches cleanly
		default:
		}
		rules := rl.p.inst.rules()
		now := rl.p.clk.Now()
		out, finished, due := in.take(rules, now)
		for _, h := range out {
			if rl.deliver(ctx, h) {
				return true
			}
		}
		if finished {
			return false
		}
		var timer <-chan time.Time
		stop := func() bool { return false }
		if !due.IsZero() {
			t := rl.p.clk.NewTimer(due.Sub(now))
			timer, stop = t.C(), t.Stop
		}
		select {
		case <-in.signal:
		case <-rules.changed:
		case <-timer:
		case <-rl.restarted:
			stop()
			return true
		case <-ctx.Done():
			stop()
			return false
		}
		stop()
	}
}

// deliver writes one frame through the stream faults; it reports whether
// the stream is over.
func (rl *relay) deliver(ctx context.Context, h held) bool {
	switch rl.st.BeforeEvent(ctx, h.ev) {
	case faults.Send:
		if _, err := rl.w.Write(h.frame); err != nil || rl.rc.Flush() != nil {
			return true
		}
	case faults.Skip:
	case faults.Cut:
		kubewire.Cut(rl.w, h.frame)
	case faults.Hang:
		rl.st.Hang()
		return true
	case faults.End:
		return true
	}
	return false
}

// receive reads the upstream's frames into in until the upstream ends.
// The frames of a watch-list before its initial-events-end bookmark are
// marked initial.
func (p *Proxy) receive(in *inbox, body io.Reader, watchList bool) {
	defer in.end()
	frames := kubewire.NewFrameReader(body)
	initial := watchList
	for {
		f, err := frames.Next()
		if err != nil {
			return
		}
		ev := p.observeEvent(f)
		// f.Raw is the frame's own copy of its bytes.
		in.put(held{frame: append(f.Raw, '\n'), ev: ev, at: p.clk.Now(), initial: initial})
		if ev.InitialEventsEnd {
			initial = false
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
