package fakeapiserver

import (
	"context"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"pgregory.net/rapid"

	"github.com/lw-sim/lw-sim/internal/testdeadline"
)

// watchModelEvent is one change as the model records it.
type watchModelEvent struct {
	Type watch.EventType
	Name string
	RV   string
}

// watchMachine drives one server with random writes, compactions and
// watches from random RVs, against a model: the list of every change. Each
// run labels its objects with its own id, and watches select that label, so
// runs can share a server.
type watchMachine struct {
	// hung ends only when a watch would outlast the test binary (hangGuard).
	hung  context.Context
	cs    kubernetes.Interface
	srv   *Server
	label string
	model []watchModelEvent
	live  map[string]bool
	start int64 // the RV before the run's first write
	n     int
}

func (m *watchMachine) name(t *rapid.T) string {
	return m.label + "-" + strconv.Itoa(rapid.IntRange(0, 4).Draw(t, "key"))
}

func (m *watchMachine) Create(t *rapid.T) {
	name := m.name(t)
	if m.live[name] {
		t.Skip("exists")
	}
	cm := configMap("default", name, "v", map[string]string{"run": m.label})
	got, err := m.cs.CoreV1().ConfigMaps("default").Create(context.Background(), cm, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("Create(%s): %v", name, err)
	}
	m.live[name] = true
	m.model = append(m.model, watchModelEvent{watch.Added, name, got.ResourceVersion})
}

func (m *watchMachine) Update(t *rapid.T) {
	name := m.name(t)
	if !m.live[name] {
		t.Skip("absent")
	}
	m.n++
	cm := configMap("default", name, strconv.Itoa(m.n), map[string]string{"run": m.label})
	got, err := m.cs.CoreV1().ConfigMaps("default").Update(context.Background(), cm, metav1.UpdateOptions{})
	if err != nil {
		t.Fatalf("Update(%s): %v", name, err)
	}
	m.model = append(m.model, watchModelEvent{watch.Modified, name, got.ResourceVersion})
}

func (m *watchMachine) Delete(t *rapid.T) {
	name := m.name(t)
	if !m.live[name] {
		t.Skip("absent")
	}
	if err := m.cs.CoreV1().ConfigMaps("default").Delete(context.Background(), name, metav1.DeleteOptions{}); err != nil {
		t.Fatalf("Delete(%s): %v", name, err)
	}
	delete(m.live, name)
	// The DELETED event carries the delete's RV: the store's current RV.
	m.model = append(m.model, watchModelEvent{watch.Deleted, name, formatRV(m.srv.store.CurrentRV())})
}

func (m *watchMachine) Compact(t *rapid.T) {
	if len(m.model) == 0 {
		t.Skip("nothing written")
	}
	i := rapid.IntRange(0, len(m.model)-1).Draw(t, "compactTo")
	rv, _ := strconv.ParseInt(m.model[i].RV, 10, 64)
	if err := m.srv.Compact(rv); err != nil {
		t.Fatalf("Compact(%d): %v", rv, err)
	}
}

// WatchFrom watches from the start RV or a random event's RV and checks the
// events against the model's changes after it, or the 410.
func (m *watchMachine) WatchFrom(t *rapid.T) {
	from := m.start
	if i := rapid.IntRange(-1, len(m.model)-1).Draw(t, "from"); i >= 0 {
		from, _ = strconv.ParseInt(m.model[i].RV, 10, 64)
	}
	ctx, cancel := context.WithCancel(m.hung)
	defer cancel()
	w, err := m.cs.CoreV1().ConfigMaps("default").Watch(ctx, metav1.ListOptions{
		ResourceVersion: formatRV(from), LabelSelector: "run=" + m.label,
	})
	if err != nil {
		t.Fatalf("Watch(rv=%d): %v", from, err)
	}
	defer w.Stop()
	if from < m.srv.CompactedRV() {
		ev := <-w.ResultChan()
		if ev.Type != watch.Error || !apierrors.IsResourceExpired(apierrors.FromObject(ev.Object)) {
			t.Fatalf("Watch(rv=%d) below compaction %d: got %s, want ERROR 410", from, m.srv.CompactedRV(), ev.Type)
		}
		return
	}
	var want []watchModelEvent
	for _, ev := range m.model {
		if rv, _ := strconv.ParseInt(ev.RV, 10, 64); rv > from {
			want = append(want, ev)
		}
	}
	got := make([]watchModelEvent, 0, len(want))
	for len(got) < len(want) {
		ev, ok := <-w.ResultChan()
		if !ok {
			t.Fatalf("Watch(rv=%d) closed after %v, want %v", from, got, want)
		}
		acc, err := meta.Accessor(ev.Object)
		if err != nil {
			t.Fatalf("Watch(rv=%d): %s event %T", from, ev.Type, ev.Object)
		}
		got = append(got, watchModelEvent{ev.Type, acc.GetName(), acc.GetResourceVersion()})
	}
	if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
		t.Fatalf("Watch(rv=%d) events mismatch (-model +got):\n%s", from, diff)
	}
	// And nothing after them (a short real-time look: the stream has
	// already delivered everything the model holds).
	select {
	case ev := <-w.ResultChan():
		t.Fatalf("Watch(rv=%d): extra event %s", from, ev.Type)
	case <-time.After(10 * time.Millisecond):
	}
}

func (m *watchMachine) Check(*rapid.T) {}

func TestWatchRapidAgainstModel(t *testing.T) {
	t.Parallel()
	srv := Start(t)
	cs := srv.Clientset()
	var runs atomic.Int64
	hung, stop := testdeadline.Context(t)
	defer stop()
	rapid.Check(t, func(t *rapid.T) {
		m := &watchMachine{
			hung: hung, cs: cs, srv: srv, live: map[string]bool{},
			label: "r" + strconv.FormatInt(runs.Add(1), 10),
			start: srv.store.CurrentRV(),
		}
		t.Repeat(rapid.StateMachineActions(m))
	})
}
