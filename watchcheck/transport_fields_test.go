package watchcheck_test

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"

	"github.com/lw-sim/lw-sim/fakeapiserver"
	"github.com/lw-sim/lw-sim/internal/testdeadline"
	"github.com/lw-sim/lw-sim/watchcheck"
)

// TestTransportFieldSelectorWatches: watches with a fieldSelector
// (metadata.name, metadata.namespace, a per-kind label: a Secret's type)
// and a watch of one object by its path are recorded with their selector
// and check clean against the history an unfiltered watch recorded; a
// field-selected stream checked as if unfiltered has gaps, so the check
// cannot pass by ignoring the selector.
func TestTransportFieldSelectorWatches(t *testing.T) {
	srv := fakeapiserver.Start(t)
	var rec watchcheck.Transport
	rc := srv.RESTConfig()
	rc.ContentType, rc.AcceptContentTypes = "application/json", "application/json"
	rc.WrapTransport = rec.Wrap
	cs := kubernetes.NewForConfigOrDie(rc)
	ctx := context.Background()
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "other"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	start, err := cs.CoreV1().Secrets("").List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	from := metav1.ListOptions{ResourceVersion: start.ResourceVersion}
	with := func(sel string) metav1.ListOptions { o := from; o.FieldSelector = sel; return o }
	var ws []watch.Interface
	watchAll := func(ns string, o metav1.ListOptions) {
		w, err := cs.CoreV1().Secrets(ns).Watch(ctx, o)
		if err != nil {
			t.Fatal(err)
		}
		ws = append(ws, w)
	}
	watchAll("", from) // the history
	watchAll("", with("metadata.name=a"))
	watchAll("", with("metadata.namespace=other"))
	watchAll("", with("type=example.com/x"))
	watchAll("other", with("metadata.name!=b,type!=example.com/x"))
	// One object by its path: kube-apiserver turns the name into a
	// metadata.name field selector.
	one, err := cs.CoreV1().RESTClient().Get().AbsPath("/api/v1/watch/namespaces/default/secrets/b").
		Param("resourceVersion", start.ResourceVersion).Watch(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ws = append(ws, one)

	sec := func(ns, name string, typ corev1.SecretType) *corev1.Secret {
		return &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Type: typ}
	}
	writes := 0
	for _, s := range []*corev1.Secret{
		sec("default", "a", corev1.SecretTypeOpaque), sec("default", "b", "example.com/x"),
		sec("other", "a", "example.com/x"), sec("other", "c", corev1.SecretTypeOpaque),
	} {
		if _, err := cs.CoreV1().Secrets(s.Namespace).Create(ctx, s, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		writes++
	}
	for _, k := range []struct{ ns, name string }{{"default", "a"}, {"other", "a"}, {"default", "b"}} {
		if err := cs.CoreV1().Secrets(k.ns).Delete(ctx, k.name, metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		writes++
	}
	// The Transport records what the client reads: read each stream's
	// events (the writes that match its selector), then stop it.
	hung, cancel := testdeadline.Context(t) // only a hang fails the waits
	defer cancel()
	for i, n := range []int{writes, 4, 3, 4, 1, 2} {
		for range n {
			select {
			case <-ws[i].ResultChan():
			case <-hung.Done():
				t.Fatalf("watch %d: fewer than %d events", i, n)
			}
		}
		ws[i].Stop()
	}
	streams := rec.Streams()
	if rec.Skipped() != 0 {
		t.Fatalf("skipped %d watches", rec.Skipped())
	}
	h := watchcheck.HistoryFromEvents(streams[0].Events)
	if err := h.Validate(); err != nil {
		t.Fatal(err)
	}
	if err := watchcheck.Check(h, streams...); err != nil {
		t.Fatal(err)
	}
	for _, s := range streams[1:] {
		if s.FieldSelector == nil || s.FieldSelector.Empty() {
			t.Fatalf("stream %s recorded without its field selector", s.Name)
		}
		s.FieldSelector = nil
		if err := watchcheck.Check(h, s); err == nil {
			t.Errorf("stream %s checked as unfiltered passed", s.Name)
		}
	}
}
