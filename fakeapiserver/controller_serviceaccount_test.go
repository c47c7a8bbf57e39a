package fakeapiserver

import (
	"testing"
	"testing/synctest"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestServiceAccountController: with the controller, every Active
// namespace (the system ones too) has the ServiceAccount "default", a new
// one at once and a deleted one again; a Terminating namespace gets none;
// without it, none appears.
func TestServiceAccountController(t *testing.T) {
	for _, on := range []bool{true, false} {
		synctest.Test(t, func(t *testing.T) {
			var ctrls []string
			if on {
				ctrls = []string{ControllerServiceAccount}
			}
			b := startBubble(t, WithConfig(func(c *Config) { c.Controllers = ctrls }))
			ctx := t.Context()
			has := func(ns string) bool {
				t.Helper()
				synctest.Wait()
				_, err := b.cs.CoreV1().ServiceAccounts(ns).Get(ctx, "default", metav1.GetOptions{})
				if err != nil && !apierrors.IsNotFound(err) {
					t.Fatal(err)
				}
				return err == nil
			}
			if _, err := b.cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "x"}}, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
			for _, ns := range []string{"default", "kube-system", "x"} {
				if got := has(ns); got != on {
					t.Errorf("controller %v: namespace %s has the default ServiceAccount: %v", on, ns, got)
				}
			}
			if !on {
				return
			}
			if err := b.cs.CoreV1().ServiceAccounts("x").Delete(ctx, "default", metav1.DeleteOptions{}); err != nil {
				t.Fatal(err)
			}
			if !has("x") {
				t.Errorf("a deleted default ServiceAccount did not come back")
			}
			if err := b.cs.CoreV1().Namespaces().Delete(ctx, "x", metav1.DeleteOptions{}); err != nil {
				t.Fatal(err)
			}
			if err := b.cs.CoreV1().ServiceAccounts("x").Delete(ctx, "default", metav1.DeleteOptions{}); err != nil {
				t.Fatal(err)
			}
			if has("x") {
				t.Errorf("a Terminating namespace got a default ServiceAccount")
			}
		})
	}
}
