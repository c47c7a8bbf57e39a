package bench

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// FanoutStats is what one watch fan-out round cost.
type FanoutStats struct {
	Watchers, Writes int
	// Elapsed runs from the first write to the last event's arrival at
	// the last watcher.
	Elapsed time.Duration
}

// EventsPerSecond is the events delivered per second over all watchers.
func (s FanoutStats) EventsPerSecond() float64 {
	return float64(s.Watchers*s.Writes) / s.Elapsed.Seconds()
}

// fanout opens watchers JSON watches on ns's configmaps, creates writes
// configmaps (named after round, so rounds in one namespace do not
// collide) with the given number of concurrent workers, and waits until
// every watcher has read every ADDED event. The watch streams are read as
// lines (one event per line), not decoded.
func fanout(ctx context.Context, c *clients, ns string, round, watchers, writes, workers int) (FanoutStats, error) {
	return fanoutOpened(ctx, c, ns, round, watchers, writes, workers, nil)
}

// fanoutOpened is fanout calling opened, if set, once every watch is open
// and before the first write.
func fanoutOpened(ctx context.Context, c *clients, ns string, round, watchers, writes, workers int, opened func()) (FanoutStats, error) {
	return fanoutOf(ctx, c, fanoutKind{
		path: "/api/v1/namespaces/" + ns + "/configmaps",
		rv:   func(ctx context.Context) (string, error) { return configMapsRV(ctx, c, ns) },
		create: func(ctx context.Context, n, workers int) error {
			return createConfigMaps(ctx, c, ns, round, n, workers)
		},
	}, watchers, writes, workers, opened)
}

// fanoutKind is the collection a fan-out watches and how it writes to it.
type fanoutKind struct {
	// path is the collection's path (one namespace's).
	path string
	// rv is the resourceVersion the watches start from.
	rv func(ctx context.Context) (string, error)
	// create creates n objects of the round with that many workers.
	create func(ctx context.Context, n, workers int) error
}

// fanoutOf is fanoutOpened for any collection: watchers JSON watches of
// k.path from k.rv, then k.create of writes objects, until every watcher
// has read every ADDED event.
func fanoutOf(ctx context.Context, c *clients, k fanoutKind, watchers, writes, workers int, opened func()) (FanoutStats, error) {
	st := FanoutStats{Watchers: watchers, Writes: writes}
	rv, err := k.rv(ctx)
	if err != nil {
		return st, err
	}
	// Deferred calls run last first: cancel, then the wait, so on an
	// early return every reader ends with its stream.
	var wg sync.WaitGroup
	defer wg.Wait()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan error, watchers)
	for range watchers {
		resp, err := openWatch(ctx, c, k.path, rv)
		if err != nil {
			return st, err
		}
		wg.Go(func() { done <- countEvents(resp, writes) })
	}
	if opened != nil {
		opened()
	}
	start := time.Now()
	if err := k.create(ctx, writes, workers); err != nil {
		return st, err
	}
	for range watchers {
		if err := <-done; err != nil {
			return st, err
		}
	}
	st.Elapsed = time.Since(start)
	return st, nil
}

// configMapsRV is the resourceVersion of a LIST of ns's configmaps.
func configMapsRV(ctx context.Context, c *clients, ns string) (string, error) {
	l, err := c.cs.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{Limit: 1})
	if err != nil {
		return "", fmt.Errorf("list configmaps: %w", err)
	}
	return l.ResourceVersion, nil
}

// openWatch starts a JSON watch of the collection at path from rv; it
// returns once the server has sent the response headers.
func openWatch(ctx context.Context, c *clients, path, rv string) (*http.Response, error) {
	resp, err := c.get(ctx, path+"?watch=true&resourceVersion="+rv, jsonType)
	if err != nil {
		return nil, fmt.Errorf("watch %s: %w", path, err)
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		return nil, fmt.Errorf("watch %s: %s", path, resp.Status)
	}
	return resp, nil
}

// errWatchClosed is a watch the server ended before it delivered every
// event of the round. kube-apiserver does that to a watcher whose buffer
// stayed full (the cacher's slow-watcher rule), which a busy machine's
// bench client can be.
var errWatchClosed = errors.New("stream closed")

// countEvents reads a JSON watch stream until it has seen want ADDED
// events, then closes it.
func countEvents(resp *http.Response, want int) error {
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	added := []byte(`{"type":"ADDED"`)
	for n := 0; n < want; {
		if !sc.Scan() {
			return fmt.Errorf("watch ended after %d of %d events: %w", n, want, errors.Join(sc.Err(), errWatchClosed))
		}
		if bytes.HasPrefix(sc.Bytes(), added) {
			n++
		}
	}
	return nil
}

// createConfigMaps creates n small configmaps of a round in ns with the
// given number of concurrent workers.
func createConfigMaps(ctx context.Context, c *clients, ns string, round, n, workers int) error {
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := range workers {
		wg.Go(func() {
			for i := w; i < n; i += workers {
				cm := &corev1.ConfigMap{
					ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("cm-%d-%06d", round, i)},
					Data:       map[string]string{"key": "value"},
				}
				if _, err := c.cs.CoreV1().ConfigMaps(ns).Create(ctx, cm, metav1.CreateOptions{}); err != nil {
					errs <- fmt.Errorf("create configmap %d: %w", i, err)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	return <-errs
}
