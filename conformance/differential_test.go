package conformance

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/lw-sim/lw-sim/internal/testdeadline"
)

// Differential fuzzing: the same random operation sequences against two
// targets, normalised answers compared. Absolute RVs are replaced by the
// index of the write that produced them in the sequence ("w3"), so both
// servers' answers compare equal when they agree on the relative history.
//
// It runs only when two targets are configured (LWSIM_KUBECONFIG and
// LWSIM_BOTH, i.e. make conformance-real). LWSIM_DIFF_SEQS (default 20) and
// LWSIM_DIFF_OPS (default 25) size it; LWSIM_DIFF_SEED fixes the seed.

// op is one abstract operation; targets map it to their own RVs.
type op struct {
	Kind  string // create update delete get list watch
	Name  string
	Data  string
	Limit int64
	// At is the write index an RV-taking op refers to (-1: none).
	At    int
	Match string // "", Exact, NotOlderThan (list)
	RV0   bool   // list with resourceVersion=0
}

// genOps draws a sequence of n ops.
func genOps(r *rand.Rand, n int) []op {
	names := []string{"a", "b", "c", "d", "e"}
	var ops []op
	writes := 0
	for len(ops) < n {
		o := op{Name: names[r.IntN(len(names))], At: -1}
		switch k := r.IntN(10); {
		case k < 3:
			o.Kind = "create"
		case k < 5:
			o.Kind, o.Data = "update", fmt.Sprintf("v%c", 'a'+r.IntN(26))
		case k < 6:
			o.Kind = "delete"
		case k < 7:
			o.Kind = "get"
		case k < 9:
			o.Kind, o.Limit = "list", int64(r.IntN(4))
			switch m := r.IntN(4); {
			case m == 0 && writes > 0:
				o.At, o.Match = r.IntN(writes), "Exact"
			case m == 1 && writes > 0:
				o.At = r.IntN(writes) // legacy: exact iff limit > 0
			case m == 2:
				o.RV0 = true
			}
		default:
			if writes == 0 {
				continue
			}
			o.Kind, o.At = "watch", r.IntN(writes)
		}
		if o.Kind == "create" || o.Kind == "update" || o.Kind == "delete" {
			writes++ // an upper bound: failed writes leave gaps, see runOps
		}
		ops = append(ops, o)
	}
	return ops
}

// outcome is a target's normalised answer to one op.
type outcome struct {
	Code    int
	Reason  string
	Message string
	Items   []string // name=data@w<i>
	Events  []string // TYPE name=data@w<i>
	ListRV  string   // for exact reads only
	More    bool
	Remain  *int64
}

// runOps runs ops on target in a fresh namespace.
func runOps(ctx context.Context, t *testing.T, target Target, ops []op) []outcome {
	e := setup(ctx, t, target)
	var writeRVs []int64 // RVs of successful writes, in order
	norm := func(rv int64) string {
		for i, w := range writeRVs {
			if w == rv {
				return "w" + strconv.Itoa(i)
			}
		}
		return "other"
	}
	rvAt := func(i int) int64 {
		if i < len(writeRVs) {
			return writeRVs[i]
		}
		return writeRVs[len(writeRVs)-1]
	}
	item := func(o object) string {
		d, _ := o["data"].(map[string]any)
		return fmt.Sprintf("%s=%v@%s", nameOf(o), d["k"], norm(rvOf(t, o)))
	}
	var outs []outcome
	for _, o := range ops {
		var out outcome
		var r response
		switch o.Kind {
		case "create", "update":
			method, path := http.MethodPost, e.cms()
			if o.Kind == "update" {
				method, path = http.MethodPut, e.cms()+"/"+o.Name
			}
			data := o.Data
			if data == "" {
				data = "v"
			}
			r = e.c.do(ctx, t, request{Method: method, Path: path, Body: cm(o.Name, nil, data)})
			if r.Code < 300 {
				var obj object
				r.decode(t, &obj)
				if rv := rvOf(t, obj); len(writeRVs) == 0 || rv > writeRVs[len(writeRVs)-1] {
					writeRVs = append(writeRVs, rv)
				}
				out.Items = []string{item(obj)}
			}
		case "delete":
			r = e.c.do(ctx, t, request{Method: http.MethodDelete, Path: e.cms() + "/" + o.Name})
			if r.Code < 300 {
				// The deletion RV is only visible in events; record the
				// namespace's list RV so later indexes stay aligned.
				writeRVs = append(writeRVs, -int64(len(writeRVs))-1)
			}
		case "get":
			r = e.c.do(ctx, t, request{Path: e.cms() + "/" + o.Name})
			if r.Code == http.StatusOK {
				var obj object
				r.decode(t, &obj)
				out.Items = []string{item(obj)}
			}
		case "list":
			if o.RV0 || (o.At >= 0 && o.Match == "" && o.Limit == 0) {
				e.catchUpCache(ctx) // served from the watch cache
			}
			qs := q()
			if o.Limit > 0 {
				qs.Set("limit", itoa(o.Limit))
			}
			exact := false
			switch {
			case o.RV0:
				qs.Set("resourceVersion", "0")
			case o.At >= 0 && len(writeRVs) > 0 && rvAt(o.At) > 0:
				qs.Set("resourceVersion", itoa(rvAt(o.At)))
				if o.Match != "" {
					qs.Set("resourceVersionMatch", o.Match)
				}
				exact = o.Match == "Exact" || o.Limit > 0
			}
			r = e.c.do(ctx, t, request{Path: e.cms(), Query: qs})
			if r.Code == http.StatusOK {
				var l list
				r.decode(t, &l)
				for _, it := range l.Items {
					out.Items = append(out.Items, item(it))
				}
				out.More, out.Remain = l.Metadata.Continue != "", l.Metadata.RemainingItemCount
				if exact {
					out.ListRV = norm(l.rv(t))
				}
			}
		case "watch":
			if len(writeRVs) == 0 || rvAt(o.At) <= 0 {
				outs = append(outs, outcome{Code: -1}) // not applicable on this history
				continue
			}
			at := rvAt(o.At)
			e.catchUpCache(ctx)
			w := e.c.watch(ctx, t, request{Path: e.cms(), Query: q("resourceVersion", itoa(at), "timeoutSeconds", "1")})
			evs, _ := w.collect(ctx, 4*time.Second)
			for _, ev := range evs {
				if ev.Type == "ERROR" || ev.Type == "BOOKMARK" {
					out.Events = append(out.Events, ev.Type)
					continue
				}
				out.Events = append(out.Events, ev.Type+" "+item(ev.Object))
			}
			r.Code = http.StatusOK
		}
		out.Code = r.Code
		if r.Code >= 300 {
			var st metav1.Status
			r.decode(t, &st)
			out.Reason, out.Message = string(st.Reason), maskRVs(st.Message)
		}
		outs = append(outs, out)
	}
	return outs
}

func TestDifferential(t *testing.T) {
	if os.Getenv("LWSIM_KUBECONFIG") == "" || os.Getenv("LWSIM_BOTH") == "" {
		t.Skip("needs two targets: set LWSIM_KUBECONFIG and LWSIM_BOTH (make conformance-real)")
	}
	ts := targets(t)
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("LWSIM_DIFF_SEED"); s != "" {
		seed, _ = strconv.ParseUint(s, 10, 64)
	}
	seqs, nops := envInt("LWSIM_DIFF_SEQS", 20), envInt("LWSIM_DIFF_OPS", 25)
	t.Logf("seed %d (LWSIM_DIFF_SEED), %d sequences of %d ops", seed, seqs, nops)
	r := rand.New(rand.NewPCG(seed, seed))
	for i := 0; i < seqs; i++ {
		ops := genOps(r, nops)
		t.Run(fmt.Sprintf("seq%d", i), func(t *testing.T) {
			ctx, cancel := testdeadline.Context(t)
			defer cancel()
			want := runOps(ctx, t, ts[0], ops)
			got := runOps(ctx, t, ts[1], ops)
			if diff := cmp.Diff(want, got, cmpEmpty); diff != "" {
				t.Errorf("ops %+v\n%s (-) vs %s (+):\n%s", ops, ts[0].Name(), ts[1].Name(), diff)
			}
		})
	}
}

func envInt(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n > 0 {
		return n
	}
	return def
}
