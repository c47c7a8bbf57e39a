package bench

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Options sizes a run. Zero fields get the defaults of [Options.withDefaults].
type Options struct {
	// Pods is how many pods the LIST workloads page through (10 000).
	Pods int
	// PageSize is the LIST limit (500, client-go's pager default).
	PageSize int
	// Workers is how many concurrent clients create objects (8).
	Workers int
	// Watchers and Writes size the fan-out: Writes configmaps, each
	// delivered to Watchers watches (100 and 200).
	Watchers, Writes int
	// Rounds is how many times each LIST workload and the fan-out run;
	// the best round counts, as a benchmark's steady state, except for the
	// client-go rows, whose median round counts (list.go measureClientGo)
	// (3).
	Rounds int
}

// withDefaults fills the zero fields.
func (o Options) withDefaults() Options {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&o.Pods, 10_000)
	def(&o.PageSize, 500)
	def(&o.Workers, 8)
	def(&o.Watchers, 100)
	def(&o.Writes, 200)
	def(&o.Rounds, 3)
	return o
}

// Measurement is one workload's number on one target.
type Measurement struct {
	// Workload names what was measured, with its unit.
	Workload string
	Value    float64
	// HigherIsBetter says which way the value improves (throughputs), so
	// a ratio can be stated as "times better".
	HigherIsBetter bool
}

// stage is one step of a run on one target: it measures some workloads.
type stage func(ctx context.Context, c *clients, ns string, opts Options) ([]Measurement, error)

// stages are a run's steps in order; [Compare] runs each on every target
// before the next, so a change in the machine's load over the run hits
// the targets alike.
var stages = []stage{measureCreates, measureLists, measureFanout}

// measureCreates creates the namespace and the pods the LIST workloads
// read, and measures the creates.
func measureCreates(ctx context.Context, c *clients, ns string, opts Options) ([]Measurement, error) {
	if err := createNamespace(ctx, c.cs, ns); err != nil {
		return nil, err
	}
	created, err := createPods(ctx, c.cs, ns, 0, opts.Pods, opts.Workers)
	if err != nil {
		return nil, err
	}
	return []Measurement{{Workload: "create pod (creates/s)", Value: float64(opts.Pods) / created.Seconds(), HigherIsBetter: true}}, nil
}

// measureFanout measures watch fan-out, opts.Rounds times, keeping the
// best round: a round on the fake lasts tens of milliseconds, so one
// stall of a busy machine would otherwise decide the number.
//
// A round in which the server ended a watch early (errWatchClosed) is
// dropped and another run in its place, up to opts.Rounds more: it
// measured the server's slow-watcher rule, not its fan-out, and one such
// round should not cost the whole table.
func measureFanout(ctx context.Context, c *clients, ns string, opts Options) ([]Measurement, error) {
	var best FanoutStats
	done, dropped := 0, 0
	for round := 0; done < opts.Rounds; round++ {
		fo, err := fanout(ctx, c, ns, round, opts.Watchers, opts.Writes, opts.Workers)
		if errors.Is(err, errWatchClosed) && dropped < opts.Rounds {
			dropped++
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("fan-out (%d rounds dropped for a watch the server ended): %w", dropped, err)
		}
		if done == 0 || fo.Elapsed < best.Elapsed {
			best = fo
		}
		done++
	}
	name := fmt.Sprintf("watch fan-out %d×%d (events/s)", opts.Watchers, opts.Writes)
	return []Measurement{{Workload: name, Value: best.EventsPerSecond(), HigherIsBetter: true}}, nil
}

// measureLists runs the LIST workloads, each opts.Rounds times after a
// warm-up traversal (which also fills the fake's encoding caches), keeping
// the best round. The raw rows ask for Accept-Encoding: identity, so both
// servers send the same uncompressed bytes; the gzip row is what Go's
// transport (and client-go) get by default: pages over 128 KiB gzipped.
// The client-go rows come from measureClientGo.
func measureLists(ctx context.Context, c *clients, ns string, opts Options) ([]Measurement, error) {
	var m []Measurement
	plain := *c
	plain.acceptEncoding = "identity"
	for _, mt := range []string{jsonType, protobufType} {
		if _, err := listRaw(ctx, &plain, ns, mt, opts.PageSize, false); err != nil {
			return nil, err
		}
		best, err := bestOf(opts.Rounds, func() (ListStats, error) { return listRaw(ctx, &plain, ns, mt, opts.PageSize, false) })
		if err != nil {
			return nil, err
		}
		label := map[string]string{jsonType: "json", protobufType: "protobuf"}[mt]
		m = append(m,
			Measurement{Workload: "paged LIST raw " + label + " (MB/s)", Value: best.MBPerSecond(), HigherIsBetter: true},
			Measurement{Workload: "paged LIST raw " + label + " (bytes/page)", Value: float64(best.Bytes) / float64(best.Pages)},
			Measurement{Workload: "paged LIST raw " + label + " (ms/page)", Value: ms(best.PerPage())},
		)
	}
	zipped, err := bestOf(opts.Rounds, func() (ListStats, error) { return listRaw(ctx, c, ns, protobufType, opts.PageSize, false) })
	if err != nil {
		return nil, err
	}
	m = append(m, Measurement{Workload: "paged LIST raw protobuf gzip (ms/page)", Value: ms(zipped.PerPage())})
	cg, err := measureClientGo(ctx, c, ns, opts)
	return append(m, cg...), err
}

// bestOf runs f rounds times and returns its fastest result.
func bestOf(rounds int, f func() (ListStats, error)) (ListStats, error) {
	var best ListStats
	for i := range rounds {
		st, err := f()
		if err != nil {
			return st, err
		}
		if i == 0 || st.Elapsed < best.Elapsed {
			best = st
		}
	}
	return best, nil
}

// ms is d in milliseconds.
func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
