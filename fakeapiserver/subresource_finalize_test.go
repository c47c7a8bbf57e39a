package fakeapiserver

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
)

// TestNamespaceFinalizeClientGo: what the namespace controller does, with
// client-go's typed Finalize: a Terminating namespace whose spec.finalizers
// it empties is gone, its watch ends with DELETED; Finalize of an active
// namespace only replaces the finalizers, which an Update cannot change.
func TestNamespaceFinalizeClientGo(t *testing.T) {
	t.Parallel()
	srv := Start(t)
	nss := srv.Clientset().CoreV1().Namespaces()
	ctx := t.Context()
	ns, err := nss.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "fin"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	ns.Spec.Finalizers = []corev1.FinalizerName{"example.com/a", corev1.FinalizerKubernetes}
	got, err := nss.Finalize(ctx, ns, metav1.UpdateOptions{})
	if err != nil || !cmp.Equal(ns.Spec.Finalizers, got.Spec.Finalizers) || got.Status.Phase != corev1.NamespaceActive {
		t.Fatalf("Finalize(active) = %v, %v; want the new finalizers, Active", got, err)
	}
	got.Spec.Finalizers = nil
	upd, err := nss.Update(ctx, got, metav1.UpdateOptions{})
	if err != nil || len(upd.Spec.Finalizers) != 2 {
		t.Errorf("Update without finalizers = %v, %v; want the finalizers kept", upd, err)
	}

	if err := nss.Delete(ctx, "fin", metav1.DeleteOptions{}); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	term, err := nss.Get(ctx, "fin", metav1.GetOptions{})
	if err != nil || term.Status.Phase != corev1.NamespaceTerminating {
		t.Fatalf("Get after Delete = %v, %v; want Terminating", term, err)
	}
	w, err := nss.Watch(ctx, metav1.ListOptions{FieldSelector: "metadata.name=fin", ResourceVersion: term.ResourceVersion})
	if err != nil {
		t.Fatalf("Watch: %v", err)
	}
	defer w.Stop()
	term.Spec.Finalizers = nil
	if _, err := nss.Finalize(ctx, term, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("Finalize(terminating) = %v", err)
	}
	if _, err := nss.Get(ctx, "fin", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("Get after the last finalizer = %v, want NotFound", err)
	}
	ev := nextEvent(t, w)
	if ev.Type != watch.Deleted {
		t.Errorf("watch event after Finalize = %s, want DELETED", ev.Type)
	}
}
