package fakeapiserver

import (
	"context"
	"net"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"pgregory.net/rapid"

	"github.com/lw-sim/lw-sim/internal/kubewire"
)

// The rapid test drives one fake server per check with random ConfigMap
// writes, compactions and paged LISTs (random scope, limit, RV mode and
// selector, with writes and compactions between pages), and compares every
// LIST answer — items, list RV, continue token, remainingItemCount, error
// code, reason and message — with a reference model: the log of every
// write, replayed up to the RV a read is at.
//
// RVs ahead of the server are not drawn: their 3 s wait has its own
// fake-clock test (TestListTooLargeResourceVersion).

var (
	listRapidNamespaces = []string{"n1", "n2"}
	listRapidNames      = []string{"a", "b", "c", "d", "e"}
)

// modelEvent is one write: the key's state after it, nil if deleted.
type modelEvent struct {
	rv  int64
	key string // "<ns>/<name>"
	obj *cmView
}

// listModel is the reference: the write log and the compaction point.
type listModel struct {
	log       []modelEvent
	current   int64
	compacted int64
}

// stateAt replays the log up to rv.
func (m *listModel) stateAt(rv int64) map[string]cmView {
	st := map[string]cmView{}
	for _, ev := range m.log {
		if ev.rv > rv {
			break
		}
		if ev.obj == nil {
			delete(st, ev.key)
		} else {
			st[ev.key] = *ev.obj
		}
	}
	return st
}

// modelRead is one page read as the server should do it.
type modelRead struct {
	prefix   string // "" or "<ns>/"
	rv       int64  // read RV
	start    string // first key to consider
	limit    int64
	evenOnly bool // labelSelector p=even
	// name, when set, is fieldSelector metadata.name=<name>.
	name string
}

// setSelectors sets r's selectors in q. Each one is read through one of
// the store's indexes (list_index.go) or a narrower scan, which the model
// knows nothing of: the answers must be those of a walk of every key.
func (r modelRead) setSelectors(q url.Values) {
	if r.evenOnly {
		q.Set("labelSelector", "p=even")
	}
	if r.name != "" {
		q.Set("fieldSelector", "metadata.name="+r.name)
	}
}

// wantPage is what the model expects of one LIST answer.
type wantPage struct {
	code      int
	reason    metav1.StatusReason
	message   string
	items     []cmView
	rv        string
	cont      string
	remaining *int64
}

// page computes a 200 answer of r from the model, as cacher.go GetList and
// storage.PrepareContinueToken build it.
func (m *listModel) page(r modelRead) wantPage {
	st := m.stateAt(r.rv)
	var keys []string
	for k := range st {
		if strings.HasPrefix(k, r.prefix) && k >= r.start {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	w := wantPage{code: http.StatusOK, rv: strconv.FormatInt(r.rv, 10), items: []cmView{}}
	for i, k := range keys {
		v := st[k]
		if (r.evenOnly && !isEvenView(v)) || (r.name != "" && v.Name != r.name) {
			continue
		}
		w.items = append(w.items, v)
		if r.limit > 0 && int64(len(w.items)) == r.limit {
			if after := int64(len(keys) - i - 1); after > 0 {
				w.cont = kubewire.EncodeContinue(k, r.prefix, r.rv, true)
				if !r.evenOnly && r.name == "" {
					w.remaining = &after
				}
			}
			break
		}
	}
	return w
}

func isEvenView(v cmView) bool {
	n, _ := strconv.Atoi(v.V)
	return n%2 == 0
}

// listRapidServer starts a server for one rapid check; stop closes it and waits
// for its serving goroutine.
func listRapidServer(t *rapid.T) (*Server, func()) {
	// Decoding every read (store_codec.go) must change no answer.
	srv, err := New(Config{decodeEveryRead: rapid.Bool().Draw(t, "decodeEveryRead")})
	if err != nil {
		t.Fatalf("New = %v", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listen = %v", err)
	}
	done := srv.ServeBackground(ln)
	return srv, func() {
		if err := srv.Close(); err != nil {
			t.Errorf("Close = %v", err)
		}
		if err := <-done; err != nil {
			t.Errorf("Serve = %v", err)
		}
	}
}

// listMachine is the rapid state machine.
type listMachine struct {
	ctx   context.Context
	srv   *Server
	cs    kubernetes.Interface
	c     *listClient
	model listModel
	next  int // next data value, so no write is a no-op
}

func newListMachine(t *rapid.T, tt *testing.T) (*listMachine, func()) {
	srv, stop := listRapidServer(t)
	cs := srv.Clientset()
	for _, ns := range listRapidNamespaces {
		if _, err := cs.CoreV1().Namespaces().Create(tt.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
			stop()
			t.Fatalf("create namespace %s = %v", ns, err)
		}
	}
	c := newListClient(tt, srv)
	m := &listMachine{ctx: tt.Context(), srv: srv, cs: cs, c: c}
	m.model.current = srv.store.CurrentRV()
	return m, func() { stop(); c.http.CloseIdleConnections() }
}

// write does one random create, update or delete and records it.
func (m *listMachine) write(t *rapid.T) {
	ns := rapid.SampledFrom(listRapidNamespaces).Draw(t, "ns")
	name := rapid.SampledFrom(listRapidNames).Draw(t, "name")
	key := ns + "/" + name
	_, exists := m.model.stateAt(m.model.current)[key]
	ctx := m.ctx
	client := m.cs.CoreV1().ConfigMaps(ns)
	m.next++
	cm := newCM(ns, name, m.next, map[string]string{"p": parity(m.next)})
	var err error
	switch op := rapid.SampledFrom([]string{"create", "update", "delete"}).Draw(t, "op"); {
	case op == "create" && !exists, op == "update" && exists:
		if op == "create" {
			_, err = client.Create(ctx, cm, metav1.CreateOptions{})
		} else {
			_, err = client.Update(ctx, cm, metav1.UpdateOptions{})
		}
		if err != nil {
			t.Fatalf("%s %s = %v", op, key, err)
		}
		m.record(t, key, &cmView{Namespace: ns, Name: name, V: strconv.Itoa(m.next)})
	case op == "delete" && exists:
		if err := client.Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
			t.Fatalf("delete %s = %v", key, err)
		}
		m.record(t, key, nil)
	case op == "create":
		if _, err := client.Create(ctx, cm, metav1.CreateOptions{}); !apierrors.IsAlreadyExists(err) {
			t.Fatalf("create of existing %s = %v, want AlreadyExists", key, err)
		}
	case op == "update":
		if _, err := client.Update(ctx, cm, metav1.UpdateOptions{}); !apierrors.IsNotFound(err) {
			t.Fatalf("update of missing %s = %v, want NotFound", key, err)
		}
	default:
		if err := client.Delete(ctx, name, metav1.DeleteOptions{}); !apierrors.IsNotFound(err) {
			t.Fatalf("delete of missing %s = %v, want NotFound", key, err)
		}
	}
}

func parity(n int) string {
	if n%2 == 0 {
		return "even"
	}
	return "odd"
}

// record appends a successful write, which must have taken the next RV.
func (m *listMachine) record(t *rapid.T, key string, obj *cmView) {
	rv := m.srv.store.CurrentRV()
	if rv != m.model.current+1 {
		t.Fatalf("write of %s took rv %d, want %d", key, rv, m.model.current+1)
	}
	m.model.current = rv
	if obj != nil {
		obj.RV = strconv.FormatInt(rv, 10)
	}
	m.model.log = append(m.model.log, modelEvent{rv: rv, key: key, obj: obj})
}

// compact compacts to a random RV at or above the current point.
func (m *listMachine) compact(t *rapid.T) {
	rv := rapid.Int64Range(m.model.compacted, m.model.current).Draw(t, "compactTo")
	if err := m.srv.Compact(rv); err != nil {
		t.Fatalf("Compact(%d) = %v", rv, err)
	}
	m.model.compacted = max(m.model.compacted, rv)
	if got := m.srv.CompactedRV(); got != m.model.compacted {
		t.Fatalf("CompactedRV() = %d, want %d", got, m.model.compacted)
	}
}

// Write is a rapid action: one write.
func (m *listMachine) Write(t *rapid.T) { m.write(t) }

// Compact is a rapid action: one compaction.
func (m *listMachine) Compact(t *rapid.T) { m.compact(t) }

// List is a rapid action: a paged LIST from a random first request to the
// last page (or an error), with random writes and compactions between
// pages, each answer checked against the model.
func (m *listMachine) List(t *rapid.T) {
	ns := rapid.SampledFrom(append([]string{""}, listRapidNamespaces...)).Draw(t, "scope")
	r := modelRead{prefix: scopePrefix(ns), evenOnly: rapid.Bool().Draw(t, "evenOnly")}
	if rapid.Bool().Draw(t, "byName") {
		r.name = rapid.SampledFrom(listRapidNames).Draw(t, "name")
	}
	q := url.Values{}
	r.setSelectors(q)
	r.limit = rapid.Int64Range(-1, 4).Draw(t, "limit")
	if r.limit != 0 {
		q.Set("limit", strconv.FormatInt(r.limit, 10))
	}
	want := m.firstPage(t, q, &r)
	path := listPath(ns, q)
	for pageNo := 0; ; pageNo++ {
		got := m.get(t, path)
		m.check(t, path, got, want)
		if got.code != http.StatusOK && got.status.Continue == "" {
			return
		}
		cont := got.list.Continue
		if got.code == http.StatusOK && r.rv < 0 {
			// A page read through the 410's rv -1 token was read at the
			// latest RV, and its own token pins the pages after it there.
			r.rv, _ = strconv.ParseInt(want.rv, 10, 64)
		}
		if got.code != http.StatusOK {
			// The inconsistent-continue 410: its token continues at the latest RV.
			cont = got.status.Continue
			r.rv = -1
		}
		if cont == "" || rapid.Bool().Draw(t, "abandon") {
			return
		}
		for range rapid.IntRange(0, 2).Draw(t, "writesBetweenPages") {
			m.write(t)
		}
		if rapid.IntRange(0, 4).Draw(t, "compactBetweenPages") == 0 {
			m.compact(t)
		}
		last := m.lastKey(got, r.prefix)
		q = url.Values{"continue": {cont}}
		r.setSelectors(q)
		if r.limit != 0 {
			q.Set("limit", strconv.FormatInt(r.limit, 10))
		}
		if rapid.Bool().Draw(t, "rv0WithContinue") {
			// Accepted beside a token; it drops the limit (computeListLimit).
			q.Set("resourceVersion", "0")
		}
		path = listPath(ns, q)
		want = m.nextPage(r, last, q.Get("resourceVersion") == "0")
	}
}

// get is listClient.get for a rapid.T.
func (m *listMachine) get(t *rapid.T, path string) rawList {
	got := m.c.do(path)
	if got.err != nil {
		t.Fatal(got.err)
	}
	return got
}

// lastKey is the key after which a continue token of got resumes.
func (m *listMachine) lastKey(got rawList, prefix string) string {
	if got.code != http.StatusOK {
		// The 410's token starts from the expired token's start key
		// (relative to the prefix, with no leading slash).
		start, _, err := kubewire.DecodeContinue(got.status.Continue, prefix)
		if err != nil {
			panic(err)
		}
		return strings.TrimSuffix(start, "\x00")
	}
	last := got.list.Items[len(got.list.Items)-1]
	return last.Namespace + "/" + last.Name
}

// firstPage draws the RV mode of the first request, sets it in q and
// returns the model's answer; it fixes r.rv, r.limit for the pages after.
func (m *listMachine) firstPage(t *rapid.T, q url.Values, r *modelRead) wantPage {
	mode := rapid.SampledFrom([]string{"unset", "0", "NotOlderThan", "Exact", "legacy"}).Draw(t, "rvMode")
	n := rapid.Int64Range(1, m.model.current).Draw(t, "rv")
	switch mode {
	case "unset":
		r.rv = m.model.current
		return m.model.page(*r)
	case "0":
		q.Set("resourceVersion", "0")
		r.rv, r.limit = m.model.current, 0
		return m.model.page(*r)
	case "NotOlderThan":
		q.Set("resourceVersion", strconv.FormatInt(n, 10))
		q.Set("resourceVersionMatch", "NotOlderThan")
		r.rv = m.model.current
		return m.model.page(*r)
	case "Exact":
		q.Set("resourceVersionMatch", "Exact")
	}
	q.Set("resourceVersion", strconv.FormatInt(n, 10))
	exact := mode == "Exact" || r.limit > 0
	if !exact {
		r.rv = m.model.current
		return m.model.page(*r)
	}
	if n < m.model.compacted {
		return wantPage{code: http.StatusGone, reason: metav1.StatusReasonExpired, message: listTooOldMessage}
	}
	r.rv = n
	return m.model.page(*r)
}

// nextPage is the model's answer to a continue request after key last of
// a list read at r.rv (-1: the 410's token, which reads the latest state).
func (m *listMachine) nextPage(r modelRead, last string, rv0 bool) wantPage {
	r.start = last + "\x00"
	if rv0 {
		r.limit = 0
	}
	if r.rv < 0 {
		r.rv = m.model.current
		return m.model.page(r)
	}
	if r.rv < m.model.compacted {
		return wantPage{
			code: http.StatusGone, reason: metav1.StatusReasonExpired, message: inconsistentContinue,
			cont: kubewire.EncodeContinue(last, r.prefix, -1, false),
		}
	}
	return m.model.page(r)
}

// check compares one answer with the model's.
func (m *listMachine) check(t *rapid.T, path string, got rawList, want wantPage) {
	if got.code != want.code {
		t.Fatalf("LIST %s = %d %s, want %d", path, got.code, got.body, want.code)
	}
	if got.code != http.StatusOK {
		gotErr := wantPage{code: got.code, reason: got.status.Reason, message: got.status.Message, cont: got.status.Continue}
		if diff := cmp.Diff(want, gotErr, cmp.AllowUnexported(wantPage{}), cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("LIST %s error mismatch (-want +got):\n%s", path, diff)
		}
		return
	}
	gotPage := wantPage{
		code: got.code, items: viewCMs(got.list.Items), rv: got.list.ResourceVersion,
		cont: got.list.Continue, remaining: got.list.RemainingItemCount,
	}
	if diff := cmp.Diff(want, gotPage, cmp.AllowUnexported(wantPage{}), cmpopts.EquateEmpty()); diff != "" {
		t.Fatalf("LIST %s mismatch (-want +got):\n%s", path, diff)
	}
	if h := got.header.Get(compactedRevisionHeader); h != strconv.FormatInt(m.model.compacted, 10) {
		t.Fatalf("LIST %s %s = %q, want %d", path, compactedRevisionHeader, h, m.model.compacted)
	}
}

// Check is rapid's invariant: an Exact LIST of everything at every
// retained RV equals the model's replay (a few RVs per step, to stay fast).
func (m *listMachine) Check(t *rapid.T) {
	rvs := []int64{m.model.current}
	if m.model.compacted > 0 {
		rvs = append(rvs, m.model.compacted)
	}
	for _, rv := range slices.Compact(rvs) {
		path := listPath("", query("resourceVersion", strconv.FormatInt(rv, 10), "resourceVersionMatch", "Exact"))
		m.check(t, path, m.get(t, path), m.model.page(modelRead{rv: rv}))
	}
}

// TestListMatchesModel is the property test of issue 3.
func TestListMatchesModel(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		m, stop := newListMachine(rt, t)
		defer stop()
		rt.Repeat(map[string]func(*rapid.T){
			"Write":   m.Write,
			"Compact": m.Compact,
			"List":    m.List,
			"":        m.Check,
		})
	})
}
