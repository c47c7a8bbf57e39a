package listwatch

import (
	"math/rand/v2"
	"strconv"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/lw-sim/lw-sim/faults"
)

// TestFaultWithheldBookmarks shows what bookmarks buy: the collection the
// client watches is quiet while another namespace is written, then the
// apiserver restarts (the watch window restarts at the current RV). With
// bookmarks, the client's RV followed the server's, so its re-watch is
// inside the new window: no re-sync. With bookmarks withheld, its RV is
// the last write it saw, below the window: 410, one re-sync. Both clients
// behave the same here.
func TestFaultWithheldBookmarks(t *testing.T) {
	for _, withhold := range []bool{false, true} {
		for _, sk := range []subjectKind{listwatchClient, informerClient} {
			t.Run("withhold="+strconv.FormatBool(withhold)+"/"+string(sk), func(t *testing.T) {
				t.Parallel()
				synctest.Test(t, func(t *testing.T) {
					fe := startFaultEnv(t)
					fe.createNamespace("busy")
					fe.create(faultNS, "a")
					if withhold {
						fe.srv.InjectFault(t, faults.Fault{Kind: faults.WithholdBookmarks, Match: watchMatch,
							Streams: faults.AllStreams})
					}
					s := fe.startSubject(sk, subjectOptions{})
					fe.converge(s, convergeWithin)
					before := s.lw.calls()
					for i := range 5 {
						fe.create("busy", "x"+strconv.Itoa(i))
					}
					time.Sleep(70 * time.Second) // past the 60 s bookmark
					if _, err := fe.srv.Faults().RestartAPIServer(); err != nil {
						t.Fatal(err)
					}
					fe.update(faultNS, "a")
					fe.converge(s, convergeWithin)
					want := 0
					if withhold {
						want = 1
					}
					if got := s.lw.calls().syncs() - before.syncs(); got != want {
						t.Errorf("%s: syncs after a restart = %d, want %d%s", sk, got, want, s.traceText())
					}
					if s.log != nil {
						if got := s.log.count(TraceBookmark) > 0; got == withhold {
							t.Errorf("bookmarks seen = %v with WithholdBookmarks = %v", got, withhold)
						}
					}
				})
			})
		}
	}
}

// TestFaultTooLargeRV opens a 60-second window in which the server answers
// every RV-constrained read with the watch cache's 504 "Too large resource
// version". The only such read listwatch makes is a continue page (its
// lists are at RV "", its watches resume from an RV the server has), so a
// paged list fails: client-go's rest client retries the 504 (Retry-After
// 1 s) ten times, then listwatch backs off and lists again, until the
// window closes. Each attempt is a LIST call but none is a relist. The
// informer's watch-list at RV "" is not RV-constrained: the fault never
// fires for it.
func TestFaultTooLargeRV(t *testing.T) {
	tests := []struct {
		sk           subjectKind
		wantFired    bool
		wantMinLists int
	}{
		{sk: listwatchClient, wantFired: true, wantMinLists: 2},
		{sk: informerClient, wantFired: false},
	}
	for _, tt := range tests {
		t.Run(string(tt.sk), func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				fe := startFaultEnv(t)
				for _, n := range []string{"a", "b", "c"} {
					fe.create(faultNS, n)
				}
				id := fe.srv.InjectFault(t, faults.Fault{Kind: faults.TooLargeRV, AllReads: true,
					Match: subjectMatch, Window: faults.Duration(time.Minute)})
				start := time.Now()
				s := fe.startSubject(tt.sk, subjectOptions{pageSize: 2})
				fe.converge(s, convergeWithin)
				if got := fe.fired(id) > 0; got != tt.wantFired {
					t.Errorf("%s: TooLargeRV fired = %v, want %v", tt.sk, got, tt.wantFired)
				}
				if s.log == nil {
					return
				}
				if took := time.Since(start); took < time.Minute {
					t.Errorf("listwatch synced after %v, inside the 1 min window", took)
				}
				if got := s.lw.calls().Lists; got < tt.wantMinLists {
					t.Errorf("LIST calls = %d, want >= %d", got, tt.wantMinLists)
				}
				if n := s.log.count(TraceRelist); n != 0 {
					t.Errorf("relists = %d, want 0 (a failing list is retried, not a relist)%s", n, s.traceText())
				}
				for _, e := range s.log.snapshot() {
					if e.Kind == TraceListError && !isTooLargeResourceVersion(e.Err) {
						t.Errorf("list error %v, want only Too large resource version", e.Err)
					}
				}
			})
		})
	}
}

// TestFaultRandomSchedule runs each client through 40 virtual minutes of
// seeded writes under the injector's seeded Random fault (failed requests,
// latency, cut LISTs, ended, cut, delayed and bookmark-less watches,
// compactions and restarts, each at half of the client's requests; its watches are also ended at
// seeded moments, so it makes requests to draw on), then
// clears the faults: both must converge (go-cmp). The schedule is a
// function of the seed and the client's request sequence, so the two
// clients, which make different requests, meet different faults; each run
// is reproducible. listwatch keeps guarantees 2 and 4: versions in order,
// at most once, and no more relists than compactions and restarts.
func TestFaultRandomSchedule(t *testing.T) {
	for _, seed := range []uint64{1, 2, 3} {
		for _, sk := range []subjectKind{listwatchClient, informerClient} {
			t.Run("seed="+strconv.FormatUint(seed, 10)+"/"+string(sk), func(t *testing.T) {
				t.Parallel()
				synctest.Test(t, func(t *testing.T) { runRandomSchedule(t, seed, sk) })
			})
		}
	}
}

func runRandomSchedule(t *testing.T, seed uint64, sk subjectKind) {
	fe := startFaultEnv(t)
	fe.srv.InjectFault(t, faults.Fault{Kind: faults.Random, Seed: seed, Probability: 0.5, Match: subjectMatch})
	s := fe.startSubject(sk, subjectOptions{pageSize: 2})
	rng := rand.New(rand.NewPCG(seed, seed))
	exists := map[string]bool{}
	for range 300 {
		time.Sleep(time.Duration(1+rng.IntN(15)) * time.Second)
		if rng.IntN(8) == 0 {
			// End the client's watches now and then, so it makes requests
			// for the Random fault to draw on more often than its 5-10
			// minute watch timeouts would.
			if _, err := fe.srv.Faults().EndWatches(subjectMatch); err != nil {
				t.Fatal(err)
			}
		}
		name := "cm" + strconv.Itoa(rng.IntN(6))
		switch {
		case !exists[name]:
			fe.create(faultNS, name)
			exists[name] = true
		case rng.IntN(3) == 0:
			fe.del(faultNS, name)
			exists[name] = false
		default:
			fe.update(faultNS, name)
		}
	}
	fe.srv.Faults().Clear()
	fe.converge(s, convergeWithin)
	recs := fe.recordsOf()
	t.Logf("%s seed %d: faults injected %v; calls %+v", sk, seed, recs, s.lw.calls())
	if len(recs) < 3 {
		t.Errorf("faults injected = %v, want a mix", recs)
	}
	s.rec.checkOrder(t, s.log != nil)
	if s.log == nil {
		return
	}
	if got, limit := s.log.count(TraceRelist), recs[faults.Compact]+recs[faults.Restart]; got > limit {
		t.Errorf("relists = %d, want <= %d (compactions + restarts)%s", got, limit, s.traceText())
	}
	if diff := cmp.Diff(fe.state(), stateOf(s.store.List())); diff != "" {
		t.Errorf("store mismatch (-server +store):\n%s", diff)
	}
}
