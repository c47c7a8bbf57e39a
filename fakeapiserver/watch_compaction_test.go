package fakeapiserver

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
)

// TestWatchSurvivesOtherResourcesCompaction: an open watch that has seen
// every event of its resource is not ended when compaction, moved by other
// resources' writes, passes its last RV (a real watch cache's history is per
// resource and never cut by etcd compaction); the next change arrives.
func TestWatchSurvivesOtherResourcesCompaction(t *testing.T) {
	srv := Start(t)
	cs := srv.Clientset()
	ctx := t.Context()
	cms := cs.CoreV1().ConfigMaps("default")
	list, err := cms.List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w, err := cms.Watch(ctx, metav1.ListOptions{ResourceVersion: list.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	// The watch's start point is checked on the server after the response
	// headers, which is when Watch returns; an event through it proves the
	// check is done before the compaction below (a watch starting from a
	// compacted RV gets 410: a documented divergence, not this test's
	// subject).
	if _, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "before"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	mustNextAdded(t, w, "before")
	for _, name := range []string{"s1", "s2", "s3"} {
		if _, err := cs.CoreV1().Secrets("default").Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if err := srv.Compact(srv.store.CurrentRV()); err != nil {
		t.Fatal(err)
	}
	if _, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "after"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	mustNextAdded(t, w, "after")
}

// mustNextAdded fails unless w's next event is the ADDED of configmap name.
func mustNextAdded(t *testing.T, w watch.Interface, name string) {
	t.Helper()
	select {
	case ev, ok := <-w.ResultChan():
		if !ok {
			t.Fatalf("the watch ended before the ADDED of %s, want it to go on", name)
		}
		if cm, _ := ev.Object.(*corev1.ConfigMap); ev.Type != watch.Added || cm == nil || cm.Name != name {
			t.Errorf("event = %s %+v, want ADDED of configmap %s", ev.Type, ev.Object, name)
		}
	case <-hangGuard(t):
		t.Fatalf("no event before the test's deadline, want the ADDED of %s", name)
	}
}
