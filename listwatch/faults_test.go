package listwatch

import (
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/lw-sim/lw-sim/faults"
)

// Each test below drives one branch of the client's run loop with a fault
// injected through the fake's fault API, runs the same schedule against
// client-go's SharedIndexInformer, and asserts each client's own expected
// behaviour: the decisions in listwatch's trace, the LIST (and watch-list)
// count (guarantee 4), the handler's order (guarantee 2) and convergence
// (guarantee 1, go-cmp against the server). Where the informer behaves
// differently, the row's want says so and the comment says why.

// idleBeforeFault is how long a test lets a freshly synced client sit
// before it injects a watch fault: over the Reflector's one-second "very
// short watch" threshold, so the fault, not the watch's age, decides.
const idleBeforeFault = 2 * time.Second

// TestFaultWatchEndResumes ends the client's watch cleanly (EndWatch) or
// cuts it mid-frame and resets the connection (CutWatch), right after it
// delivered one event; the next event is lost on the wire. Both clients
// re-watch from the last RV they hold, with no LIST and no backoff, and get
// the lost event from the new watch.
func TestFaultWatchEndResumes(t *testing.T) {
	for _, kind := range []faults.Kind{faults.EndWatch, faults.CutWatch} {
		for _, sk := range []subjectKind{listwatchClient, informerClient} {
			t.Run(string(kind)+"/"+string(sk), func(t *testing.T) {
				t.Parallel()
				synctest.Test(t, func(t *testing.T) {
					fe := startFaultEnv(t)
					fe.create(faultNS, "a")
					fe.create(faultNS, "b")
					s := fe.startSubject(sk, subjectOptions{})
					fe.converge(s, convergeWithin)
					time.Sleep(idleBeforeFault)
					before, mark := s.lw.calls(), s.mark()

					id := fe.srv.InjectFault(t, faults.Fault{Kind: kind, Match: watchMatch,
						Streams: faults.OpenStreams, Trigger: faults.Trigger{Events: 1}})
					rvA := fe.update(faultNS, "a")
					fe.update(faultNS, "b") // written after the fault fired: lost with the stream
					if took := fe.converge(s, convergeWithin); took != 0 {
						t.Errorf("%s converged after %v of virtual time, want at once (no backoff after a productive watch)", sk, took)
					}
					if got := fe.fired(id); got != 1 {
						t.Errorf("fault %s fired on %d streams, want 1", kind, got)
					}
					after := s.lw.calls()
					if after.syncs() != before.syncs() || after.Watches != before.Watches+1 {
						t.Errorf("%s: calls %+v → %+v, want one more WATCH and no LIST or watch-list", sk, before, after)
					}
					s.rec.checkOrder(t, true)
					if s.log != nil {
						want := []string{"watch-end: stream closed", "watch-start: resume from rv " + rvA}
						if diff := cmp.Diff(want, s.decisions(mark)); diff != "" {
							t.Errorf("decisions after %s (-want +got):\n%s", kind, diff)
						}
					}
				})
			})
		}
	}
}

// TestFaultIdleWatchEnd ends a watch that has delivered nothing and is less
// than a second old. listwatch re-watches from its RV after one backoff
// step: nothing was lost. The informer's Reflector calls that a "very short
// watch" and re-syncs (one more watch-list).
func TestFaultIdleWatchEnd(t *testing.T) {
	tests := []struct {
		sk        subjectKind
		wantSyncs int
	}{
		{sk: listwatchClient, wantSyncs: 0},
		{sk: informerClient, wantSyncs: 1},
	}
	for _, tt := range tests {
		t.Run(string(tt.sk), func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				fe := startFaultEnv(t)
				fe.create(faultNS, "a")
				s := fe.startSubject(tt.sk, subjectOptions{})
				fe.converge(s, convergeWithin)
				before, mark := s.lw.calls(), s.mark()
				if _, err := fe.srv.Faults().EndWatches(watchMatch); err != nil {
					t.Fatal(err)
				}
				fe.update(faultNS, "a")
				fe.converge(s, convergeWithin)
				if got := s.lw.calls().syncs() - before.syncs(); got != tt.wantSyncs {
					t.Errorf("%s: syncs after an idle watch end = %d, want %d", tt.sk, got, tt.wantSyncs)
				}
				s.rec.checkOrder(t, s.log != nil)
				if s.log != nil {
					want := []string{"watch-end: stream closed", "backoff: exponential backoff", "watch-start: resume from rv"}
					if got := s.decisions(mark); !hasPrefixes(got, want) {
						t.Errorf("decisions after an idle end = %q, want prefixes %q", got, want)
					}
				}
			})
		})
	}
}

// TestFaultHangWatch hangs the watch (open, no events, no bookmarks, no
// end) while an object changes. client-go's Reflector waits as long as the
// stream stays open: until the hang ends, or until rest.Config.Timeout if the
// caller set one; a hang that outlives the compaction interval costs it a
// re-sync. listwatch ends a watch itself once the server is past the
// timeoutSeconds it asked for (plus watchDeadlineGrace) and resumes from its
// RV, so a hang costs it at most that long and never a relist.
func TestFaultHangWatch(t *testing.T) {
	// With minWatchTimeout 1 min, listwatch asks for timeoutSeconds in
	// [1, 2) min, so its own deadline falls in [1.5, 2.5) min.
	const lwDeadlineMin, lwDeadlineMax = time.Minute + watchDeadlineGrace, 2*time.Minute + watchDeadlineGrace
	type want struct {
		quietFor  time.Duration // the client must not have converged this long after the fault
		resumedBy time.Duration // virtual time from the fault to convergence
		resync    bool
		decisions []string // listwatch only
	}
	lwResumes := want{quietFor: lwDeadlineMin - 2*idleBeforeFault, resumedBy: lwDeadlineMax + maxConvergeStep,
		decisions: []string{"watch-end: stream closed by the client", "watch-start: resume from rv"}}
	tests := []struct {
		name          string
		timeout, hang time.Duration
		informer, lw  want
	}{
		{name: "no-deadline/short-hang", hang: 4 * time.Minute,
			informer: want{quietFor: time.Minute - 2*idleBeforeFault, resumedBy: 4*time.Minute + maxConvergeStep},
			lw:       lwResumes},
		{name: "no-deadline/hang-past-compaction", hang: 30 * time.Minute,
			informer: want{quietFor: time.Minute - 2*idleBeforeFault, resumedBy: 31 * time.Minute, resync: true},
			lw:       lwResumes},
		{name: "client-deadline", timeout: 3 * time.Minute, hang: 30 * time.Minute,
			informer: want{quietFor: 3*time.Minute - 2*idleBeforeFault, resumedBy: 3*time.Minute + maxConvergeStep},
			lw:       lwResumes},
	}
	for _, tt := range tests {
		for _, sk := range []subjectKind{listwatchClient, informerClient} {
			w := tt.informer
			if sk == listwatchClient {
				w = tt.lw
			}
			t.Run(tt.name+"/"+string(sk), func(t *testing.T) {
				t.Parallel()
				synctest.Test(t, func(t *testing.T) {
					fe := startFaultEnv(t)
					fe.create(faultNS, "a")
					s := fe.startSubject(sk, subjectOptions{timeout: tt.timeout, minWatchTimeout: time.Minute})
					fe.converge(s, convergeWithin)
					time.Sleep(idleBeforeFault)
					before, mark := s.lw.calls(), s.mark()
					start := time.Now()
					fe.srv.InjectFault(t, faults.Fault{Kind: faults.HangWatch, Match: watchMatch,
						Window: faults.Duration(tt.hang)})
					fe.update(faultNS, "a")
					time.Sleep(w.quietFor)
					synctest.Wait()
					if fe.diff(s) == "" {
						t.Fatalf("%s saw the update through a hung watch within %v", sk, w.quietFor)
					}
					fe.converge(s, tt.hang+time.Minute)
					if took := time.Since(start); took > w.resumedBy {
						t.Errorf("%s converged %v after the hang began, want by %v", sk, took, w.resumedBy)
					}
					after := s.lw.calls()
					if got := after.syncs() > before.syncs(); got != w.resync {
						t.Errorf("%s: calls %+v → %+v; re-synced = %v, want %v", sk, before, after, got, w.resync)
					}
					if s.log != nil {
						if got := s.decisions(mark); !hasPrefixes(got, w.decisions) {
							t.Errorf("decisions after a hang = %q, want prefixes %q", got, w.decisions)
						}
					}
				})
			})
		}
	}
}

// TestFaultRestartRelists partitions the client (its watch hangs) while an
// object is deleted, one updated and one created, then restarts the
// apiserver: the hung watch ends and the watch window restarts at the
// current RV, so the re-watch from the client's RV gets the 410 ERROR
// event. Both clients re-sync once and report the delete they never saw as
// a DeletedFinalStateUnknown. listwatch backs off once before its relist
// (nothing was gained) and reports only changes; the informer re-syncs by
// watch-list and re-delivers unchanged objects as OnUpdate with equal RVs.
func TestFaultRestartRelists(t *testing.T) {
	tests := []struct {
		sk        subjectKind
		wantKinds map[string][]string
	}{
		{sk: listwatchClient, wantKinds: map[string][]string{"default/a": {"add", "tombstone"}, "default/b": {"add", "update"},
			"default/c": {"add"}, "default/d": {"add"}}},
		{sk: informerClient, wantKinds: map[string][]string{"default/a": {"add", "tombstone"}, "default/b": {"add", "update"},
			"default/c": {"add", "update"}, "default/d": {"add"}}},
	}
	for _, tt := range tests {
		t.Run(string(tt.sk), func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				fe := startFaultEnv(t)
				fe.create(faultNS, "a")
				fe.create(faultNS, "b")
				held := fe.create(faultNS, "c") // the client's RV once it synced
				s := fe.startSubject(tt.sk, subjectOptions{})
				fe.converge(s, convergeWithin)
				time.Sleep(idleBeforeFault)
				before, mark := s.lw.calls(), s.mark()
				fe.srv.InjectFault(t, faults.Fault{Kind: faults.HangWatch, Match: watchMatch})
				time.Sleep(10 * time.Second)
				fe.del(faultNS, "a")
				fe.update(faultNS, "b")
				fe.create(faultNS, "d")
				time.Sleep(10 * time.Second)
				if _, err := fe.srv.Faults().RestartAPIServer(); err != nil {
					t.Fatal(err)
				}
				fe.converge(s, convergeWithin)
				if got := s.lw.calls().syncs() - before.syncs(); got != 1 {
					t.Errorf("%s: syncs after a restart behind the client = %d, want 1", tt.sk, got)
				}
				if diff := cmp.Diff(tt.wantKinds, kinds(s.rec)); diff != "" {
					t.Errorf("%s: handler calls (-want +got):\n%s", tt.sk, diff)
				}
				s.rec.checkOrder(t, s.log != nil)
				if s.log != nil {
					want := []string{"watch-end: stream closed", "watch-start: resume from rv " + held,
						"watch-end: ERROR event: 410", "relist: ERROR event: 410", "backoff: exponential backoff",
						"listed", "watch-start: resume from rv"}
					if got := s.decisions(mark); !hasPrefixes(got, want) {
						t.Errorf("decisions after a restart = %q, want prefixes %q", got, want)
					}
				}
			})
		})
	}
}

// TestFaultExpiredContinue holds the client's second LIST page for 10 s
// (Latency on page 2) while the server writes and compacts: the page's
// continue token is then below the compaction, the server answers 410, and
// listwatch's pager re-lists once in full (TraceFullList); two LIST calls,
// no relist. The informer never fetches a second page: its Reflector syncs
// by watch-list (and in LIST mode lists at RV "0" in one page), so the
// latency fault never fires for it.
func TestFaultExpiredContinue(t *testing.T) {
	tests := []struct {
		sk         subjectKind
		wantFired  int
		wantCalls  calls
		wantDecide []string
	}{
		{sk: listwatchClient, wantFired: 1, wantCalls: calls{Lists: 2, Watches: 1},
			wantDecide: []string{"full-list: continue token expired", "listed", "watch-start: resume from rv"}},
		{sk: informerClient, wantFired: 0, wantCalls: calls{Watches: 1, WatchLists: 1}},
		{sk: informerListClient, wantFired: 0, wantCalls: calls{Lists: 1, Watches: 1}},
	}
	for _, tt := range tests {
		t.Run(string(tt.sk), func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				fe := startFaultEnv(t)
				for _, n := range []string{"a", "b", "c", "d", "e"} {
					fe.create(faultNS, n)
				}
				lm := listMatch
				lm.Page = 2
				id := fe.srv.InjectFault(t, faults.Fault{Kind: faults.Latency, Match: lm,
					Delay: faults.Duration(10 * time.Second)})
				s := fe.startSubject(tt.sk, subjectOptions{pageSize: 2})
				synctest.Wait() // listwatch: page 2 is waiting out its latency
				fe.update(faultNS, "e")
				// Let the informer's open watch take the update first: the
				// fake ends a live watch whose cursor a compaction overtakes
				// (watch.go endOnReadError), which would cost the informer a
				// "very short watch" re-sync that is not the fault under test.
				synctest.Wait()
				if _, err := fe.srv.Faults().CompactNow(); err != nil {
					t.Fatal(err)
				}
				fe.converge(s, convergeWithin)
				if got := fe.fired(id); got != tt.wantFired {
					t.Errorf("%s: page-2 latency fired %d times, want %d", tt.sk, got, tt.wantFired)
				}
				if got := s.lw.calls(); got != tt.wantCalls {
					t.Errorf("%s: calls = %+v, want %+v", tt.sk, got, tt.wantCalls)
				}
				s.rec.checkOrder(t, s.log != nil)
				if s.log != nil {
					if got := s.decisions(0); !hasPrefixes(got, tt.wantDecide) {
						t.Errorf("decisions = %q, want prefixes %q", got, tt.wantDecide)
					}
				}
			})
		})
	}
}

// TestFaultRetryableErrors fails the client's requests with 429 and 5xx.
// listwatch backs off (the longer of its backoff and Retry-After) and
// resumes where it was: a failed watch costs no LIST, a failed LIST is
// retried. client-go's rest client retries a 429 or 5xx that carries
// Retry-After up to 10 times by itself, so a single 429 never reaches
// either client; eleven do.
//
// The informer differs on a 5xx at watch connect: the Reflector retries
// only 429 and "connection refused" as a watch (isWatchErrorRetriable);
// any other watch error ends ListAndWatch, so a 503 costs it a re-sync.
func TestFaultRetryableErrors(t *testing.T) {
	tests := []struct {
		name  string
		fault faults.Fault
		// onWatch: the fault hits a re-watch of a synced client; else the
		// first LIST.
		onWatch bool
		// wantSyncs is the extra syncs per client kind.
		wantSyncs  map[subjectKind]int
		wantDecide []string // listwatch
	}{
		{name: "watch-429x11-retry-after-7", onWatch: true,
			fault:     faults.Fault{Kind: faults.FailRequest, Code: http.StatusTooManyRequests, RetryAfterSeconds: 7, Times: 11, Match: watchMatch},
			wantSyncs: map[subjectKind]int{listwatchClient: 0, informerClient: 0},
			wantDecide: []string{"watch-end: stream closed", "watch-start: resume from rv",
				"watch-end: watch request failed: server error Too Many Requests", "backoff: server's Retry-After", "watch-start: resume from rv"}},
		{name: "watch-503", onWatch: true,
			fault:     faults.Fault{Kind: faults.FailRequest, Code: http.StatusServiceUnavailable, Match: watchMatch},
			wantSyncs: map[subjectKind]int{listwatchClient: 0, informerClient: 1},
			wantDecide: []string{"watch-end: stream closed", "watch-start: resume from rv",
				"watch-end: watch request failed: server error Service Unavailable", "backoff: exponential backoff", "watch-start: resume from rv"}},
		{name: "list-500",
			fault:      faults.Fault{Kind: faults.FailRequest, Code: http.StatusInternalServerError, Match: listMatch},
			wantSyncs:  map[subjectKind]int{listwatchClient: 2, informerListClient: 2},
			wantDecide: []string{"list-error", "backoff: exponential backoff", "listed", "watch-start"}},
		{name: "list-429-retried-by-rest-client",
			fault:      faults.Fault{Kind: faults.FailRequest, Code: http.StatusTooManyRequests, Match: listMatch},
			wantSyncs:  map[subjectKind]int{listwatchClient: 1, informerListClient: 1},
			wantDecide: []string{"listed", "watch-start"}},
	}
	for _, tt := range tests {
		for sk, wantSyncs := range tt.wantSyncs {
			t.Run(tt.name+"/"+string(sk), func(t *testing.T) {
				t.Parallel()
				synctest.Test(t, func(t *testing.T) {
					fe := startFaultEnv(t)
					fe.create(faultNS, "a")
					var s *subject
					var before calls
					mark := 0
					if tt.onWatch {
						s = fe.startSubject(sk, subjectOptions{})
						fe.converge(s, convergeWithin)
						time.Sleep(idleBeforeFault)
						before, mark = s.lw.calls(), s.mark()
					}
					id := fe.srv.InjectFault(t, tt.fault)
					if tt.onWatch {
						// End the open watch, so the client's re-watch meets the fault.
						if _, err := fe.srv.Faults().EndWatches(watchMatch); err != nil {
							t.Fatal(err)
						}
					} else {
						s = fe.startSubject(sk, subjectOptions{})
					}
					fe.update(faultNS, "a")
					fe.converge(s, convergeWithin)
					if got, want := fe.fired(id), max(1, tt.fault.Times); got != want {
						t.Errorf("fault fired %d times, want %d", got, want)
					}
					if got := s.lw.calls().syncs() - before.syncs(); got != wantSyncs {
						t.Errorf("%s: syncs = %d, want %d", sk, got, wantSyncs)
					}
					s.rec.checkOrder(t, s.log != nil)
					if s.log != nil {
						if got := s.decisions(mark); !hasPrefixes(got, tt.wantDecide) {
							t.Errorf("decisions = %q, want prefixes %q", got, tt.wantDecide)
						}
					}
				})
			})
		}
	}
}
