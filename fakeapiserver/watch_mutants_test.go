package fakeapiserver

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"io"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	"pgregory.net/rapid"

	"github.com/lw-sim/lw-sim/internal/rapidfail"
)

// Server mutants: each is a test-only broken server, a round tripper that
// rewrites the watch streams the real one serves (the client and the
// checker see only the bytes, so breaking them on the way is breaking the
// server). TestWatchMutantsAreKilled requires the watch machine to catch
// every one within rapid's default budget, and logs which guarantee
// caught it: the mutation table of the report.

// frameMutant rewrites one stream's frames: it gets each decoded frame and
// returns the frames to send instead. The stream's request is given so a
// mutant can depend on its parameters; state is per stream.
type frameMutant func(req *http.Request) func(f map[string]any) []map[string]any

// serverMutants are the broken servers; each name says what is broken.
// wantKilledBy says which checks may catch each ("|" separates them).
// Mutants that lose or reorder events may be caught by the liveness check
// instead of a guarantee: when the lost event is the last of its stream,
// no gap or disorder is left for a safety property to see, and rapid's
// shrinker prefers exactly such short schedules.
var wantKilledBy = map[string]string{
	"bookmark at the current RV without re-reading": "Bookmarkable",
	"bookmark behind the stream":                    "Ordered",
	"an event dropped":                              "Reliable|caught up at quiescence",
	"an event sent twice":                           "Unique",
	"two events swapped":                            "Ordered|Reliable|caught up at quiescence",
	"an object's uid replaced":                      "Atomic",
	"ADDED sent as MODIFIED":                        "PerObject",
	"resume one change late":                        "Resumable|caught up at quiescence",
	"initial events miss an object":                 "Bookmarkable",
	"no periodic bookmarks":                         "bookmarked",
	"410 for an RV the window holds":                "expired",
	"expired RV served without the 410":             "expired",
}

var serverMutants = map[string]frameMutant{
	// The survivor: a periodic bookmark at the current RV, sent
	// without reading the changes before it first, so it can run ahead of
	// an event not delivered yet.
	"bookmark at the current RV without re-reading": perChange(func(n int, f map[string]any) []map[string]any {
		if n != 1 {
			return one(f)
		}
		return []map[string]any{bookmarkFrame(f), f}
	}),
	// A bookmark that reports an RV below what was delivered.
	"bookmark behind the stream": func(*http.Request) func(map[string]any) []map[string]any {
		last := int64(0)
		return func(f map[string]any) []map[string]any {
			rv := frameRV(f)
			if f["type"] == "BOOKMARK" && !isInitialEndFrame(f) && last > 0 {
				setFrameRV(f, last-1)
			} else if rv > last {
				last = rv
			}
			return one(f)
		}
	},
	"an event dropped":         perChange(func(n int, f map[string]any) []map[string]any { return when(n != 2, f) }),
	"an event sent twice":      perChange(func(n int, f map[string]any) []map[string]any { return times(n == 1, f) }),
	"two events swapped":       swapMutant,
	"an object's uid replaced": perChange(func(n int, f map[string]any) []map[string]any { return renamedUID(n == 1, f) }),
	// A selector transition (or a create) sent as MODIFIED.
	"ADDED sent as MODIFIED": perChange(func(n int, f map[string]any) []map[string]any {
		if n > 0 && f["type"] == "ADDED" {
			f["type"] = "MODIFIED"
		}
		return one(f)
	}),
	// A watch from RV r resumed after the first change after r.
	"resume one change late": func(req *http.Request) func(map[string]any) []map[string]any {
		resumed := req.URL.Query().Get("resourceVersion") != "" && req.URL.Query().Get("resourceVersion") != "0" && req.URL.Query().Get("sendInitialEvents") != "true"
		return perChange(func(n int, f map[string]any) []map[string]any { return when(!resumed || n != 0, f) })(req)
	},
	"no periodic bookmarks":          noPeriodicBookmarks,
	"410 for an RV the window holds": spurious410,
	// A watch from a compacted RV that ends without its 410: the client
	// re-watches from the same RV, again and again, and never relists.
	"expired RV served without the 410": func(*http.Request) func(map[string]any) []map[string]any {
		return func(f map[string]any) []map[string]any { return when(f["type"] != "ERROR", f) }
	},
	// A watch-list whose snapshot misses an object.
	"initial events miss an object": func(req *http.Request) func(map[string]any) []map[string]any {
		initial, dropped := req.URL.Query().Get("sendInitialEvents") == "true", false
		return func(f map[string]any) []map[string]any {
			if isInitialEndFrame(f) {
				initial = false
			}
			if initial && !dropped && f["type"] == "ADDED" {
				dropped = true
				return nil
			}
			return one(f)
		}
	},
}

// noPeriodicBookmarks drops every BOOKMARK but the initial-events-end one:
// a server that ignores allowWatchBookmarks after a watch-list.
func noPeriodicBookmarks(*http.Request) func(map[string]any) []map[string]any {
	return func(f map[string]any) []map[string]any {
		return when(f["type"] != "BOOKMARK" || isInitialEndFrame(f), f)
	}
}

// spurious410 refuses the watches resumed from an odd RV with the 410
// "too old resource version", as a window that evicts too early would
// (the parity stands for "some RVs it still holds", and replays). The
// ERROR replaces the stream's first frame and ends the stream.
func spurious410(req *http.Request) func(map[string]any) []map[string]any {
	q := req.URL.Query()
	rv, _ := strconv.ParseInt(q.Get("resourceVersion"), 10, 64)
	refused, sent := rv > 0 && rv%2 == 1 && q.Get("sendInitialEvents") != "true", false
	return func(f map[string]any) []map[string]any {
		if !refused {
			return one(f)
		}
		if sent {
			return nil
		}
		sent = true
		return one(map[string]any{"type": "ERROR", "object": map[string]any{
			"kind": "Status", "apiVersion": "v1", "status": "Failure", "reason": "Expired", "code": 410,
			"message": "too old resource version: " + formatRV(rv) + " (" + formatRV(rv+1) + ")",
		}})
	}
}

// perChange calls fn with the index of each change event after the
// initial ones (n counts ADDED/MODIFIED/DELETED after the
// initial-events-end bookmark, or from the start of a watch from an RV).
func perChange(fn func(n int, f map[string]any) []map[string]any) frameMutant {
	return func(req *http.Request) func(map[string]any) []map[string]any {
		// Streams from RV ""/"0" open with initial events, marked
		// off only if an end bookmark follows them: treat everything up
		// to one as initial.
		q := req.URL.Query()
		initial := q.Get("sendInitialEvents") == "true" || q.Get("resourceVersion") == "" || q.Get("resourceVersion") == "0"
		n := 0
		return func(f map[string]any) []map[string]any {
			if isInitialEndFrame(f) {
				initial = false
			}
			switch f["type"] {
			case "ADDED", "MODIFIED", "DELETED":
				if initial {
					return one(f)
				}
				n++
				return fn(n-1, f)
			}
			return one(f)
		}
	}
}

func swapMutant(req *http.Request) func(map[string]any) []map[string]any {
	var held map[string]any
	return perChange(func(n int, f map[string]any) []map[string]any {
		switch n {
		case 1:
			held = f
			return nil
		case 2:
			return []map[string]any{f, held}
		}
		return one(f)
	})(req)
}

func one(f map[string]any) []map[string]any { return []map[string]any{f} }

func when(keep bool, f map[string]any) []map[string]any {
	if keep {
		return one(f)
	}
	return nil
}

func times(twice bool, f map[string]any) []map[string]any {
	if twice {
		return []map[string]any{f, f}
	}
	return one(f)
}

func renamedUID(yes bool, f map[string]any) []map[string]any {
	if yes {
		frameMetadata(f)["uid"] = "00000000-0000-0000-0000-000000000000"
	}
	return one(f)
}

func frameMetadata(f map[string]any) map[string]any {
	obj, _ := f["object"].(map[string]any)
	md, _ := obj["metadata"].(map[string]any)
	if md == nil {
		return map[string]any{}
	}
	return md
}

func frameRV(f map[string]any) int64 {
	s, _ := frameMetadata(f)["resourceVersion"].(string)
	rv, _ := strconv.ParseInt(s, 10, 64)
	return rv
}

func setFrameRV(f map[string]any, rv int64) { frameMetadata(f)["resourceVersion"] = formatRV(rv) }

func isInitialEndFrame(f map[string]any) bool {
	a, _ := frameMetadata(f)["annotations"].(map[string]any)
	return f["type"] == "BOOKMARK" && a["k8s.io/initial-events-end"] == "true"
}

// bookmarkFrame is a BOOKMARK at f's RV, of f's kind.
func bookmarkFrame(f map[string]any) map[string]any {
	obj, _ := f["object"].(map[string]any)
	return map[string]any{"type": "BOOKMARK", "object": map[string]any{
		"kind": obj["kind"], "apiVersion": obj["apiVersion"],
		"metadata": map[string]any{"resourceVersion": formatRV(frameRV(f))},
	}}
}

// mutantTransport applies a frameMutant to every JSON watch response.
type mutantTransport struct {
	next   http.RoundTripper
	mutant frameMutant
}

func (mt mutantTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := mt.next.RoundTrip(req)
	if err != nil || resp.StatusCode != http.StatusOK || req.URL.Query().Get("watch") != "true" {
		return resp, err
	}
	pr, pw := io.Pipe()
	body := &mutantBody{orig: resp.Body, pr: pr, done: make(chan struct{})}
	go body.run(pw, mt.mutant(req))
	resp.Body = body
	return resp, nil
}

// mutantBody is a rewritten response body. Its goroutine reads the
// original frames and writes the rewritten ones into a pipe; it ends when
// the original ends or the body is closed (which closes both ends it
// reads and writes).
type mutantBody struct {
	orig io.ReadCloser
	pr   *io.PipeReader
	once sync.Once
	done chan struct{}
}

func (b *mutantBody) run(pw *io.PipeWriter, fn func(map[string]any) []map[string]any) {
	defer close(b.done)
	r := bufio.NewReader(b.orig)
	for {
		line, err := r.ReadBytes('\n')
		if err != nil {
			// A cut frame is passed on as it is, then the error.
			_, _ = pw.Write(line)
			pw.CloseWithError(err)
			return
		}
		var f map[string]any
		if json.Unmarshal(line, &f) != nil {
			pw.CloseWithError(errors.New("mutant: undecodable frame"))
			return
		}
		for _, out := range fn(f) {
			data, _ := json.Marshal(out)
			if _, err := pw.Write(append(data, '\n')); err != nil {
				return
			}
			if out["type"] == "ERROR" {
				// An ERROR ends a stream (a mutant's too): the client
				// sees the end and closes the body, which closes the
				// original.
				pw.Close()
				return
			}
		}
	}
}

func (b *mutantBody) Read(p []byte) (int, error) { return b.pr.Read(p) }

func (b *mutantBody) Close() error {
	b.once.Do(func() {
		b.pr.Close()
		b.orig.Close()
	})
	<-b.done
	return nil
}

var brokenGuarantee = regexp.MustCompile(`(\w+) broken by stream`)

// killers names the properties in a failure message: the watchcheck
// guarantees broken, in stream order, or the machine's own check.
func killers(msg string) []string {
	var out []string
	for _, m := range brokenGuarantee.FindAllStringSubmatch(msg, -1) {
		if !slices.Contains(out, m[1]) {
			out = append(out, m[1])
		}
	}
	if out != nil {
		return out
	}
	return []string{killer(msg)}
}

// killer names a machine check in a failure message.
func killer(msg string) string {
	switch {
	case regexp.MustCompile(`not caught up`).MatchString(msg):
		return "caught up at quiescence"
	case regexp.MustCompile(`StaleDropped`).MatchString(msg):
		return "StaleDropped"
	case regexp.MustCompile(`\(expired\)`).MatchString(msg):
		return "expired"
	case regexp.MustCompile(`\(bookmarked\)`).MatchString(msg):
		return "bookmarked"
	}
	return "other: " + msg
}

// mutantSearches is how many independent searches TestWatchMutantsAreKilled
// runs per mutant: 1 in make test; more to measure the distribution of
// the check that kills (go test -run TestWatchMutantsAreKilled
// -watchmutants.searches=10 -v prints min/median/max per mutant).
var mutantSearches = flag.Int("watchmutants.searches", 1, "searches per server mutant in TestWatchMutantsAreKilled")

// TestWatchMutantsAreKilled: the watch machine, with rapid's default
// budget (100 checks), catches every server mutant; the log is the
// mutation table.
func TestWatchMutantsAreKilled(t *testing.T) {
	rapidfail.NoFailFiles(t)
	// A kill needs no shrinking: the check that failed and what caught
	// it are known before rapid shrinks, and a shrink of each of the 12
	// kills tripled the test's time under -race.
	if f := flag.Lookup("rapid.shrinktime"); f != nil {
		old := f.Value.String()
		_ = f.Value.Set("1ms")
		t.Cleanup(func() { _ = f.Value.Set(old) })
	}
	for name, mutant := range serverMutants {
		t.Run(name, func(t *testing.T) {
			var checks []int
			byKiller := map[string]int{}
			for range *mutantSearches {
				n, got := searchMutant(t, name, mutant)
				checks = append(checks, n)
				for _, k := range got {
					byKiller[k]++
				}
			}
			slices.Sort(checks)
			t.Logf("mutant %q: %d searches, killed at check min %d, median %d, max %d (%v); killed by %v", name, len(checks), checks[0], checks[len(checks)/2], checks[len(checks)-1], checks, byKiller)
		})
	}
}

// searchMutant runs one search of the watch machine, from scratch, against
// a server broken by mutant, and returns the check that killed it and
// the checks that caught it.
func searchMutant(t *testing.T, name string, mutant frameMutant) (checks int, got []string) {
	synctest.Test(t, func(t *testing.T) {
		ft := rapidfail.New(t)
		rapid.Check(inBubble{ft}, func(rt *rapid.T) {
			m := newWatchChaos(t, rt, func(next http.RoundTripper) http.RoundTripper {
				return mutantTransport{next: next, mutant: mutant}
			})
			defer m.close()
			rt.Repeat(rapid.StateMachineActions(m))
		})
		if !ft.Failed() {
			t.Fatalf("mutant %q survived the watch machine", name)
		}
		checks, got = ft.Checks(), killers(ft.Message())
		t.Logf("mutant %q killed by %v at check %d", name, got, checks)
		if checks == 0 {
			t.Logf("rapid's report: %.200s", ft.Message())
		}
		// Which check fires first depends on the schedule rapid draws
		// (a bookmark after a dropped event breaks Bookmarkable before
		// the gap shows, say): the test wants a kill by a named check,
		// not by a harness error; the usual killer is logged.
		if !slices.ContainsFunc(got, func(k string) bool { return !strings.HasPrefix(k, "other: ") }) {
			t.Errorf("mutant %q killed by %v, want a named check (usually %s); failure:\n%s", name, got, wantKilledBy[name], ft.Message())
		} else if !slices.ContainsFunc(got, func(k string) bool { return slices.Contains(strings.Split(wantKilledBy[name], "|"), k) }) {
			t.Logf("mutant %q killed by %v this time; usually by %s", name, got, wantKilledBy[name])
		}
	})
	return checks, got
}
