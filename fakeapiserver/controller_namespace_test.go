package fakeapiserver

import (
	"testing"
	"testing/synctest"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestNamespaceController: with the controller, a deleted namespace's
// content goes and then the namespace, unless a finalizer holds some
// content, which keeps it Terminating with the conditions saying so until
// the finalizer goes; a pod bound to a node (graceful, no kubelet) keeps
// the rest of the content waiting. Without it, the namespace stays.
func TestNamespaceController(t *testing.T) {
	for _, on := range []bool{true, false} {
		synctest.Test(t, func(t *testing.T) {
			var ctrls []string
			if on {
				ctrls = []string{ControllerNamespace}
			}
			b := startBubble(t, WithConfig(func(c *Config) { c.Controllers = ctrls }))
			ctx := t.Context()
			mkNS := func(name string) {
				if _, err := b.cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{}); err != nil {
					t.Fatal(err)
				}
			}
			mkCM := func(ns, name string, finalizers ...string) {
				if _, err := b.cs.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Finalizers: finalizers}}, metav1.CreateOptions{}); err != nil {
					t.Fatal(err)
				}
			}
			nsGone := func(name string) bool {
				synctest.Wait()
				_, err := b.cs.CoreV1().Namespaces().Get(ctx, name, metav1.GetOptions{})
				return apierrors.IsNotFound(err)
			}
			mkNS("a")
			mkCM("a", "one")
			mkCM("a", "held", "example.com/hold")
			if err := b.cs.CoreV1().Namespaces().Delete(ctx, "a", metav1.DeleteOptions{}); err != nil {
				t.Fatal(err)
			}
			if nsGone("a") {
				t.Fatalf("controller %v: namespace a went while content was held", on)
			}
			_, err := b.cs.CoreV1().ConfigMaps("a").Get(ctx, "one", metav1.GetOptions{})
			if got := apierrors.IsNotFound(err); got != on {
				t.Errorf("controller %v: configmap one deleted: %v", on, got)
			}
			if !on {
				return
			}
			ns, err := b.cs.CoreV1().Namespaces().Get(ctx, "a", metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			var remaining string
			for _, c := range ns.Status.Conditions {
				if c.Type == corev1.NamespaceFinalizersRemaining {
					remaining = c.Message
				}
			}
			if want := "Some content in the namespace has finalizers remaining: example.com/hold in 1 resource instances"; remaining != want {
				t.Errorf("NamespaceFinalizersRemaining = %q, want %q", remaining, want)
			}
			held, err := b.cs.CoreV1().ConfigMaps("a").Get(ctx, "held", metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			held.Finalizers = nil
			if _, err := b.cs.CoreV1().ConfigMaps("a").Update(ctx, held, metav1.UpdateOptions{}); err != nil {
				t.Fatal(err)
			}
			if !nsGone("a") {
				t.Errorf("namespace a still there after its last content went")
			}

			mkNS("b")
			mkCM("b", "waits")
			if _, err := b.cs.CoreV1().Pods("b").Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p"}, Spec: corev1.PodSpec{NodeName: "n",
				Containers: []corev1.Container{{Name: "c", Image: "busybox"}}}}, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
			if err := b.cs.CoreV1().Namespaces().Delete(ctx, "b", metav1.DeleteOptions{}); err != nil {
				t.Fatal(err)
			}
			synctest.Wait()
			if _, err := b.cs.CoreV1().ConfigMaps("b").Get(ctx, "waits", metav1.GetOptions{}); err != nil {
				t.Errorf("configmap waits = %v; want it kept while a pod terminates", err)
			}
			if err := b.cs.CoreV1().Pods("b").Delete(ctx, "p", *metav1.NewDeleteOptions(0)); err != nil {
				t.Fatal(err)
			}
			if !nsGone("b") {
				t.Errorf("namespace b still there after its pod went")
			}
		})
	}
}
