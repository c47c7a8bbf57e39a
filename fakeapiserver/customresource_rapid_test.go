package fakeapiserver

import (
	"context"
	"slices"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	"pgregory.net/rapid"

	"github.com/lw-sim/lw-sim/internal/testdeadline"
)

// crModelObject is what the model knows about one live Widget.
type crModelObject struct {
	Size, Replicas, Generation int64
	RV                         string
}

// crMachine drives custom resource writes (spec updates, status updates,
// status written through the main resource, deletes) through the dynamic
// client against a model, and checks paged LISTs and WATCHes from any
// earlier RV against it: generation moves only with the spec, the main
// resource never changes status, /status never changes spec.
type crMachine struct {
	// hung ends only when a watch would outlast the test binary (hangGuard).
	hung   context.Context
	dyn    dynamic.ResourceInterface
	label  string
	start  int64
	live   map[string]crModelObject
	events []watchModelEvent
}

func (m *crMachine) name(t *rapid.T) string {
	return m.label + "-" + rapid.SampledFrom([]string{"a", "b", "c"}).Draw(t, "name")
}

func (m *crMachine) record(typ watch.EventType, name, rv string) {
	m.events = append(m.events, watchModelEvent{typ, name, rv})
}

// observe checks a written object against the expected model state and
// records it.
func (m *crMachine) observe(t *rapid.T, op string, got *unstructured.Unstructured, want crModelObject) {
	size, _, _ := unstructured.NestedInt64(got.Object, "spec", "size")
	replicas, _, _ := unstructured.NestedInt64(got.Object, "status", "replicas")
	want.RV = got.GetResourceVersion()
	if diff := cmp.Diff(want, crModelObject{size, replicas, got.GetGeneration(), got.GetResourceVersion()}); diff != "" {
		t.Fatalf("%s %s (-model +got):\n%s", op, got.GetName(), diff)
	}
	m.live[got.GetName()] = want
}

func (m *crMachine) Create(t *rapid.T) {
	name := m.name(t)
	size := rapid.Int64Range(0, 10).Draw(t, "size")
	w := widget(name)
	w.SetLabels(map[string]string{"run": m.label})
	w.Object["spec"] = map[string]any{"size": size}
	got, err := m.dyn.Create(context.Background(), w, metav1.CreateOptions{})
	if _, exists := m.live[name]; exists {
		if !apierrors.IsAlreadyExists(err) {
			t.Fatalf("create existing %s = %v, want 409", name, err)
		}
		return
	}
	if err != nil {
		t.Fatalf("create %s: %v", name, err)
	}
	m.observe(t, "create", got, crModelObject{Size: size, Generation: 1})
	m.record(watch.Added, name, got.GetResourceVersion())
}

// Update changes the spec or, through the main resource, the status (which
// it must ignore: a no-op, no new RV).
func (m *crMachine) Update(t *rapid.T) {
	name := m.name(t)
	cur, ok := m.live[name]
	if !ok {
		t.Skip("no such object")
	}
	obj, err := m.dyn.Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get %s: %v", name, err)
	}
	want := cur
	if rapid.Bool().Draw(t, "spec") {
		want.Size = (cur.Size + 1) % 11
		want.Generation++
		_ = unstructured.SetNestedField(obj.Object, want.Size, "spec", "size")
	} else {
		_ = unstructured.SetNestedField(obj.Object, cur.Replicas+1, "status", "replicas")
	}
	got, err := m.dyn.Update(context.Background(), obj, metav1.UpdateOptions{})
	if err != nil {
		t.Fatalf("update %s: %v", name, err)
	}
	m.observe(t, "update", got, want)
	if got.GetResourceVersion() != cur.RV {
		m.record(watch.Modified, name, got.GetResourceVersion())
	}
}

// UpdateStatus changes the status and tries to change the spec too, which
// /status ignores.
func (m *crMachine) UpdateStatus(t *rapid.T) {
	name := m.name(t)
	cur, ok := m.live[name]
	if !ok {
		t.Skip("no such object")
	}
	obj, err := m.dyn.Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get %s: %v", name, err)
	}
	want := cur
	want.Replicas = cur.Replicas + 1
	_ = unstructured.SetNestedField(obj.Object, want.Replicas, "status", "replicas")
	_ = unstructured.SetNestedField(obj.Object, (cur.Size+5)%11, "spec", "size")
	got, err := m.dyn.UpdateStatus(context.Background(), obj, metav1.UpdateOptions{})
	if err != nil {
		t.Fatalf("update status %s: %v", name, err)
	}
	m.observe(t, "update status", got, want)
	m.record(watch.Modified, name, got.GetResourceVersion())
}

func (m *crMachine) Delete(t *rapid.T) {
	name := m.name(t)
	err := m.dyn.Delete(context.Background(), name, metav1.DeleteOptions{})
	if _, ok := m.live[name]; !ok {
		if !apierrors.IsNotFound(err) {
			t.Fatalf("delete missing %s = %v, want 404", name, err)
		}
		return
	}
	if err != nil {
		t.Fatalf("delete %s: %v", name, err)
	}
	delete(m.live, name)
	// The DELETED event's RV is the delete's, which the Status answer does
	// not carry: the watch check takes it from the stream.
	m.record(watch.Deleted, name, "")
}

// List reads the run's objects in pages of a random size and compares
// them with the model.
func (m *crMachine) List(t *rapid.T) {
	limit := rapid.Int64Range(1, 4).Draw(t, "limit")
	opts := metav1.ListOptions{LabelSelector: "run=" + m.label, Limit: limit}
	got := map[string]crModelObject{}
	var rv string
	for {
		l, err := m.dyn.List(context.Background(), opts)
		if err != nil {
			t.Fatalf("list %+v: %v", opts, err)
		}
		if rv != "" && l.GetResourceVersion() != rv {
			t.Fatalf("page RV %s after %s", l.GetResourceVersion(), rv)
		}
		rv = l.GetResourceVersion()
		for _, it := range l.Items {
			size, _, _ := unstructured.NestedInt64(it.Object, "spec", "size")
			replicas, _, _ := unstructured.NestedInt64(it.Object, "status", "replicas")
			got[it.GetName()] = crModelObject{size, replicas, it.GetGeneration(), it.GetResourceVersion()}
		}
		if opts.Continue = l.GetContinue(); opts.Continue == "" {
			break
		}
	}
	if diff := cmp.Diff(m.live, got, cmpopts.EquateEmpty()); diff != "" {
		t.Fatalf("paged list (-model +got):\n%s", diff)
	}
}

// WatchFrom watches from the run's start or a recorded event and compares
// the events with the model's (a DELETED's RV is not known to the model).
func (m *crMachine) WatchFrom(t *rapid.T) {
	from := strconv.FormatInt(m.start, 10)
	idx := rapid.IntRange(-1, len(m.events)-1).Draw(t, "from")
	if idx >= 0 && m.events[idx].RV != "" {
		from = m.events[idx].RV
	} else {
		idx = -1
	}
	ctx, cancel := context.WithCancel(m.hung)
	defer cancel()
	w, err := m.dyn.Watch(ctx, metav1.ListOptions{ResourceVersion: from, LabelSelector: "run=" + m.label})
	if err != nil {
		t.Fatalf("watch from %s: %v", from, err)
	}
	defer w.Stop()
	want := slices.Clone(m.events[idx+1:])
	got := make([]watchModelEvent, 0, len(want))
	for len(got) < len(want) {
		ev, ok := <-w.ResultChan()
		if !ok {
			t.Fatalf("watch from %s closed after %v, want %v", from, got, want)
		}
		u, ok := ev.Object.(*unstructured.Unstructured)
		if !ok {
			t.Fatalf("watch from %s: %s %T", from, ev.Type, ev.Object)
		}
		rv := u.GetResourceVersion()
		if want[len(got)].RV == "" {
			rv = ""
		}
		got = append(got, watchModelEvent{ev.Type, u.GetName(), rv})
	}
	if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
		t.Fatalf("watch from %s (-model +got):\n%s", from, diff)
	}
}

func (m *crMachine) Check(*rapid.T) {}

func TestCustomResourceRapidAgainstModel(t *testing.T) {
	t.Parallel()
	srv := Start(t)
	installCRD(t, srv, testWidgetCRD())
	dyn := dynamic.NewForConfigOrDie(srv.RESTConfig()).Resource(widgetGVR).Namespace("default")
	var runs atomic.Int64
	hung, stop := testdeadline.Context(t)
	defer stop()
	rapid.Check(t, func(t *rapid.T) {
		m := &crMachine{
			hung: hung, dyn: dyn, label: "r" + strconv.FormatInt(runs.Add(1), 10),
			start: srv.store.CurrentRV(), live: map[string]crModelObject{},
		}
		t.Repeat(rapid.StateMachineActions(m))
	})
}
