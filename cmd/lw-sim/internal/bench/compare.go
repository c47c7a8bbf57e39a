package bench

import (
	"context"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// Result is the measurements of every target of a [Compare], by workload.
type Result struct {
	// Targets names the columns, in order.
	Targets []string `json:"targets"`
	// Rows are the workloads in the order they ran.
	Rows []Row `json:"rows"`
}

// Row is one workload's values, one per target (0 when a target lacks it).
type Row struct {
	Workload       string    `json:"workload"`
	Values         []float64 `json:"values"`
	HigherIsBetter bool      `json:"higherIsBetter"`
}

// Compare runs every workload on each target, in a namespace named ns on
// each, stage by stage: each stage on every target before the next.
func Compare(ctx context.Context, targets []Target, ns string, opts Options) (Result, error) {
	opts = opts.withDefaults()
	res := Result{}
	cs := make([]*clients, len(targets))
	for i, t := range targets {
		res.Targets = append(res.Targets, t.Name)
		c, err := newClients(t)
		if err != nil {
			return res, err
		}
		cs[i] = c
	}
	index := map[string]int{}
	for _, st := range stages {
		for ti, t := range targets {
			ms, err := st(ctx, cs[ti], ns, opts)
			if err != nil {
				return res, fmt.Errorf("%s: %w", t.Name, err)
			}
			res.add(index, ti, len(targets), ms)
		}
	}
	return res, nil
}

// add records target ti's measurements, a row per workload.
func (res *Result) add(index map[string]int, ti, targets int, ms []Measurement) {
	for _, m := range ms {
		i, ok := index[m.Workload]
		if !ok {
			i = len(res.Rows)
			index[m.Workload] = i
			res.Rows = append(res.Rows, Row{Workload: m.Workload, Values: make([]float64, targets), HigherIsBetter: m.HigherIsBetter})
		}
		res.Rows[i].Values[ti] = m.Value
	}
}

// Print writes res as an aligned table: workload, one column per target,
// and with two targets the ratio first/second for throughputs (higher is
// better) and second/first for times, so ratio > 1 means the first target
// is that many times better. Sizes and quotients get no ratio.
func (res Result) Print(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "workload\t")
	for _, t := range res.Targets {
		fmt.Fprintf(tw, "%s\t", t)
	}
	if len(res.Targets) == 2 {
		fmt.Fprint(tw, "ratio\t")
	}
	fmt.Fprintln(tw)
	for _, r := range res.Rows {
		fmt.Fprintf(tw, "%s\t", r.Workload)
		for _, v := range r.Values {
			fmt.Fprintf(tw, "%s\t", format(v))
		}
		if len(r.Values) == 2 {
			fmt.Fprintf(tw, "%s\t", r.ratio())
		}
		fmt.Fprintln(tw)
	}
	return tw.Flush()
}

// ratio is how many times better the first target is on r, or "" where a
// ratio means nothing (a size or a quotient, or a zero).
func (r Row) ratio() string {
	a, b := r.Values[0], r.Values[1]
	if a == 0 || b == 0 || !r.isTiming() {
		return ""
	}
	if r.HigherIsBetter {
		return fmt.Sprintf("%.2f×", a/b)
	}
	return fmt.Sprintf("%.2f×", b/a)
}

// isTiming reports whether r's values compare speeds: throughputs and
// times per page, not sizes or quotients.
func (r Row) isTiming() bool {
	return r.HigherIsBetter || strings.HasSuffix(r.Workload, "(ms/page)") ||
		strings.HasSuffix(r.Workload, "(ms)") || strings.HasSuffix(r.Workload, "(s)")
}

// format prints v with about four significant digits.
func format(v float64) string {
	switch {
	case v >= 1000:
		return fmt.Sprintf("%.0f", v)
	case v >= 10:
		return fmt.Sprintf("%.1f", v)
	default:
		return fmt.Sprintf("%.3f", v)
	}
}
