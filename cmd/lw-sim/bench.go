package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/lw-sim/lw-sim/cmd/lw-sim/internal/bench"
	"github.com/lw-sim/lw-sim/fakeapiserver"
)

// benchOptions are the flags of "lw-sim bench".
type benchOptions struct {
	against string
	// fake is the kubeconfig of a fake served by another process (lw-sim
	// serve); empty: one started in this process.
	fake   string
	output outputFlag
	opts   bench.Options
	// scale runs bench.CompareScale instead of bench.Compare.
	scale     bool
	scaleOpts bench.ScaleOptions
}

func newBenchCommand() *cobra.Command {
	var o benchOptions
	cmd := &cobra.Command{
		Use:   "bench",
		Short: "Measure the fake (and --against a real kube-apiserver) on LIST, create and watch fan-out",
		Long: `Measure a fake kube-apiserver started in this process on issue 14's workloads
(creates, paged LIST read as raw JSON and protobuf bytes, paged LIST through
client-go next to client-go's own decode of the same bytes, watch fan-out)
and print a table. Two floors frame the client-go rows: the same traversal
replayed to client-go from memory (no server: client-go's own cost) and
over loopback by a server that only writes the recorded bytes (what any
server behind a socket costs client-go on this machine). With --against KUBECONFIG the same workloads run against
that server too, each workload on both before the next, and the table gains
its column and the ratio fake/real (how many times better the fake is).

With --fake KUBECONFIG the fake measured is the one that kubeconfig reaches
(an "lw-sim serve" in a process of its own) rather than one started here:
then each server runs in its own process and the bench's clients in a third,
as with --against, so neither server shares its threads, heap or garbage
collector with the clients. On a busy machine that matters: the scheduler
shares the CPU per thread, and an in-process fake gets half the threads a
separate server and its clients get.

With --scale the workloads are those of scale instead: ConfigMap collections
of --scale-objects sizes (first and 10th LIST page, a label-selector page, an
unpaged LIST, RSS per object) and watch fan-out to --scale-watchers watches
(events/s, RSS per watch), then a CRD whose schema has --scale-crd-properties
properties (its create request, and create to Established) and
--scale-custom-objects custom objects of it (JSON LIST pages: the first page
once right after the creates, as the first read of its objects, then each page
row the best of --rounds; RSS per object; fan-out to the fewest watchers), and a CRD whose schema nests
--scale-crd-depth objects (the same two rows; -1 leaves them out;
--scale-custom-objects -1 leaves all the CRD rows out); the in-process fake
then serves HTTPS, so the clients speak HTTP/2 to it as client-go does to a
cluster. RSS is read for
an in-process fake only, after a collection that returns freed pages to the OS,
and counts the bench's clients too.

Each target gets a fresh namespace (lwsim-bench-<time>) that is left behind.`,
		Example: `  lw-sim bench
  lw-sim bench --against /tmp/real/kubeconfig
  lw-sim serve --listen :0 --kubeconfig /tmp/fake.kubeconfig --watch-max-lag 0 &
  lw-sim bench --fake /tmp/fake.kubeconfig --against /tmp/real/kubeconfig
  lw-sim bench --pods 2000 --watchers 500 -o json
  lw-sim bench --scale --scale-objects 10000,100000,200000 --scale-watchers 100,1000,10000`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runBench(cmd.Context(), o, cmd.OutOrStdout())
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.against, "against", "", "`kubeconfig` of a real kube-apiserver to measure beside the fake")
	f.StringVar(&o.fake, "fake", "", "`kubeconfig` of the fake to measure (an lw-sim serve); default: one started in this process")
	f.IntVar(&o.opts.Pods, "pods", 10_000, "pods the LIST workloads page through (created first, by the create workload)")
	f.IntVar(&o.opts.PageSize, "page-size", 500, "LIST limit")
	f.IntVar(&o.opts.Workers, "workers", 8, "concurrent clients creating objects")
	f.IntVar(&o.opts.Watchers, "watchers", 100, "watches of the fan-out workload")
	f.IntVar(&o.opts.Writes, "writes", 200, "configmaps the fan-out workload creates")
	f.IntVar(&o.opts.Rounds, "rounds", 3, "runs of each LIST workload and of the fan-out; the fastest counts")
	f.BoolVar(&o.scale, "scale", false, "measure the scale workloads (--scale-objects, --scale-watchers) instead")
	f.IntSliceVar(&o.scaleOpts.Objects, "scale-objects", []int{10_000, 100_000, 200_000}, "ConfigMap collection `sizes` of --scale")
	f.IntSliceVar(&o.scaleOpts.Watchers, "scale-watchers", []int{100, 1_000, 10_000}, "watch `counts` of --scale's fan-out")
	f.IntVar(&o.scaleOpts.Writes, "scale-writes", 20, "configmaps each --scale fan-out round creates")
	f.IntVar(&o.scaleOpts.CustomObjects, "scale-custom-objects", 10_000, "custom objects of --scale's CRD rows (-1: no CRD rows)")
	f.IntVar(&o.scaleOpts.CRDProperties, "scale-crd-properties", 2_000, "schema properties of --scale's CRD")
	f.IntVar(&o.scaleOpts.CRDDepth, "scale-crd-depth", 3_000, "nesting depth of the schema of --scale's second CRD (-1: no such row)")
	addOutputFlag(cmd, &o.output)
	return cmd
}

// runBench is "lw-sim bench": the fake, and the --against server, through
// bench.Compare; the table (or -o data) goes to stdout.
func runBench(ctx context.Context, o benchOptions, stdout io.Writer) error {
	fakeTarget, closeFake, err := benchFake(o.fake, o.scale)
	if err != nil {
		return err
	}
	targets := []bench.Target{fakeTarget}
	if o.against != "" {
		realTarget, err := bench.FromKubeconfig("real", o.against)
		if err != nil {
			return errors.Join(err, closeFake())
		}
		targets = append(targets, realTarget)
	}
	ns := fmt.Sprintf("lwsim-bench-%d", time.Now().Unix())
	var res bench.Result
	if o.scale {
		so := o.scaleOpts
		so.PageSize, so.Workers, so.Rounds = o.opts.PageSize, o.opts.Workers, o.opts.Rounds
		res, err = bench.CompareScale(ctx, targets, ns, so)
	} else {
		res, err = bench.Compare(ctx, targets, ns, o.opts)
	}
	if err == nil {
		if o.output.isData() {
			err = o.output.print(stdout, res)
		} else {
			err = res.Print(stdout)
		}
	}
	return errors.Join(err, closeFake())
}

// benchFake is the fake target: the one kubeconfig reaches, or else one
// started in this process (serving HTTPS when tls), with the function that
// stops it.
func benchFake(kubeconfig string, tls bool) (bench.Target, func() error, error) {
	if kubeconfig != "" {
		t, err := bench.FromKubeconfig("fake", kubeconfig)
		return t, func() error { return nil }, err
	}
	var cfg fakeapiserver.Config
	if tls {
		cfg.TLS = &fakeapiserver.ServingTLS{}
	}
	fake, err := bench.StartFakeConfig(cfg)
	if err != nil {
		return bench.Target{}, nil, err
	}
	return fake.Target, fake.Close, nil
}
