package fakeapiserver

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"sync"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/clock"

	"github.com/lw-sim/lw-sim/fakeapiserver/store"
	"github.com/lw-sim/lw-sim/faults"
)

// Response and request headers of the load balancer in front of the
// instances.
const (
	// APIServerHeader names the instance that served a response ("apiserver-0",
	// "apiserver-1", ...). Every response carries it, a watch's in its
	// headers. On a request it pins the request to that instance, past the
	// balancing (an unknown name is ignored).
	APIServerHeader = "X-Lw-Sim-Apiserver"
	// ClientHeader, on a request, names the client for
	// [BalanceStickyPerClient]; without it a client is its remote IP and
	// User-Agent.
	ClientHeader = "X-Lw-Sim-Client"
)

// Balancing is how the load balancer spreads requests over the instances.
type Balancing string

const (
	// BalanceRoundRobin sends each request to the next instance in turn.
	BalanceRoundRobin Balancing = "round-robin"
	// BalanceStickyPerConnection sends every request of one connection (one
	// remote address) to the same instance, as an L4 load balancer in front
	// of kube-apiservers does: a client-go client with one HTTP/2
	// connection talks to one instance until its connection breaks.
	BalanceStickyPerConnection Balancing = "sticky-connection"
	// BalanceStickyPerClient sends every request of one client (its
	// [ClientHeader], else its remote IP and User-Agent) to the same
	// instance, whatever connection it uses.
	BalanceStickyPerClient Balancing = "sticky-client"
)

// APIServersConfig sets how many kube-apiserver instances serve the one
// store and how requests reach them.
type APIServersConfig struct {
	// Count is the number of instances. If zero, 1: the server behaves
	// exactly as a single kube-apiserver whose watch cache follows etcd.
	Count int
	// Balancing spreads requests over the instances. If empty,
	// [BalanceRoundRobin].
	Balancing Balancing
}

// withDefaults fills the zero fields.
func (c APIServersConfig) withDefaults() APIServersConfig {
	if c.Count == 0 {
		c.Count = 1
	}
	if c.Balancing == "" {
		c.Balancing = BalanceRoundRobin
	}
	return c
}

// check refuses a configuration New cannot serve.
func (c APIServersConfig) check() error {
	if c.Count < 0 {
		return fmt.Errorf("fakeapiserver: APIServers.Count %d is negative", c.Count)
	}
	switch c.Balancing {
	case BalanceRoundRobin, BalanceStickyPerConnection, BalanceStickyPerClient:
		return nil
	}
	return fmt.Errorf("fakeapiserver: unknown APIServers.Balancing %q (want %s, %s or %s)",
		c.Balancing, BalanceRoundRobin, BalanceStickyPerConnection, BalanceStickyPerClient)
}

// balancer holds the instances and picks one per request.
type balancer struct {
	cfg       APIServersConfig
	instances []*apiserverInstance
	// direct is the fresh view of requests that come through no balancer:
	// the server's loopback client (its own controllers), never faulted.
	direct *apiserverInstance

	// mu guards the fields below.
	mu sync.Mutex
	// next is the round-robin cursor.
	next int
	// sticky maps a connection's or client's key to its instance.
	sticky map[string]int
}

// instanceKey is the request-context key of the serving instance.
type instanceKey struct{}

// newBalancer builds cfg.Count fresh instances over st.
func newBalancer(cfg APIServersConfig, st *store.Store, clk clock.PassiveClock) *balancer {
	b := &balancer{cfg: cfg, sticky: make(map[string]int), direct: newAPIServerInstance("loopback", st, clk)}
	for i := range cfg.Count {
		b.instances = append(b.instances, newAPIServerInstance("apiserver-"+strconv.Itoa(i), st, clk))
	}
	return b
}

// balance routes each request to an instance: it names it in the
// [APIServerHeader] of the response and puts it in the request's context,
// where the read paths find it ([Server.instanceOf]). A write reaching an
// instance partitioned from the store gets the 504 of a storage that never
// answers (watch_cache.go errStorageUnreachable).
func (s *Server) balance(next http.Handler) http.Handler {
	b := s.apiservers
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		inst := b.pick(r)
		inst.mu.Lock()
		inst.served++
		partitioned := inst.partitioned
		inst.mu.Unlock()
		w.Header().Set(APIServerHeader, inst.name)
		if partitioned && isStorageWrite(r) {
			s.writeError(w, r, errStorageUnreachable())
			return
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), instanceKey{}, inst)))
	})
}

// isStorageWrite reports a request that writes to storage: a mutating
// method outside the control API.
func isStorageWrite(r *http.Request) bool {
	switch r.Method {
	case http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete:
		return !faults.IsControlPath(r.URL.Path)
	}
	return false
}

// pick chooses the instance of r.
func (b *balancer) pick(r *http.Request) *apiserverInstance {
	if inst := b.byName(r.Header.Get(APIServerHeader)); inst != nil {
		return inst
	}
	if len(b.instances) == 1 {
		return b.instances[0]
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	key := ""
	switch b.cfg.Balancing {
	case BalanceStickyPerConnection:
		key = "conn " + r.RemoteAddr
	case BalanceStickyPerClient:
		key = "client " + clientKey(r)
	}
	if key != "" {
		if i, ok := b.sticky[key]; ok {
			return b.instances[i]
		}
	}
	i := b.next
	b.next = (b.next + 1) % len(b.instances)
	if key != "" {
		b.sticky[key] = i
	}
	return b.instances[i]
}

// clientKey names the client of r for sticky-per-client balancing.
func clientKey(r *http.Request) string {
	if c := r.Header.Get(ClientHeader); c != "" {
		return c
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	return host + " " + r.UserAgent()
}

// byName returns the instance called name, or nil.
func (b *balancer) byName(name string) *apiserverInstance {
	if name == "" {
		return nil
	}
	for _, inst := range b.instances {
		if inst.name == name {
			return inst
		}
	}
	return nil
}

// noteWrite stamps a committed write on every instance (apiserver_instance.go).
func (b *balancer) noteWrite(rv int64) {
	for _, inst := range b.instances {
		inst.noteWrite(rv)
	}
}

// instanceOf returns the instance serving r: the balancer's choice, or a
// fresh view for a request that did not come through it (the loopback
// client of the server's own controllers).
func (s *Server) instanceOf(r *http.Request) *apiserverInstance {
	if inst, ok := r.Context().Value(instanceKey{}).(*apiserverInstance); ok {
		return inst
	}
	return s.apiservers.direct
}

// noteWrite stamps a committed write's RV on the instances (for their
// time lags) and passes the store's answer through.
func (s *Server) noteWrite(obj runtime.Object, err error) (runtime.Object, error) {
	if err == nil {
		if rv, perr := parseResourceVersion(mustAccessor(obj).GetResourceVersion()); perr == nil {
			s.apiservers.noteWrite(rv)
		}
	}
	return obj, err
}
