package fakeapiserver

import (
	"net/http"
	"sync"

	"github.com/lw-sim/lw-sim/faults"
)

// faultHooks is the server's fault injector and the goroutine that arms
// faults waiting for an RV as soon as the store reaches it.
//
// Shutdown chain: Close cancels stopCtx → pollRVs returns → wg.Wait in
// stopFaults returns → the injector is closed, releasing hung streams
// (they also watch stopCtx).
type faultHooks struct {
	inj     *faults.Injector
	control http.Handler // nil unless Config.ControlAPI
	wg      sync.WaitGroup
}

// serverTarget is the server as the injector's [faults.Target].
type serverTarget struct{ s *Server }

var _ faults.Target = serverTarget{}

func (t serverTarget) CurrentRV() int64       { return t.s.store.CurrentRV() }
func (t serverTarget) Compact(rv int64) error { return t.s.Compact(rv) }

// Restart is CompactWatchHistory: every watch ends and the watch window
// restarts at the current RV. LISTs at older RVs keep working, as a
// restarted kube-apiserver serves them from etcd (etcd3 store, not the
// watch cache) until etcd compacts; a Compact fault expires them too.
func (t serverTarget) Restart() error {
	t.s.CompactWatchHistory()
	return nil
}

// startFaults builds the injector and starts the RV poller.
func (s *Server) startFaults() {
	s.faults.inj = faults.New(faults.Config{Target: serverTarget{s}, Clock: s.cfg.Clock, Stop: s.stopCtx})
	if s.cfg.ControlAPI {
		s.faults.control = faults.ControlHandler(s.faults.inj)
	}
	s.faults.wg.Go(s.pollRVs)
}

// pollRVs lets the injector arm RV-triggered faults after every write.
func (s *Server) pollRVs() {
	for {
		changed := s.store.Notify()
		s.faults.inj.Poll()
		select {
		case <-changed:
		case <-s.stopCtx.Done():
			return
		}
	}
}

// stopFaults stops the poller (stopCtx is already cancelled) and closes the
// injector.
func (s *Server) stopFaults() {
	s.faults.wg.Wait()
	s.faults.inj.Close()
}

// Faults returns the server's fault injector. Faults added to it act on
// this server only:
//
//	id, err := srv.Faults().Add(faults.Fault{Kind: faults.EndWatch})
//	t.Cleanup(func() { srv.Faults().Remove(id) })
//
// or [Server.InjectFault], which does both.
func (s *Server) Faults() *faults.Injector { return s.faults.inj }

// InjectFault adds f and removes it at the end of the test; it fails the
// test if f is invalid. It returns the fault's ID.
func (s *Server) InjectFault(tb TB, f faults.Fault) string {
	tb.Helper()
	id, err := s.faults.inj.Add(f)
	if err != nil {
		tb.Fatalf("InjectFault(%+v): %v", f, err)
	}
	tb.Cleanup(func() { s.faults.inj.Remove(id) })
	return id
}

// serveControl serves the control API (faults.ControlHandler) when it is
// enabled and the path is under its prefix. It runs after authentication,
// so a configured bearer token guards it.
func (s *Server) serveControl(w http.ResponseWriter, r *http.Request) bool {
	if s.faults.control == nil || !faults.IsControlPath(r.URL.Path) {
		return false
	}
	s.faults.control.ServeHTTP(w, r)
	return true
}
