package fakeapiserver

import (
	"context"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/lw-sim/lw-sim/faults"
)

// connTally counts the connections a client-go config dials and the
// protocols of the responses it reads.
type connTally struct {
	dials  atomic.Int64
	mu     sync.Mutex
	protos map[string]int
}

// instrument makes rc dial through dial, counting, and record each
// response's protocol.
func (c *connTally) instrument(rc *rest.Config, dial func(ctx context.Context, network, addr string) (net.Conn, error)) {
	c.protos = map[string]int{}
	rc.Dial = func(ctx context.Context, network, addr string) (net.Conn, error) {
		c.dials.Add(1)
		return dial(ctx, network, addr)
	}
	rc.Wrap(func(rt http.RoundTripper) http.RoundTripper {
		return roundTripFunc(func(req *http.Request) (*http.Response, error) {
			resp, err := rt.RoundTrip(req)
			if err == nil {
				c.mu.Lock()
				c.protos[resp.Proto]++
				c.mu.Unlock()
			}
			return resp, err
		})
	})
}

// protocols are the response protocols seen so far, with their counts.
func (c *connTally) protocols() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := map[string]int{}
	for k, v := range c.protos {
		out[k] = v
	}
	return out
}

// TestHTTP2WatchesShareConnection: over TLS client-go negotiates HTTP/2,
// and its watches share a connection up to kube-apiserver's 100 concurrent
// streams: 101 watches take two connections, as on a real cluster, and
// every one of them sees an event.
func TestHTTP2WatchesShareConnection(t *testing.T) {
	t.Parallel()
	srv := Start(t, WithTLS())
	var tally connTally
	rc := srv.RESTConfig()
	var d net.Dialer
	tally.instrument(rc, d.DialContext)
	cs, err := kubernetes.NewForConfig(rc)
	if err != nil {
		t.Fatal(err)
	}
	const watches = 101
	var ws []watch.Interface
	for range watches {
		w, err := cs.CoreV1().ConfigMaps("default").Watch(t.Context(), metav1.ListOptions{})
		if err != nil {
			t.Fatalf("Watch: %v", err)
		}
		t.Cleanup(w.Stop)
		ws = append(ws, w)
	}
	if _, err := cs.CoreV1().ConfigMaps("default").Create(t.Context(), configMap("default", "a", "v", nil), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	for i, w := range ws {
		if ev := <-w.ResultChan(); ev.Type != watch.Added {
			t.Fatalf("watch %d: first event %s %v, want ADDED", i, ev.Type, ev.Object)
		}
	}
	if diff := cmp.Diff(map[string]int{"HTTP/2.0": watches + 1}, tally.protocols()); diff != "" {
		t.Errorf("response protocols mismatch (-want +got):\n%s", diff)
	}
	if got := tally.dials.Load(); got != 2 {
		t.Errorf("%d watches dialed %d connections, want 2 (100 streams per connection)", watches, got)
	}
}

// TestHTTP2CutResetsOnlyItsStream: over HTTP/2 a CutWatch fault resets the
// cut watch's stream, not the connection: another watch on the same
// connection goes on receiving events, and no new connection is dialed.
func TestHTTP2CutResetsOnlyItsStream(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := startBubble(t, WithTLS())
		var tally connTally
		rc := b.srv.RESTConfig()
		tally.instrument(rc, b.ln.DialContext)
		cs, err := kubernetes.NewForConfig(rc)
		if err != nil {
			t.Fatal(err)
		}
		cut, err := cs.CoreV1().ConfigMaps("default").Watch(t.Context(), metav1.ListOptions{ResourceVersion: b.currentRV()})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(cut.Stop)
		kept, err := cs.CoreV1().Secrets("default").Watch(t.Context(), metav1.ListOptions{ResourceVersion: b.currentRV()})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(kept.Stop)
		synctest.Wait()
		b.srv.InjectFault(t, faults.Fault{Kind: faults.CutWatch, Match: faults.Match{Resource: "configmaps"}})
		b.mustCreate(t, configMap("default", "a", "v", nil))
		// The cut stream ends; client-go reports the reset stream as an
		// ERROR event (a stream error is no probable EOF), as it would
		// from kube-apiserver.
		for ev := range cut.ResultChan() {
			if ev.Type != watch.Error {
				t.Errorf("cut watch: event %s, want only an ERROR before the end", ev.Type)
			}
		}
		sec := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "s"}}
		if _, err := cs.CoreV1().Secrets("default").Create(t.Context(), sec, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		if ev := <-kept.ResultChan(); ev.Type != watch.Added {
			t.Errorf("watch beside the cut one: event %s %v, want ADDED", ev.Type, ev.Object)
		}
		if got := tally.dials.Load(); got != 1 {
			t.Errorf("dialed %d connections, want 1: a cut resets its stream, not the connection", got)
		}
		if diff := cmp.Diff(map[string]int{"HTTP/2.0": 3}, tally.protocols()); diff != "" {
			t.Errorf("response protocols mismatch (-want +got):\n%s", diff)
		}
		if recs := b.srv.Faults().Records(); len(recs) != 1 || recs[0].Kind != faults.CutWatch {
			t.Errorf("Records() = %+v, want one CutWatch", recs)
		}
	})
}

// TestHTTP2IdleWatchOutlivesWriteTimeout: over HTTP/2, a watch that sent
// an event and then stays idle for longer than the slow-consumer write
// timeout (as `lw-sim serve` sets it) goes on: the next event arrives, with
// no ERROR before it, and no watch is counted slow. The write deadline is
// the write's, not the stream's: net/http's HTTP/2 server resets a stream
// whose write deadline passes even with no write in progress, so a
// deadline left armed after the last write ended idle watches 10 s after
// their last event (and kept a timer per idle watch).
func TestHTTP2IdleWatchOutlivesWriteTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const writeTimeout = 10 * time.Second
		b := startBubble(t, WithTLS(), WithConfig(func(cfg *Config) { cfg.Watch.SlowWatcherWriteTimeout = writeTimeout }))
		w, err := b.cs.CoreV1().ConfigMaps("default").Watch(t.Context(), metav1.ListOptions{ResourceVersion: b.currentRV()})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(w.Stop)
		for i, name := range []string{"a", "b"} {
			if i > 0 {
				time.Sleep(3 * writeTimeout) // idle, on the bubble's clock
				synctest.Wait()
			}
			b.mustCreate(t, configMap("default", name, "v", nil))
			ev := <-w.ResultChan()
			if cm, ok := ev.Object.(*corev1.ConfigMap); ev.Type != watch.Added || !ok || cm.Name != name {
				t.Fatalf("event %d: %s %v, want ADDED %s", i, ev.Type, ev.Object, name)
			}
		}
		if got := b.srv.WatchStats().SlowTerminated; got != 0 {
			t.Errorf("WatchStats().SlowTerminated = %d, want 0", got)
		}
	})
}

// TestHTTP2HungWatchOutlivesWriteTimeout: over HTTP/2 with a slow-consumer
// write timeout, a watch hung by a HangWatch fault stays silent and open
// (the client's own timeout ends it), as without the timeout
// (TestFaultHangWatch): a hang is no write in flight, so it carries no
// write deadline, which net/http's HTTP/2 server would otherwise turn into
// a stream reset one timeout after the hang began.
func TestHTTP2HungWatchOutlivesWriteTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := startBubble(t, WithTLS(), WithConfig(func(cfg *Config) { cfg.Watch.SlowWatcherWriteTimeout = 10 * time.Second }))
		b.srv.InjectFault(t, faults.Fault{Kind: faults.HangWatch, Streams: faults.NewStreams, Trigger: faults.Trigger{Events: 1}})
		// Both events are read in one round, so the hang comes after a
		// write of the same batch set the write deadline.
		from := b.currentRV()
		b.mustCreate(t, configMap("default", "a", "v", nil))
		b.mustCreate(t, configMap("default", "b", "v", nil))
		w, err := b.cs.CoreV1().ConfigMaps("default").Watch(t.Context(), metav1.ListOptions{ResourceVersion: from})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(w.Stop)
		if ev := <-w.ResultChan(); ev.Type != watch.Added {
			t.Fatalf("first event: %s %v, want ADDED a", ev.Type, ev.Object)
		}
		select {
		case ev, ok := <-w.ResultChan():
			t.Fatalf("hung watch: event %s %v (open %v), want silence", ev.Type, ev.Object, ok)
		case <-time.After(5 * time.Minute):
		}
	})
}
