package listwatch_test

import (
	"context"
	"fmt"
	"net"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/retry"

	"github.com/lw-sim/lw-sim/fakeapiserver"
	"github.com/lw-sim/lw-sim/listwatch"
)

// serve starts a fake apiserver for an example; stop closes it.
func serve() (cs kubernetes.Interface, stop func()) {
	srv, err := fakeapiserver.New(fakeapiserver.Config{})
	if err != nil {
		panic(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	done := srv.ServeBackground(ln)
	return srv.Clientset(), func() { _ = srv.Close(); <-done }
}

func ExampleClient_Run() {
	cs, stop := serve()
	defer stop()
	ctx, cancel := context.WithCancel(context.Background())
	cms := cs.CoreV1().ConfigMaps("default")
	_, _ = cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "a"}}, metav1.CreateOptions{})

	seen := make(chan string, 10)
	c := listwatch.New(listwatch.FromTyped(cms), listwatch.Options{
		Handler: cache.ResourceEventHandlerDetailedFuncs{
			AddFunc: func(obj any, initial bool) {
				seen <- fmt.Sprintf("add %s initial=%v", obj.(*corev1.ConfigMap).Name, initial)
			},
			DeleteFunc: func(obj any) { seen <- "delete " + obj.(*corev1.ConfigMap).Name },
		},
	})
	var wg sync.WaitGroup
	wg.Go(func() { c.Run(ctx) }) // Run returns after cancel, with nothing left running
	fmt.Println(<-seen)
	_, _ = cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "b"}}, metav1.CreateOptions{})
	fmt.Println(<-seen)
	_ = cms.Delete(ctx, "a", metav1.DeleteOptions{})
	fmt.Println(<-seen)
	fmt.Println("synced:", c.HasSynced(), "keys:", c.Indexer().ListKeys())
	cancel()
	wg.Wait()
	// Output:
	// add a initial=true
	// add b initial=false
	// delete a
	// synced: true keys: [default/b]
}

// Example_retryOnConflict is the article's conflict loop done with
// client-go's retry.RetryOnConflict: get the latest version, change it,
// update; on 409 Conflict, try again (with a short backoff), never forever.
func Example_retryOnConflict() {
	cs, stop := serve()
	defer stop()
	ctx := context.Background()
	cms := cs.CoreV1().ConfigMaps("default")
	_, _ = cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cfg"}}, metav1.CreateOptions{})
	stale, _ := cms.Get(ctx, "cfg", metav1.GetOptions{})
	_, _ = cms.Update(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cfg"}, Data: map[string]string{"by": "someone else"}}, metav1.UpdateOptions{})

	attempts := 0
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		attempts++
		cm := stale // the first attempt uses a stale copy and gets 409
		if attempts > 1 {
			var err error
			if cm, err = cms.Get(ctx, "cfg", metav1.GetOptions{}); err != nil {
				return err
			}
		}
		cm = cm.DeepCopy()
		if cm.Labels == nil {
			cm.Labels = map[string]string{}
		}
		cm.Labels["new-label"] = "value"
		_, err := cms.Update(ctx, cm, metav1.UpdateOptions{})
		return err
	})
	got, _ := cms.Get(ctx, "cfg", metav1.GetOptions{})
	fmt.Println("err:", err, "attempts:", attempts, "label:", got.Labels["new-label"], "data kept:", got.Data["by"])
	// Output: err: <nil> attempts: 2 label: value data kept: someone else
}

func ExampleTraceEvent_String() {
	fmt.Println(listwatch.TraceEvent{Kind: listwatch.TraceBackoff, RV: "42", Delay: 1600 * time.Millisecond, Reason: "exponential backoff"})
	// Output: backoff rv=42 delay=1.6s reason=exponential backoff
}
