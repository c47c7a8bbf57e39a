package listwatch

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/watch"
	clocktesting "k8s.io/utils/clock/testing"
)

// TestBackoffOnFakeClock scripts a server whose watches fail with 500, then
// once with 429 Retry-After: 7 s, and walks virtual time: each retry waits
// one exponential step with jitter, capped, and the 429 waits its
// Retry-After. No LIST follows the first.
func TestBackoffOnFakeClock(t *testing.T) {
	t.Parallel()
	errs := []error{}
	for range 6 {
		errs = append(errs, apierrors.NewInternalError(fmt.Errorf("injected")))
	}
	errs = append(errs, apierrors.NewTooManyRequests("slow down", 7))
	var mu sync.Mutex
	lists := 0
	lw := Funcs{
		ListFunc: func(context.Context, metav1.ListOptions) (runtime.Object, error) {
			mu.Lock()
			defer mu.Unlock()
			lists++
			return &corev1.ConfigMapList{ListMeta: metav1.ListMeta{ResourceVersion: "10"}}, nil
		},
		WatchFunc: func(ctx context.Context, _ metav1.ListOptions) (watch.Interface, error) {
			mu.Lock()
			defer mu.Unlock()
			if len(errs) > 0 {
				err := errs[0]
				errs = errs[1:]
				return nil, err
			}
			return watch.NewFake(), nil
		},
	}
	clk := clocktesting.NewFakeClock(time.Unix(0, 0))
	log := &traceLog{}
	b := wait.Backoff{Duration: time.Second, Factor: 2, Jitter: 1, Steps: 100, Cap: 8 * time.Second}
	c := New(lw, Options{Clock: clk, Backoff: b, Trace: log.add})
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { c.Run(ctx) })
	defer func() { cancel(); wg.Wait() }()

	var delays []time.Duration
	for len(delays) < 7 {
		waitUntil(t, "client waiting on the clock", clk.HasWaiters)
		d := lastDelay(log)
		delays = append(delays, d)
		clk.Step(d)
	}
	for i, d := range delays[:6] {
		lo := min(b.Duration<<i, b.Cap)
		if d < lo || d >= 2*lo {
			t.Errorf("backoff #%d = %v, want in [%v, %v)", i, d, lo, 2*lo)
		}
	}
	if d := delays[6]; d != 7*time.Second && d < 8*time.Second {
		t.Errorf("backoff after 429 Retry-After 7 = %v, want >= 7s", d)
	}
	mu.Lock()
	defer mu.Unlock()
	if lists != 1 {
		t.Errorf("LIST calls = %d, want 1 (500 and 429 are resumed, not relisted)", lists)
	}
}

// lastDelay is the delay of the last backoff traced.
func lastDelay(l *traceLog) time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	for i := len(l.events) - 1; i >= 0; i-- {
		if l.events[i].Kind == TraceBackoff {
			return l.events[i].Delay
		}
	}
	return 0
}
