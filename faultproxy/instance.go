package faultproxy

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/lw-sim/lw-sim/faults"
	"github.com/lw-sim/lw-sim/internal/kubewire"
)

// InstanceName is the proxy's name as an apiserver instance: the APIServer
// faults (faults.LagAPIServer, ...) act on the proxy itself, the one
// instance its clients talk to, when they name it or name none (the
// injector fills in "apiserver-0", the default of [faults.Fault.APIServer],
// and a Random fault leaves it empty). The instances behind the upstream,
// an lw-sim fake's or a cluster's, are out of the proxy's reach: a fault
// naming another instance is refused with [faults.ErrUnsupported].
const InstanceName = "apiserver-0"

// errStorageUnreachable is what a request the apiserver would delegate to
// storage gets while the proxy is partitioned: fakeapiserver's partitioned
// instance's 504.
func errStorageUnreachable() error { return kubewire.StorageUnreachable() }

// tooOldResourceVersion is the watch cache's error for a watch from before
// its window, as fakeapiserver words it.
func tooOldResourceVersion(rv, floor int64) error { return kubewire.TooOldResourceVersion(rv, floor) }

// instance is the proxy playing one apiserver instance for the traffic
// through it (the instance faults of faults.Fault):
//
//	fresh ──Lag/Freeze/Partition──► watch frames held (relay.go hold rules)
//	any ──Heal──► fresh: held frames go out in order
//	any ──Restart──► same settings; open watches end cleanly; a watch
//	                 from below the restart RV gets 200 + ERROR 410
//
// Only watch streams and the requests a partition refuses change: reads
// are forwarded as they are, so a cache read (LIST or GET at
// resourceVersion "0" or N) shows the upstream's state, newer than a
// lagging or frozen watch cache would show it — the proxy keeps no older
// copy of any object to answer from.
type instance struct {
	// mu guards the fields below.
	mu sync.Mutex
	// lagEvents holds each watch event until that many later events of
	// its stream arrived; lagTime until that long after the proxy got it.
	// At most one is set.
	lagEvents int64
	lagTime   time.Duration
	// frozen holds every frame; partitioned too, and refuses the requests
	// the apiserver would delegate to storage.
	frozen, partitioned bool
	// floor is the RV of the last restart: a watch from below it gets the
	// 410.
	floor int64
	// changed is closed when the settings change (relays recompute).
	changed chan struct{}
	// restarted is closed by a restart, to end the open watches.
	restarted chan struct{}
}

// newInstance returns a fresh instance.
func newInstance() *instance {
	return &instance{changed: make(chan struct{}), restarted: make(chan struct{})}
}

// holdRules are an instance's settings as a relay applies them.
type holdRules struct {
	lagEvents int64
	lagTime   time.Duration
	frozen    bool
	// changed is closed at the next change of the settings.
	changed <-chan struct{}
}

// rules returns the current hold rules.
func (a *instance) rules() holdRules {
	a.mu.Lock()
	defer a.mu.Unlock()
	return holdRules{lagEvents: a.lagEvents, lagTime: a.lagTime, frozen: a.frozen || a.partitioned, changed: a.changed}
}

// restartedChan returns the channel the next restart closes.
func (a *instance) restartedChan() <-chan struct{} {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.restarted
}

// resumeFloor is the RV below which no watch resumes.
func (a *instance) resumeFloor() int64 {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.floor
}

// isPartitioned reports whether the proxy plays a partitioned instance.
func (a *instance) isPartitioned() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.partitioned
}

// update changes the settings under the lock and wakes every relay.
func (a *instance) update(change func()) {
	a.mu.Lock()
	defer a.mu.Unlock()
	change()
	close(a.changed)
	a.changed = make(chan struct{})
}

// restart raises the floor to rv and ends every open watch; it returns the
// floor.
func (a *instance) restart(rv int64) int64 {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.floor = max(a.floor, rv)
	close(a.restarted)
	a.restarted = make(chan struct{})
	return a.floor
}

// delegatesToStorage reports whether kube-apiserver serves r from storage,
// not from its watch cache, as fakeapiserver's partitioned instance
// decides it (balancer.go isStorageWrite, get.go, watch_cache.go
// consistentReadRV): every write, a GET without a resourceVersion, and a
// consistent LIST (no resourceVersion; a continue token with a negative
// RV).
func delegatesToStorage(r *http.Request, info faults.RequestInfo) bool {
	switch r.Method {
	case http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete:
		return !faults.IsControlPath(r.URL.Path)
	}
	switch info.Verb {
	case "get":
		return info.ResourceVersion == ""
	case "list":
		if info.Continue != "" {
			return continueRV(info.Continue) < 0
		}
		return info.ResourceVersion == ""
	}
	return false
}

// expiredWatch reports the 410 a watch of info gets after a restart: one
// from an RV below the restart RV that sends no initial events (a
// watch-list is served from the re-initialised cache).
func (a *instance) expiredWatch(info faults.RequestInfo) error {
	if info.Verb != "watch" || info.SendInitialEvents {
		return nil
	}
	rv, err := strconv.ParseInt(info.ResourceVersion, 10, 64)
	if err != nil || rv <= 0 {
		return nil
	}
	if floor := a.resumeFloor(); rv < floor {
		return tooOldResourceVersion(rv, floor)
	}
	return nil
}

// writeWatchError answers a watch as the watch cache does when it cannot
// start it: 200, then one ERROR event with err's Status, and the end.
func writeWatchError(w http.ResponseWriter, err error) {
	obj, _ := json.Marshal(kubewire.ErrorToStatus(err)) // a Status always encodes
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-cache, private")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(kubewire.AppendFrame(nil, "ERROR", obj))
}

// upstreamRV asks the upstream for its current RV: a consistent LIST of
// one namespace (GET /api/v1/namespaces?limit=1), which kube-apiserver
// answers at etcd's current revision. It needs the upstream credentials
// to list namespaces.
func (p *Proxy) upstreamRV(ctx context.Context) (int64, error) {
	u := *p.upstream
	u.Path = strings.TrimSuffix(p.upstream.Path, "/") + "/api/v1/namespaces"
	u.RawPath, u.RawQuery = "", "limit=1"
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return 0, fmt.Errorf("faultproxy: upstream rv: %w", err)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := p.transport.RoundTrip(req)
	if err != nil {
		return 0, fmt.Errorf("faultproxy: upstream rv: %w", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return 0, fmt.Errorf("faultproxy: upstream rv: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("faultproxy: upstream rv: LIST namespaces: %s", resp.Status)
	}
	var l struct {
		Metadata struct {
			ResourceVersion string `json:"resourceVersion"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal(body, &l); err != nil {
		return 0, fmt.Errorf("faultproxy: upstream rv: %w", err)
	}
	rv, err := strconv.ParseInt(l.Metadata.ResourceVersion, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("faultproxy: upstream rv: %w", err)
	}
	return rv, nil
}

var _ faults.APIServerTarget = proxyTarget{}

// ChangeAPIServer applies an instance fault to the proxy
// (faults.APIServerTarget). A restart learns the RV it restarts at from
// the upstream ([Proxy.upstreamRV]), or, when that LIST fails, uses the
// highest RV the proxy has seen, and says so in the record.
func (t proxyTarget) ChangeAPIServer(f faults.Fault) (string, error) {
	p, name := t.p, f.APIServer
	if err := checkInstanceName(name); err != nil {
		return "", err
	}
	if name == "" {
		name = InstanceName
	}
	a := p.inst
	switch f.Kind {
	case faults.LagAPIServer:
		if f.Lag < 0 || f.Delay < 0 || (f.Lag > 0 && f.Delay > 0) {
			return "", fmt.Errorf("faultproxy: lag %d and delay %v: at most one, neither negative", f.Lag, time.Duration(f.Delay))
		}
		a.update(func() { a.lagEvents, a.lagTime = f.Lag, time.Duration(f.Delay) })
		return fmt.Sprintf("%s (the proxy) holds watch events back by %d events or %v", name, f.Lag, time.Duration(f.Delay)), nil
	case faults.FreezeAPIServer:
		a.update(func() { a.frozen = true })
		return name + " (the proxy) frozen: watch events and bookmarks held", nil
	case faults.PartitionAPIServer:
		a.update(func() { a.partitioned = true })
		return name + " (the proxy) partitioned: writes and storage reads get 504, watches held", nil
	case faults.RestartAPIServer:
		how := "a LIST of namespaces upstream"
		rv, err := p.upstreamRV(p.stopCtx)
		if err != nil {
			rv, how = p.seenRV.Load(), fmt.Sprintf("the highest RV seen, as %v", err)
		}
		p.observeRV(rv)
		floor := a.restart(rv)
		return fmt.Sprintf("%s (the proxy) restarted at rv %d (from %s): its watches ended", name, floor, how), nil
	case faults.HealAPIServer:
		a.update(func() { a.lagEvents, a.lagTime, a.frozen, a.partitioned = 0, 0, false, false })
		return name + " (the proxy) healed", nil
	}
	return "", fmt.Errorf("faultproxy: %s is not an apiserver fault", f.Kind)
}

// checkInstanceName refuses an instance fault for an instance other than
// the proxy.
func checkInstanceName(name string) error {
	if name == "" || name == InstanceName {
		return nil
	}
	return fmt.Errorf("%w: apiserver %q: the proxy is one instance, %q, and cannot reach the instances behind its upstream", faults.ErrUnsupported, name, InstanceName)
}
