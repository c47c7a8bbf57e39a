package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"strings"
	"syscall"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/lw-sim/lw-sim/internal/kubewire"
)

// TestServeEndsSlowWatchersByDefault: a watch whose client stops reading
// while its events pile up is ended by serve's default slow-consumer rules;
// with both rules turned off by flag the same watch keeps every event. The
// client's socket has a small receive buffer, so a few big events fill the
// connection and block the server's handler; 250 more events are then
// more than the default lag of 200. Whichever default rule fires first
// (the lag when the client reads again, or the 10 s write timeout) ends
// the watch: after the lag, at a frame boundary; after the write timeout,
// with the connection closed mid-frame (DIVERGENCES.md).
func TestServeEndsSlowWatchersByDefault(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		flags     []string
		wantEnded bool
	}{
		{"defaults", nil, true},
		{"off", []string{"--watch-max-lag", "0", "--watch-write-timeout", "0"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cfg := startServe(t, tc.flags...).restConfig(t)
			got, total, end := stalledWatchEvents(t, cfg, 8, 250)
			switch {
			case tc.wantEnded && got >= total:
				t.Errorf("stalled watch got all %d events: not ended as a slow consumer", total)
			case !tc.wantEnded && got != total:
				t.Errorf("stalled watch got %d of %d events with the slow-consumer rules off (%v)", got, total, end)
			}
			t.Logf("%d of %d events, then %v", got, total, end)
		})
	}
}

// smallReceiveBuffer is the client socket's SO_RCVBUF: small, so a stalled
// reader fills the connection with little data.
const smallReceiveBuffer = 4 << 10

// stalledWatchEvents opens a watch on default configmaps from a client
// with a small receive buffer, does not read it while big ConfigMaps
// (256 KiB each) and then small ones are created, then reads it to its
// end (or to the last event). It returns how many ADDED events it got, how
// many there were, and how the stream ended (nil when all came; else the
// read's error). An ERROR event fails t.
func stalledWatchEvents(t *testing.T, cfg *rest.Config, big, small int) (got, total int, end error) {
	t.Helper()
	cfg = rest.CopyConfig(cfg)
	cfg.QPS = -1 // no client-side rate limit: 250 creates at client-go's default 5/s take 50 s
	cms := kubernetes.NewForConfigOrDie(cfg).CoreV1().ConfigMaps("default")
	l, err := cms.List(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	dialer := &net.Dialer{Control: func(_, _ string, c syscall.RawConn) error {
		var serr error
		if err := c.Control(func(fd uintptr) {
			serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, smallReceiveBuffer)
		}); err != nil {
			return err
		}
		return serr
	}}
	wcfg := rest.CopyConfig(cfg)
	wcfg.Dial = func(ctx context.Context, network, addr string) (net.Conn, error) {
		return dialer.DialContext(ctx, network, addr)
	}
	hc, err := rest.HTTPClientFor(wcfg)
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet,
		cfg.Host+"/api/v1/namespaces/default/configmaps?watch=true&timeoutSeconds=300&resourceVersion="+l.ResourceVersion, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	total = big + small
	for i := range total {
		data := "v"
		if i < big {
			data = strings.Repeat("x", 900<<10)
		}
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("cm-%d", i)}, Data: map[string]string{"d": data}}
		if _, err := cms.Create(t.Context(), cm, metav1.CreateOptions{}); err != nil {
			t.Fatalf("create %d: %v", i, err)
		}
	}
	frames := kubewire.NewFrameReader(resp.Body)
	for got < total {
		f, err := frames.Next()
		if err != nil {
			// A watch ended by the lag rule ends at a frame boundary
			// (io.EOF); one ended by the write timeout is a connection
			// closed in the middle of a write, which a TLS client reads
			// as a broken record ("tls: bad record MAC", seen on a machine
			// loaded 10x, where the timeout fires first) and a plain one
			// as io.ErrUnexpectedEOF. The caller judges by got.
			return got, total, err
		}
		if f.Type != "ADDED" {
			t.Fatalf("event %d is %s: %.300s", got, f.Type, f.Object)
		}
		got++
	}
	return got, total, nil
}
