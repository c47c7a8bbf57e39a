package scenarios

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"strings"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/lw-sim/lw-sim/listwatch"
)

// scenarioBackoff is the listwatch client's default backoff without the
// jitter, so a run's delays, and so its timeline, are the same every time.
var scenarioBackoff = wait.Backoff{Duration: 800 * time.Millisecond, Factor: 2, Steps: 1 << 20, Cap: 30 * time.Second}

// Client is a listwatch client a scenario started; it runs until the run
// ends.
type Client struct {
	*listwatch.Client
	stop func()
}

// StartClient starts a listwatch client for the ConfigMaps of ns, on the
// run's clock, with opts (Clock, Trace and a zero Backoff are set by the
// Env). Its requests and decisions are recorded as it makes them, but enter
// the timeline only when the scenario calls AwaitClient, so the timeline
// does not depend on how goroutines are scheduled.
func (e *Env) StartClient(ns string, opts listwatch.Options) (*Client, error) {
	return e.startClient(ns, "", "", opts, nil)
}

// startClient is StartClient with the client's lane ("" for the next
// default one) and User-Agent ("" for client-go's); observe, if not nil,
// sees each request and response entry the client records, on the
// client's goroutine.
func (e *Env) startClient(ns, lane, userAgent string, opts listwatch.Options, observe func(Entry)) (*Client, error) {
	if lane == "" {
		lane = e.nextClientLane()
	}
	cs, err := kubernetes.NewForConfig(e.clientConfig(lane, userAgent, observe))
	if err != nil {
		return nil, fmt.Errorf("scenarios: listwatch client: %w", err)
	}
	opts.Clock = e.clock
	if opts.Rand == nil {
		// The client's watch timeouts and backoff jitter: drawn from the
		// run's seed and the client's lane, so a replay draws alike, and
		// without taking from the run's source, whose draws the scenario
		// makes in its own order.
		opts.Rand = rand.New(rand.NewPCG(e.seed, laneStream(lane)))
	}
	if opts.Backoff == (wait.Backoff{}) {
		opts.Backoff = scenarioBackoff
	}
	opts.Trace = func(ev listwatch.TraceEvent) {
		en := Entry{At: Offset(ev.Time.Sub(e.t0)), Kind: KindClient, RV: ev.RV, Text: traceText(ev), Lane: lane}
		if ev.Kind == listwatch.TraceWatchEnd {
			en.End, en.ErrorCode = watchEndOf(ev)
		}
		e.logClient(clientEntry{Entry: en, delay: ev.Delay})
	}
	c := listwatch.New(listwatch.FromTyped(cs.CoreV1().ConfigMaps(ns)), opts)
	ctx, cancel := context.WithCancel(e.ctx)
	var wg sync.WaitGroup
	wg.Go(func() { c.Run(ctx) })
	stop := sync1(func() { cancel(); wg.Wait() })
	e.addCloser(stop)
	return &Client{Client: c, stop: stop}, nil
}

// laneStream is a PCG stream number for a client's lane.
func laneStream(lane string) uint64 {
	h := fnv.New64a()
	_, _ = h.Write([]byte(lane))
	return h.Sum64()
}

// Stop stops the client and waits for it.
func (c *Client) Stop() { c.stop() }

// traceText is a trace event without its kind's "rv=" (the RV column
// shows it).
func traceText(ev listwatch.TraceEvent) string {
	s := ev.String()
	head := fmt.Sprintf("%s rv=%s", ev.Kind, ev.RV)
	return "listwatch: " + string(ev.Kind) + strings.TrimPrefix(s, head)
}

// IsClientEntry reports whether en is a listwatch trace entry of kind k.
func IsClientEntry(en Entry, k listwatch.TraceKind) bool {
	return en.Kind == KindClient && strings.HasPrefix(en.Text, "listwatch: "+string(k))
}

// isBackoff reports whether en is a client's wait before it tries again:
// a listwatch backoff, or a Reflector's ([Env.runReflector]).
func isBackoff(en Entry) bool {
	return IsClientEntry(en, listwatch.TraceBackoff) || en.Kind == KindClient && strings.HasPrefix(en.Text, reflectorBackoff)
}

// AwaitClientStepping is AwaitClient for a client that may back off on the
// way: whenever it reports a backoff, the clock is stepped by the delay once
// the client's timer is armed (a listwatch client's is then the only timer:
// its watch has ended; a Reflector's was armed before it was reported).
func (e *Env) AwaitClientStepping(what string, match func(Entry) bool) error {
	for {
		var backoff *clientEntry
		err := e.awaitClient(what, func(en clientEntry) bool {
			if isBackoff(en.Entry) {
				backoff = &en
				return true
			}
			return match(en.Entry)
		})
		if err != nil {
			return err
		}
		if backoff == nil {
			return nil
		}
		if backoff.armed {
			e.Step(backoff.delay)
			continue
		}
		if err := e.AwaitTimers(1); err != nil {
			return err
		}
		e.Step(backoff.delay)
	}
}

// clientConfig is the client-go config of a client the scenario started:
// its requests and responses are recorded in lane (they enter the
// timeline when the scenario awaits the client), each seen first by
// observe if not nil; the watch timeout it draws is masked, so the
// timeline does not depend on it.
func (e *Env) clientConfig(lane, userAgent string, observe func(Entry)) *rest.Config {
	cfg := e.restConfig(func(en Entry) {
		en.Lane = lane
		if observe != nil {
			observe(en)
		}
		e.logClient(clientEntry{Entry: en})
	})
	rt := cfg.Transport.(*recordingTransport)
	// The client's requests are routed by its own lane, not by the
	// scenario's current one.
	rt.maskWatchTimeout, rt.lane = true, lane
	if userAgent != "" {
		cfg.UserAgent = userAgent
	}
	return cfg
}

// watchEndOf is why a listwatch client's watch ended, as its watch-end
// decision says: after an ERROR event (and its Status's code), closed by
// the client for sending nothing past its deadline, or closed.
func watchEndOf(ev listwatch.TraceEvent) (StreamEnd, int32) {
	switch {
	case strings.HasPrefix(ev.Reason, "ERROR event"):
		var st apierrors.APIStatus
		if errors.As(ev.Err, &st) {
			return EndError, st.Status().Code
		}
		return EndError, 0
	case strings.HasPrefix(ev.Reason, "stream closed by the client"):
		return EndClient, 0
	}
	return EndClosed, 0
}
