package fakeapiserver

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/lw-sim/lw-sim/internal/kubewire"
	"github.com/lw-sim/lw-sim/internal/testdeadline"
)

// Load test bounds: `make load` sets LWSIM_LOAD_WATCHERS and
// LWSIM_LOAD_WRITES; these cap what it may ask for, so a typo cannot
// exhaust the machine.
const (
	maxLoadWatchers = 10000
	maxLoadWrites   = 100000
)

// TestLoad (`make load`, not part of `make test`) runs a server in a child
// process (this test binary again, in server mode), opens N watches to it
// over real HTTP on loopback, makes M writes, and checks that every
// watcher got every event exactly once and in order. It reports the
// server's RSS per 1 000 open watches and checks that the server's
// goroutines and file descriptors (and the client's) return to their idle
// counts once the watches end.
func TestLoad(t *testing.T) {
	if os.Getenv("LWSIM_LOAD_SERVER") == "1" {
		runLoadServer(t)
		return
	}
	watchers, writes := loadParam(t, "LWSIM_LOAD_WATCHERS", maxLoadWatchers), loadParam(t, "LWSIM_LOAD_WRITES", maxLoadWrites)
	if watchers == 0 || writes == 0 {
		t.Skip("set LWSIM_LOAD_WATCHERS and LWSIM_LOAD_WRITES (make load)")
	}
	ctx, cancel := testdeadline.Context(t)
	defer cancel()
	child := startLoadServer(t)
	cs, err := kubernetes.NewForConfig(&rest.Config{Host: child.url, QPS: -1})
	if err != nil {
		t.Fatal(err)
	}
	l, err := cs.CoreV1().ConfigMaps("default").List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	hc := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	idle := child.stats(t)
	clientG, clientFD := runtime.NumGoroutine(), openFDs(t)

	got := make([][]string, watchers)
	var wg sync.WaitGroup
	opened := make(chan error, watchers)
	for i := range watchers {
		wg.Go(func() { got[i] = loadWatch(ctx, hc, child.url, l.ResourceVersion, writes, opened) })
	}
	for range watchers {
		if err := <-opened; err != nil {
			t.Fatalf("open watch: %v", err)
		}
	}
	open := child.stats(t)
	start := time.Now()
	want := make([]string, writes)
	for i := range writes {
		want[i] = "load-" + strconv.Itoa(i)
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: want[i]}, Data: map[string]string{"i": strconv.Itoa(i)}}
		if _, err := cs.CoreV1().ConfigMaps("default").Create(ctx, cm, metav1.CreateOptions{}); err != nil {
			t.Fatalf("create %d: %v", i, err)
		}
	}
	wg.Wait()
	elapsed := time.Since(start)
	busy := child.stats(t)
	for i, g := range got {
		if diff := cmp.Diff(want, g); diff != "" {
			t.Fatalf("watcher %d: events (-want +got):\n%s", i, diff)
		}
	}
	t.Logf("%d watchers x %d writes: all %d events delivered once and in order in %v (%.0f events/s)", watchers, writes, watchers*writes,
		elapsed.Round(time.Millisecond), float64(watchers*writes)/elapsed.Seconds())
	t.Logf("server RSS: %.1f MiB idle, %.1f MiB with %d watches open (%.1f MiB per 1 000), %.1f MiB after the writes",
		mib(idle.rss), mib(open.rss), watchers, (mib(open.rss)-mib(idle.rss))*1000/float64(watchers), mib(busy.rss))
	t.Logf("server with the watches open: %d goroutines (idle %d), %d fds (idle %d)", open.goroutines, idle.goroutines, open.fds, idle.fds)
	waitIdle(ctx, t, "server", func() (int, int) { s := child.stats(t); return s.goroutines, s.fds }, idle.goroutines, idle.fds)
	waitIdle(ctx, t, "client", func() (int, int) { return runtime.NumGoroutine(), openFDs(t) }, clientG, clientFD)
}

// loadServer is the child process serving the load test.
type loadServer struct {
	*childProcess
	url string
}

// loadStats is what the child reports about itself.
type loadStats struct {
	goroutines, fds int
	rss             uint64
}

// startLoadServer starts this test binary in server mode; it stops when
// its stdin closes (at the test's end).
func startLoadServer(t *testing.T) *loadServer {
	c, url := startChild(t, "load server", "^TestLoad$", []string{"LWSIM_LOAD_SERVER=1"}, "LOADSERVER ")
	return &loadServer{childProcess: c, url: url}
}

// stats asks the child for its goroutines, fds and RSS.
func (ls *loadServer) stats(t *testing.T) loadStats {
	t.Helper()
	if _, err := io.WriteString(ls.in, "stats\n"); err != nil {
		t.Fatal(err)
	}
	for ls.out.Scan() {
		var st loadStats
		if _, err := fmt.Sscanf(ls.out.Text(), "STATS %d %d %d", &st.goroutines, &st.fds, &st.rss); err == nil {
			return st
		}
	}
	t.Fatalf("load server: no stats: %v", ls.out.Err())
	return loadStats{}
}

// runLoadServer is the child: serve on loopback with serve's
// slow-consumer defaults, answer "stats" lines on stdin (and the peak RSS
// commands of TestRequestMemory, write_limits_memory_test.go), stop at
// EOF.
func runLoadServer(t *testing.T) {
	// Slow-consumer protection as lw-sim serve turns it on by default
	// (cmd/lw-sim serveWatchMaxLag, serveWatchWriteTimeout): every event
	// once and in order then also shows the rules end no watcher that
	// keeps reading, however many there are.
	srv := Start(t, WithConfig(func(cfg *Config) {
		cfg.Watch = WatchConfig{SlowWatcherMaxLag: 200, SlowWatcherWriteTimeout: 10 * time.Second}
	}))
	fmt.Printf("LOADSERVER %s\n", srv.URL())
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		if servePeakCommand(t, in.Text()) {
			continue
		}
		runtime.GC()
		fmt.Printf("STATS %d %d %d\n", runtime.NumGoroutine(), openFDs(t), rssBytes(t))
	}
}

// loadParam reads a positive count from the environment (0 if unset).
func loadParam(t *testing.T, name string, limit int) int {
	v := os.Getenv(name)
	if v == "" {
		return 0
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 || n > limit {
		t.Fatalf("%s=%q: want a count in [0, %d]", name, v, limit)
	}
	return n
}

// loadWatch watches default configmaps from rv until it has n events (or
// ctx ends), reports on opened once its headers are in, and returns the
// names of the objects it saw, in order. It checks RVs only go up.
func loadWatch(ctx context.Context, hc *http.Client, base, rv string, n int, opened chan<- error) []string {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+cmPath+"?watch=true&resourceVersion="+rv, nil)
	if err != nil {
		opened <- err
		return nil
	}
	resp, err := hc.Do(req)
	if err != nil {
		opened <- err
		return nil
	}
	defer resp.Body.Close()
	opened <- nil
	frames := kubewire.NewFrameReader(bufio.NewReader(resp.Body))
	var names []string
	last := int64(0)
	for len(names) < n {
		ev, err := frames.Next()
		var obj struct{ Metadata metav1.ObjectMeta }
		if err == nil {
			err = json.Unmarshal(ev.Object, &obj)
		}
		if err != nil {
			names = append(names, fmt.Sprintf("stream ended: %v", err))
			return names
		}
		r, _ := strconv.ParseInt(obj.Metadata.ResourceVersion, 10, 64)
		if ev.Type != "ADDED" || r <= last {
			names = append(names, fmt.Sprintf("%s %s at rv %d after %d", ev.Type, obj.Metadata.Name, r, last))
			continue
		}
		last = r
		names = append(names, obj.Metadata.Name)
	}
	return names
}

// waitIdle waits until count reports no more goroutines and open fds
// than at idle: the watches' goroutines and both ends of each connection
// are gone. It polls (real time: the connections are real).
func waitIdle(ctx context.Context, t *testing.T, who string, count func() (int, int), goroutines, fds int) {
	for {
		g, f := count()
		if g <= goroutines && f <= fds {
			t.Logf("%s idle again: %d goroutines (idle %d), %d fds (idle %d)", who, g, goroutines, f, fds)
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("%s not idle after the watches ended: %d goroutines (idle %d), %d fds (idle %d)", who, g, goroutines, f, fds)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// openFDs counts this process's open file descriptors.
func openFDs(t *testing.T) int {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skipf("no /proc/self/fd: %v", err)
	}
	return len(ents)
}

// rssBytes is this process's resident set size.
func rssBytes(t *testing.T) uint64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Skipf("no /proc/self/status: %v", err)
	}
	for line := range strings.SplitSeq(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb << 10
		}
	}
	t.Skip("no VmRSS")
	return 0
}

func mib(b uint64) float64 { return float64(b) / (1 << 20) }
