package fakeapiserver

import (
	"errors"
	"fmt"
	"time"

	"github.com/lw-sim/lw-sim/faults"
)

// ErrUnknownAPIServer is wrapped by the instance faults' error for a name
// the server has no instance of.
var ErrUnknownAPIServer = errors.New("fakeapiserver: unknown apiserver instance")

// APIServerLag is how far an instance's watch cache trails the store: by
// Events writes, or by Duration on the server's clock (each write becomes
// visible Duration after it committed). The zero value is no lag.
type APIServerLag struct {
	Events   int64
	Duration time.Duration
}

// APIServerStatus describes one instance ([Server.APIServers]).
type APIServerStatus struct {
	// Name is what [APIServerHeader] reports for it.
	Name string
	// CacheRV is the RV its watch cache has seen: the store's current RV
	// when Fresh.
	CacheRV int64
	// Fresh is true when the cache follows the store (no lag, freeze or
	// partition).
	Fresh bool
	// Lag, Frozen and Partitioned are its faults.
	Lag                 APIServerLag
	Frozen, Partitioned bool
	// RestartRV is the RV of its last restart (0: never restarted): no
	// watch resumes on it below that RV.
	RestartRV int64
	// Served counts the requests the balancer sent it.
	Served int64
}

// APIServers describes the instances, in order.
func (s *Server) APIServers() []APIServerStatus {
	out := make([]APIServerStatus, 0, len(s.apiservers.instances))
	for _, inst := range s.apiservers.instances {
		rv, fresh := inst.cacheRV()
		inst.mu.Lock()
		out = append(out, APIServerStatus{
			Name: inst.name, CacheRV: rv, Fresh: fresh,
			Lag:    APIServerLag{Events: inst.lagEvents, Duration: inst.lagTime},
			Frozen: inst.frozen, Partitioned: inst.partitioned, RestartRV: inst.floor, Served: inst.served,
		})
		inst.mu.Unlock()
	}
	return out
}

// LagAPIServer sets how far the named instance's watch cache trails the
// store (the zero lag ends it). The cache never goes back: it stays where
// it is until the store is that far ahead. It fails wrapping
// [ErrUnknownAPIServer] for an unknown name, and for a lag with both
// fields set or one negative.
func (s *Server) LagAPIServer(name string, lag APIServerLag) error {
	if lag.Events < 0 || lag.Duration < 0 || (lag.Events > 0 && lag.Duration > 0) {
		return fmt.Errorf("fakeapiserver: lag %+v: at most one of Events and Duration, neither negative", lag)
	}
	inst, err := s.apiserverNamed(name)
	if err != nil {
		return err
	}
	inst.update(func() { inst.lagEvents, inst.lagTime = lag.Events, lag.Duration })
	return nil
}

// FreezeAPIServer stops (true) or resumes (false) the named instance's
// watch cache.
func (s *Server) FreezeAPIServer(name string, frozen bool) error {
	inst, err := s.apiserverNamed(name)
	if err != nil {
		return err
	}
	inst.update(func() { inst.frozen = frozen })
	return nil
}

// PartitionAPIServer cuts the named instance off the store (true) or
// reconnects it (false). While cut off its cache is frozen, and the
// reads it would delegate to storage (GET without a resourceVersion, a
// consistent LIST) and every write get the 504 Timeout of a storage that
// never answers (apiserver pkg/server/filters/timeout.go).
func (s *Server) PartitionAPIServer(name string, partitioned bool) error {
	inst, err := s.apiserverNamed(name)
	if err != nil {
		return err
	}
	inst.update(func() { inst.partitioned = partitioned })
	return nil
}

// RestartAPIServer restarts the named instance (apiserver_instance.go
// restart) and returns the RV below which no watch resumes on it.
func (s *Server) RestartAPIServer(name string) (int64, error) {
	inst, err := s.apiserverNamed(name)
	if err != nil {
		return 0, err
	}
	return inst.restart(), nil
}

// HealAPIServer clears the named instance's lag, freeze and partition.
func (s *Server) HealAPIServer(name string) error {
	inst, err := s.apiserverNamed(name)
	if err != nil {
		return err
	}
	inst.update(func() { inst.lagEvents, inst.lagTime, inst.frozen, inst.partitioned = 0, 0, false, false })
	return nil
}

// apiserverNamed returns the instance called name ("" is the first).
func (s *Server) apiserverNamed(name string) (*apiserverInstance, error) {
	if name == "" {
		return s.apiservers.instances[0], nil
	}
	if inst := s.apiservers.byName(name); inst != nil {
		return inst, nil
	}
	return nil, fmt.Errorf("apiserver %q (the server has %d): %w", name, len(s.apiservers.instances), ErrUnknownAPIServer)
}

var _ faults.APIServerTarget = serverTarget{}

// ChangeAPIServer applies an APIServer fault (faults.APIServerTarget).
func (t serverTarget) ChangeAPIServer(f faults.Fault) (string, error) {
	s, name := t.s, f.APIServer
	switch f.Kind {
	case faults.LagAPIServer:
		lag := APIServerLag{Events: f.Lag, Duration: time.Duration(f.Delay)}
		return fmt.Sprintf("%s lags %+v", name, lag), s.LagAPIServer(name, lag)
	case faults.FreezeAPIServer:
		return name + " frozen", s.FreezeAPIServer(name, true)
	case faults.PartitionAPIServer:
		return name + " partitioned from the store", s.PartitionAPIServer(name, true)
	case faults.RestartAPIServer:
		rv, err := s.RestartAPIServer(name)
		return fmt.Sprintf("%s restarted at rv %d: its watches ended", name, rv), err
	case faults.HealAPIServer:
		return name + " healed", s.HealAPIServer(name)
	}
	return "", fmt.Errorf("fakeapiserver: %s is not an apiserver fault", f.Kind)
}

// APIServerCount is the number of instances ([Config.APIServers]).
func (s *Server) APIServerCount() int { return len(s.apiservers.instances) }
