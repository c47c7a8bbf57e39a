package fakeapiserver

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
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
	select {
	case ev, ok := <-w.ResultChan():
		if !ok {
			t.Fatal("the watch ended at a compaction of other resources' history, want it to go on")
		}
		if cm, _ := ev.Object.(*corev1.ConfigMap); ev.Type != watch.Added || cm == nil || cm.Name != "after" {
			t.Errorf("event = %s %T, want ADDED of configmap after", ev.Type, ev.Object)
		}
	case <-time.After(wait.ForeverTestTimeout):
		t.Fatalf("no event in %v", wait.ForeverTestTimeout)
	}
}
