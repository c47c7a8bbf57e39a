package fakeapiserver

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"net/http"
	"slices"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"pgregory.net/rapid"
)

// applyKeys and applyValues are the data keys and values the apply model
// draws from: few, so managers collide often.
var (
	applyKeys     = []string{"a", "b", "c", "d"}
	applyValues   = []string{"x", "y"}
	applyManagers = []string{"alice", "bob"}
)

// applyMachine applies random data maps to one ConfigMap from two managers
// and checks the object's data and each manager's owned keys against a
// model of server-side apply over a granular map of scalars:
//   - a key is in conflict when another manager owns it with a different
//     value than the one applied; any conflict fails the apply (409) unless
//     forced, and forcing takes the key from the other owners;
//   - applying the value a key already has makes the applier a co-owner;
//   - the applier owns exactly the keys of its latest configuration; a key
//     it stops applying is removed unless another manager still owns it.
type applyMachine struct {
	cms    typedcorev1.ConfigMapInterface
	exists bool
	data   map[string]string
	owners map[string]map[string]bool // manager -> owned keys
}

func (m *applyMachine) Apply(t *rapid.T) {
	manager := rapid.SampledFrom(applyManagers).Draw(t, "manager")
	force := rapid.Bool().Draw(t, "force")
	cfg := map[string]string{}
	for _, k := range applyKeys {
		if rapid.Bool().Draw(t, "has "+k) {
			cfg[k] = rapid.SampledFrom(applyValues).Draw(t, "value of "+k)
		}
	}
	ac := corev1ac.ConfigMap("subject", "default")
	if len(cfg) > 0 {
		ac.WithData(cfg)
	}
	_, err := m.cms.Apply(context.Background(), ac, metav1.ApplyOptions{FieldManager: manager, Force: force})

	conflicts := m.conflicts(manager, cfg)
	if len(conflicts) > 0 && !force {
		var se apierrors.APIStatus
		if !errors.As(err, &se) {
			t.Fatalf("apply by %s of %v: want 409 with conflicts %v, got %v", manager, cfg, conflicts, err)
		}
		st := se.Status()
		var fields []string
		if st.Details != nil {
			for _, c := range st.Details.Causes {
				fields = append(fields, c.Field)
			}
		}
		sort.Strings(fields)
		var want []string
		for _, k := range conflicts {
			want = append(want, ".data."+k)
		}
		if st.Code != http.StatusConflict || !slices.Equal(fields, want) {
			t.Fatalf("apply by %s of %v: want 409 with conflicts %v, got %d %v (%s)", manager, cfg, want, st.Code, fields, st.Message)
		}
		return
	}
	if err != nil {
		t.Fatalf("apply by %s of %v (force %v): %v", manager, cfg, force, err)
	}
	m.exists = true
	for _, k := range conflicts {
		for _, owned := range m.owners {
			delete(owned, k)
		}
	}
	for k := range m.owners[manager] {
		if _, still := cfg[k]; !still && !m.ownedByOther(manager, k) {
			delete(m.data, k)
		}
	}
	m.owners[manager] = map[string]bool{}
	for k, v := range cfg {
		m.data[k] = v
		m.owners[manager][k] = true
	}
}

// conflicts are the keys of cfg another manager owns with another value.
func (m *applyMachine) conflicts(manager string, cfg map[string]string) []string {
	var out []string
	for k, v := range cfg {
		if m.ownedByOther(manager, k) && m.data[k] != v {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

func (m *applyMachine) ownedByOther(manager, key string) bool {
	for other, owned := range m.owners {
		if other != manager && owned[key] {
			return true
		}
	}
	return false
}

func (m *applyMachine) Check(t *rapid.T) {
	if !m.exists {
		return
	}
	cm, err := m.cms.Get(context.Background(), "subject", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get: %v", err)
	}
	data := map[string]string{}
	maps.Copy(data, cm.Data)
	if diff := cmp.Diff(m.data, data); diff != "" {
		t.Fatalf("data (-model +server):\n%s", diff)
	}
	got := map[string]map[string]bool{}
	for _, mgr := range applyManagers {
		got[mgr] = map[string]bool{}
	}
	for _, e := range cm.ManagedFields {
		if e.Operation != metav1.ManagedFieldsOperationApply {
			t.Fatalf("entry %+v is not an Apply", e)
		}
		var fields struct {
			Data map[string]any `json:"f:data"`
		}
		if err := json.Unmarshal(e.FieldsV1.Raw, &fields); err != nil {
			t.Fatalf("fieldsV1 of %s: %v", e.Manager, err)
		}
		for k := range fields.Data {
			if len(k) > 2 && k[:2] == "f:" {
				got[e.Manager][k[2:]] = true
			}
		}
	}
	if diff := cmp.Diff(m.owners, got); diff != "" {
		t.Fatalf("owned keys (-model +server):\n%s", diff)
	}
}

// TestApplyOwnershipModel runs random applies of two managers against the
// ownership model of applyMachine, one fresh namespace-scoped ConfigMap per
// run (deleted between runs).
func TestApplyOwnershipModel(t *testing.T) {
	t.Parallel()
	srv := Start(t)
	cs := clientsetFor(t, srv)
	rapid.Check(t, func(rt *rapid.T) {
		cms := cs.CoreV1().ConfigMaps("default")
		if err := cms.Delete(context.Background(), "subject", metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			rt.Fatalf("delete between runs: %v", err)
		}
		m := &applyMachine{cms: cms, data: map[string]string{}, owners: map[string]map[string]bool{}}
		for _, mgr := range applyManagers {
			m.owners[mgr] = map[string]bool{}
		}
		rt.Repeat(rapid.StateMachineActions(m))
	})
}
