package fakeclientset_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/informers"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"

	"github.com/lw-sim/lw-sim/fakeclientset"
)

// TestInformerSyncsAndFollows runs a SharedInformerFactory with WatchList
// on (the default: one watch with sendInitialEvents) and off (list, then
// watch from the list's resourceVersion): it syncs the seeded pods, and
// writes made right after Start, before the informer has listed or
// watched, are not lost (client-go's fake drops writes made between its
// LIST and its WATCH).
func TestInformerSyncsAndFollows(t *testing.T) {
	for _, tt := range []struct {
		name      string
		watchList bool
		wantVerbs []string
	}{
		{"watchlist", true, []string{"watch"}},
		{"list-then-watch", false, []string{"list", "watch"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var seed []runtime.Object
			for i := range 5 {
				seed = append(seed, newPod("ns", fmt.Sprintf("seed-%d", i)))
			}
			cs := fakeclientset.NewClientset(t, seed...)
			if !tt.watchList {
				cs.DisableWatchList()
			}
			cs.ClearActions()
			factory := informers.NewSharedInformerFactory(cs, 0)
			inf := factory.Core().V1().Pods().Informer()
			ctx, cancel := context.WithCancel(context.Background())
			defer factory.Shutdown()
			defer cancel()
			factory.Start(ctx.Done())
			// Written while the informer starts: a real server's watch
			// history delivers them whatever the interleaving.
			for i := range 5 {
				if _, err := cs.CoreV1().Pods("ns").Create(ctx, newPod("ns", fmt.Sprintf("late-%d", i)), metav1.CreateOptions{}); err != nil {
					t.Fatalf("Create: %v", err)
				}
			}
			if !cache.WaitForCacheSync(ctx.Done(), inf.HasSynced) {
				t.Fatal("informer did not sync")
			}
			waitFor(t, func() bool { return len(inf.GetStore().List()) == 10 })
			if diff := cmp.Diff(tt.wantVerbs, informerVerbs(cs.Actions())); diff != "" {
				t.Errorf("informer's requests (-want +got):\n%s", diff)
			}
		})
	}
}

// informerVerbs are the verbs of the list and watch actions on pods.
func informerVerbs(actions []clienttesting.Action) []string {
	var verbs []string
	for _, a := range actions {
		if a.GetResource().Resource == "pods" && (a.GetVerb() == "list" || a.GetVerb() == "watch") {
			verbs = append(verbs, a.GetVerb())
		}
	}
	return verbs
}

// TestInformerSeesUpdatesAndDeletes follows one pod through an update and
// a delete; the handler's objects carry the server's resourceVersions.
func TestInformerSeesUpdatesAndDeletes(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cs := fakeclientset.NewClientset(t, newPod("ns", "p"))
	factory := informers.NewSharedInformerFactory(cs, 0)
	defer factory.Shutdown() // after cancel: Shutdown waits for the informers to stop
	defer cancel()
	events := make(chan string, 10)
	inf := factory.Core().V1().Pods().Informer()
	_, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { events <- "add " + obj.(*corev1.Pod).Name },
		UpdateFunc: func(_, obj any) { events <- "update " + obj.(*corev1.Pod).Labels["v"] },
		DeleteFunc: func(obj any) { events <- "delete " + obj.(*corev1.Pod).Name },
	})
	if err != nil {
		t.Fatal(err)
	}
	factory.Start(ctx.Done())
	cache.WaitForCacheSync(ctx.Done(), inf.HasSynced)
	// Get, change, update: the server defaulted the spec, and a pod's
	// spec is immutable but for a few fields.
	p, err := cs.CoreV1().Pods("ns").Get(ctx, "p", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	p.Labels["v"] = "2"
	if _, err := cs.CoreV1().Pods("ns").Update(ctx, p, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("Update: %v", err)
	}
	if err := cs.CoreV1().Pods("ns").Delete(ctx, "p", metav1.DeleteOptions{}); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	// A pod's delete is graceful on the server, even at grace 0: MODIFIED
	// with its deletionTimestamp, then DELETED (as kube-apiserver does).
	var got []string
	for range 4 {
		got = append(got, recv(t, events))
	}
	if diff := cmp.Diff([]string{"add p", "update 2", "update 2", "delete p"}, got); diff != "" {
		t.Errorf("handler events (-want +got):\n%s", diff)
	}
}
