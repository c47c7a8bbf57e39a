package fakeapiserver

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"runtime/pprof"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/rest"

	"github.com/lw-sim/lw-sim/internal/testdeadline"
)

// TestWatchMemoryProcess (not part of `make test`: set
// LWSIM_WATCHMEM_WATCHES) measures what idle watches cost the server
// alone: a server in a process of its own (this test binary again, in
// server mode, configured as TestLoad's: serve's slow-consumer defaults),
// N configmap watches opened to it from this process and left idle (no
// writes, bodies unread), and the server's own figures before and after,
// per watch: its RSS after a collection (TestLoad's figure, issue 25's
// "33 MB per 1 000 watches"), its RSS once freed pages are returned to
// the OS, and from runtime/metrics its live heap objects and goroutine
// stacks. LWSIM_WATCHMEM_PROTO is h1 (plain HTTP/1.1, a connection a
// watch, as TestLoad) or h2 (HTTPS, client-go's transport: HTTP/2, up to
// 100 streams a connection). LWSIM_WATCHMEM_PROFILE=DIR also writes the
// server's heap profile and goroutine dump with the watches open.
// LWSIM_WATCHMEM_EVENTS=N then creates a configmap and changes it N-1
// times, reads the N events off every watch and reports the
// figures again, idle after events (shared state, such as the events'
// encodings, included, divided among the watches);
// LWSIM_WATCHMEM_SELECTOR adds a query to the watches (e.g.
// labelSelector=app%3Dwatchmem or fieldSelector=metadata.name%3Dwatchmem,
// which the configmap matches).
func TestWatchMemoryProcess(t *testing.T) {
	if os.Getenv("LWSIM_WATCHMEM_SERVER") == "1" {
		runWatchMemServer(t)
		return
	}
	watches := loadParam(t, "LWSIM_WATCHMEM_WATCHES", maxLoadWatchers)
	if watches == 0 {
		t.Skip("set LWSIM_WATCHMEM_WATCHES")
	}
	proto := os.Getenv("LWSIM_WATCHMEM_PROTO")
	if proto == "" {
		proto = "h1"
	}
	measureWatchMemory(t, watchMemRun{
		proto:    proto,
		watches:  watches,
		events:   loadParam(t, "LWSIM_WATCHMEM_EVENTS", maxLoadWrites),
		selector: os.Getenv("LWSIM_WATCHMEM_SELECTOR"),
		profile:  os.Getenv("LWSIM_WATCHMEM_PROFILE"),
	})
}

// watchMemRun is one measurement of TestWatchMemoryProcess's kind (its
// comment says what each field does there).
type watchMemRun struct {
	proto    string   // h1 or h2
	watches  int      // how many watches to open
	events   int      // events each watch then reads; 0 for none
	selector string   // query added to the watches; "" for none
	profile  string   // a directory for the server's profiles; "" for none
	env      []string // added to the server process's environment
}

// watchMemPerWatch is what the server holds for open watches beyond what
// it held with one open, per watch, in bytes (goroutines: a count).
type watchMemPerWatch struct {
	rss, rssScavenged, heap, stacks, goroutines float64
}

// measureWatchMemory opens run's watches to a server in a process of its
// own, logs what they cost it per watch, and returns that: open and idle,
// and idle after run.events events (zero when run.events is 0).
func measureWatchMemory(t *testing.T, run watchMemRun) (open, afterEvents watchMemPerWatch) {
	t.Helper()
	ctx, cancel := testdeadline.Context(t)
	defer cancel()
	child := startWatchMemServer(t, run.proto, run.env)
	var hc *http.Client
	switch run.proto {
	case "h1":
		hc = &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	case "h2":
		cfg := &rest.Config{Host: child.url, QPS: -1}
		cfg.TLSClientConfig = rest.TLSClientConfig{CAData: child.ca, ServerName: "localhost"}
		var err error
		if hc, err = rest.HTTPClientFor(cfg); err != nil {
			t.Fatal(err)
		}
	default:
		t.Fatalf("LWSIM_WATCHMEM_PROTO=%q: want h1 or h2", run.proto)
	}
	url := child.url + cmPath + "?watch=true&resourceVersion=0&allowWatchBookmarks=true"
	if run.selector != "" {
		url += "&" + run.selector
	}
	// One watch first, so what the first one sets up once (the
	// resource's state, HTTP/2's connection) is in the idle figure.
	var bodies []io.ReadCloser
	defer func() {
		for _, b := range bodies {
			b.Close()
		}
	}()
	openWatch := func() {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		bodies = append(bodies, resp.Body)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("watch: %s", resp.Status)
		}
	}
	openWatch()
	idle := child.stats(t)
	if run.profile != "" {
		child.command(t, "profile "+filepath.Join(run.profile, "idle-"))
	}
	for range run.watches {
		openWatch()
	}
	busy := child.stats(t)
	if run.profile != "" {
		child.command(t, "profile "+filepath.Join(run.profile, "open-"))
	}
	open = logWatchMemStats(t, fmt.Sprintf("%s, %d idle watches", run.proto, run.watches), idle, busy, run.watches)
	if run.events == 0 {
		return open, watchMemPerWatch{}
	}
	// The configmap is created now, so the idle figures above are of
	// watches that had no initial event: its ADDED is the first event.
	watchMemRequest(ctx, t, hc, http.MethodPost, child.url+cmPath, "application/json",
		`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"watchmem","labels":{"app":"watchmem"}}}`)
	for i := range run.events - 1 {
		watchMemRequest(ctx, t, hc, http.MethodPatch, child.url+cmPath+"/watchmem", "application/merge-patch+json",
			fmt.Sprintf(`{"data":{"n":"%d"}}`, i))
	}
	for _, b := range bodies {
		readWatchMemEvents(t, b, run.events)
	}
	after := child.stats(t)
	afterEvents = logWatchMemStats(t, fmt.Sprintf("%s, %d watches idle after %d events", run.proto, run.watches, run.events),
		idle, after, run.watches)
	return open, afterEvents
}

// watchMemRequest makes one request of TestWatchMemoryProcess's set-up,
// which must succeed.
func watchMemRequest(ctx context.Context, t *testing.T, hc *http.Client, method, url, contentType, body string) {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", contentType)
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("%s %s: %s: %s", method, url, resp.Status, b)
	}
}

// readWatchMemEvents reads n ADDED or MODIFIED events off a JSON watch
// body, skipping bookmarks.
func readWatchMemEvents(t *testing.T, body io.Reader, n int) {
	t.Helper()
	dec := json.NewDecoder(body)
	for n > 0 {
		var ev struct{ Type string }
		if err := dec.Decode(&ev); err != nil {
			t.Fatalf("watch event: %v", err)
		}
		switch ev.Type {
		case "ADDED", "MODIFIED":
			n--
		case "BOOKMARK":
		default:
			t.Fatalf("watch event %s, want ADDED or MODIFIED", ev.Type)
		}
	}
}

// logWatchMemStats logs what the server holds in busy beyond idle, per
// watch, and returns it.
func logWatchMemStats(t *testing.T, what string, idle, busy watchMemStats, watches int) watchMemPerWatch {
	t.Helper()
	per := func(f func(watchMemStats) float64) float64 { return (f(busy) - f(idle)) / float64(watches) }
	pw := watchMemPerWatch{
		rss:          per(func(s watchMemStats) float64 { return float64(s.rss) }),
		rssScavenged: per(func(s watchMemStats) float64 { return float64(s.rssScavenged) }),
		heap:         per(func(s watchMemStats) float64 { return float64(s.heap) }),
		stacks:       per(func(s watchMemStats) float64 { return float64(s.stacks) }),
		goroutines:   per(func(s watchMemStats) float64 { return float64(s.goroutines) }),
	}
	t.Logf("%s, server only, per watch: RSS after GC %.0f B (%.1f MiB per 1 000), RSS scavenged %.0f B, heap objects %.0f B, stacks %.0f B, goroutines %.2f",
		what, pw.rss, pw.rss*1000/(1<<20), pw.rssScavenged, pw.heap, pw.stacks, pw.goroutines)
	return pw
}

// watchMemServer is the child process of TestWatchMemoryProcess.
type watchMemServer struct {
	*childProcess
	url string
	ca  []byte
}

// watchMemStats is what the child reports about itself.
type watchMemStats struct {
	rss, rssScavenged, heap, stacks uint64
	goroutines                      int
}

// startWatchMemServer starts this test binary in server mode, with env
// added to its environment; it stops when its stdin closes (at the
// test's end).
func startWatchMemServer(t *testing.T, proto string, env []string) *watchMemServer {
	c, rest := startChild(t, "watch memory server", "^TestWatchMemoryProcess$",
		append([]string{"LWSIM_WATCHMEM_SERVER=1", "LWSIM_WATCHMEM_PROTO=" + proto}, env...), "WATCHMEMSERVER ")
	u, ca, _ := strings.Cut(rest, " ")
	ws := &watchMemServer{childProcess: c, url: u}
	var err error
	if ws.ca, err = base64.StdEncoding.DecodeString(ca); err != nil {
		t.Fatal(err)
	}
	return ws
}

// command sends line to the child and returns its answer.
func (ws *watchMemServer) command(t *testing.T, line string) string {
	t.Helper()
	if _, err := io.WriteString(ws.in, line+"\n"); err != nil {
		t.Fatal(err)
	}
	for ws.out.Scan() {
		if a, ok := strings.CutPrefix(ws.out.Text(), "WATCHMEM "); ok {
			return a
		}
	}
	t.Fatalf("watch memory server: no answer to %q: %v", line, ws.out.Err())
	return ""
}

// stats asks the child for its memory figures.
func (ws *watchMemServer) stats(t *testing.T) watchMemStats {
	t.Helper()
	var st watchMemStats
	a := ws.command(t, "stats")
	if _, err := fmt.Sscanf(a, "%d %d %d %d %d", &st.rss, &st.rssScavenged, &st.heap, &st.stacks, &st.goroutines); err != nil {
		t.Fatalf("stats %q: %v", a, err)
	}
	return st
}

// runWatchMemServer is the child: serve on loopback as runLoadServer
// does (HTTPS for h2), answer "stats" and "profile DIR" lines, stop at
// EOF.
func runWatchMemServer(t *testing.T) {
	if os.Getenv("LWSIM_WATCHMEM_PROFILE") != "" {
		runtime.MemProfileRate = 512 // every allocation site of a watch, not a sample
	}
	srv := Start(t, WithConfig(func(cfg *Config) {
		cfg.Watch = WatchConfig{SlowWatcherMaxLag: 200, SlowWatcherWriteTimeout: 10 * time.Second}
		if os.Getenv("LWSIM_WATCHMEM_PROTO") == "h2" {
			cfg.TLS = &ServingTLS{}
		}
	}))
	fmt.Printf("WATCHMEMSERVER %s %s\n", srv.URL(), base64.StdEncoding.EncodeToString(srv.RESTConfig().CAData))
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		if prefix, ok := strings.CutPrefix(in.Text(), "profile "); ok {
			writeWatchMemProfiles(t, prefix)
			fmt.Printf("WATCHMEM done\n")
			continue
		}
		runtime.GC()
		runtime.GC()
		rss := rssBytes(t)
		debug.FreeOSMemory()
		samples := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/memory/classes/heap/stacks:bytes"}}
		metrics.Read(samples)
		fmt.Printf("WATCHMEM %d %d %d %d %d\n", rss, rssBytes(t), samples[0].Value.Uint64(), samples[1].Value.Uint64(), runtime.NumGoroutine())
	}
}

// writeWatchMemProfiles writes the heap profile (after a collection) and
// the goroutine dumps (grouped, and each with its stack) to files named
// prefix + heap.pprof, goroutines.txt, goroutines2.txt.
func writeWatchMemProfiles(t *testing.T, prefix string) {
	runtime.GC()
	for name, write := range map[string]func(io.Writer) error{
		"heap.pprof":      func(w io.Writer) error { return pprof.Lookup("heap").WriteTo(w, 0) },
		"goroutines.txt":  func(w io.Writer) error { return pprof.Lookup("goroutine").WriteTo(w, 1) },
		"goroutines2.txt": func(w io.Writer) error { return pprof.Lookup("goroutine").WriteTo(w, 2) },
	} {
		f, err := os.Create(prefix + name)
		if err != nil {
			t.Fatal(err)
		}
		if err := write(f); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
	}
}
