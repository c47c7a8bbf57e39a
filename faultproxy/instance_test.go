package faultproxy

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/lw-sim/lw-sim/fakeapiserver/fakeapiservertest"
	"github.com/lw-sim/lw-sim/faults"
)

// rawResponse is what a raw HTTP request got, compared byte for byte.
type rawResponse struct {
	Code        int
	ContentType string
	Body        string
}

// rawDo sends one request through cfg's transport with Accept JSON and
// reads the whole response.
func rawDo(t *testing.T, cfg *rest.Config, method, path, body string) rawResponse {
	t.Helper()
	hc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequestWithContext(t.Context(), method, strings.TrimSuffix(cfg.Host, "/")+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", "application/json")
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return rawResponse{Code: resp.StatusCode, ContentType: resp.Header.Get("Content-Type"), Body: string(b)}
}

// addFault adds f to tg or fails the test.
func addFault(t *testing.T, tg target, f faults.Fault) {
	t.Helper()
	if _, err := tg.inj.Add(f); err != nil {
		t.Fatalf("Add(%+v): %v", f, err)
	}
}

const cmsPath = "/api/v1/namespaces/default/configmaps"

// TestProxyPartitionMatchesFakeInstance: a partitioned proxy answers what
// a partitioned instance of the fake answers, byte for byte: the 504 of a
// storage that never answers for writes, GET without a resourceVersion and
// consistent LISTs; cache reads pass. Healed, writes pass again.
func TestProxyPartitionMatchesFakeInstance(t *testing.T) {
	requests := []struct{ method, path, body string }{
		{"POST", cmsPath, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"}}`},
		{"PUT", cmsPath + "/a", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"}}`},
		{"PATCH", cmsPath + "/a", `{}`},
		{"DELETE", cmsPath + "/a", ""},
		{"GET", cmsPath + "/a", ""},
		{"GET", cmsPath, ""},
		{"GET", cmsPath + "?limit=1", ""},
		{"GET", cmsPath + "?resourceVersion=0", ""},
		{"GET", cmsPath + "/a?resourceVersion=0", ""},
	}
	var got [2][]rawResponse
	for i, mk := range []func(*testing.T) target{directTarget, proxiedTarget} {
		synctest.Test(t, func(t *testing.T) {
			tg := mk(t)
			tg.create(t, "a")
			addFault(t, tg, faults.Fault{Kind: faults.PartitionAPIServer})
			for _, rq := range requests {
				r := rawDo(t, tg.rest, rq.method, rq.path, rq.body)
				if r.Code == http.StatusOK {
					r.Body = "" // the objects' managedFields times differ
				}
				got[i] = append(got[i], r)
			}
			cs := kubernetes.NewForConfigOrDie(tg.rest)
			cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "y"}}
			if _, err := cs.CoreV1().ConfigMaps("default").Create(t.Context(), cm, metav1.CreateOptions{}); !apierrors.IsTimeout(err) {
				t.Errorf("client-go create while partitioned: %v, want the 504 Timeout", err)
			}
			addFault(t, tg, faults.Fault{Kind: faults.HealAPIServer})
			if _, err := cs.CoreV1().ConfigMaps("default").Create(t.Context(), cm, metav1.CreateOptions{}); err != nil {
				t.Errorf("client-go create once healed: %v", err)
			}
		})
	}
	if diff := cmp.Diff(got[0], got[1]); diff != "" {
		t.Errorf("partitioned proxy differs from a partitioned fake instance (-fake +proxy):\n%s", diff)
	}
	if got[1][0].Code != http.StatusGatewayTimeout || got[1][len(requests)-1].Code != http.StatusOK {
		t.Errorf("partitioned proxy answered %+v, want 504 for writes and 200 for cache reads", got[1])
	}
}

// TestProxyRestartMatchesFakeInstance: after a restart, a watch from an
// RV below the restart point gets the watch cache's 200 and ERROR 410
// event, byte for byte as from a restarted instance of the fake; open
// watches end without an ERROR; a watch from the restart RV goes on.
func TestProxyRestartMatchesFakeInstance(t *testing.T) {
	type result struct {
		Open    []watch.EventType // what the open watch got after the restart
		Expired rawResponse
		FromRV  int // the HTTP status of a watch from the restart RV
	}
	var got [2]result
	for i, mk := range []func(*testing.T) target{directTarget, proxiedTarget} {
		synctest.Test(t, func(t *testing.T) {
			tg := mk(t)
			tg.create(t, "a")
			cs := kubernetes.NewForConfigOrDie(tg.rest)
			l, err := cs.CoreV1().ConfigMaps("default").List(t.Context(), metav1.ListOptions{})
			if err != nil {
				t.Fatal(err)
			}
			old := l.ResourceVersion
			tg.create(t, "b")
			w, err := cs.CoreV1().ConfigMaps("default").Watch(t.Context(), metav1.ListOptions{ResourceVersion: old})
			if err != nil {
				t.Fatal(err)
			}
			synctest.Wait()
			<-w.ResultChan() // b
			addFault(t, tg, faults.Fault{Kind: faults.RestartAPIServer})
			for ev := range w.ResultChan() {
				got[i].Open = append(got[i].Open, ev.Type)
			}
			got[i].Expired = rawDo(t, tg.rest, "GET", cmsPath+"?watch=true&resourceVersion="+old, "")
			now, err := tg.writer.CoreV1().ConfigMaps("default").List(t.Context(), metav1.ListOptions{})
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(t.Context())
			w2, err := cs.CoreV1().ConfigMaps("default").Watch(ctx, metav1.ListOptions{ResourceVersion: now.ResourceVersion})
			if err != nil {
				t.Fatal(err)
			}
			tg.create(t, "c")
			if ev := <-w2.ResultChan(); ev.Type == watch.Added {
				got[i].FromRV = http.StatusOK
			} else {
				t.Errorf("watch from the restart rv got %+v", ev)
			}
			cancel()
			w2.Stop()
		})
	}
	if diff := cmp.Diff(got[0], got[1]); diff != "" {
		t.Errorf("restarted proxy differs from a restarted fake instance (-fake +proxy):\n%s", diff)
	}
	if !strings.Contains(got[1].Expired.Body, `"type":"ERROR"`) || !strings.Contains(got[1].Expired.Body, "too old resource version: ") {
		t.Errorf("watch from below the restart: %+v, want the ERROR 410", got[1].Expired)
	}
}

// TestProxyRefusesOtherInstances: instance faults for another instance
// than the proxy are refused with ErrUnsupported; for the proxy (named or
// not) they are taken.
func TestProxyRefusesOtherInstances(t *testing.T) {
	p, err := New(Config{Upstream: &rest.Config{Host: "http://127.0.0.1:1"}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if _, err := p.Faults().Add(faults.Fault{Kind: faults.FreezeAPIServer, APIServer: "apiserver-1"}); !errors.Is(err, faults.ErrUnsupported) || !strings.Contains(err.Error(), `"apiserver-1"`) {
		t.Errorf("Add(Freeze apiserver-1) = %v, want ErrUnsupported naming it", err)
	}
	for _, name := range []string{"", InstanceName} {
		if _, err := p.Faults().Add(faults.Fault{Kind: faults.FreezeAPIServer, APIServer: name}); err != nil {
			t.Errorf("Add(Freeze %q) = %v", name, err)
		}
	}
	if _, err := p.Faults().Add(faults.Fault{Kind: faults.HealAPIServer}); err != nil {
		t.Errorf("Add(Heal) = %v", err)
	}
}

// pending drains what a watch delivered so far (the bubble idle between
// receives).
func pending(w watch.Interface) []watch.Event {
	var out []watch.Event
	for {
		synctest.Wait()
		select {
		case ev, ok := <-w.ResultChan():
			if !ok {
				return out
			}
			out = append(out, ev)
		default:
			return out
		}
	}
}

// names are the events' types, object names (or "*" for a bookmark) and
// RVs' order checked.
func names(t *testing.T, evs []watch.Event) []string {
	t.Helper()
	var out []string
	for _, ev := range evs {
		m, err := meta(ev.Object)
		if err != nil {
			t.Fatalf("event %+v: %v", ev, err)
		}
		n := m.GetName()
		if ev.Type == watch.Bookmark {
			n = "*"
		}
		out = append(out, string(ev.Type)+" "+n)
	}
	return out
}

// meta is the object's metadata.
func meta(o any) (metav1.Object, error) {
	m, ok := o.(metav1.Object)
	if !ok {
		return nil, errors.New("no metadata")
	}
	return m, nil
}

// checkOrdered fails if RVs go down along the events (a bookmark ahead of
// a later event, or events out of order).
func checkOrdered(t *testing.T, evs []watch.Event) {
	t.Helper()
	var last int64
	for _, ev := range evs {
		m, _ := meta(ev.Object)
		rv := mustRV(m.GetResourceVersion())
		if rv < last || (rv == last && ev.Type != watch.Bookmark) {
			t.Errorf("rv %d (%s) after rv %d: out of order in %v", rv, ev.Type, last, names(t, evs))
		}
		last = rv
	}
}

// TestProxyLagByEvents: an event goes out once 2 later events of its
// stream passed the proxy; a bookmark waits behind the events held before
// it; healed, the held ones go out in order.
func TestProxyLagByEvents(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tg := proxiedTarget(t)
		cs := kubernetes.NewForConfigOrDie(tg.rest)
		l, err := cs.CoreV1().ConfigMaps("default").List(t.Context(), metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		w, err := cs.CoreV1().ConfigMaps("default").Watch(t.Context(), metav1.ListOptions{ResourceVersion: l.ResourceVersion, AllowWatchBookmarks: true})
		if err != nil {
			t.Fatal(err)
		}
		defer w.Stop()
		addFault(t, tg, faults.Fault{Kind: faults.LagAPIServer, Lag: 2})
		var all []watch.Event
		step := func(want ...string) {
			t.Helper()
			evs := pending(w)
			all = append(all, evs...)
			if diff := cmp.Diff(want, names(t, evs)); diff != "" {
				t.Errorf("delivered (-want +got):\n%s", diff)
			}
		}
		for _, n := range []string{"c1", "c2", "c3"} {
			tg.create(t, n)
		}
		step("ADDED c1")
		// A write elsewhere moves the RV on, so the upstream's periodic
		// bookmark comes, behind c2 and c3.
		if _, err := tg.writer.CoreV1().Secrets("default").Create(t.Context(), &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "s"}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		time.Sleep(2 * time.Minute)
		step()
		tg.create(t, "c4")
		step("ADDED c2")
		addFault(t, tg, faults.Fault{Kind: faults.HealAPIServer})
		evs := pending(w)
		all = append(all, evs...)
		got := names(t, evs)
		if len(got) < 3 || got[0] != "ADDED c3" || got[len(got)-1] != "ADDED c4" || !strings.HasPrefix(got[1], "BOOKMARK") {
			t.Errorf("after heal delivered %v, want c3, the held bookmarks, c4", got)
		}
		checkOrdered(t, all)
	})
}

// TestProxyLagByDuration: each event goes out 10 s after the proxy got
// it, in order.
func TestProxyLagByDuration(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tg := proxiedTarget(t)
		cs := kubernetes.NewForConfigOrDie(tg.rest)
		w, err := cs.CoreV1().ConfigMaps("default").Watch(t.Context(), metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		defer w.Stop()
		addFault(t, tg, faults.Fault{Kind: faults.LagAPIServer, Delay: faults.Duration(10 * time.Second)})
		start := time.Now()
		tg.create(t, "c1")
		time.Sleep(4 * time.Second)
		tg.create(t, "c2")
		var got []string
		for range 2 {
			ev := <-w.ResultChan()
			m, _ := meta(ev.Object)
			got = append(got, m.GetName()+"@"+time.Since(start).String())
		}
		if diff := cmp.Diff([]string{"c1@10s", "c2@14s"}, got); diff != "" {
			t.Errorf("lagged events (-want +got):\n%s", diff)
		}
	})
}

// TestProxyInstanceFaultsOverControlAPI: the control API takes the
// instance faults for the proxy (201) and refuses one for another
// instance (501, ErrUnsupported); a partition added there answers a
// client-go write with the 504, a heal lets it through.
func TestProxyInstanceFaultsOverControlAPI(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv, upLn := startFake(t)
		p, err := New(Config{Upstream: clientFor(srv.URL(), upLn), ControlAPI: true})
		if err != nil {
			t.Fatal(err)
		}
		ln := fakeapiservertest.NewPipeListener()
		serveUntilCleanup(t, p, ln)
		cfg := clientFor("http://lw-sim-proxy", ln)
		cms := kubernetes.NewForConfigOrDie(cfg).CoreV1().ConfigMaps("default")
		create := func(name string) error {
			_, err := cms.Create(t.Context(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
			return err
		}
		if r := rawDo(t, cfg, "POST", "/_lwsim/faults", `{"kind":"FreezeAPIServer","apiserver":"apiserver-2"}`); r.Code != http.StatusNotImplemented || !strings.Contains(r.Body, `apiserver-2`) {
			t.Errorf("POST Freeze apiserver-2: %+v, want 501 naming it", r)
		}
		if r := rawDo(t, cfg, "POST", "/_lwsim/faults", `{"kind":"PartitionAPIServer"}`); r.Code != http.StatusCreated || !strings.Contains(r.Body, `"apiserver": "apiserver-0"`) {
			t.Errorf("POST Partition: %+v, want 201 for apiserver-0", r)
		}
		if err := create("a"); !apierrors.IsTimeout(err) {
			t.Errorf("create through the partitioned proxy: %v, want the 504 Timeout", err)
		}
		if r := rawDo(t, cfg, "POST", "/_lwsim/faults", `{"kind":"HealAPIServer"}`); r.Code != http.StatusCreated {
			t.Errorf("POST Heal: %+v, want 201", r)
		}
		if err := create("a"); err != nil {
			t.Errorf("create through the healed proxy: %v", err)
		}
		r := rawDo(t, cfg, "GET", "/_lwsim/faults/records", "")
		for _, want := range []string{"apiserver-0 (the proxy) partitioned", "apiserver-0 (the proxy) healed"} {
			if !strings.Contains(r.Body, want) {
				t.Errorf("records %s: no %q", r.Body, want)
			}
		}
	})
}
