package faultproxy

import (
	"context"
	"errors"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/lw-sim/lw-sim/fakeapiserver"
	"github.com/lw-sim/lw-sim/fakeapiserver/fakeapiservertest"
	"github.com/lw-sim/lw-sim/faults"
)

// TestMain fails the package if a test leaves a goroutine running, a cut
// or hung stream included. It also drops apimachinery's HandleError rate
// limiter, as fakeapiserver's TestMain does (its wall-clock stamp from
// init makes the first error in a synctest bubble sleep for years of
// virtual time, stalling the informer that reported it).
func TestMain(m *testing.M) {
	utilruntime.ErrorHandlers = utilruntime.ErrorHandlers[:1]
	goleak.VerifyTestMain(m)
}

// target is where a table row runs: a fake server with faults injected in
// it, or a proxy (with the faults) in front of another fake server.
type target struct {
	inj    *faults.Injector
	rest   *rest.Config // the client's way in
	writer kubernetes.Interface
}

// startFake serves a fake server in the bubble; Cleanup closes it.
func startFake(t *testing.T) (*fakeapiserver.Server, *fakeapiservertest.PipeListener) {
	t.Helper()
	srv, err := fakeapiserver.New(fakeapiserver.Config{})
	if err != nil {
		t.Fatal(err)
	}
	ln := fakeapiservertest.NewPipeListener()
	done := srv.ServeBackground(ln)
	t.Cleanup(func() {
		if err := srv.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
		<-done
	})
	return srv, ln
}

// clientFor returns a client config that reaches host over ln.
func clientFor(host string, ln *fakeapiservertest.PipeListener) *rest.Config {
	return &rest.Config{Host: host, QPS: -1, Dial: ln.DialContext}
}

// directTarget is a fake server with the faults injected in it.
func directTarget(t *testing.T) target {
	srv, ln := startFake(t)
	cfg := clientFor(srv.URL(), ln)
	return target{inj: srv.Faults(), rest: cfg, writer: kubernetes.NewForConfigOrDie(cfg)}
}

// proxyTarget is a proxy with the faults, in front of a fake server.
func proxiedTarget(t *testing.T) target {
	srv, upLn := startFake(t)
	p, err := New(Config{Upstream: clientFor(srv.URL(), upLn)})
	if err != nil {
		t.Fatal(err)
	}
	ln := fakeapiservertest.NewPipeListener()
	serveUntilCleanup(t, p, ln)
	return target{inj: p.Faults(), rest: clientFor("http://lw-sim-proxy", ln), writer: kubernetes.NewForConfigOrDie(clientFor(srv.URL(), upLn))}
}

// observation is what a client saw: comparable across targets.
type observation struct {
	Err    string // the error class, "" for success
	Events []string
	Took   time.Duration
}

// errClass names an error the way the table compares them.
func errClass(err error) string {
	switch {
	case err == nil:
		return ""
	case apierrors.IsTooManyRequests(err):
		return "429"
	case apierrors.IsInternalError(err):
		return "500"
	case apierrors.IsServiceUnavailable(err):
		return "503"
	case apierrors.IsTimeout(err):
		return "504"
	case strings.Contains(err.Error(), "unexpected EOF"):
		return "unexpected EOF"
	}
	return err.Error()
}

func (tg target) create(t *testing.T, name string) {
	t.Helper()
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if _, err := tg.writer.CoreV1().ConfigMaps("default").Create(context.Background(), cm, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// list LISTs default/configmaps through the target.
func list(t *testing.T, tg target, opts metav1.ListOptions) observation {
	cs := kubernetes.NewForConfigOrDie(tg.rest)
	start := time.Now()
	_, err := cs.CoreV1().ConfigMaps("default").List(t.Context(), opts)
	return observation{Err: errClass(err), Took: time.Since(start)}
}

// watchN watches default/configmaps through the target while n objects
// are created, until the watch ends or the client's timeout (5 min).
func watchN(t *testing.T, tg target, n int, opts metav1.ListOptions) observation {
	cfg := rest.CopyConfig(tg.rest)
	cfg.Timeout = 5 * time.Minute
	cs := kubernetes.NewForConfigOrDie(cfg)
	list, err := cs.CoreV1().ConfigMaps("default").List(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	opts.ResourceVersion = list.ResourceVersion
	w, err := cs.CoreV1().ConfigMaps("default").Watch(t.Context(), opts)
	if err != nil {
		return observation{Err: errClass(err)}
	}
	defer w.Stop()
	start := time.Now()
	for i := range n {
		tg.create(t, "cm"+string(rune('a'+i)))
	}
	var obs observation
	for ev := range w.ResultChan() {
		obs.Events = append(obs.Events, string(ev.Type)+"@"+time.Since(start).String())
	}
	obs.Took = time.Since(start)
	return obs
}

var listOnly = faults.Match{Verbs: []string{"list"}}

// faultTable is run against a fake server and against a proxy in front of
// one: the client must see the same thing.
var faultTable = []struct {
	name    string
	fault   faults.Fault
	observe func(*testing.T, target) observation
}{
	{"429 retried", faults.Fault{Kind: faults.FailRequest, Code: 429, Times: 2, Match: listOnly}, func(t *testing.T, tg target) observation {
		return list(t, tg, metav1.ListOptions{})
	}},
	{"500", faults.Fault{Kind: faults.FailRequest, Code: 500, Match: listOnly}, func(t *testing.T, tg target) observation {
		return list(t, tg, metav1.ListOptions{})
	}},
	{"503", faults.Fault{Kind: faults.FailRequest, Code: 503, Match: listOnly}, func(t *testing.T, tg target) observation {
		return list(t, tg, metav1.ListOptions{})
	}},
	{"504", faults.Fault{Kind: faults.FailRequest, Code: 504, Match: listOnly}, func(t *testing.T, tg target) observation {
		return list(t, tg, metav1.ListOptions{})
	}},
	{"latency", faults.Fault{Kind: faults.Latency, Delay: faults.Duration(2 * time.Second), Match: listOnly}, func(t *testing.T, tg target) observation {
		return list(t, tg, metav1.ListOptions{})
	}},
	{"cut LIST", faults.Fault{Kind: faults.CutList}, func(t *testing.T, tg target) observation {
		return list(t, tg, metav1.ListOptions{})
	}},
	{"page 2 fails", faults.Fault{Kind: faults.FailRequest, Code: 500, Match: faults.Match{Verbs: []string{"list"}, Page: 2}}, func(t *testing.T, tg target) observation {
		for _, n := range []string{"p1", "p2", "p3"} {
			tg.create(t, n)
		}
		cs := kubernetes.NewForConfigOrDie(tg.rest)
		first, err := cs.CoreV1().ConfigMaps("default").List(t.Context(), metav1.ListOptions{Limit: 2})
		if err != nil {
			return observation{Err: "page 1: " + errClass(err)}
		}
		_, err = cs.CoreV1().ConfigMaps("default").List(t.Context(), metav1.ListOptions{Limit: 2, Continue: first.Continue})
		return observation{Err: errClass(err)}
	}},
	{"too large rv", faults.Fault{Kind: faults.TooLargeRV, AllReads: true, Times: 2}, func(t *testing.T, tg target) observation {
		tg.create(t, "x")
		return list(t, tg, metav1.ListOptions{ResourceVersion: "2", ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan})
	}},
	{"end after 2 events", faults.Fault{Kind: faults.EndWatch, Streams: faults.NewStreams, Trigger: faults.Trigger{Events: 2}}, func(t *testing.T, tg target) observation {
		return watchN(t, tg, 3, metav1.ListOptions{})
	}},
	{"end after 30s", faults.Fault{Kind: faults.EndWatch, Streams: faults.NewStreams, Trigger: faults.Trigger{After: faults.Duration(30 * time.Second)}}, func(t *testing.T, tg target) observation {
		return watchN(t, tg, 1, metav1.ListOptions{})
	}},
	{"cut after 1 event", faults.Fault{Kind: faults.CutWatch, Streams: faults.NewStreams, Trigger: faults.Trigger{Events: 1}}, func(t *testing.T, tg target) observation {
		return watchN(t, tg, 3, metav1.ListOptions{})
	}},
	{"hang after 1 event", faults.Fault{Kind: faults.HangWatch, Streams: faults.NewStreams, Trigger: faults.Trigger{Events: 1}}, func(t *testing.T, tg target) observation {
		return watchN(t, tg, 3, metav1.ListOptions{AllowWatchBookmarks: true})
	}},
	{"delay events", faults.Fault{Kind: faults.DelayEvents, Streams: faults.NewStreams, Delay: faults.Duration(3 * time.Second)}, func(t *testing.T, tg target) observation {
		return watchN(t, tg, 2, metav1.ListOptions{TimeoutSeconds: ptr(int64(10))})
	}},
	{"withhold bookmarks", faults.Fault{Kind: faults.WithholdBookmarks, Streams: faults.NewStreams}, func(t *testing.T, tg target) observation {
		return watchN(t, tg, 1, metav1.ListOptions{AllowWatchBookmarks: true, TimeoutSeconds: ptr(int64(150))})
	}},
}

func ptr[T any](v T) *T { return &v }

// TestProxyMatchesServer runs every fault of the table against a fake
// server and against the proxy in front of another: client-go must see the
// same errors, events and timings.
func TestProxyMatchesServer(t *testing.T) {
	for _, tt := range faultTable {
		t.Run(tt.name, func(t *testing.T) {
			var got [2]observation
			for i, mk := range []func(*testing.T) target{directTarget, proxiedTarget} {
				synctest.Test(t, func(t *testing.T) {
					tg := mk(t)
					if _, err := tg.inj.Add(tt.fault); err != nil {
						t.Fatalf("Add(%+v): %v", tt.fault, err)
					}
					got[i] = tt.observe(t, tg)
					if len(tg.inj.Records()) == 0 {
						t.Errorf("no fault recorded")
					}
				})
			}
			if diff := cmp.Diff(got[0], got[1]); diff != "" {
				t.Errorf("%s: proxy differs from server (-server +proxy):\n%s", tt.name, diff)
			}
			t.Logf("%s: %+v", tt.name, got[0])
		})
	}
}

func TestProxyRefusesStateFaults(t *testing.T) {
	p, err := New(Config{Upstream: &rest.Config{Host: "http://127.0.0.1:1"}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	for _, k := range []faults.Kind{faults.Compact, faults.Restart} {
		if _, err := p.Faults().Add(faults.Fault{Kind: k}); !errors.Is(err, faults.ErrUnsupported) {
			t.Errorf("proxy Add(%s) = %v, want ErrUnsupported", k, err)
		}
	}
}

// TestProxyForwardsWatchList checks that a client-go informer-style
// watch-list works through the proxy (the initial-events-end bookmark gets
// through).
func TestProxyForwardsWatchList(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tg := proxiedTarget(t)
		tg.create(t, "a")
		if diff := cmp.Diff([]watch.EventType{watch.Added, watch.Bookmark}, watchListTypes(t, tg.rest)); diff != "" {
			t.Errorf("watch-list through the proxy (-want +got):\n%s", diff)
		}
	})
}

// watchListTypes opens a client-go watch-list of default's ConfigMaps
// with cfg and returns its event types up to the first BOOKMARK (the
// initial-events-end one), or all of them if the stream ends first.
func watchListTypes(t *testing.T, cfg *rest.Config) []watch.EventType {
	t.Helper()
	cs := kubernetes.NewForConfigOrDie(cfg)
	w, err := cs.CoreV1().ConfigMaps("default").Watch(t.Context(), metav1.ListOptions{
		SendInitialEvents: ptr(true), AllowWatchBookmarks: true, ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	var types []watch.EventType
	for ev := range w.ResultChan() {
		types = append(types, ev.Type)
		if ev.Type == watch.Bookmark {
			break
		}
	}
	return types
}
