package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/lw-sim/lw-sim/cmd/lw-sim/internal/bench"
)

// benchOptions are the flags of "lw-sim bench".
type benchOptions struct {
	against string
	// fake is the kubeconfig of a fake served by another process (lw-sim
	// serve); empty: one started in this process.
	fake   string
	output outputFlag
	opts   bench.Options
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

Each target gets a fresh namespace (lwsim-bench-<time>) that is left behind.`,
		Example: `  lw-sim bench
  lw-sim bench --against /tmp/real/kubeconfig
  lw-sim serve --listen :0 --kubeconfig /tmp/fake.kubeconfig --watch-max-lag 0 &
  lw-sim bench --fake /tmp/fake.kubeconfig --against /tmp/real/kubeconfig
  lw-sim bench --pods 2000 --watchers 500 -o json`,
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
	addOutputFlag(cmd, &o.output)
	return cmd
}

// runBench is "lw-sim bench": the fake, and the --against server, through
// bench.Compare; the table (or -o data) goes to stdout.
func runBench(ctx context.Context, o benchOptions, stdout io.Writer) error {
	fakeTarget, closeFake, err := benchFake(o.fake)
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
	res, err := bench.Compare(ctx, targets, ns, o.opts)
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
// started in this process, with the function that stops it.
func benchFake(kubeconfig string) (bench.Target, func() error, error) {
	if kubeconfig != "" {
		t, err := bench.FromKubeconfig("fake", kubeconfig)
		return t, func() error { return nil }, err
	}
	fake, err := bench.StartFake()
	if err != nil {
		return bench.Target{}, nil, err
	}
	return fake.Target, fake.Close, nil
}
