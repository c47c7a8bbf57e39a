package fakeapiserver

import (
	"context"
	"net/http"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
)

// TestWatchServerPush shows that a watch is one long response the server
// pushes events into: headers first, then each event while the response is
// still open.
func TestWatchServerPush(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := startBubble(t)
		req, _ := http.NewRequest(http.MethodGet, b.srv.URL()+watchCMPath+"?watch=true&resourceVersion="+b.currentRV(), nil)
		req.Header.Set("Accept", "application/json;stream=watch")
		w := b.openWatchRequest(t, req)
		// Headers are flushed before any event (apiserver
		// pkg/endpoints/handlers/watch.go HandleHTTP).
		if got := w.resp.Header.Get("Content-Type"); got != "application/json" {
			t.Errorf("Content-Type = %q, want application/json (not ;stream=watch)", got)
		}
		if diff := cmp.Diff([]string{"chunked"}, w.resp.TransferEncoding); diff != "" {
			t.Errorf("TransferEncoding mismatch (-want +got):\n%s", diff)
		}
		for i, name := range []string{"p1", "p2", "p3"} {
			rv := b.mustCreate(t, configMap("default", name, "v", nil))
			synctest.Wait()
			evs := w.snapshot()
			if len(evs) != i+1 || evs[i].brief(t) != (brief{"ADDED", name, rv}) {
				t.Fatalf("after create %s: events %v, want it pushed at once", name, briefs(t, evs))
			}
			select {
			case <-w.done:
				t.Fatal("response ended; want it still open")
			default:
			}
		}
	})
}

// contentTypes records the Content-Type of every watch response.
type contentTypes struct {
	rt http.RoundTripper
	mu sync.Mutex
	ct []string
}

func (c *contentTypes) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := c.rt.RoundTrip(r)
	if err == nil && r.URL.Query().Get("watch") == "true" {
		c.mu.Lock()
		c.ct = append(c.ct, resp.Header.Get("Content-Type"))
		c.mu.Unlock()
	}
	return resp, err
}

// TestWatchProtobuf uses a typed clientset, which asks for protobuf: the
// stream is length-prefixed protobuf and decodes into typed events.
func TestWatchProtobuf(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := startBubble(t)
		rec := &contentTypes{}
		cfg := *b.rest
		cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { rec.rt = rt; return rec })
		cfg.ContentType = "application/vnd.kubernetes.protobuf"
		cs, err := kubernetes.NewForConfig(&cfg)
		if err != nil {
			t.Fatal(err)
		}
		w, err := cs.CoreV1().ConfigMaps("default").Watch(context.Background(), metav1.ListOptions{ResourceVersion: b.currentRV()})
		if err != nil {
			t.Fatal(err)
		}
		defer w.Stop()
		rv := b.mustCreate(t, configMap("default", "pb", "v", nil))
		ev := <-w.ResultChan()
		cm, ok := ev.Object.(*corev1.ConfigMap)
		if ev.Type != watch.Added || !ok || cm.Name != "pb" || cm.ResourceVersion != rv {
			t.Errorf("event = %s %T, want ADDED ConfigMap pb at rv %s", ev.Type, ev.Object, rv)
		}
		rec.mu.Lock()
		defer rec.mu.Unlock()
		if diff := cmp.Diff([]string{"application/vnd.kubernetes.protobuf;stream=watch"}, rec.ct); diff != "" {
			t.Errorf("watch Content-Type mismatch (-want +got):\n%s", diff)
		}
	})
}
