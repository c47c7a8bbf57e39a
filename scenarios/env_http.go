package scenarios

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/lw-sim/lw-sim/fakeapiserver"
	"github.com/lw-sim/lw-sim/internal/kubewire"
)

// recordingTransport records every request and the response's status and
// summary. Watch responses are recorded with their headers; their events
// are recorded by the [Stream] that reads them.
type recordingTransport struct {
	base   http.RoundTripper
	e      *Env
	record func(Entry)
	// lane is the lane whose requests these are, for routing; "" means
	// the scenario's current lane.
	lane string
	// maskWatchTimeout hides the timeoutSeconds of watches, which the
	// listwatch client draws at random from [5m, 10m) as the Reflector
	// does, so that the timeline stays the same from run to run.
	maskWatchTimeout bool
	// recordEvents records the events of watch responses as they go by
	// (a client-go client's, whose events no [Stream] records).
	recordEvents bool
	// realClock: the lane's client waits on the real clock once a
	// request failed or a watch ended (a SharedIndexInformer); the first
	// such moment is recorded, and the lane's later entries are untimed
	// ([Env.realClockFrom]).
	realClock bool
}

// realClockFrom records, if the lane's client waits on the real clock,
// that it may from now on, because of why.
func (t *recordingTransport) realClockFrom(why string, end StreamEnd) {
	if !t.realClock {
		return
	}
	en := t.e.entry(KindClient, "", "%s (an informer): %s; from here on it waits on the real clock (client-go gives a SharedIndexInformer no clock: its backoff, its very-short-watch check), so the virtual times of its next requests, and their number, are the machine's, not the seed's: they stay out of this timeline, and its store is still checked", t.lane, why)
	en.End = end
	t.e.realClockFrom(t.lane, en)
}

func (t *recordingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	req = t.route(req)
	q := req.URL.Query()
	stream, _ := req.Context().Value(streamNameKey{}).(string)
	// entry tags what it records with the stream the request opens and
	// the instance that serves it (the diagram's stream bars and lanes).
	entry := func(kind Kind, apiserver, rv, format string, args ...any) Entry {
		en := t.e.entry(kind, rv, format, args...)
		en.Stream = stream
		if t.e.srv.APIServerCount() > 1 {
			en.APIServer = apiserver
		}
		return en
	}
	reqEn := entry(KindRequest, req.Header.Get(fakeapiserver.APIServerHeader), q.Get("resourceVersion"), "%s %s", req.Method, describeURI(req.URL, t.maskWatchTimeout))
	reqEn.Token = continueRV(q.Get("continue"))
	t.record(reqEn)
	t.e.inFlight.Add(1)
	resp, err := t.base.RoundTrip(req)
	t.e.inFlight.Add(-1)
	if err != nil {
		t.record(entry(KindResponse, "", "", "transport error: %v", err))
		t.realClockFrom("its request failed", "")
		return nil, err
	}
	if resp.StatusCode >= http.StatusBadRequest {
		// Recorded below, before client-go sees it.
		defer t.realClockFrom("its request failed ("+resp.Status+")", "")
	}
	served := resp.Header.Get(fakeapiserver.APIServerHeader)
	if isWatchRequest(req.URL) && resp.StatusCode == http.StatusOK {
		if id, ok := req.Context().Value(auditIDKey{}).(*string); ok {
			*id = resp.Header.Get("Audit-Id")
		}
		t.record(entry(KindResponse, served, "", "%s, headers %s; the body stays open%s", resp.Status, describeStreamHeaders(resp), t.servedBy(resp)))
		if t.recordEvents {
			resp.Body = &clientGoEvents{body: resp.Body, t: t, stream: stream}
		}
		return resp, nil
	}
	body, err := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if err != nil {
		t.record(entry(KindResponse, served, "", "%s, body cut: %v", resp.Status, err))
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	rv, token, text := summarizeBody(body)
	if ra := resp.Header.Get("Retry-After"); ra != "" {
		text += ", Retry-After: " + ra
	}
	en := entry(KindResponse, served, rv, "%s %s%s", resp.Status, text, t.servedBy(resp))
	en.Bytes, en.Token = len(body), continueRV(token)
	t.record(en)
	return resp, nil
}

// auditIDKey is the context key under which a watch request carries
// where to put its response's Audit-Id (a *string), for a caller that
// does not see the response (client-go's typed Watch).
type auditIDKey struct{}

// streamNameKey is the context key under which a watch request carries
// the name of the stream it opens, for the entries recorded of it.
type streamNameKey struct{}

// route pins req to the instance its lane is routed to, if any.
func (t *recordingTransport) route(req *http.Request) *http.Request {
	return t.e.route(req, t.lane)
}

// routingTransport is the quiet clientset's transport: it routes as the
// recording one does, and records nothing.
type routingTransport struct {
	base http.RoundTripper
	e    *Env
}

func (t routingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	return t.base.RoundTrip(t.e.route(req, ""))
}

// route pins req to the instance lane (the current lane if "") is routed
// to ([Scenario.Routes]), if any.
func (e *Env) route(req *http.Request, lane string) *http.Request {
	if lane == "" {
		lane = e.currentLane()
	}
	e.mu.Lock()
	inst, ok := e.routes[lane]
	if !ok && lane == LaneScenario {
		inst, ok = e.routes[""]
	}
	if !ok && e.rotate > 0 {
		inst, ok = "apiserver-"+strconv.Itoa(e.rotation[lane]%e.rotate), true
		e.rotation[lane]++
	}
	e.mu.Unlock()
	if !ok {
		return req
	}
	req = req.Clone(req.Context())
	req.Header.Set(fakeapiserver.APIServerHeader, inst)
	return req
}

// Route sends every later request of lane to the apiserver instance inst
// (as a load balancer may send a client's new connection elsewhere) and
// notes it in the timeline.
func (e *Env) Route(lane, inst string) {
	e.mu.Lock()
	if e.routes == nil {
		e.routes = map[string]string{}
	}
	e.routes[lane] = inst
	e.mu.Unlock()
	e.Note("the load balancer sends %s's requests to %s from now on", lane, inst)
}

// servedBy names the instance that answered, when the server runs more
// than one (the timeline of a single apiserver stays as it was).
func (t *recordingTransport) servedBy(resp *http.Response) string {
	if t.e.srv.APIServerCount() < 2 {
		return ""
	}
	return " (from " + resp.Header.Get(fakeapiserver.APIServerHeader) + ")"
}

// isWatchRequest reports whether u asks for a watch, whose response is a
// stream: ?watch= true, or a deprecated /watch/ path.
func isWatchRequest(u *url.URL) bool {
	info, _ := kubewire.ParsePath(u.Path)
	return info.PathVerb == "watch" || kubewire.WatchParam(u.Query())
}

// describeURI is the request URI with query parameters in a stable order,
// continue tokens decoded for people, and client-go's randomised watch
// timeouts masked (the listwatch client and the Reflector draw them from
// [5m, 10m)).
func describeURI(u *url.URL, maskWatchTimeout bool) string {
	q := u.Query()
	if maskWatchTimeout && q.Has("timeoutSeconds") {
		q.Set("timeoutSeconds", "T")
	}
	if c := q.Get("continue"); c != "" {
		q.Set("continue", describeContinue(c))
	}
	if q.Has("timeout") && q.Has("timeoutSeconds") {
		// client-go sends both; the server ignores timeout= on watches.
		q.Del("timeout")
	}
	s := u.Path
	if len(q) > 0 {
		enc := q.Encode()
		if dec, err := url.QueryUnescape(enc); err == nil {
			enc = dec
		}
		s += "?" + enc
	}
	return s
}

// describeContinue renders a continue token as "<token rv=12 after=cm-05>".
func describeContinue(token string) string {
	c, err := decodeContinue(token)
	if err != nil {
		return "<undecodable token>"
	}
	return fmt.Sprintf("<token rv=%d after=%s>", c.RV, strings.Trim(c.Start, "/\x00"))
}

// continueRV is the RV a continue token holds, "" for none or an
// undecodable one.
func continueRV(token string) string {
	if token == "" {
		return ""
	}
	c, err := decodeContinue(token)
	if err != nil {
		return ""
	}
	return strconv.FormatInt(c.RV, 10)
}

// decodeContinue reads the JSON inside a continue token.
func decodeContinue(token string) (kubewire.ContinueToken, error) {
	c, err := kubewire.ParseContinue(token)
	if err != nil {
		return c, fmt.Errorf("scenarios: continue token: %w", err)
	}
	return c, nil
}

// describeStreamHeaders lists what makes a response a stream.
func describeStreamHeaders(resp *http.Response) string {
	parts := []string{"Content-Type: " + resp.Header.Get("Content-Type")}
	if len(resp.TransferEncoding) > 0 {
		parts = append(parts, "Transfer-Encoding: "+strings.Join(resp.TransferEncoding, ","))
	}
	if resp.ContentLength >= 0 {
		parts = append(parts, "Content-Length: "+strconv.FormatInt(resp.ContentLength, 10))
	} else {
		parts = append(parts, "no Content-Length")
	}
	return "[" + strings.Join(parts, "; ") + "]"
}

// wireObject is what scenarios read of a JSON object on the wire: a list,
// an item, a watch event's object or a Status.
type wireObject struct {
	Kind       string `json:"kind"`
	APIVersion string `json:"apiVersion"`
	Metadata   struct {
		Name               string            `json:"name"`
		Namespace          string            `json:"namespace"`
		ResourceVersion    string            `json:"resourceVersion"`
		Continue           string            `json:"continue"`
		RemainingItemCount *int64            `json:"remainingItemCount"`
		Annotations        map[string]string `json:"annotations"`
	} `json:"metadata"`
	Items []wireObject `json:"items"`
	// Status fields.
	Status  string `json:"status"`
	Message string `json:"message"`
	Reason  string `json:"reason"`
	Code    int32  `json:"code"`
}

func (o wireObject) key() string {
	if o.Metadata.Namespace == "" {
		return o.Metadata.Name
	}
	return o.Metadata.Namespace + "/" + o.Metadata.Name
}

// status converts a Status body.
func (o wireObject) status() *metav1.Status {
	return &metav1.Status{Status: o.Status, Message: o.Message, Reason: metav1.StatusReason(o.Reason), Code: o.Code, ListMeta: metav1.ListMeta{Continue: o.Metadata.Continue}}
}

// summarizeBody describes a response body in one line and returns the RV
// and the continue token it carries.
func summarizeBody(body []byte) (rv, token, text string) {
	var o wireObject
	if err := json.Unmarshal(body, &o); err != nil || o.Kind == "" {
		return "", "", fmt.Sprintf("(%d bytes)", len(body))
	}
	if o.Kind == "Status" {
		return "", o.Metadata.Continue, describeStatus(o.status())
	}
	if o.Items == nil && !strings.HasSuffix(o.Kind, "List") {
		return o.Metadata.ResourceVersion, "", o.Kind + " " + o.key()
	}
	return o.Metadata.ResourceVersion, o.Metadata.Continue, describeList(o)
}

func describeStatus(st *metav1.Status) string {
	s := fmt.Sprintf("Status %d %s: %q", st.Code, st.Reason, st.Message)
	if st.Continue != "" {
		s += ", metadata.continue " + describeContinue(st.Continue)
	}
	return s
}

func describeList(o wireObject) string {
	names := make([]string, len(o.Items))
	for i, it := range o.Items {
		names[i] = it.Metadata.Name
	}
	s := fmt.Sprintf("%s at rv %s, %d items [%s]", o.Kind, o.Metadata.ResourceVersion, len(o.Items), abbreviate(names))
	if o.Metadata.Continue != "" {
		s += ", continue " + describeContinue(o.Metadata.Continue)
	}
	if o.Metadata.RemainingItemCount != nil {
		s += fmt.Sprintf(", remainingItemCount %d", *o.Metadata.RemainingItemCount)
	}
	return s
}

// abbreviate joins names, eliding the middle of long lists.
func abbreviate(names []string) string {
	const keep = 3
	if len(names) <= 2*keep+1 {
		return strings.Join(names, " ")
	}
	return strings.Join(names[:keep], " ") + fmt.Sprintf(" … (%d more) … ", len(names)-2*keep) + strings.Join(names[len(names)-keep:], " ")
}

// ListResult is a LIST answer read from the wire.
type ListResult struct {
	Code int
	// RV, Continue, Remaining and Names are from a successful list.
	RV        string
	Continue  string
	Remaining *int64
	Names     []string
	// Status is set for an error answer.
	Status *metav1.Status
	// Header is the response's header.
	Header http.Header
	// Bytes is the size of the response body.
	Bytes int
}

// Get sends GET path (a path with query, like
// "/api/v1/namespaces/default/configmaps?limit=2") over raw HTTP and
// returns what came back; the exchange is recorded. Error statuses are
// results, not errors.
func (e *Env) Get(path string) (*ListResult, error) {
	return e.get(e.ctx, e.httpc, path)
}

func (e *Env) get(ctx context.Context, httpc *http.Client, path string) (*ListResult, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, e.srv.URL()+path, nil)
	if err != nil {
		return nil, fmt.Errorf("scenarios: GET %s: %w", path, err)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := httpc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("scenarios: GET %s: %w", path, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("scenarios: GET %s: %w", path, err)
	}
	r := &ListResult{Code: resp.StatusCode, Header: resp.Header, Bytes: len(body)}
	var o wireObject
	if err := json.Unmarshal(body, &o); err != nil {
		return nil, fmt.Errorf("scenarios: GET %s: %w", path, err)
	}
	if o.Kind == "Status" {
		r.Status = o.status()
		return r, nil
	}
	r.RV, r.Continue, r.Remaining = o.Metadata.ResourceVersion, o.Metadata.Continue, o.Metadata.RemainingItemCount
	for _, it := range o.Items {
		r.Names = append(r.Names, it.Metadata.Name)
	}
	if o.Items == nil && !strings.HasSuffix(o.Kind, "List") && o.Metadata.Name != "" {
		r.Names = []string{o.Metadata.Name} // one object, by GET
	}
	return r, nil
}

// GetAsync sends GET path like Get but does not wait for the answer: for a
// request the server holds (a resourceVersion it has not reached yet) until
// the scenario moves the clock or writes. Receive the result with Await.
//
// The request is recorded when it is sent (before the server can arm a
// timer for it, so before any AwaitTimers returns); the response is
// recorded by Await, so that it lands in the timeline after whatever the
// scenario did to release it, however the goroutines are scheduled.
func (e *Env) GetAsync(path string) <-chan getResult {
	ch := make(chan getResult, 1)
	ctx, cancel := context.WithCancel(e.ctx)
	done := make(chan struct{})
	var held []Entry // written by the goroutine before it sends on ch
	lane := e.currentLane()
	rt := &recordingTransport{base: e.transport, e: e, lane: lane, record: func(en Entry) {
		en.Lane = lane
		if en.Kind == KindRequest {
			e.append(en)
			return
		}
		held = append(held, en)
	}}
	go func() {
		defer close(done)
		r, err := e.get(ctx, &http.Client{Transport: rt}, path)
		ch <- getResult{r, err, held}
	}()
	e.addCloser(func() { cancel(); <-done })
	return ch
}

type getResult struct {
	r    *ListResult
	err  error
	held []Entry
}

// Await receives a GetAsync result and records its response, failing if
// the run's context ends first.
func (e *Env) Await(ch <-chan getResult) (*ListResult, error) {
	select {
	case res := <-ch:
		for _, en := range res.held {
			e.append(en)
		}
		return res.r, res.err
	case <-e.ctx.Done():
		return nil, e.waitEnded("no response yet")
	}
}

// WatchEvent is one event read from a watch stream, or its end.
type WatchEvent struct {
	Type watch.EventType
	// RV is the object's resourceVersion (a bookmark's RV).
	RV string
	// Key is namespace/name of the object (empty for bookmarks).
	Key string
	// InitialEventsEnd marks the bookmark that ends a watch-list's
	// initial events.
	InitialEventsEnd bool
	// Kind and APIVersion are the event object's (raw watches only).
	Kind, APIVersion string
	// Status is the Status of an ERROR event.
	Status *metav1.Status
	// End is set on the pseudo-event at the end of the stream; Err is why,
	// nil for a clean end of the response.
	End bool
	Err error
	// Bytes is the size of the event's frame on the wire (raw watches
	// only).
	Bytes int
}

func (ev WatchEvent) String() string {
	switch {
	case ev.End && ev.Err == nil:
		return "the server ended the response (clean end of stream, no final event)"
	case ev.End && isCut(ev.Err):
		// Which of the two a cut gives depends on whether the reset
		// arrives before the half frame is read: one text for both keeps
		// timelines deterministic.
		return "stream broken: the connection was cut mid-frame (a decode error: unexpected EOF or connection reset), no final event"
	case ev.End:
		return fmt.Sprintf("stream broken: %v", ev.Err)
	case ev.Type == watch.Error:
		return "ERROR " + describeStatus(ev.Status)
	case ev.Type == watch.Bookmark && ev.InitialEventsEnd:
		return "BOOKMARK (k8s.io/initial-events-end)"
	case ev.Type == watch.Bookmark:
		return "BOOKMARK"
	}
	return string(ev.Type) + " " + ev.Key
}

// isCut reports whether err is how a connection cut mid-frame shows.
func isCut(err error) bool {
	return errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET)
}

// Stream is an open watch: events arrive on it as the server sends them.
type Stream struct {
	// Response is the watch response (raw watches only); its body belongs
	// to the stream.
	Response *http.Response

	e      *Env
	name   string
	lane   string // the lane it was opened in
	events chan WatchEvent
	stop   func()
	ended  bool
	// pending is an event Silent found waiting, for Next to return.
	pending *WatchEvent
	// last is the type of the last event taken from the stream.
	last watch.EventType
	// auditID is the watch response's Audit-Id, by which the server
	// says whether it ended the watch as too slow.
	auditID string
}

// Watch opens a raw HTTP watch on path (its query must ask for a watch);
// it returns once the response headers arrived, as client-go's Watch does.
// The request and the response headers are recorded; events are recorded
// as the scenario reads them with Next.
func (e *Env) Watch(path string) (*Stream, error) {
	return e.watch(path, nil)
}

// WatchPaused opens a raw watch like Watch, but its client reads nothing
// from the response until resume is closed: a consumer that has stopped
// reading, so the server's writes back up in the connection.
func (e *Env) WatchPaused(path string, resume <-chan struct{}) (*Stream, error) {
	return e.watch(path, resume)
}

func (e *Env) watch(path string, resume <-chan struct{}) (*Stream, error) {
	name := e.nextStreamName()
	ctx, cancel := context.WithCancel(context.WithValue(e.ctx, streamNameKey{}, name))
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, e.srv.URL()+path, nil)
	if err != nil {
		cancel()
		return nil, fmt.Errorf("scenarios: watch %s: %w", path, err)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := e.httpc.Do(req)
	if err != nil {
		cancel()
		return nil, fmt.Errorf("scenarios: watch %s: %w", path, err)
	}
	if resp.StatusCode != http.StatusOK {
		_ = resp.Body.Close()
		cancel()
		return nil, fmt.Errorf("%w: watch %s answered %s", ErrExpectation, path, resp.Status)
	}
	s := &Stream{Response: resp, e: e, name: name, lane: e.currentLane(), events: make(chan WatchEvent), auditID: resp.Header.Get("Audit-Id")}
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer resp.Body.Close()
		if resume != nil {
			select {
			case <-resume:
			case <-ctx.Done():
				return
			}
		}
		readFrames(ctx, resp.Body, s.events)
	}()
	s.stop = sync1(func() { cancel(); <-done })
	e.addCloser(s.stop)
	return s, nil
}

// readFrames decodes {"type":...,"object":...} frames from body into out
// until the body ends, then sends the end pseudo-event.
func readFrames(ctx context.Context, body io.Reader, out chan<- WatchEvent) {
	frames := kubewire.NewFrameReader(body)
	for {
		ev := readFrame(frames)
		select {
		case out <- ev:
		case <-ctx.Done():
			return
		}
		if ev.End {
			return
		}
	}
}

// readFrame reads the next event, or the end of the stream: nil Err for a
// clean end, the decoder's error for a broken one.
func readFrame(frames *kubewire.FrameReader) WatchEvent {
	f, err := frames.Next()
	var o wireObject
	if err == nil {
		err = json.Unmarshal(f.Object, &o)
	}
	switch {
	case errors.Is(err, io.EOF):
		return WatchEvent{End: true}
	case err != nil:
		return WatchEvent{End: true, Err: err}
	}
	ev := wireEvent(watch.EventType(f.Type), o)
	ev.Bytes = f.Size
	return ev
}

func wireEvent(typ watch.EventType, o wireObject) WatchEvent {
	ev := WatchEvent{Type: typ, RV: o.Metadata.ResourceVersion, Kind: o.Kind, APIVersion: o.APIVersion}
	switch typ {
	case watch.Error:
		ev.Status = o.status()
	case watch.Bookmark:
		ev.InitialEventsEnd = o.Metadata.Annotations[metav1.InitialEventsAnnotationKey] == "true"
	default:
		ev.Key = o.key()
	}
	return ev
}

// WatchTyped opens a watch with client-go's typed clientset for the
// ConfigMaps of ns; the request is recorded like any other, events as the
// scenario reads them.
func (e *Env) WatchTyped(ns string, opts metav1.ListOptions) (*Stream, error) {
	name := e.nextStreamName()
	var auditID string
	ctx := context.WithValue(context.WithValue(e.ctx, streamNameKey{}, name), auditIDKey{}, &auditID)
	w, err := e.cs.CoreV1().ConfigMaps(ns).Watch(ctx, opts)
	if err != nil {
		return nil, fmt.Errorf("scenarios: watch configmaps: %w", err)
	}
	s := &Stream{e: e, name: name, lane: e.currentLane(), events: make(chan WatchEvent), auditID: auditID}
	ctx, cancel := context.WithCancel(e.ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			var ev WatchEvent
			in, ok := <-w.ResultChan()
			if ok {
				ev = typedEvent(in)
			} else {
				ev.End = true
			}
			select {
			case s.events <- ev:
			case <-ctx.Done():
				return
			}
			if ev.End {
				return
			}
		}
	}()
	s.stop = sync1(func() { w.Stop(); cancel(); <-done })
	e.addCloser(s.stop)
	return s, nil
}

func typedEvent(in watch.Event) WatchEvent {
	ev := WatchEvent{Type: in.Type}
	if in.Type == watch.Error {
		if st, ok := in.Object.(*metav1.Status); ok {
			ev.Status = st
		}
		return ev
	}
	m, err := meta.Accessor(in.Object)
	if err != nil {
		return ev
	}
	ev.RV = m.GetResourceVersion()
	if in.Type == watch.Bookmark {
		ev.InitialEventsEnd = m.GetAnnotations()[metav1.InitialEventsAnnotationKey] == "true"
		return ev
	}
	ev.Key = m.GetNamespace() + "/" + m.GetName()
	return ev
}

// Next returns the next event of the stream and records it; after the end
// of the stream it returns an error. It fails if the run's context ends
// first.
func (s *Stream) Next() (WatchEvent, error) {
	if s.ended {
		return WatchEvent{}, errStreamEnded
	}
	ev, err := s.receive()
	if err != nil {
		return ev, err
	}
	s.ended = ev.End
	s.e.append(s.eventEntry(ev, ev.RV, "%s %s", s.name, ev))
	return ev, nil
}

// eventEntry is a timeline entry for ev, taken from s, or for a summary
// of events ending with ev: in the lane s was opened in, naming s, with
// ev's frame size and, at the end of the stream, why it ended.
func (s *Stream) eventEntry(ev WatchEvent, rv, format string, args ...any) Entry {
	en := s.e.entry(KindEvent, rv, format, args...)
	en.Lane, en.Stream, en.Bytes = s.lane, s.name, ev.Bytes
	if ev.End {
		en.End = s.endOf(ev)
	}
	return en
}

// endOf says why the stream ended with ev, as the client can tell.
func (s *Stream) endOf(ev WatchEvent) StreamEnd {
	switch {
	case ev.Err != nil && isCut(ev.Err):
		return EndCut
	case ev.Err != nil:
		return EndBroken
	case s.last == watch.Error:
		return EndError
	case s.e.srv.WatchEndedSlow(s.auditID):
		return EndSlowConsumer
	}
	return EndClosed
}

// took notes ev as taken from the stream.
func (s *Stream) took(ev WatchEvent) WatchEvent {
	if !ev.End {
		s.last = ev.Type
	}
	return ev
}

// receive takes the next event: the one Silent found, or the next to
// arrive.
func (s *Stream) receive() (WatchEvent, error) {
	if ev := s.pending; ev != nil {
		s.pending = nil
		return s.took(*ev), nil
	}
	select {
	case ev := <-s.events:
		return s.took(ev), nil
	case <-s.e.ctx.Done():
		return WatchEvent{}, s.e.waitEnded("no event on " + s.name + " yet")
	}
}

// Silent reports whether the stream is open and has nothing to read now,
// not even its end; it does not wait. Only a stream the scenario knows to
// be stopped (a hung stream) gives a deterministic answer.
func (s *Stream) Silent() bool {
	if s.ended || s.pending != nil {
		return false
	}
	select {
	case ev := <-s.events:
		s.pending = &ev
		return false
	default:
		return true
	}
}

// Expect reads the next event and checks its type and, unless key is
// empty, its object.
func (s *Stream) Expect(typ watch.EventType, key string) (WatchEvent, error) {
	ev, err := s.Next()
	if err != nil {
		return ev, err
	}
	if ev.End || ev.Type != typ || (key != "" && ev.Key != key) {
		want := string(typ) + " " + key
		return ev, fmt.Errorf("%w: %s: got %s, want %s", ErrExpectation, s.name, ev, strings.TrimSpace(want))
	}
	return ev, nil
}

// ExpectEnd reads the next event and checks that it is the clean end of
// the stream: the response ended with no ERROR event.
func (s *Stream) ExpectEnd() error {
	ev, err := s.Next()
	if err != nil {
		return err
	}
	if !ev.End || ev.Err != nil {
		return fmt.Errorf("%w: %s: got %s, want the end of the stream", ErrExpectation, s.name, ev)
	}
	return nil
}

// Drain reads events until the end of the stream without recording each
// one, and returns how many there were and the end pseudo-event.
func (s *Stream) Drain() (int, WatchEvent, error) {
	n := 0
	if ev := s.pending; ev != nil {
		s.pending = nil
		s.took(*ev)
		if ev.End {
			s.ended = true
			return n, *ev, nil
		}
		n++
	}
	for !s.ended {
		select {
		case ev := <-s.events:
			s.took(ev)
			if ev.End {
				s.ended = true
				return n, ev, nil
			}
			n++
		case <-s.e.ctx.Done():
			return n, WatchEvent{}, s.e.waitEnded(s.name + " had not ended")
		}
	}
	return n, WatchEvent{}, errStreamEnded
}

// ReadUntil reads events without recording them, up to and including the
// first for which stop is true, and returns them; the scenario records
// what matters of them (a summary of hundreds of events). It fails if the
// stream ends first or the run's context does.
func (s *Stream) ReadUntil(stop func(WatchEvent) bool) ([]WatchEvent, error) {
	var evs []WatchEvent
	for {
		if s.ended {
			return evs, fmt.Errorf("%w: %s ended before the event awaited", ErrExpectation, s.name)
		}
		ev, err := s.receive()
		if err != nil {
			return evs, err
		}
		s.ended = ev.End
		evs = append(evs, ev)
		if !ev.End && stop(ev) {
			return evs, nil
		}
	}
}

// Name is the stream's name in the timeline ("w1").
func (s *Stream) Name() string { return s.name }

// Close ends the watch from the client's side (the client goes away).
func (s *Stream) Close() { s.stop() }

// sync1 makes fn safe to call more than once; it runs once.
func sync1(fn func()) func() {
	var once sync.Once
	return func() { once.Do(fn) }
}
