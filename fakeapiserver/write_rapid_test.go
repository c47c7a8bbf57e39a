package fakeapiserver

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/rest"
	"pgregory.net/rapid"
)

// writeRapidNames are the few keys the machine writes, so that collisions,
// conflicts and missing objects are frequent.
var writeRapidNames = []string{"a", "b", "c"}

// modelObject is what the model knows about one live configmap.
type modelObject struct {
	value string
	rv    int64
}

// writeMachine drives writes through the typed clientset (protobuf bodies)
// against a model: the expected HTTP outcome of each write, and a global
// RV that grows by exactly one per effective write and not at all for a
// no-op or rejected one.
type writeMachine struct {
	cms   typedcorev1.ConfigMapInterface
	srv   *Server
	rv    int64
	model map[string]modelObject
	// old holds, per name, a resourceVersion the object had before; it is
	// stale once the object has been written again.
	old map[string]string
}

func (m *writeMachine) drawName(t *rapid.T) string {
	return rapid.SampledFrom(writeRapidNames).Draw(t, "name")
}

func (m *writeMachine) drawValue(t *rapid.T) string {
	return rapid.SampledFrom([]string{"x", "y"}).Draw(t, "value")
}

// expectCode checks err against the wanted HTTP code (0 = success).
func expectCode(t *rapid.T, op string, err error, want int32) {
	var got int32
	if err != nil {
		got = statusCode(err)
	}
	if got != want {
		t.Fatalf("%s: code = %d (%v), want %d", op, got, err, want)
	}
}

// statusCode is the HTTP code of an API error, -1 for other errors.
func statusCode(err error) int32 {
	var s apierrors.APIStatus
	if errors.As(err, &s) {
		return s.Status().Code
	}
	return -1
}

// written records an effective write of name at the next RV.
func (m *writeMachine) written(t *rapid.T, op string, name string, gotRV string, value string) {
	m.rv++
	if gotRV != strconv.FormatInt(m.rv, 10) {
		t.Fatalf("%s(%s): rv = %s, want %d (exactly one more than the last write)", op, name, gotRV, m.rv)
	}
	if prev, ok := m.model[name]; ok {
		m.old[name] = strconv.FormatInt(prev.rv, 10)
	}
	m.model[name] = modelObject{value: value, rv: m.rv}
}

func (m *writeMachine) Create(t *rapid.T) {
	name, value := m.drawName(t), m.drawValue(t)
	got, err := m.cms.Create(context.Background(), newRapidCM(name, value), metav1.CreateOptions{})
	if _, exists := m.model[name]; exists {
		expectCode(t, "Create", err, 409)
		return
	}
	expectCode(t, "Create", err, 0)
	m.written(t, "Create", name, got.ResourceVersion, value)
}

func (m *writeMachine) Update(t *rapid.T) {
	name, value := m.drawName(t), m.drawValue(t)
	mode := rapid.SampledFrom([]string{"current", "stale", "unconditional"}).Draw(t, "rv mode")
	cur, exists := m.model[name]
	cm := newRapidCM(name, value)
	switch mode {
	case "current":
		cm.ResourceVersion = strconv.FormatInt(cur.rv, 10)
	case "stale":
		if m.old[name] == "" || !exists {
			t.Skip("no stale rv for " + name)
		}
		cm.ResourceVersion = m.old[name]
	}
	if !exists && mode == "current" {
		cm.ResourceVersion = ""
	}
	got, err := m.cms.Update(context.Background(), cm, metav1.UpdateOptions{})
	m.checkWrite(t, "Update/"+mode, name, value, got, err, exists, mode == "stale")
}

func (m *writeMachine) Patch(t *rapid.T) {
	name, value := m.drawName(t), m.drawValue(t)
	stale := rapid.Bool().Draw(t, "stale")
	cur, exists := m.model[name]
	rvField := ""
	switch {
	case stale && (m.old[name] == "" || !exists):
		t.Skip("no stale rv for " + name)
	case stale:
		rvField = fmt.Sprintf(`"resourceVersion":%q,`, m.old[name])
	case exists && rapid.Bool().Draw(t, "conditional"):
		rvField = fmt.Sprintf(`"resourceVersion":"%d",`, cur.rv)
	}
	patch := fmt.Sprintf(`{"metadata":{%s"labels":null},"data":{"k":%q}}`, rvField, value)
	got, err := m.cms.Patch(context.Background(), name, types.MergePatchType, []byte(patch), metav1.PatchOptions{})
	m.checkWrite(t, "Patch", name, value, got, err, exists, stale)
}

// checkWrite checks an update-like write: 404 when missing, 409 when the
// precondition is stale, no RV change for a no-op, else one RV more.
func (m *writeMachine) checkWrite(t *rapid.T, op, name, value string, got *corev1.ConfigMap, err error, exists, stale bool) {
	switch {
	case !exists:
		expectCode(t, op, err, 404)
	case stale:
		expectCode(t, op, err, 409)
	case m.model[name].value == value:
		expectCode(t, op, err, 0)
		if want := strconv.FormatInt(m.model[name].rv, 10); got.ResourceVersion != want {
			t.Fatalf("%s(%s) no-op: rv = %s, want unchanged %s", op, name, got.ResourceVersion, want)
		}
	default:
		expectCode(t, op, err, 0)
		m.written(t, op, name, got.ResourceVersion, value)
	}
}

func (m *writeMachine) Delete(t *rapid.T) {
	name := m.drawName(t)
	stale := rapid.Bool().Draw(t, "stale precondition")
	opts := metav1.DeleteOptions{}
	if stale {
		if m.old[name] == "" {
			t.Skip("no stale rv for " + name)
		}
		rv := m.old[name]
		opts.Preconditions = &metav1.Preconditions{ResourceVersion: &rv}
	}
	err := m.cms.Delete(context.Background(), name, opts)
	_, exists := m.model[name]
	switch {
	case !exists:
		expectCode(t, "Delete", err, 404)
	case stale:
		expectCode(t, "Delete", err, 409)
	default:
		expectCode(t, "Delete", err, 0)
		m.rv++
		m.old[name] = strconv.FormatInt(m.model[name].rv, 10)
		delete(m.model, name)
	}
}

// ConcurrentCreates creates fresh objects from several goroutines: all
// succeed and together take exactly the next n RVs.
func (m *writeMachine) ConcurrentCreates(t *rapid.T) {
	n := rapid.IntRange(2, 6).Draw(t, "n")
	rvs := make([]int64, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	base := len(m.model) + int(m.rv)
	for i := range n {
		wg.Go(func() {
			got, err := m.cms.Create(context.Background(), newRapidCM(fmt.Sprintf("z-%d-%d", base, i), "x"), metav1.CreateOptions{})
			errs[i] = err
			if err == nil {
				rvs[i], _ = strconv.ParseInt(got.ResourceVersion, 10, 64)
			}
		})
	}
	wg.Wait()
	sort.Slice(rvs, func(i, j int) bool { return rvs[i] < rvs[j] })
	for i := range n {
		if errs[i] != nil || rvs[i] != m.rv+int64(i)+1 {
			t.Fatalf("concurrent creates: rvs %v errs %v, want %d..%d", rvs, errs, m.rv+1, m.rv+int64(n))
		}
	}
	m.rv += int64(n)
	for i := range n {
		// Reading back is part of Check; these objects join the model.
		m.model[fmt.Sprintf("z-%d-%d", base, i)] = modelObject{value: "x", rv: -1}
	}
	list, err := m.cms.List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatalf("List: %v", err)
	}
	for _, cm := range list.Items {
		if mo, ok := m.model[cm.Name]; ok && mo.rv == -1 {
			mo.rv, _ = strconv.ParseInt(cm.ResourceVersion, 10, 64)
			m.model[cm.Name] = mo
		}
	}
}

// Check compares a LIST with the model, and the list RV with the model RV.
func (m *writeMachine) Check(t *rapid.T) {
	list, err := m.cms.List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatalf("List: %v", err)
	}
	got := map[string]modelObject{}
	for _, cm := range list.Items {
		rv, _ := strconv.ParseInt(cm.ResourceVersion, 10, 64)
		got[cm.Name] = modelObject{value: cm.Data["k"], rv: rv}
	}
	if diff := cmp.Diff(m.model, got, cmp.AllowUnexported(modelObject{})); diff != "" {
		t.Fatalf("List mismatch with model (-want +got):\n%s", diff)
	}
	if list.ResourceVersion != strconv.FormatInt(m.rv, 10) {
		t.Fatalf("List rv = %s, want %d", list.ResourceVersion, m.rv)
	}
}

func newRapidCM(name, value string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}, Data: map[string]string{"k": value}}
}

func TestWriteStateMachine(t *testing.T) {
	t.Parallel()
	// One server for every run: each run writes into a namespace of its
	// own, and runs are sequential, so each starts from the current RV.
	srv := Start(t)
	cfg := srv.RESTConfig()
	hc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		t.Fatalf("HTTPClientFor: %v", err)
	}
	// Close the client's idle connections before the server's Cleanup:
	// a connection dialled for a concurrent request but never used would
	// hold http.Server.Shutdown for its 5 s grace.
	t.Cleanup(hc.CloseIdleConnections)
	cs, err := kubernetes.NewForConfigAndClient(cfg, hc)
	if err != nil {
		t.Fatalf("NewForConfigAndClient: %v", err)
	}
	run := 0
	rapid.Check(t, func(rt *rapid.T) {
		run++
		ns := fmt.Sprintf("rapid-%d", run)
		if _, err := cs.CoreV1().Namespaces().Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
			rt.Fatalf("Create(namespace %s): %v", ns, err)
		}
		m := &writeMachine{
			cms: cs.CoreV1().ConfigMaps(ns), srv: srv, rv: srv.store.CurrentRV(),
			model: map[string]modelObject{}, old: map[string]string{},
		}
		rt.Repeat(rapid.StateMachineActions(m))
	})
}
