package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/client-go/rest"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/lw-sim/lw-sim/fakeapiserver"
	"github.com/lw-sim/lw-sim/internal/testdeadline"
)

// fakeTarget is the embedded fake with a fake clock and a client CA.
type fakeTarget struct {
	srv   *fakeapiserver.Server
	clock *testingclock.FakeClock
	ca    *clientCA
}

var (
	_ Target           = (*fakeTarget)(nil)
	_ Clock            = (*fakeTarget)(nil)
	_ ClientCertIssuer = (*fakeTarget)(nil)
)

// IssueClientCert implements [ClientCertIssuer].
func (f *fakeTarget) IssueClientCert(user string, groups ...string) ([]byte, []byte, error) {
	return f.ca.issue(user, groups, time.Time{})
}

func (f *fakeTarget) Name() string { return "fake" }

func (f *fakeTarget) RESTConfig() *rest.Config { return f.srv.RESTConfig() }

func (f *fakeTarget) Advance(d time.Duration) { f.clock.Step(d) }

// compactingFakeTarget is a fakeTarget whose server can compact.
type compactingFakeTarget struct {
	*fakeTarget
	compact func(ctx context.Context, rv int64) error
}

var (
	_ Compactor        = (*compactingFakeTarget)(nil)
	_ HistoryForgetter = (*compactingFakeTarget)(nil)
)

func (f *compactingFakeTarget) Compact(ctx context.Context, rv int64) error {
	return f.compact(ctx, rv)
}

// ForgetHistory compacts at the current RV: the fake's compaction drops
// its watch history too, which the real server does only on restart.
func (f *compactingFakeTarget) ForgetHistory(ctx context.Context) error {
	cfg := f.RESTConfig()
	hc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return err
	}
	c := &client{target: f, base: baseURL(cfg), http: hc}
	req, err := c.newHTTPRequest(ctx, request{Path: "/api/v1/configmaps", Query: q("limit", "1")})
	if err != nil {
		return err
	}
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	var l list
	if err := json.NewDecoder(resp.Body).Decode(&l); err != nil {
		return err
	}
	rv, err := strconv.ParseInt(l.Metadata.ResourceVersion, 10, 64)
	if err != nil {
		return err
	}
	return f.compact(ctx, rv)
}

// newFakeTarget starts a fake with a fake clock and, like the real target,
// TLS, a bearer token (so anonymous callers are treated as the real server
// treats them), a client CA and RBAC authorization; and, as lw-sim serve
// runs it, the guard against DNS rebinding (Config.AllowedHosts: IPs and
// localhost only), so a controller's in-process request to a host of its
// own making fails here as it does in lw-sim serve. It has the Compactor
// ability when the fake's Server has a Compact method.
func newFakeTarget(t *testing.T, controllers ...string) Target {
	clk := testingclock.NewFakeClock(time.Now())
	ca, err := newClientCA()
	if err != nil {
		t.Fatal(err)
	}
	srv := fakeapiserver.Start(t, fakeapiserver.WithClock(clk), fakeapiserver.WithTLS(), fakeapiserver.WithToken("conformance-"+randomSuffix()),
		fakeapiserver.WithAuthorization(fakeapiserver.AuthorizationRBAC),
		fakeapiserver.WithConfig(func(c *fakeapiserver.Config) {
			c.ClientCA = ca.pool()
			c.Controllers = controllers
			c.AllowedHosts = []string{}
		}))
	ft := &fakeTarget{srv: srv, clock: clk, ca: ca}
	var s any = srv
	switch c := s.(type) {
	case interface {
		Compact(context.Context, int64) error
	}:
		return &compactingFakeTarget{ft, c.Compact}
	case interface{ Compact(int64) error }:
		return &compactingFakeTarget{ft, func(_ context.Context, rv int64) error { return c.Compact(rv) }}
	}
	return ft
}

// targets returns the targets to run: LWSIM_KUBECONFIG selects a cluster
// (with compaction through LWSIM_CONTROL_URL when set); LWSIM_BOTH=1 runs
// the fake too and prints the comparison table.
// withControllers is target with controllers running for the calling
// case: a fresh fake server with them on, or the target running them until
// the case ends; a target that cannot run them skips the case.
func withControllers(ctx context.Context, t *testing.T, target Target, controllers []string) Target {
	t.Helper()
	switch tg := target.(type) {
	case *fakeTarget, *compactingFakeTarget:
		return newFakeTarget(t, controllers...)
	case ControllerRunner:
		if slices.Contains(controllers, namespaceController) {
			finalizeLeftovers(ctx, t, target)
		}
		stop, err := tg.RunControllers(ctx, controllers...)
		if err != nil {
			t.Fatalf("start %v on %s: %v", controllers, target.Name(), err)
		}
		t.Cleanup(stop)
		return target
	}
	t.Skipf("%s cannot run %v", target.Name(), controllers)
	return nil
}

// finalizeLeftovers finalizes the namespaces earlier cases deleted and left
// Terminating (a kube-apiserver alone never removes them), so that a
// namespace controller started for a case works on that case's namespace,
// not on a backlog of hundreds (on the real server, minutes of work).
func finalizeLeftovers(ctx context.Context, t *testing.T, target Target) {
	t.Helper()
	c := newClient(t, target)
	var nss list
	c.do(ctx, t, request{Path: "/api/v1/namespaces"}).decode(t, &nss)
	for _, ns := range nss.Items {
		name := nameOf(ns)
		if !strings.HasPrefix(name, "cf-") || metaOf(ns)["deletionTimestamp"] == nil {
			continue
		}
		c.do(ctx, t, request{Method: http.MethodPut, Path: "/api/v1/namespaces/" + name + "/finalize", Body: nsBody(name, []any{}, nil)})
	}
}

func targets(t *testing.T) []Target {
	kc := os.Getenv("LWSIM_KUBECONFIG")
	if kc == "" {
		return []Target{newFakeTarget(t)}
	}
	kt, err := NewKubeconfigTarget("real", kc)
	if err != nil {
		t.Fatal(err)
	}
	if ca := os.Getenv("LWSIM_CLIENT_CA"); ca != "" {
		if err := kt.UseClientCA(ca+".crt", ca+".key"); err != nil {
			t.Fatal(err)
		}
	}
	var real Target = kt
	if u := os.Getenv("LWSIM_CONTROL_URL"); u != "" {
		real = NewControlledTarget(kt, u)
	}
	if os.Getenv("LWSIM_BOTH") != "" {
		return []Target{real, newFakeTarget(t)}
	}
	return []Target{real}
}

// results records each case's outcome per target.
type results struct {
	mu  sync.Mutex
	res map[string]map[string]string // case → target → PASS/FAIL/SKIP
}

func (r *results) record(c, target, outcome string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.res[c] == nil {
		r.res[c] = map[string]string{}
	}
	r.res[c][target] = outcome
}

func TestConformance(t *testing.T) {
	ts := targets(t)
	res := &results{res: map[string]map[string]string{}}
	for _, target := range ts {
		t.Run(target.Name(), func(t *testing.T) { runAll(t, target, res) })
	}
	if len(ts) > 1 {
		table := formatTable(res, ts)
		fmt.Println(table)
		if f := os.Getenv("LWSIM_TABLE"); f != "" {
			if err := os.WriteFile(f, []byte(table), 0o644); err != nil {
				t.Error(err)
			}
		}
	}
}

// runAll runs the shared cases in parallel, then the exclusive ones one by
// one.
func runAll(t *testing.T, target Target, res *results) {
	run := func(t *testing.T, c Case, parallel bool) {
		t.Run(c.Name, func(t *testing.T) {
			if parallel {
				t.Parallel()
			}
			t.Cleanup(func() {
				outcome := "PASS"
				switch {
				case t.Failed():
					outcome = "FAIL"
				case t.Skipped():
					outcome = "SKIP"
				}
				res.record(c.Name, target.Name(), outcome)
			})
			if c.Slow && !slowCaseAllowed(target) {
				t.Skipf("slow case (minutes on %s): set %s=1 to run it", target.Name(), slowEnv)
			}
			// A case waits for what it needs (the slowest real cases for a
			// compaction the watch cache notices within its 15 s poll, a
			// Slow case for two compaction intervals); only a hang, one
			// that would outlast the test binary, ends its context
			// (testdeadline).
			ctx, cancel := testdeadline.Context(t)
			defer cancel()
			tg := target
			if len(c.Controllers) > 0 {
				tg = withControllers(ctx, t, target, c.Controllers)
			}
			c.Run(ctx, t, tg)
		})
	}
	_, hasClock := target.(Clock)
	exclusive := func(c Case) bool { return c.Exclusive || (c.Slow && hasClock) || len(c.Controllers) > 0 }
	t.Run("shared", func(t *testing.T) {
		for _, c := range Cases() {
			if !exclusive(c) {
				run(t, c, true)
			}
		}
	})
	t.Run("exclusive", func(t *testing.T) {
		for _, c := range Cases() {
			if exclusive(c) {
				run(t, c, false)
			}
		}
	})
}

// formatTable renders case × target outcomes as a Markdown table.
func formatTable(r *results, ts []Target) string {
	var b strings.Builder
	b.WriteString("| case |")
	for _, tg := range ts {
		b.WriteString(" " + tg.Name() + " |")
	}
	b.WriteString(" agree |\n|---|")
	for range ts {
		b.WriteString("---|")
	}
	b.WriteString("---|\n")
	names := make([]string, 0, len(r.res))
	for n := range r.res {
		names = append(names, n)
	}
	sort.Strings(names)
	disagree, skipped := 0, 0
	for _, n := range names {
		b.WriteString("| " + n + " |")
		first, agree, skip, failed := "", true, false, false
		for i, tg := range ts {
			o := r.res[n][tg.Name()]
			if o == "" {
				o = "-"
			}
			skip = skip || o == "SKIP"
			failed = failed || o == "FAIL"
			if i == 0 {
				first = o
			} else if o != first {
				agree = false
			}
			b.WriteString(" " + o + " |")
		}
		switch {
		case agree:
			b.WriteString(" yes |\n")
		case skip && !failed:
			// A case skips on a target that lacks what it needs, or on a
			// difference written down in DIVERGENCES.md; the skip says which.
			skipped++
			b.WriteString(" skipped (see reason) |\n")
		default:
			disagree++
			b.WriteString(" **no** |\n")
		}
	}
	fmt.Fprintf(&b, "\n%d cases, %d disagree, %d skipped on one target\n", len(names), disagree, skipped)
	return b.String()
}
