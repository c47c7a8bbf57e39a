package listwatch

import (
	"context"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	rt "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"
)

// memLW is an in-memory ListerWatcher for benchmarks: a list of n
// configmaps at RV n, and one watch that streams `events` MODIFIED events
// with increasing RVs over those keys. It refuses watch-list, so the
// informer uses LIST+WATCH like listwatch. No HTTP: the benchmarks measure
// the clients, not the transport.
type memLW struct {
	n, events int
	once      sync.Once
}

func (m *memLW) List(context.Context, metav1.ListOptions) (rt.Object, error) {
	l := &corev1.ConfigMapList{ListMeta: metav1.ListMeta{ResourceVersion: strconv.Itoa(m.n)}}
	l.Items = make([]corev1.ConfigMap, m.n)
	for i := range l.Items {
		l.Items[i] = configMap(i, i+1)
	}
	return l, nil
}

func configMap(i, rv int) corev1.ConfigMap {
	return corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: "cm-" + strconv.Itoa(i), Namespace: "bench", ResourceVersion: strconv.Itoa(rv),
			Labels: map[string]string{"app": "bench"}},
		Data: map[string]string{"key": "value-" + strconv.Itoa(rv)},
	}
}

func (m *memLW) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	if opts.SendInitialEvents != nil {
		return nil, apierrors.NewBadRequest("no watch-list")
	}
	ch := make(chan watch.Event)
	w := watch.NewProxyWatcher(ch)
	events := 0
	m.once.Do(func() { events = m.events }) // only the first watch streams
	go func() {
		defer close(ch)
		for i := range events {
			cm := configMap(i%m.n, m.n+1+i)
			select {
			case ch <- watch.Event{Type: watch.Modified, Object: &cm}:
			case <-w.StopChan():
				return
			case <-ctx.Done():
				return
			}
		}
		select {
		case <-w.StopChan():
		case <-ctx.Done():
		}
	}()
	return w, nil
}

// benchClient is listwatch or client-go's informer, run on a memLW until
// the handler has seen `want` updates.
type benchClient func(ctx context.Context, lw *memLW, h cache.ResourceEventHandler) (store cache.Store, wait func())

func runListwatch(ctx context.Context, lw *memLW, h cache.ResourceEventHandler) (cache.Store, func()) {
	c := New(lw, Options{Handler: h})
	var wg sync.WaitGroup
	wg.Go(func() { c.Run(ctx) })
	return c.Indexer(), wg.Wait
}

func runInformer(ctx context.Context, lw *memLW, h cache.ResourceEventHandler) (cache.Store, func()) {
	inf := cache.NewSharedIndexInformer(ToCache(lw), &corev1.ConfigMap{}, 0, cache.Indexers{})
	_, _ = inf.AddEventHandler(h)
	var wg sync.WaitGroup
	wg.Go(func() { inf.RunWithContext(ctx) })
	return inf.GetStore(), wg.Wait
}

var benchClients = []struct {
	name string
	run  benchClient
}{{"listwatch", runListwatch}, {"informer", runInformer}}

// BenchmarkApply measures watch events applied per second (store + handler)
// over 1000 cached objects.
func BenchmarkApply(b *testing.B) {
	for _, bc := range benchClients {
		b.Run(bc.name, func(b *testing.B) {
			var updates atomic.Int64
			done := make(chan struct{})
			want := int64(b.N)
			h := cache.ResourceEventHandlerFuncs{UpdateFunc: func(_, _ any) {
				if updates.Add(1) == want {
					close(done)
				}
			}}
			ctx, cancel := context.WithCancel(context.Background())
			start := time.Now()
			_, wait := bc.run(ctx, &memLW{n: 1000, events: b.N}, h)
			b.ResetTimer()
			<-done
			b.StopTimer()
			elapsed := time.Since(start)
			cancel()
			wait()
			b.ReportMetric(float64(b.N)/elapsed.Seconds(), "events/s")
		})
	}
}

// BenchmarkMemoryPerObject measures the heap held per cached object after
// the initial list of 10 000 configmaps (objects, store and indexes).
func BenchmarkMemoryPerObject(b *testing.B) {
	const n = 10000
	for _, bc := range benchClients {
		b.Run(bc.name, func(b *testing.B) {
			var perObj float64
			for range b.N {
				runtime.GC()
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				ctx, cancel := context.WithCancel(context.Background())
				store, wait := bc.run(ctx, &memLW{n: n}, cache.ResourceEventHandlerFuncs{})
				for len(store.ListKeys()) < n {
					time.Sleep(time.Millisecond)
				}
				runtime.GC()
				runtime.ReadMemStats(&after)
				perObj = float64(int64(after.HeapAlloc)-int64(before.HeapAlloc)) / n
				runtime.KeepAlive(store)
				cancel()
				wait()
			}
			b.ReportMetric(perObj, "B/object")
		})
	}
}
