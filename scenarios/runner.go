package scenarios

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"net"
	"net/http"
	"time"

	"k8s.io/client-go/kubernetes"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/lw-sim/lw-sim/fakeapiserver"
	"github.com/lw-sim/lw-sim/fakeapiserver/fakeapiservertest"
)

// epoch is where every run's virtual clock starts, so that nothing a
// server stamps with the clock differs between runs.
var epoch = time.Date(2026, time.January, 1, 0, 0, 0, 0, time.UTC)

// seedStream separates the scenario's random stream from other PCG users
// of the same seed (an arbitrary odd constant).
const seedStream = 0x9e3779b97f4a7c15

// connBufferBytes caps the kernel buffers of every connection between the
// scenario's clients and the server (server send side, client receive
// side). Linux otherwise lets loopback buffers grow to several MiB, and a
// scenario that shows a client falling behind (slow-consumer) would have to
// write that much before the server's writes block.
const connBufferBytes = 64 << 10

// smallBufferListener sets the send buffer of every accepted connection.
type smallBufferListener struct{ net.Listener }

func (l smallBufferListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if tc, ok := c.(*net.TCPConn); ok && err == nil {
		// A failure only leaves the default, larger buffer.
		_ = tc.SetWriteBuffer(connBufferBytes)
	}
	return c, err
}

// dialSmallBuffer dials with a small receive buffer.
func dialSmallBuffer(ctx context.Context, network, addr string) (net.Conn, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, network, addr)
	if tc, ok := c.(*net.TCPConn); ok && err == nil {
		_ = tc.SetReadBuffer(connBufferBytes)
	}
	return c, err
}

// RunOptions configures one run.
type RunOptions struct {
	// Seed drives the run's random choices. If zero, the scenario's own
	// Seed.
	Seed uint64
	// InMemory serves the fake on an in-memory listener
	// (fakeapiservertest.PipeListener) instead of loopback TCP. Inside a
	// testing/synctest bubble that puts the whole run on virtual time:
	// loopback sockets are not durably blocking, so a bubble's clock
	// would never move while a client waited on one, while pipes are.
	// Then the waits for quiet between steps end exactly when every
	// goroutine is idle, and client-go's own real-clock waits (an
	// informer's backoff, which cannot be given a clock) take virtual
	// time too: a replay is the same every time, whatever the machine's
	// load. Scenarios that teach TCP backpressure (a slow watcher's
	// small socket buffers) need TCP: leave it off for them.
	InMemory bool
}

// Result is what one run produced.
type Result struct {
	Scenario string `json:"scenario"`
	Seed     uint64 `json:"seed"`
	// Passed is true when every expectation held.
	Passed bool `json:"passed"`
	// Error is why the run failed ("" when it passed).
	Error    string   `json:"error,omitempty"`
	Timeline Timeline `json:"timeline"`
	// clientEntries is every entry the scenario's clients recorded, in
	// arrival order, whether or not the scenario took it into the
	// timeline: a test compares replays by it.
	clientEntries []Entry
}

// Run runs sc once against a new fake server on a new fake clock, and
// returns what it recorded. The error is non-nil when the run failed: it
// wraps [ErrExpectation] when the server did not behave as the scenario
// expects, and is any other error when the run could not happen. The
// Result is complete in both cases. Run leaves no goroutine behind.
func Run(ctx context.Context, sc *Scenario, opts RunOptions) (*Result, error) {
	seed := opts.Seed
	if seed == 0 {
		seed = sc.Seed
	}
	res := &Result{Scenario: sc.Name, Seed: seed}
	err := run(ctx, sc, seed, opts.InMemory, res)
	res.Passed = err == nil
	if err != nil {
		res.Error = err.Error()
	}
	return res, err
}

// run sets up the server and the Env, runs the steps and tears everything
// down. Shutdown chain: env.close stops every stream and client the steps
// started (each waits for its goroutine) → srv.Close ends the remaining
// watches and connections → the ServeBackground goroutine reports on done
// → idle client connections are closed.
func run(ctx context.Context, sc *Scenario, seed uint64, inMemory bool, res *Result) (err error) {
	clk := clocktesting.NewFakeClock(epoch)
	cfg := fakeapiserver.Config{Clock: clk}
	// Scenarios compact by hand, at the moment they teach it.
	cfg.Compaction.Interval = -1
	if sc.Config != nil {
		sc.Config(&cfg)
	}
	srv, err := fakeapiserver.New(cfg)
	if err != nil {
		return fmt.Errorf("scenarios: %s: %w", sc.Name, err)
	}
	ln, transport, err := listen(inMemory)
	if err != nil {
		return errors.Join(fmt.Errorf("scenarios: %s: %w", sc.Name, err), srv.Close())
	}
	done := srv.ServeBackground(ln)
	ctx, cancel := context.WithCancel(ctx)
	e, err := newEnv(ctx, srv, clk, seed, transport)
	e.routes = maps.Clone(sc.Routes)
	e.rotate, e.rotation = sc.RotateLanes, map[string]int{}
	defer func() {
		cancel()
		e.close()
		err = errors.Join(err, srv.Close(), <-done)
		transport.CloseIdleConnections()
		res.Timeline = e.Timeline()
		res.clientEntries = e.clientEntries()
	}()
	if err != nil {
		return fmt.Errorf("scenarios: %s: %w", sc.Name, err)
	}
	return runSteps(e, sc, seed)
}

// listen is the listener a run's server serves on and the transport its
// clients dial it with: loopback TCP with small socket buffers, or
// in-memory pipes ([RunOptions.InMemory]).
func listen(inMemory bool) (net.Listener, *http.Transport, error) {
	if inMemory {
		pl := fakeapiservertest.NewPipeListener()
		return pl, &http.Transport{DialContext: pl.DialContext}, nil
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, nil, err
	}
	return smallBufferListener{ln}, &http.Transport{DialContext: dialSmallBuffer}, nil
}

// newEnv is the Env of a run against srv on clk, with its clientsets
// (the recorded one and the quiet one); the Env is returned even with an
// error, for the run to tear down.
func newEnv(ctx context.Context, srv *fakeapiserver.Server, clk *clocktesting.FakeClock, seed uint64, transport *http.Transport) (*Env, error) {
	e := &Env{
		ctx:          ctx,
		srv:          srv,
		clock:        clk,
		seed:         seed,
		rand:         rand.New(rand.NewPCG(seed, seedStream)),
		t0:           clk.Now(),
		transport:    transport,
		clientLogged: make(chan struct{}),
	}
	e.httpc = &http.Client{Transport: &recordingTransport{base: transport, e: e, record: e.append}}
	var err error
	e.cs, err = kubernetes.NewForConfig(e.restConfig(e.append))
	if err == nil {
		e.quiet, err = kubernetes.NewForConfig(e.restConfig(nil))
	}
	return e, err
}

// runSteps runs the scenario's steps between its first and last notes;
// an error that is not a failed expectation is recorded as a FAIL.
func runSteps(e *Env, sc *Scenario, seed uint64) error {
	e.Note("scenario %s, seed %d: fake kube-apiserver at virtual time 0", sc.Name, seed)
	if err := sc.Steps(e); err != nil {
		if !errors.Is(err, ErrExpectation) {
			e.record(KindCheck, "", "FAIL: %v", err)
		}
		return fmt.Errorf("scenario %s: %w", sc.Name, err)
	}
	e.Note("PASS: every expectation held")
	return nil
}
