package fakeapiserver

import (
	"context"
	"testing"
	"testing/synctest"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
)

// gcWorld is a server running the garbage collector in a synctest bubble,
// with helpers over ConfigMaps of the namespace "default".
type gcWorld struct {
	t   *testing.T
	b   *bubble
	ctx context.Context
}

func newGCWorld(t *testing.T, controllers ...string) *gcWorld {
	b := startBubble(t, WithConfig(func(c *Config) { c.Controllers = controllers }))
	return &gcWorld{t: t, b: b, ctx: t.Context()}
}

// create creates the ConfigMap name with owners and finalizers.
func (w *gcWorld) create(name string, owners []metav1.OwnerReference, finalizers ...string) *corev1.ConfigMap {
	w.t.Helper()
	cm, err := w.b.cs.CoreV1().ConfigMaps("default").Create(w.ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{
		Name: name, OwnerReferences: owners, Finalizers: finalizers}}, metav1.CreateOptions{})
	if err != nil {
		w.t.Fatalf("create %s: %v", name, err)
	}
	return cm
}

// ref is an owner reference to cm.
func ref(cm *corev1.ConfigMap, block bool) metav1.OwnerReference {
	return metav1.OwnerReference{APIVersion: "v1", Kind: "ConfigMap", Name: cm.Name, UID: cm.UID, BlockOwnerDeletion: ptr.To(block)}
}

// del deletes name with policy ("" for none).
func (w *gcWorld) del(name string, policy metav1.DeletionPropagation) {
	w.t.Helper()
	opts := metav1.DeleteOptions{}
	if policy != "" {
		opts.PropagationPolicy = &policy
	}
	if err := w.b.cs.CoreV1().ConfigMaps("default").Delete(w.ctx, name, opts); err != nil {
		w.t.Fatalf("delete %s: %v", name, err)
	}
}

// state is, after the controllers went quiet, each named ConfigMap's owner
// uids and finalizers, or "gone".
func (w *gcWorld) state(names ...string) map[string]string {
	w.t.Helper()
	synctest.Wait()
	out := map[string]string{}
	for _, n := range names {
		cm, err := w.b.cs.CoreV1().ConfigMaps("default").Get(w.ctx, n, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			out[n] = "gone"
			continue
		}
		if err != nil {
			w.t.Fatalf("get %s: %v", n, err)
		}
		s := "owners:"
		for _, r := range cm.OwnerReferences {
			s += " " + r.Name
		}
		s += " finalizers:"
		for _, f := range cm.Finalizers {
			s += " " + f
		}
		out[n] = s
	}
	return out
}

// TestGarbageCollectorBackground: a dependent whose only owner is deleted
// goes, and so does its own dependent; one with a second, existing owner
// loses the dangling reference and stays. Without the controller, nothing
// happens.
func TestGarbageCollectorBackground(t *testing.T) {
	for _, on := range []bool{true, false} {
		synctest.Test(t, func(t *testing.T) {
			var w *gcWorld
			if on {
				w = newGCWorld(t, ControllerGarbageCollector)
			} else {
				w = newGCWorld(t)
			}
			a, b := w.create("a", nil), w.create("b", nil)
			c := w.create("c", []metav1.OwnerReference{ref(a, false)})
			w.create("d", []metav1.OwnerReference{ref(c, false)})
			w.create("e", []metav1.OwnerReference{ref(a, false), ref(b, false)})
			w.del("a", "")
			want := map[string]string{"a": "gone", "b": "owners: finalizers:", "c": "gone", "d": "gone", "e": "owners: b finalizers:"}
			if !on {
				want = map[string]string{"a": "gone", "b": "owners: finalizers:", "c": "owners: a finalizers:", "d": "owners: c finalizers:", "e": "owners: a b finalizers:"}
			}
			if diff := cmp.Diff(want, w.state("a", "b", "c", "d", "e")); diff != "" {
				t.Errorf("collector on %v: after deleting a (-want +got):\n%s", on, diff)
			}
		})
	}
}

// TestGarbageCollectorForeground: an owner deleted in the foreground stays
// until its blocking dependents are gone, then goes; its dependents are
// deleted (a dependent's own finalizer holds it, and with it the owner).
func TestGarbageCollectorForeground(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newGCWorld(t, ControllerGarbageCollector)
		a := w.create("a", nil)
		w.create("b", []metav1.OwnerReference{ref(a, true)}, "example.com/hold")
		w.create("c", []metav1.OwnerReference{ref(a, false)})
		w.del("a", metav1.DeletePropagationForeground)
		want := map[string]string{"a": "owners: finalizers: foregroundDeletion", "b": "owners: a finalizers: example.com/hold", "c": "gone"}
		if diff := cmp.Diff(want, w.state("a", "b", "c")); diff != "" {
			t.Errorf("after a foreground delete of a (-want +got):\n%s", diff)
		}
		cm, err := w.b.cs.CoreV1().ConfigMaps("default").Get(w.ctx, "b", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if cm.DeletionTimestamp == nil {
			t.Errorf("b, a blocking dependent of a, was not deleted")
		}
		cm.Finalizers = nil
		if _, err := w.b.cs.CoreV1().ConfigMaps("default").Update(w.ctx, cm, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(map[string]string{"a": "gone", "b": "gone"}, w.state("a", "b")); diff != "" {
			t.Errorf("after b's finalizer went (-want +got):\n%s", diff)
		}
	})
}

// TestGarbageCollectorOrphan: an owner deleted with Orphan loses its
// dependents' references to it, then its orphan finalizer, and goes; the
// dependents stay. A batch/v1-style default (a Job) is not needed: the
// finalizer is what the collector reads.
func TestGarbageCollectorOrphan(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newGCWorld(t, ControllerGarbageCollector)
		a, b := w.create("a", nil), w.create("b", nil)
		w.create("c", []metav1.OwnerReference{ref(a, true), ref(b, false)})
		w.create("d", []metav1.OwnerReference{ref(a, false)})
		w.del("a", metav1.DeletePropagationOrphan)
		want := map[string]string{"a": "gone", "c": "owners: b finalizers:", "d": "owners: finalizers:"}
		if diff := cmp.Diff(want, w.state("a", "c", "d")); diff != "" {
			t.Errorf("after an orphan delete of a (-want +got):\n%s", diff)
		}
	})
}

// TestGarbageCollectorReferences: a reference to another uid of the same
// name is dangling; one to a kind no resource serves, and a cluster-scoped
// object's reference to a namespaced kind, leave the object alone; a
// namespaced owner is looked up in the dependent's namespace only.
func TestGarbageCollectorReferences(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newGCWorld(t, ControllerGarbageCollector)
		a := w.create("a", nil)
		stale := ref(a, false)
		stale.UID = types.UID("00000000-0000-0000-0000-000000000000")
		w.create("wrong-uid", []metav1.OwnerReference{stale})
		w.create("unknown-kind", []metav1.OwnerReference{{APIVersion: "example.com/v1", Kind: "Nothing", Name: "x", UID: "u"}})
		if _, err := w.b.cs.CoreV1().Namespaces().Create(w.ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "other"}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		if _, err := w.b.cs.CoreV1().ConfigMaps("other").Create(w.ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{
			Name: "across", OwnerReferences: []metav1.OwnerReference{ref(a, false)}}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		pv, err := w.b.cs.CoreV1().Namespaces().Create(w.ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{
			Name: "cluster-dependent", OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: "gone", UID: "u2"}}}}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]string{"a": "owners: finalizers:", "wrong-uid": "gone", "unknown-kind": "owners: x finalizers:"}
		if diff := cmp.Diff(want, w.state("a", "wrong-uid", "unknown-kind")); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
		if _, err := w.b.cs.CoreV1().ConfigMaps("other").Get(w.ctx, "across", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			t.Errorf("a reference to a in another namespace: get across = %v, want not found (dangling, collected)", err)
		}
		if got, err := w.b.cs.CoreV1().Namespaces().Get(w.ctx, pv.Name, metav1.GetOptions{}); err != nil || got.DeletionTimestamp != nil {
			t.Errorf("a cluster-scoped object with a namespaced owner = %v, %v; want it untouched", got, err)
		}
	})
}
