package fakeapiserver

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/lw-sim/lw-sim/fakeapiserver/fakeapiservertest"
	"github.com/lw-sim/lw-sim/internal/kubewire"
	"github.com/lw-sim/lw-sim/internal/testdeadline"
)

// Watch tests run inside testing/synctest bubbles (STYLE 23): the server
// uses its Config.Clock, which is the real clock by default, and inside a
// bubble the real clock is virtual, so a 30-minute timeout takes
// microseconds. The HTTP traffic goes over net.Pipe connections, which block
// durably, so virtual time advances while a client waits for an event.

// bubble is a server running inside the current synctest bubble, with
// clients wired to it.
type bubble struct {
	srv  *Server
	ln   *fakeapiservertest.PipeListener
	http *http.Client
	rest *rest.Config
	cs   kubernetes.Interface
	done <-chan error
	tr   *http.Transport
}

// startBubble starts a server with opts in the calling synctest bubble; the
// test's Cleanup (which synctest runs in the bubble) closes it, so the
// bubble ends with no goroutine left.
func startBubble(t *testing.T, opts ...Option) *bubble {
	t.Helper()
	b := newBubble(t, opts...)
	t.Cleanup(func() { b.close(t) })
	return b
}

// newBubble starts a server with opts in the calling synctest bubble; the
// caller closes it with b.close.
func newBubble(t testing.TB, opts ...Option) *bubble {
	t.Helper()
	var cfg Config
	for _, o := range opts {
		o.apply(&cfg)
	}
	s, err := New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	ln := fakeapiservertest.NewPipeListener()
	done := s.ServeBackground(ln)
	tr := &http.Transport{DialContext: ln.DialContext}
	rc := s.RESTConfig()
	rc.Dial = ln.DialContext
	cs, err := kubernetes.NewForConfig(rc)
	if err != nil {
		t.Fatalf("NewForConfig: %v", err)
	}
	return &bubble{srv: s, ln: ln, http: &http.Client{Transport: tr}, rest: rc, cs: cs, done: done, tr: tr}
}

// close closes the server and waits for it.
//
// Shutdown chain: Close ends every watch and shuts the http.Server down
// (closing ln and the idle server conns) → the Serve goroutine returns →
// client read loops see EOF and exit.
func (b *bubble) close(t testing.TB) {
	if err := b.srv.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if err := <-b.done; err != nil {
		t.Errorf("Serve: %v", err)
	}
	b.tr.CloseIdleConnections()
	if n := b.srv.WatchStats().StaleDropped; n > 0 {
		t.Errorf("WatchStats.StaleDropped = %d, want 0", n)
	}
}

// rawEvent is one decoded JSON watch event and when (virtual time since the
// watch was opened) it arrived.
type rawEvent struct {
	kubewire.Frame
	at time.Duration
}

// eventMeta is what the tests look at in an event's object.
type eventMeta struct {
	Kind     string `json:"kind"`
	Metadata struct {
		Name            string            `json:"name"`
		Namespace       string            `json:"namespace"`
		ResourceVersion string            `json:"resourceVersion"`
		Annotations     map[string]string `json:"annotations"`
	} `json:"metadata"`
	Message string `json:"message"`
	Reason  string `json:"reason"`
	Code    int    `json:"code"`
}

func (e rawEvent) meta(t testing.TB) eventMeta {
	t.Helper()
	var m eventMeta
	if err := json.Unmarshal(e.Object, &m); err != nil {
		t.Fatalf("event object %s: %v", e.Object, err)
	}
	return m
}

// brief is an event reduced to what most assertions compare.
type brief struct {
	Type, Name, RV string
}

func (e rawEvent) brief(t testing.TB) brief {
	m := e.meta(t)
	return brief{Type: e.Type, Name: m.Metadata.Name, RV: m.Metadata.ResourceVersion}
}

// rawWatch is a JSON watch request whose events a goroutine collects.
type rawWatch struct {
	resp   *http.Response
	opened time.Time
	cancel context.CancelFunc
	done   chan struct{}

	// mu guards the fields below.
	mu     sync.Mutex
	events []rawEvent
	err    error
}

// openWatch starts GET path (with watch=true in its query) and collects its
// events until the stream ends. The watch ends at Cleanup at the latest.
func (b *bubble) openWatch(t testing.TB, path string) *rawWatch {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, b.srv.URL()+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	return b.openWatchRequest(t, req)
}

// openWatchRequest is openWatch for a prepared request.
func (b *bubble) openWatchRequest(t testing.TB, req *http.Request) *rawWatch {
	t.Helper()
	ctx, cancel := context.WithCancel(req.Context())
	resp, err := b.http.Do(req.WithContext(ctx))
	if err != nil {
		cancel()
		t.Fatalf("GET %s: %v", req.URL, err)
	}
	start := time.Now()
	w := &rawWatch{resp: resp, opened: start, cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(w.done)
		defer resp.Body.Close()
		frames := kubewire.NewFrameReader(resp.Body)
		for {
			f, err := frames.Next()
			ev := rawEvent{Frame: f, at: time.Since(start)}
			w.mu.Lock()
			if err != nil {
				if !errors.Is(err, io.EOF) {
					w.err = err
				}
				w.mu.Unlock()
				return
			}
			w.events = append(w.events, ev)
			w.mu.Unlock()
		}
	}()
	t.Cleanup(w.stop)
	return w
}

// stop ends the watch from the client side and waits for the reader.
func (w *rawWatch) stop() {
	w.cancel()
	<-w.done
}

// wait waits (in virtual time) for the server to end the stream.
func (w *rawWatch) wait() []rawEvent {
	<-w.done
	return w.snapshot()
}

// snapshot returns the events so far.
func (w *rawWatch) snapshot() []rawEvent {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]rawEvent(nil), w.events...)
}

// briefs reduces events for comparison.
func briefs(t testing.TB, evs []rawEvent) []brief {
	out := make([]brief, 0, len(evs))
	for _, e := range evs {
		out = append(out, e.brief(t))
	}
	return out
}

// configMap is a ConfigMap named name in ns with data k=v.
func configMap(ns, name, v string, labels map[string]string) *corev1.ConfigMap {
	return &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: labels},
		Data:       map[string]string{"k": v},
	}
}

// mustCreate creates cm through the API and returns its RV.
func (b *bubble) mustCreate(t testing.TB, cm *corev1.ConfigMap) string {
	t.Helper()
	got, err := b.cs.CoreV1().ConfigMaps(cm.Namespace).Create(context.Background(), cm, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("Create(%s/%s): %v", cm.Namespace, cm.Name, err)
	}
	return got.ResourceVersion
}

// mustUpdate replaces cm through the API and returns its new RV.
func (b *bubble) mustUpdate(t testing.TB, cm *corev1.ConfigMap) string {
	t.Helper()
	got, err := b.cs.CoreV1().ConfigMaps(cm.Namespace).Update(context.Background(), cm, metav1.UpdateOptions{})
	if err != nil {
		t.Fatalf("Update(%s/%s): %v", cm.Namespace, cm.Name, err)
	}
	return got.ResourceVersion
}

// mustDelete deletes a ConfigMap through the API.
func (b *bubble) mustDelete(t testing.TB, ns, name string) {
	t.Helper()
	if err := b.cs.CoreV1().ConfigMaps(ns).Delete(context.Background(), name, metav1.DeleteOptions{}); err != nil {
		t.Fatalf("Delete(%s/%s): %v", ns, name, err)
	}
}

// currentRV is the server's current RV as a string.
func (b *bubble) currentRV() string { return formatRV(b.srv.store.CurrentRV()) }

// hangGuard is closed only when a wait on real time (a test outside a
// bubble waiting for a server's event or answer) would outlast the test
// binary (testdeadline): tests wait for the event, never for a budget of
// their own that a loaded machine exceeds.
func hangGuard(t testing.TB) <-chan struct{} {
	ctx, cancel := testdeadline.Context(t)
	t.Cleanup(cancel)
	return ctx.Done()
}

// recvRVs receives n events from w and returns their RVs; only a hang
// (hangGuard) fails the test.
func recvRVs(t testing.TB, w watch.Interface, n int) []string {
	t.Helper()
	hung := hangGuard(t)
	var rvs []string
	for len(rvs) < n {
		select {
		case ev, ok := <-w.ResultChan():
			if !ok {
				t.Fatalf("watch closed after %d of %d events", len(rvs), n)
			}
			m, err := meta.Accessor(ev.Object)
			if err != nil {
				t.Fatalf("event %s: %v", ev.Type, err)
			}
			rvs = append(rvs, m.GetResourceVersion())
		case <-hung:
			t.Fatalf("got %d of %d events before the test's deadline", len(rvs), n)
		}
	}
	return rvs
}

// configMapsResource is the server's core/v1 configmaps resource.
func configMapsResource(t testing.TB, s *Server) *resourceInfo {
	t.Helper()
	res, ok := s.resources.lookup(corev1.SchemeGroupVersion.WithResource("configmaps"))
	if !ok {
		t.Fatal("configmaps not served")
	}
	return res
}
