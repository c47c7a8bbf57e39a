package bench

import (
	"bytes"
	"context"
	"fmt"
	"net/url"
	"os"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ScaleOptions sizes a [CompareScale] run. Zero fields get defaults.
type ScaleOptions struct {
	// Objects are the collection sizes measured, ascending (10 000,
	// 100 000, 200 000 ConfigMaps); each size adds objects to the last.
	Objects []int
	// Watchers are the fan-out sizes measured (100, 1 000, 10 000).
	Watchers []int
	// PageSize is the LIST limit (500).
	PageSize int
	// Workers is how many concurrent clients create objects (8).
	Workers int
	// Writes is the configmaps each fan-out round creates (20).
	Writes int
	// Rounds is how many times each LIST and fan-out runs; the best counts (3).
	Rounds int
	// CustomObjects is how many custom objects the CRD rows create
	// (10 000); negative leaves the CRD rows out.
	CustomObjects int
	// CRDProperties is how many properties the CRD rows' schema has
	// (2 000).
	CRDProperties int
	// CRDDepth is how deep the schema of the CRD rows' second CRD nests
	// objects (3 000); negative leaves its row out.
	CRDDepth int
}

// withDefaults fills the zero fields.
func (o ScaleOptions) withDefaults() ScaleOptions {
	if len(o.Objects) == 0 {
		o.Objects = []int{10_000, 100_000, 200_000}
	}
	if len(o.Watchers) == 0 {
		o.Watchers = []int{100, 1_000, 10_000}
	}
	o.Objects = slices.Sorted(slices.Values(o.Objects))
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&o.PageSize, 500)
	def(&o.Workers, 8)
	def(&o.Writes, 20)
	def(&o.Rounds, 3)
	if o.CustomObjects == 0 {
		o.CustomObjects = 10_000
	}
	def(&o.CRDProperties, 2_000)
	if o.CRDDepth == 0 {
		o.CRDDepth = 3_000
	}
	return o
}

// CompareScale measures each target at every size of opts, in namespaces
// named after ns (ns for the collection, ns-w for the fan-out), size by
// size, each size on every target before the next: per collection size
// the first and tenth LIST page, a page with a label selector matching
// one object in 50, and an unpaged LIST; per fan-out size the events per
// second delivered and, where the target's RSS can be read
// ([Target.RSS]), the resident memory per object and per open watch; then
// the custom-resource rows (scaleCustom, in ns-c) unless
// opts.CustomObjects is negative.
func CompareScale(ctx context.Context, targets []Target, ns string, opts ScaleOptions) (Result, error) {
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
		for _, n := range []string{ns, ns + "-w", ns + "-c"} {
			if err := createNamespace(ctx, c.cs, n); err != nil {
				return res, fmt.Errorf("%s: %w", t.Name, err)
			}
		}
	}
	index := map[string]int{}
	have := make([]int, len(targets))
	for _, n := range opts.Objects {
		for ti, t := range targets {
			ms, err := scaleObjects(ctx, cs[ti], t, ns, have[ti], n, opts)
			if err != nil {
				return res, fmt.Errorf("%s: %d objects: %w", t.Name, n, err)
			}
			have[ti] = n
			res.add(index, ti, len(targets), ms)
		}
	}
	for round, w := range opts.Watchers {
		for ti, t := range targets {
			ms, err := scaleWatchers(ctx, cs[ti], t, ns+"-w", round, w, opts)
			if err != nil {
				return res, fmt.Errorf("%s: %d watchers: %w", t.Name, w, err)
			}
			res.add(index, ti, len(targets), ms)
		}
	}
	if opts.CustomObjects > 0 {
		for ti, t := range targets {
			ms, err := scaleCustom(ctx, cs[ti], t, ns+"-c", opts)
			if err != nil {
				return res, fmt.Errorf("%s: custom resources: %w", t.Name, err)
			}
			res.add(index, ti, len(targets), ms)
		}
	}
	return res, nil
}

// scaleObjects grows ns's configmaps from have to n and measures the
// LIST rows at n.
func scaleObjects(ctx context.Context, c *clients, t Target, ns string, have, n int, opts ScaleOptions) ([]Measurement, error) {
	before := t.rss()
	if err := createScaleConfigMaps(ctx, c, ns, have, n, opts.Workers); err != nil {
		return nil, err
	}
	label := fmt.Sprintf("%d objects: ", n)
	plain := *c
	plain.acceptEncoding = "identity"
	path := "/api/v1/namespaces/" + ns + "/configmaps"
	page := func(q url.Values, skip int) func() (time.Duration, error) {
		return func() (time.Duration, error) { return timePage(ctx, &plain, path, protobufType, q, skip) }
	}
	limit := url.Values{"limit": {strconv.Itoa(opts.PageSize)}}
	selector := url.Values{"limit": {strconv.Itoa(opts.PageSize)}, "labelSelector": {"app=app-7"}}
	var m []Measurement
	for _, row := range []struct {
		name string
		run  func() (time.Duration, error)
	}{
		{"first page (ms)", page(limit, 0)},
		{"10th page (ms)", page(limit, 9)},
		{"selector page, 1 in 50 (ms)", page(selector, 0)},
		{"full list (ms)", page(url.Values{}, 0)},
	} {
		d, err := bestDuration(opts.Rounds, row.run)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", row.name, err)
		}
		m = append(m, Measurement{Workload: label + row.name, Value: ms(d)})
	}
	if after := t.rss(); before > 0 && after > before && n > have {
		m = append(m, Measurement{Workload: label + "RSS per object added (bytes)", Value: float64(after-before) / float64(n-have)})
	}
	return m, nil
}

// scaleWatchers measures the fan-out to w watches, and the RSS they take.
func scaleWatchers(ctx context.Context, c *clients, t Target, ns string, round, w int, opts ScaleOptions) ([]Measurement, error) {
	var best FanoutStats
	var perWatch float64
	for i := range opts.Rounds {
		before := t.rss()
		var opened uint64
		st, err := fanoutOpened(ctx, c, ns, round*opts.Rounds+i, w, opts.Writes, opts.Workers, func() { opened = t.rss() })
		if err != nil {
			return nil, err
		}
		if i == 0 || st.Elapsed < best.Elapsed {
			best = st
		}
		if before > 0 && opened > before {
			perWatch = max(perWatch, float64(opened-before)/float64(w))
		}
	}
	label := fmt.Sprintf("%d watchers: ", w)
	m := []Measurement{{Workload: label + fmt.Sprintf("fan-out of %d creates (events/s)", opts.Writes), Value: best.EventsPerSecond(), HigherIsBetter: true}}
	if perWatch > 0 {
		m = append(m, Measurement{Workload: label + "RSS per watch, server and client (bytes)", Value: perWatch})
	}
	return m, nil
}

// timePage GETs path with q accepting mt, following skip continue tokens
// first, and returns how long the last page took.
func timePage(ctx context.Context, c *clients, path, mt string, q url.Values, skip int) (time.Duration, error) {
	q = cloneValues(q)
	var buf bytes.Buffer
	for i := 0; ; i++ {
		start := time.Now()
		resp, err := c.get(ctx, path+"?"+q.Encode(), mt)
		if err != nil {
			return 0, err
		}
		buf.Reset()
		_, err = buf.ReadFrom(resp.Body)
		resp.Body.Close()
		elapsed := time.Since(start)
		if err != nil {
			return 0, err
		}
		if resp.StatusCode != 200 {
			return 0, fmt.Errorf("GET %s: %s: %.200s", path, resp.Status, buf.Bytes())
		}
		if i == skip {
			return elapsed, nil
		}
		cont, err := continueOf(buf.Bytes(), mt)
		if err != nil {
			return 0, err
		}
		if cont == "" {
			return 0, fmt.Errorf("GET %s: no page %d", path, skip+1)
		}
		q.Set("continue", cont)
	}
}

// cloneValues copies q.
func cloneValues(q url.Values) url.Values {
	out := url.Values{}
	for k, v := range q {
		out[k] = slices.Clone(v)
	}
	return out
}

// bestDuration runs f rounds times and returns its fastest time.
func bestDuration(rounds int, f func() (time.Duration, error)) (time.Duration, error) {
	var best time.Duration
	for i := range rounds {
		d, err := f()
		if err != nil {
			return 0, err
		}
		if i == 0 || d < best {
			best = d
		}
	}
	return best, nil
}

// createScaleConfigMaps creates configmaps first..n-1 of ns, labelled
// app=app-<i%50>, with the given number of concurrent workers.
func createScaleConfigMaps(ctx context.Context, c *clients, ns string, first, n, workers int) error {
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := range workers {
		wg.Go(func() {
			for i := first + w; i < n; i += workers {
				cm := &corev1.ConfigMap{
					ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("scale-%07d", i), Labels: map[string]string{"app": fmt.Sprintf("app-%d", i%50)}},
					Data:       map[string]string{"key": "value"},
				}
				if _, err := c.cs.CoreV1().ConfigMaps(ns).Create(ctx, cm, metav1.CreateOptions{}); err != nil {
					errs <- fmt.Errorf("create configmap %d: %w", i, err)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	return <-errs
}

// rss is the target's resident memory in bytes, 0 when unknown.
func (t Target) rss() uint64 {
	if t.RSS == nil {
		return 0
	}
	return t.RSS()
}

// SelfRSS is this process's resident memory in bytes (VmRSS of
// /proc/self/status), 0 where it cannot be read, read after a collection
// that returns the freed pages to the OS (debug.FreeOSMemory): two
// readings then differ by what became live between them, not by when
// the collector last ran, which made the per-watch rows swing a
// hundredfold between sizes.
func SelfRSS() uint64 {
	debug.FreeOSMemory()
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for line := range strings.Lines(string(b)) {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				return 0
			}
			return kb << 10
		}
	}
	return 0
}
