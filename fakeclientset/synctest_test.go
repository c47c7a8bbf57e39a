package fakeclientset_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/informers"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"

	"github.com/lw-sim/lw-sim/fakeclientset"
)

// TestBubbleWatchBookmarksAndTimeout: inside a synctest bubble a watch's
// bookmarks and its timeoutSeconds run on the bubble's clock: a 10-minute
// watch gets its periodic bookmarks and ends exactly at its timeout, in
// microseconds of real time.
func TestBubbleWatchBookmarksAndTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		cs := fakeclientset.NewClientset(t)
		list, err := cs.CoreV1().Pods("default").List(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatalf("List: %v", err)
		}
		start := time.Now()
		w, err := cs.CoreV1().Pods("default").Watch(ctx, metav1.ListOptions{
			ResourceVersion: list.ResourceVersion, AllowWatchBookmarks: true, TimeoutSeconds: ptr.To[int64](600),
		})
		if err != nil {
			t.Fatalf("Watch: %v", err)
		}
		defer w.Stop()
		// A bookmark carries progress: the server sends one only when the
		// resourceVersion moved (a write to any resource), as the cacher.
		done := make(chan struct{})
		var writer sync.WaitGroup
		defer writer.Wait()
		defer close(done)
		writer.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-done:
					return
				case <-time.After(20 * time.Second):
				}
				cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: fmt.Sprintf("tick-%d", i)}}
				if _, err := cs.CoreV1().ConfigMaps("default").Create(ctx, cm, metav1.CreateOptions{}); err != nil {
					t.Errorf("Create: %v", err)
					return
				}
			}
		})
		bookmarks := 0
		for ev := range w.ResultChan() {
			if ev.Type != watch.Bookmark {
				t.Fatalf("event %s %v, want only bookmarks", ev.Type, ev.Object)
			}
			bookmarks++
		}
		if took := time.Since(start); took != 600*time.Second {
			t.Errorf("watch ended after %v of bubble time, want its timeoutSeconds (10m0s)", took)
		}
		// One a minute, and one 2 s before the deadline (cacher
		// nextBookmarkTime), as the server schedules them.
		t.Logf("%d bookmarks", bookmarks)
		if bookmarks < 9 || bookmarks > 11 {
			t.Errorf("got %d bookmarks in 10 minutes, want about one a minute", bookmarks)
		}
	})
}

// TestBubbleInformerResync: an informer's resync period runs on the
// bubble's clock: after 35 s with a 10 s period, every cached pod has been
// resynced three times.
func TestBubbleInformerResync(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cs := fakeclientset.NewClientset(t, newPod("ns", "a"), newPod("ns", "b"))
		factory := informers.NewSharedInformerFactory(cs, 10*time.Second)
		var resyncs atomic.Int32
		inf := factory.Core().V1().Pods().Informer()
		if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
			UpdateFunc: func(old, cur any) {
				if old.(*corev1.Pod).ResourceVersion == cur.(*corev1.Pod).ResourceVersion {
					resyncs.Add(1)
				}
			},
		}); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		factory.Start(ctx.Done())
		cache.WaitForCacheSync(ctx.Done(), inf.HasSynced)
		time.Sleep(35 * time.Second)
		synctest.Wait()
		if got := resyncs.Load(); got != 6 {
			t.Errorf("resync updates after 35 s = %d, want 6 (2 pods x 3 periods)", got)
		}
		cancel()
		factory.Shutdown()
	})
}

// TestBubbleInformerBackoff: a reflector whose LIST fails backs off on the
// bubble's clock (client-go's 800 ms initial backoff, doubling), then
// syncs once the errors stop.
func TestBubbleInformerBackoff(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cs := fakeclientset.NewClientset(t, newPod("ns", "a"))
		cs.DisableWatchList()
		var fails atomic.Int32
		cs.PrependReactor("list", "pods", func(clienttesting.Action) (bool, runtime.Object, error) {
			if fails.Add(1) <= 3 {
				return true, nil, errors.New("injected list failure")
			}
			return false, nil, nil
		})
		factory := informers.NewSharedInformerFactory(cs, 0)
		inf := factory.Core().V1().Pods().Informer()
		ctx, cancel := context.WithCancel(context.Background())
		start := time.Now()
		factory.Start(ctx.Done())
		if !cache.WaitForCacheSync(ctx.Done(), inf.HasSynced) {
			t.Fatal("informer did not sync")
		}
		took := time.Since(start)
		// Three failures: waits of about 0.8, 1.6 and 3.2 s, jittered.
		if took < 2*time.Second || took > time.Minute {
			t.Errorf("synced after %v of bubble time, want the reflector's backoff of a few seconds", took)
		}
		if n := len(inf.GetStore().List()); n != 1 {
			t.Errorf("cached %d pods, want 1", n)
		}
		cancel()
		factory.Shutdown()
	})
}
