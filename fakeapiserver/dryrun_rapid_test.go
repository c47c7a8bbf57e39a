package fakeapiserver

import (
	"context"
	"fmt"
	"strconv"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"pgregory.net/rapid"
)

// dryRunMachine is writeMachine with dry-run writes mixed in: each
// answers what the same write would (404, 409, or the written object at
// the current resourceVersion, none for a create) and changes nothing, so
// the model, the global RV and every later answer are those of the real
// writes alone.
type dryRunMachine struct {
	*writeMachine
}

func (m dryRunMachine) DryRunCreate(t *rapid.T) {
	name, value := m.drawName(t), m.drawValue(t)
	got, err := m.cms.Create(context.Background(), newRapidCM(name, value), metav1.CreateOptions{DryRun: dryAll})
	if _, exists := m.model[name]; exists {
		expectCode(t, "DryRunCreate", err, 409)
		return
	}
	expectCode(t, "DryRunCreate", err, 0)
	if got.ResourceVersion != "" || got.UID == "" || got.Data["k"] != value {
		t.Fatalf("DryRunCreate(%s) = rv %q uid %q data %v, want no rv, a uid, data %s", name, got.ResourceVersion, got.UID, got.Data, value)
	}
}

func (m dryRunMachine) DryRunUpdate(t *rapid.T) {
	name, value := m.drawName(t), m.drawValue(t)
	stale := rapid.Bool().Draw(t, "stale")
	cur, exists := m.model[name]
	cm := newRapidCM(name, value)
	if stale {
		if m.old[name] == "" || !exists {
			t.Skip("no stale rv for " + name)
		}
		cm.ResourceVersion = m.old[name]
	}
	got, err := m.cms.Update(context.Background(), cm, metav1.UpdateOptions{DryRun: dryAll})
	m.checkDry(t, "DryRunUpdate", name, value, got, err, exists, stale, cur)
}

func (m dryRunMachine) DryRunPatch(t *rapid.T) {
	name, value := m.drawName(t), m.drawValue(t)
	cur, exists := m.model[name]
	patch := fmt.Sprintf(`{"data":{"k":%q}}`, value)
	got, err := m.cms.Patch(context.Background(), name, types.MergePatchType, []byte(patch), metav1.PatchOptions{DryRun: dryAll})
	m.checkDry(t, "DryRunPatch", name, value, got, err, exists, false, cur)
}

func (m dryRunMachine) DryRunDelete(t *rapid.T) {
	name := m.drawName(t)
	err := m.cms.Delete(context.Background(), name, metav1.DeleteOptions{DryRun: dryAll})
	if _, exists := m.model[name]; !exists {
		expectCode(t, "DryRunDelete", err, 404)
		return
	}
	expectCode(t, "DryRunDelete", err, 0)
}

// checkDry checks a dry-run update or patch: the codes of the real write,
// and on success the new value at the unchanged resourceVersion.
func (m dryRunMachine) checkDry(t *rapid.T, op, name, value string, got *corev1.ConfigMap, err error, exists, stale bool, cur modelObject) {
	switch {
	case !exists:
		expectCode(t, op, err, 404)
	case stale:
		expectCode(t, op, err, 409)
	default:
		expectCode(t, op, err, 0)
		if want := strconv.FormatInt(cur.rv, 10); got.ResourceVersion != want || got.Data["k"] != value {
			t.Fatalf("%s(%s) = rv %s data %v, want rv %s data %s", op, name, got.ResourceVersion, got.Data, want, value)
		}
	}
}

func TestDryRunStateMachine(t *testing.T) {
	t.Parallel()
	srv := Start(t)
	cs := clientsetFor(t, srv)
	run := 0
	rapid.Check(t, func(rt *rapid.T) {
		run++
		ns := fmt.Sprintf("dry-%d", run)
		if _, err := cs.CoreV1().Namespaces().Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
			rt.Fatalf("Create(namespace %s): %v", ns, err)
		}
		m := dryRunMachine{&writeMachine{
			cms: cs.CoreV1().ConfigMaps(ns), srv: srv, rv: srv.store.CurrentRV(),
			model: map[string]modelObject{}, old: map[string]string{},
		}}
		rt.Repeat(rapid.StateMachineActions(m))
	})
}
