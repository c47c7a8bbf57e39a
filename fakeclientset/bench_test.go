package fakeclientset_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/cache"

	"github.com/lw-sim/lw-sim/fakeclientset"
)

// configMaps returns n valid config maps in namespace ns.
func configMaps(ns string, n int) []runtime.Object {
	objs := make([]runtime.Object, n)
	for i := range objs {
		objs[i] = &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("cm-%05d", i)},
			Data: map[string]string{"k": "v"}}
	}
	return objs
}

// BenchmarkNewClientset is the set-up cost of a test: client-go's fake
// against this package's clientset (server start, discovery, seeding and
// teardown), with 0 and 100 seeded objects.
func BenchmarkNewClientset(b *testing.B) {
	for _, n := range []int{0, 100} {
		objs := configMaps("ns", n)
		b.Run(fmt.Sprintf("client-go/objects=%d", n), func(b *testing.B) {
			for b.Loop() {
				_ = fake.NewClientset(objs...)
			}
		})
		b.Run(fmt.Sprintf("lw-sim/objects=%d", n), func(b *testing.B) {
			for b.Loop() {
				srv, err := fakeclientset.New(fakeapiserverConfig())
				if err != nil {
					b.Fatal(err)
				}
				if _, err := srv.Clientset(objs...); err != nil {
					b.Fatal(err)
				}
				if err := srv.Close(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkCreate is creates per second through the typed client.
func BenchmarkCreate(b *testing.B) {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "ns"}}
	for _, c := range []struct {
		name string
		cs   func(b *testing.B) kubernetes.Interface
	}{
		{"client-go", func(*testing.B) kubernetes.Interface { return fake.NewClientset(ns) }},
		{"lw-sim", func(b *testing.B) kubernetes.Interface { return fakeclientset.NewClientset(b, ns) }},
	} {
		b.Run(c.name, func(b *testing.B) {
			cs := c.cs(b)
			ctx := context.Background()
			i := 0
			for b.Loop() {
				cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("cm-%d", i)}, Data: map[string]string{"k": "v"}}
				if _, err := cs.CoreV1().ConfigMaps("ns").Create(ctx, cm, metav1.CreateOptions{}); err != nil {
					b.Fatal(err)
				}
				i++
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "creates/s")
		})
	}
}

// BenchmarkInformerSync is the time a config-map informer of a new
// clientset takes to sync 1 000 objects, with WatchList and with LIST then
// WATCH (client-go's fake has only the latter).
func BenchmarkInformerSync(b *testing.B) {
	const n = 1000
	objs := configMaps("ns", n)
	srv := fakeclientset.NewServer(b, fakeapiserverConfig())
	if _, err := srv.Clientset(objs...); err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name      string
		watchList bool
	}{{"lw-sim/watchlist", true}, {"lw-sim/list-watch", false}, {"client-go/list-watch", false}} {
		b.Run(fmt.Sprintf("%s/objects=%d", c.name, n), func(b *testing.B) {
			var base kubernetes.Interface
			if c.name == "client-go/list-watch" {
				base = fake.NewClientset(objs...)
			}
			for b.Loop() {
				cs := base
				if cs == nil {
					lcs, err := srv.Clientset()
					if err != nil {
						b.Fatal(err)
					}
					if !c.watchList {
						lcs.DisableWatchList()
					}
					cs = lcs
				}
				syncInformer(b, cs, n)
			}
		})
	}
}

// syncInformer starts a config-map informer on cs, waits until its
// handler has seen n objects and stops it. (cache.WaitForCacheSync polls
// every 100 ms, which would be most of what is measured.)
func syncInformer(b *testing.B, cs kubernetes.Interface, n int) {
	ctx, cancel := context.WithCancel(context.Background())
	factory := informers.NewSharedInformerFactory(cs, 0)
	inf := factory.Core().V1().ConfigMaps().Informer()
	done := make(chan struct{})
	var seen atomic.Int32
	if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{AddFunc: func(any) {
		if seen.Add(1) == int32(n) {
			close(done)
		}
	}}); err != nil {
		b.Fatal(err)
	}
	factory.Start(ctx.Done())
	select {
	case <-done:
	case <-time.After(testTimeout):
		b.Fatalf("informer saw %d of %d objects after %v", seen.Load(), n, testTimeout)
	}
	cancel()
	factory.Shutdown()
}
