package fakeapiserver

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/lw-sim/lw-sim/internal/kubewire"
	"github.com/lw-sim/lw-sim/internal/testdeadline"
)

// Soak race run bounds (`make soak`): what LWSIM_SOAK_* may ask for.
const (
	soakNamespace  = "soak"
	maxSoakWriters = 256
	maxSoakWatch   = 2000
)

// soakFigures is what TestSoakRace reports.
type soakFigures struct {
	writes, events, expected                       int64
	lost, duplicated, reordered, rewatches, failed int64
}

// TestSoakRace (`make soak`, not part of `make test`) is issue 21's race
// run, repeatable: LWSIM_SOAK_WRITERS writers (default 32) create, update
// and delete ConfigMaps through client-go for LWSIM_SOAK_DURATION (default
// 2m30s) while LWSIM_SOAK_WATCHERS raw HTTP watches (default 200) follow
// the namespace on a server with lw-sim serve's slow-consumer rules, each
// watching again from its last resourceVersion when a stream ends. Run
// under -race. Then every watch must have every event of the store's
// history, once and in order (losses, duplicates, reorders: 0), and the
// server's goroutines and file descriptors must come back to idle.
func TestSoakRace(t *testing.T) {
	writers, watchers := soakParam(t, "LWSIM_SOAK_WRITERS", maxSoakWriters), soakParam(t, "LWSIM_SOAK_WATCHERS", maxSoakWatch)
	if writers == 0 || watchers == 0 {
		t.Skip("set LWSIM_SOAK_WRITERS and LWSIM_SOAK_WATCHERS (make soak)")
	}
	duration := 150 * time.Second
	if v := os.Getenv("LWSIM_SOAK_DURATION"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			t.Fatalf("LWSIM_SOAK_DURATION=%q: %v", v, err)
		}
		duration = d
	}
	ctx, cancel := testdeadline.Context(t)
	defer cancel()
	idleG, idleFD := runtime.NumGoroutine(), openFDs(t)
	srv, err := New(Config{Watch: WatchConfig{SlowWatcherMaxLag: 200, SlowWatcherWriteTimeout: 10 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := srv.ServeBackground(ln)
	cs, err := kubernetes.NewForConfig(&rest.Config{Host: srv.URL(), QPS: -1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: soakNamespace}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	start := srv.store.CurrentRV()
	fig := runSoak(ctx, t, srv, cs, soakRun{writers: writers, watchers: watchers, duration: duration, start: start})
	t.Logf("soak: %d writers, %d watchers, %v: %d writes, %d events delivered of %d expected; lost %d, duplicated %d, reordered %d; "+
		"%d re-watches after a stream ended (%d ended as slow consumers), %d failed writes",
		writers, watchers, duration, fig.writes, fig.events, fig.expected, fig.lost, fig.duplicated, fig.reordered,
		fig.rewatches, srv.WatchStats().SlowTerminated, fig.failed)
	if fig.lost != 0 || fig.duplicated != 0 || fig.reordered != 0 || fig.events != fig.expected {
		t.Errorf("soak: lost %d, duplicated %d, reordered %d, %d of %d events", fig.lost, fig.duplicated, fig.reordered, fig.events, fig.expected)
	}
	if err := srv.Close(); err != nil {
		t.Error(err)
	}
	if err := <-done; err != nil {
		t.Error(err)
	}
	waitIdle(ctx, t, "soak server and clients", func() (int, int) { return runtime.NumGoroutine(), openFDs(t) }, idleG, idleFD)
}

// soakRun is one soak's shape.
type soakRun struct {
	writers, watchers int
	duration          time.Duration
	start             int64 // the store's RV before the first write
}

// runSoak runs the writers and watchers, then compares what each watch got
// with the store's history.
func runSoak(ctx context.Context, t *testing.T, srv *Server, cs kubernetes.Interface, run soakRun) soakFigures {
	var fig soakFigures
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: run.watchers}}
	defer hc.CloseIdleConnections()
	watchCtx, stopWatches := context.WithCancel(ctx)
	got := make([][]int64, run.watchers)
	progress := make([]atomic.Int64, run.watchers) // each watch's last RV, read while it runs
	var watches sync.WaitGroup
	var rewatches atomic.Int64
	for i := range run.watchers {
		watches.Go(func() { got[i] = soakWatch(watchCtx, hc, srv.URL(), run.start, &progress[i], &rewatches) })
	}
	writeCtx, stopWrites := context.WithTimeout(ctx, run.duration)
	var writes sync.WaitGroup
	var nWrites, nFailed atomic.Int64
	for w := range run.writers {
		writes.Go(func() { soakWriter(writeCtx, cs, w, &nWrites, &nFailed) })
	}
	writes.Wait()
	stopWrites()
	history := soakHistory(t, srv, run.start)
	waitSoakCaughtUp(ctx, t, progress, history[len(history)-1])
	stopWatches()
	watches.Wait() // got is theirs until here
	fig.writes, fig.failed, fig.rewatches = nWrites.Load(), nFailed.Load(), rewatches.Load()
	for _, rvs := range got {
		fig.expected += int64(len(history))
		fig.events += int64(len(rvs))
		compareSoak(history, rvs, &fig)
	}
	return fig
}

// soakWriter writes its own ConfigMaps until ctx ends: a create, some
// updates, a delete, again.
func soakWriter(ctx context.Context, cs kubernetes.Interface, w int, writes, failed *atomic.Int64) {
	cms := cs.CoreV1().ConfigMaps(soakNamespace)
	for i := 0; ctx.Err() == nil; i++ {
		name := fmt.Sprintf("w%d-%d", w, i/5)
		var err error
		switch i % 5 {
		case 0:
			_, err = cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}, Data: map[string]string{"i": "0"}}, metav1.CreateOptions{})
		case 4:
			err = cms.Delete(ctx, name, metav1.DeleteOptions{})
		default:
			_, err = cms.Update(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}, Data: map[string]string{"i": strconv.Itoa(i)}}, metav1.UpdateOptions{})
		}
		switch {
		case err == nil:
			writes.Add(1)
		case ctx.Err() == nil && !apierrors.IsConflict(err):
			failed.Add(1)
		}
	}
}

// soakWatch follows the namespace from rv, again from its last RV whenever
// a stream ends, until ctx ends; it returns the RVs of the events it got,
// in order, and keeps progress at the last of them.
func soakWatch(ctx context.Context, hc *http.Client, base string, rv int64, progress, rewatches *atomic.Int64) []int64 {
	var rvs []int64
	for first := true; ctx.Err() == nil; first = false {
		if !first {
			rewatches.Add(1)
		}
		from := rv
		if n := len(rvs); n > 0 {
			from = rvs[n-1]
		}
		rvs = soakStream(ctx, hc, base, from, rvs, progress)
	}
	return rvs
}

// soakStream reads one watch stream from rv, appending each event's RV.
func soakStream(ctx context.Context, hc *http.Client, base string, rv int64, rvs []int64, progress *atomic.Int64) []int64 {
	url := base + "/api/v1/namespaces/" + soakNamespace + "/configmaps?watch=true&resourceVersion=" + strconv.FormatInt(rv, 10)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return rvs
	}
	resp, err := hc.Do(req)
	if err != nil {
		return rvs
	}
	defer resp.Body.Close()
	frames := kubewire.NewFrameReader(bufio.NewReader(resp.Body))
	for {
		ev, err := frames.Next()
		if err != nil {
			return rvs
		}
		var obj struct{ Metadata metav1.ObjectMeta }
		if json.Unmarshal(ev.Object, &obj) != nil || ev.Type == "ERROR" {
			return rvs
		}
		n, _ := strconv.ParseInt(obj.Metadata.ResourceVersion, 10, 64)
		rvs = append(rvs, n)
		progress.Store(n)
	}
}

// soakHistory is the RVs of every event in the namespace's ConfigMaps
// after start, from the store's own change log: what every watch must get.
func soakHistory(t *testing.T, srv *Server, start int64) []int64 {
	res, ok := srv.resources.lookup(schema.GroupVersionResource{Version: "v1", Resource: "configmaps"})
	if !ok {
		t.Fatal("no configmaps")
	}
	events, _, err := srv.store.Changes(res.storageKey, start)
	if err != nil {
		t.Fatal(err)
	}
	var rvs []int64
	for _, ev := range events {
		if len(ev.Key) > len(soakNamespace) && ev.Key[:len(soakNamespace)+1] == soakNamespace+"/" {
			rvs = append(rvs, ev.RV)
		}
	}
	if len(rvs) == 0 {
		t.Fatal("no writes in the soak")
	}
	return rvs
}

// waitSoakCaughtUp waits until every watch has got an event at or past
// last, the history's last RV; only a hang (testdeadline) fails it.
func waitSoakCaughtUp(ctx context.Context, t *testing.T, progress []atomic.Int64, last int64) {
	for i := range progress {
		for progress[i].Load() < last {
			select {
			case <-ctx.Done():
				t.Fatalf("watch %d at rv %d, the history ends at %d: it never caught up", i, progress[i].Load(), last)
			case <-time.After(10 * time.Millisecond):
			}
		}
	}
}

// compareSoak counts, for one watch, the history's events it lost, the
// ones it got twice and the ones it got out of order.
func compareSoak(history, rvs []int64, fig *soakFigures) {
	seen := make(map[int64]int, len(rvs))
	prev := int64(0)
	for _, rv := range rvs {
		if seen[rv]++; seen[rv] > 1 {
			fig.duplicated++
		}
		if rv <= prev {
			fig.reordered++
		}
		prev = rv
	}
	for _, rv := range history {
		if seen[rv] == 0 {
			fig.lost++
		}
	}
}

// soakParam reads a count from the environment (0 if unset).
func soakParam(t *testing.T, name string, limit int) int {
	return loadParam(t, name, limit)
}
