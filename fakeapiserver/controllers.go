package fakeapiserver

import (
	"context"
	"reflect"
	"slices"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/clock"
)

// The control loops kube-apiserver runs inside its own process, each
// reduced to a level-triggered reconcile over the store:
//
//	kubernetes-service  bootstrap_service.go  missing → created at its next 10 s tick
//	system-namespaces   bootstrap_namespaces.go  missing → created at its next minute
//	apf-config          apf_config.go         missing → created at its next minute
//	apf-status          apf_status.go         a FlowSchema's Dangling condition, at once
//	apiservices         apiservices.go        a CRD group-version's APIService, at once
//
// One goroutine per Server runs them all (runControllers); New starts it,
// Close cancels stopCtx and waits for it. Its loop:
//
//  1. Take, from the store, the channel closed at the next write of each
//     resource some reconciler watches, then the store's RV (before
//     reading anything, so no write falls between the read and the wait).
//  2. Run the reconcilers whose resources were written, or whose due time
//     has come; each reads the current state, writes what is missing or
//     stale through the loopback client, and says when it must run again
//     (a periodic owner's next tick, or never).
//  3. Wait for one of those channels, the earliest due time on the
//     server's clock, or Close; then ask the store which of the resources
//     were written after that RV: their reconcilers run in the next pass.
//
// Its writes wake it again; a pass that finds nothing to do writes
// nothing, so it converges. The clock only carries a timer while some
// object is missing (scenarios count timers). The periodic owners tick on
// a grid from New, as the real controllers' periods run from their start.

// reconciler is one control loop.
type reconciler struct {
	name string
	// watches are the resources whose writes make it run.
	watches []schema.GroupVersionResource
	// watchesAll makes a write of any resource make it run (the garbage
	// collector reads every object).
	watchesAll bool
	// run reconciles at now and returns when it must run again, zero for
	// "when a watched resource is written".
	run func(ctx context.Context, now time.Time) time.Time
}

// controllerLoop is the state of the one controller goroutine.
type controllerLoop struct {
	// started is New's time on the server's clock: the periodic owners
	// tick at started + k·period.
	started time.Time
	// recs are the reconcilers; periodic ones keep their pending tick.
	recs []reconciler
	// due is when each reconciler must run again (zero: not by time).
	due map[string]time.Time
	// wg is the goroutine; Close waits for it.
	wg sync.WaitGroup
}

// reconcilers are the server's control loops, in the order a pass runs
// them.
func (s *Server) reconcilers() []reconciler {
	recs := []reconciler{
		{name: "kubernetes-service", watches: []schema.GroupVersionResource{servicesGVR},
			run: s.periodicRecreate(kubernetesServiceInterval, s.kubernetesServiceObjects)},
		{name: "system-namespaces", watches: []schema.GroupVersionResource{namespacesGVR},
			run: s.periodicRecreate(time.Minute, s.systemNamespaceObjects)},
		{name: "apf-config", watches: []schema.GroupVersionResource{flowSchemasGVR, priorityLevelsGVR},
			run: s.periodicRecreate(apfConfigInterval, s.apfConfigObjects)},
		{name: "apf-status", watches: []schema.GroupVersionResource{flowSchemasGVR, priorityLevelsGVR},
			run: s.reconcileFlowSchemaStatus},
		{name: "apiservices", watches: []schema.GroupVersionResource{crdsGVR, apiServicesGVR},
			run: s.reconcileAPIServices},
	}
	// kube-controller-manager's controllers, when Config.Controllers asks.
	if slices.Contains(s.cfg.Controllers, ControllerGarbageCollector) {
		recs = append(recs, reconciler{name: ControllerGarbageCollector, watchesAll: true, run: s.reconcileGarbage})
	}
	if slices.Contains(s.cfg.Controllers, ControllerNamespace) {
		recs = append(recs, reconciler{name: ControllerNamespace, watchesAll: true, run: s.reconcileNamespaceDeletion})
	}
	if slices.Contains(s.cfg.Controllers, ControllerServiceAccount) {
		recs = append(recs, reconciler{name: ControllerServiceAccount, watches: []schema.GroupVersionResource{namespacesGVR, serviceAccountsGVR},
			run: s.reconcileServiceAccounts})
	}
	if slices.Contains(s.cfg.Controllers, ControllerValidatingAdmissionPolicyStatus) {
		recs = append(recs, reconciler{name: ControllerValidatingAdmissionPolicyStatus,
			watches: []schema.GroupVersionResource{validatingPolicyResources.policies}, run: s.reconcilePolicyStatus})
	}
	return recs
}

// startControllers runs every reconciler once, then starts the controller
// goroutine (New, after seeding). The first pass is synchronous so that
// what the controllers write at start (the bootstrap FlowSchemas'
// conditions) is written before New returns: a new server's store is then
// quiet until its clients write, so a test reading resourceVersions right
// after Start sees no write of the server's own land in between.
func (s *Server) startControllers() {
	s.ctrl = &controllerLoop{started: s.cfg.Clock.Now(), due: map[string]time.Time{}}
	s.ctrl.recs = s.reconcilers()
	now := s.cfg.Clock.Now()
	for _, r := range s.ctrl.recs {
		s.ctrl.due[r.name] = r.run(s.stopCtx, now)
	}
	s.ctrl.wg.Go(func() { s.runControllers(s.stopCtx) })
}

// stopControllers waits for the goroutine, which stopCtx ends (Close).
func (s *Server) stopControllers() {
	if s.ctrl != nil {
		s.ctrl.wg.Wait()
	}
}

// runControllers is the controller goroutine's loop (see the top).
func (s *Server) runControllers(ctx context.Context) {
	recs := s.ctrl.recs
	// Writes between New's pass and this goroutine's first wait are
	// caught by a first pass over everything (a no-op on a quiet store).
	dirty := map[string]bool{}
	for _, r := range recs {
		dirty[r.name] = true
	}
	for {
		w := s.controllerWakeups(recs)
		now := s.cfg.Clock.Now()
		for _, r := range recs {
			if due := s.ctrl.due[r.name]; dirty[r.name] || (!due.IsZero() && !now.Before(due)) {
				s.ctrl.due[r.name] = r.run(ctx, now)
			}
		}
		clear(dirty)
		if s.settled(w) {
			if !s.waitControllers(ctx, w.chans, s.nextDue()) {
				return
			}
		} else if ctx.Err() != nil {
			return
		}
		for _, gvr := range s.writtenSince(w) {
			for _, r := range recs {
				if (gvr == anyResource && r.watchesAll) || slices.Contains(r.watches, gvr) {
					dirty[r.name] = true
				}
			}
		}
	}
}

// anyResource stands, in a wakeups' list, for a write of any resource (the
// store's Notify channel).
var anyResource = schema.GroupVersionResource{Resource: "*"}

// wakeups is what the loop waits on between two passes: for each resource
// some reconciler watches (anyResource for "all"), the channel the store
// closes at its next write, and the store's RV when they were taken.
type wakeups struct {
	gvrs  []schema.GroupVersionResource
	keys  []string // storage keys, "" for anyResource
	chans []<-chan struct{}
	// rv is the store's RV, read before the channels were taken: a write
	// after it closes a channel, or came before the channel was taken and
	// moved the store past rv, which the loop checks before it waits
	// (settled); writtenSince reports it either way. Read after the
	// channels, a write in between closed its channel but was at or
	// below rv, so no reconciler was marked for it: a CRD created at that
	// moment never got its APIService (on a frozen test clock, for good).
	rv int64
}

// controllerWakeups takes the store's RV, then the channels for the
// resources the reconcilers watch that the server serves.
func (s *Server) controllerWakeups(recs []reconciler) wakeups {
	w := wakeups{rv: s.store.CurrentRV()}
	if slices.ContainsFunc(recs, func(r reconciler) bool { return r.watchesAll }) {
		w.gvrs, w.keys, w.chans = append(w.gvrs, anyResource), append(w.keys, ""), append(w.chans, s.store.Notify())
	}
	for _, r := range recs {
		for _, gvr := range r.watches {
			res, ok := s.resources.lookup(gvr)
			if !ok || slices.Contains(w.gvrs, gvr) {
				continue
			}
			// Only the channel is wanted: it is closed at the next write
			// whatever afterRV says, and CurrentRV is never compacted.
			_, ch, err := s.store.Changes(res.storageKey, s.store.CurrentRV())
			if err != nil {
				continue
			}
			w.gvrs, w.keys, w.chans = append(w.gvrs, gvr), append(w.keys, res.storageKey), append(w.chans, ch)
		}
	}
	return w
}

// settled reports whether nothing was written since w was taken, so its
// channels will tell of the next write.
func (s *Server) settled(w wakeups) bool { return s.store.CurrentRV() == w.rv }

// writtenSince returns the resources of w written after w.rv. It asks the
// store rather than which of w's channels are closed: a commit closes its
// resource's channel and then the store's, so a loop woken by the first
// can look before the second is closed, and the write would be lost to
// the reconcilers watching all (the namespace controller once slept
// through a namespace's deletion that way). The store's lock makes the
// commit whole to this read.
func (s *Server) writtenSince(w wakeups) []schema.GroupVersionResource {
	var out []schema.GroupVersionResource
	for i, gvr := range w.gvrs {
		if gvr == anyResource {
			if s.store.CurrentRV() > w.rv {
				out = append(out, gvr)
			}
			continue
		}
		evs, _, err := s.store.Changes(w.keys[i], w.rv)
		if err != nil || len(evs) > 0 { // compacted past w.rv: written since, surely
			out = append(out, gvr)
		}
	}
	return out
}

// nextDue is the earliest time a reconciler must run again (zero: none).
func (s *Server) nextDue() time.Time {
	var next time.Time
	for _, due := range s.ctrl.due {
		if !due.IsZero() && (next.IsZero() || due.Before(next)) {
			next = due
		}
	}
	return next
}

// waitControllers waits for a write (one of wakes closed) or for due, and
// returns false if ctx ended first. The timer lives only for the wait.
func (s *Server) waitControllers(ctx context.Context, wakes []<-chan struct{}, due time.Time) bool {
	cases := make([]reflect.SelectCase, 0, len(wakes)+2)
	for _, ch := range wakes {
		cases = append(cases, reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(ch)})
	}
	cases = append(cases, reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(ctx.Done())})
	var timer clock.Timer
	if !due.IsZero() {
		timer = s.cfg.Clock.NewTimer(max(due.Sub(s.cfg.Clock.Now()), 0))
		defer timer.Stop()
		cases = append(cases, reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(timer.C())})
	}
	chosen, _, _ := reflect.Select(cases)
	return chosen != len(wakes)
}

// periodicRecreate is the reconcile of a periodic owner of bootstrap
// objects: while some are missing it is due at the next tick of period
// (counted from New), when it creates them; a create that fails (the
// kubernetes Service's address taken, say) is tried again a tick later.
func (s *Server) periodicRecreate(period time.Duration, objects func() []bootstrapObject) func(context.Context, time.Time) time.Time {
	var due time.Time // this owner's pending tick; only the loop goroutine uses it
	return func(ctx context.Context, now time.Time) time.Time {
		objs := objects()
		if len(s.missingBootstrap(objs)) == 0 {
			due = time.Time{}
			return due
		}
		if due.IsZero() {
			due = s.nextTick(now, period)
		}
		if now.Before(due) {
			return due
		}
		if err := s.recreateMissing(ctx, objs); err != nil {
			s.cfg.Logger.Warn("fakeapiserver: bootstrap controller", "err", err)
		}
		due = s.nextTick(now, period)
		if len(s.missingBootstrap(objs)) == 0 {
			due = time.Time{}
		}
		return due
	}
}

// nextTick is the first tick of period after now, counted from New.
func (s *Server) nextTick(now time.Time, period time.Duration) time.Time {
	elapsed := now.Sub(s.ctrl.started)
	return s.ctrl.started.Add((elapsed/period + 1) * period)
}
