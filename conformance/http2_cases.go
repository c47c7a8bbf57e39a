package conformance

// Cases for HTTP/2 serving over TLS (apiserver pkg/server/secure_serving.go):
// client-go negotiates h2 and its watches share a connection, up to the
// server's 100 concurrent streams.

import (
	"context"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// http2Cases are the cases of this file, in the order [Cases] runs them.
func http2Cases() []Case {
	return []Case{
		{Name: "HTTP2WatchStreams", Run: runHTTP2WatchStreams},
	}
}

// runHTTP2WatchStreams: over TLS, client-go's 101 watches of one namespace
// all come back as HTTP/2.0 and take two connections, because the server
// lets a connection carry 100 concurrent streams (kube-apiserver's default
// --http2-max-streams-per-connection); each watch then sees the ADDED of a
// create.
func runHTTP2WatchStreams(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	rc := rest.CopyConfig(target.RESTConfig())
	if !strings.HasPrefix(rc.Host, "https://") {
		t.Skipf("%s serves %s: HTTP/2 is for TLS", target.Name(), rc.Host)
	}
	var dials atomic.Int64
	var mu sync.Mutex
	protos := map[string]int{}
	var d net.Dialer
	rc.Dial = func(ctx context.Context, network, addr string) (net.Conn, error) {
		dials.Add(1)
		return d.DialContext(ctx, network, addr)
	}
	rc.Wrap(func(rt http.RoundTripper) http.RoundTripper {
		return protoRecorder{rt: rt, record: func(p string) {
			mu.Lock()
			defer mu.Unlock()
			protos[p]++
		}}
	})
	cs, err := kubernetes.NewForConfig(rc)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	const watches = 101
	var ws []watch.Interface
	for range watches {
		w, err := cs.CoreV1().ConfigMaps(e.ns).Watch(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatalf("watch %d: %v", len(ws), err)
		}
		defer w.Stop()
		ws = append(ws, w)
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "a"}}
	if _, err := cs.CoreV1().ConfigMaps(e.ns).Create(ctx, cm, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	for i, w := range ws {
		if ev := <-w.ResultChan(); ev.Type != watch.Added {
			t.Fatalf("watch %d: first event %s, want ADDED", i, ev.Type)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if diff := cmp.Diff(map[string]int{"HTTP/2.0": watches + 1}, protos); diff != "" {
		t.Errorf("response protocols mismatch (-want +got):\n%s", diff)
	}
	if got := dials.Load(); got != 2 {
		t.Errorf("%d watches took %d connections, want 2 (100 streams a connection)", watches, got)
	}
}

// protoRecorder records the protocol of every response.
type protoRecorder struct {
	rt     http.RoundTripper
	record func(proto string)
}

func (p protoRecorder) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := p.rt.RoundTrip(req)
	if err == nil {
		p.record(resp.Proto)
	}
	return resp, err
}
