package fakeapiserver

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// pinTransport sends every request with the [APIServerHeader] of one
// instance and remembers the instance the last response named.
type pinTransport struct {
	name string
	next http.RoundTripper
}

func (p pinTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set(APIServerHeader, p.name)
	return p.next.RoundTrip(r)
}

// pinned returns a clientset of b whose requests all go to instance name.
func (b *bubble) pinned(t testing.TB, name string) kubernetes.Interface {
	t.Helper()
	rc := rest.CopyConfig(b.rest)
	rc.WrapTransport = func(rt http.RoundTripper) http.RoundTripper { return pinTransport{name: name, next: rt} }
	cs, err := kubernetes.NewForConfig(rc)
	if err != nil {
		t.Fatalf("NewForConfig: %v", err)
	}
	return cs
}

// withAPIServers runs n instances.
func withAPIServers(n int, balancing Balancing) Option {
	return WithConfig(func(c *Config) { c.APIServers = APIServersConfig{Count: n, Balancing: balancing} })
}

// cmNames lists the items' names.
func cmNames(items []corev1.ConfigMap) []string {
	out := make([]string, 0, len(items))
	for _, it := range items {
		out = append(out, it.Name)
	}
	return out
}

// TestAPIServerHeaderRoundRobin: every response, a watch's included, names
// its instance, and round robin takes them in turn.
func TestAPIServerHeaderRoundRobin(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := startBubble(t, withAPIServers(3, BalanceRoundRobin))
		var got []string
		for range 4 {
			resp, err := b.http.Get(b.srv.URL() + "/api/v1/namespaces/default/configmaps")
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			got = append(got, resp.Header.Get(APIServerHeader))
		}
		resp, err := b.http.Get(b.srv.URL() + "/api/v1/namespaces/default/configmaps?watch=1&timeoutSeconds=1")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		got = append(got, resp.Header.Get(APIServerHeader))
		want := []string{"apiserver-0", "apiserver-1", "apiserver-2", "apiserver-0", "apiserver-1"}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s of 5 requests (-want +got):\n%s", APIServerHeader, diff)
		}
	})
}

// TestOneAPIServerNamesItself: the default server is one instance, and
// says so.
func TestOneAPIServerNamesItself(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := startBubble(t)
		resp, err := b.http.Get(b.srv.URL() + "/api/v1/namespaces")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if got := resp.Header.Get(APIServerHeader); got != "apiserver-0" {
			t.Errorf("%s = %q, want apiserver-0", APIServerHeader, got)
		}
	})
}

// lagged starts two instances with apiserver-1 lagging two writes, then
// writes a, b, c: apiserver-1's cache has seen a only.
func lagged(t *testing.T) (b *bubble, fresh, stale kubernetes.Interface, rvs []int64) {
	b = startBubble(t, withAPIServers(2, BalanceRoundRobin))
	fresh, stale = b.pinned(t, "apiserver-0"), b.pinned(t, "apiserver-1")
	ensureNamespace(t, fresh, "t1")
	if err := b.srv.LagAPIServer("apiserver-1", APIServerLag{Events: 2}); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"a", "b", "c"} {
		rvs = append(rvs, createCM(t, fresh, newCM("t1", n, 0, nil)))
	}
	return b, fresh, stale, rvs
}

// TestLaggingCacheServesStaleRV0List: a LIST with resourceVersion "0" is
// the cache as it is (kubernetes#59848: a relist that goes back in time),
// at the cache's RV; the fresh instance has everything.
func TestLaggingCacheServesStaleRV0List(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		_, fresh, stale, rvs := lagged(t)
		got, err := stale.CoreV1().ConfigMaps("t1").List(t.Context(), metav1.ListOptions{ResourceVersion: "0"})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]string{"a"}, cmNames(got.Items)); diff != "" {
			t.Errorf("stale List(rv=0) (-want +got):\n%s", diff)
		}
		if want := formatRV(rvs[0]); got.ResourceVersion != want {
			t.Errorf("stale List(rv=0).resourceVersion = %s, want %s (the cache's)", got.ResourceVersion, want)
		}
		all, err := fresh.CoreV1().ConfigMaps("t1").List(t.Context(), metav1.ListOptions{ResourceVersion: "0"})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]string{"a", "b", "c"}, cmNames(all.Items)); diff != "" {
			t.Errorf("fresh List(rv=0) (-want +got):\n%s", diff)
		}
	})
}

// TestLaggingCacheNotOlderThanWaitsThen504: an RV the cache has not seen
// waits 3 s of the server's clock, then is the 504 naming the cache's RV;
// a write that brings the cache there ends the wait.
func TestLaggingCacheNotOlderThanWaitsThen504(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b, fresh, stale, rvs := lagged(t)
		start := time.Now()
		// Raw HTTP: client-go retries the 504's Retry-After ten times.
		req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, b.srv.URL()+"/api/v1/namespaces/t1/configmaps?resourceVersion="+formatRV(rvs[2]), nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set(APIServerHeader, "apiserver-1")
		resp, err := b.http.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if waited := time.Since(start); waited != freshnessTimeout {
			t.Errorf("List(rv=%d) waited %v, want %v", rvs[2], waited, freshnessTimeout)
		}
		wantMsg := fmt.Sprintf("Too large resource version: %d, current: %d", rvs[2], rvs[0])
		if resp.StatusCode != http.StatusGatewayTimeout || !strings.Contains(string(body), wantMsg) {
			t.Fatalf("List(rv=%d) on the stale instance = %d %s, want 504 %q", rvs[2], resp.StatusCode, body, wantMsg)
		}
		done := make(chan error, 1)
		go func() {
			_, err := stale.CoreV1().ConfigMaps("t1").Get(t.Context(), "b", metav1.GetOptions{ResourceVersion: formatRV(rvs[1])})
			done <- err
		}()
		synctest.Wait()
		createCM(t, fresh, newCM("t1", "d", 0, nil)) // the cache reaches b
		if err := <-done; err != nil {
			t.Errorf("Get(b, rv=%d) once the cache reached it = %v, want b", rvs[1], err)
		}
	})
}

// TestLaggingCacheConsistentListFallsBack: a consistent LIST waits for the
// cache to reach the store's RV, then reads storage: the latest state,
// never the stale one.
func TestLaggingCacheConsistentListFallsBack(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		_, _, stale, _ := lagged(t)
		start := time.Now()
		got, err := stale.CoreV1().ConfigMaps("t1").List(t.Context(), metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if waited := time.Since(start); waited != freshnessTimeout {
			t.Errorf("consistent List waited %v, want %v", waited, freshnessTimeout)
		}
		if diff := cmp.Diff([]string{"a", "b", "c"}, cmNames(got.Items)); diff != "" {
			t.Errorf("consistent List on the stale instance (-want +got):\n%s", diff)
		}
	})
}

// TestLaggingCacheGet: GET with resourceVersion "0" reads the cache (c is
// not there yet); without one it reads storage.
func TestLaggingCacheGet(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		_, _, stale, _ := lagged(t)
		_, err := stale.CoreV1().ConfigMaps("t1").Get(t.Context(), "c", metav1.GetOptions{ResourceVersion: "0"})
		if !apierrors.IsNotFound(err) {
			t.Errorf("Get(c, rv=0) on the stale instance = %v, want 404", err)
		}
		if _, err := stale.CoreV1().ConfigMaps("t1").Get(t.Context(), "c", metav1.GetOptions{}); err != nil {
			t.Errorf("Get(c) on the stale instance = %v, want c from storage", err)
		}
	})
}

// TestLaggingCacheWatchSeesOnlyWhatItHas: a watch on the stale instance
// gets an event once its cache has it, in order.
func TestLaggingCacheWatchSeesOnlyWhatItHas(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		_, fresh, stale, rvs := lagged(t)
		w, err := stale.CoreV1().ConfigMaps("t1").Watch(t.Context(), metav1.ListOptions{ResourceVersion: formatRV(rvs[0] - 1)})
		if err != nil {
			t.Fatal(err)
		}
		defer w.Stop()
		ev := <-w.ResultChan()
		if got := ev.Object.(*corev1.ConfigMap).Name; ev.Type != watch.Added || got != "a" {
			t.Fatalf("first event = %s %s, want ADDED a", ev.Type, got)
		}
		synctest.Wait()
		select {
		case ev := <-w.ResultChan():
			t.Fatalf("event %s before the cache had it", ev.Type)
		default:
		}
		createCM(t, fresh, newCM("t1", "d", 0, nil))
		ev = <-w.ResultChan()
		if got := ev.Object.(*corev1.ConfigMap).Name; got != "b" {
			t.Fatalf("event after one more write = %s, want b", got)
		}
	})
}

// TestRestartedAPIServerEndsWatchesAndRefusesOlderRVs: a restart ends the
// instance's watches (not the other's) and a watch from below the restart
// RV gets the cacher's 410.
func TestRestartedAPIServerEndsWatchesAndRefusesOlderRVs(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := startBubble(t, withAPIServers(2, BalanceRoundRobin))
		one, other := b.pinned(t, "apiserver-1"), b.pinned(t, "apiserver-0")
		ensureNamespace(t, one, "t1")
		rv := createCM(t, one, newCM("t1", "a", 0, nil))
		w1, err := one.CoreV1().ConfigMaps("t1").Watch(t.Context(), metav1.ListOptions{ResourceVersion: formatRV(rv)})
		if err != nil {
			t.Fatal(err)
		}
		defer w1.Stop()
		w0, err := other.CoreV1().ConfigMaps("t1").Watch(t.Context(), metav1.ListOptions{ResourceVersion: formatRV(rv)})
		if err != nil {
			t.Fatal(err)
		}
		defer w0.Stop()
		createCM(t, one, newCM("t1", "b", 0, nil))
		restartRV, err := b.srv.RestartAPIServer("apiserver-1")
		if err != nil {
			t.Fatal(err)
		}
		for ev := range w1.ResultChan() {
			if ev.Type != watch.Added {
				t.Errorf("restarted instance's watch sent %s, want only ADDED b then its end", ev.Type)
			}
		}
		synctest.Wait()
		if ev, ok := <-w0.ResultChan(); !ok || ev.Type != watch.Added {
			t.Errorf("the other instance's watch = %v, %v; want ADDED b, still open", ev.Type, ok)
		}
		w, err := one.CoreV1().ConfigMaps("t1").Watch(t.Context(), metav1.ListOptions{ResourceVersion: formatRV(rv)})
		if err != nil {
			t.Fatal(err)
		}
		defer w.Stop()
		ev := <-w.ResultChan()
		st, _ := ev.Object.(*metav1.Status)
		want := "too old resource version: " + formatRV(rv) + " (" + formatRV(restartRV) + ")"
		if ev.Type != watch.Error || st == nil || st.Code != http.StatusGone || st.Message != want {
			t.Errorf("watch from rv %d after the restart = %s %+v, want ERROR 410 %q", rv, ev.Type, st, want)
		}
	})
}

// TestRestartedAPIServerEndsWaitingWatchList: a watch-list waiting for its
// RV when its instance restarts is one of the instance's watches: the
// restart ends it, with no initial events and no ERROR, though the store
// reaches the RV within its 3 s. This is the restart that lands after a
// watch's headers and before it begins to follow (what made
// TestRestartedAPIServerEndsWatchesAndRefusesOlderRVs flaky), made
// deterministic by the wait: before the watch was registered ahead of its
// headers, it took the restart channel after it, missed the restart, sent
// the initial events and stayed open until its timeout.
func TestRestartedAPIServerEndsWaitingWatchList(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := startBubble(t, withAPIServers(2, BalanceRoundRobin))
		one := b.pinned(t, "apiserver-1")
		ensureNamespace(t, one, "t1")
		rv := createCM(t, one, newCM("t1", "a", 0, nil))
		w, err := one.CoreV1().ConfigMaps("t1").Watch(t.Context(), metav1.ListOptions{
			SendInitialEvents: ptrTo(true), ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan,
			AllowWatchBookmarks: true, ResourceVersion: formatRV(rv + 1),
		})
		if err != nil {
			t.Fatal(err)
		}
		defer w.Stop()
		synctest.Wait() // the watch has its headers and waits for rv+1
		restarted := time.Now()
		if _, err := b.srv.RestartAPIServer("apiserver-1"); err != nil {
			t.Fatal(err)
		}
		createCM(t, one, newCM("t1", "b", 0, nil)) // the store reaches rv+1
		for ev := range w.ResultChan() {
			t.Errorf("watch-list waiting across the restart sent %s, want nothing, then its end", ev.Type)
		}
		if d := time.Since(restarted); d != 0 {
			t.Errorf("watch-list ended %v after the restart, want at the write that ended its wait", d)
		}
	})
}

// TestPartitionedAPIServer: writes and storage reads time out, cache reads
// serve what the cache has; healing restores both.
func TestPartitionedAPIServer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := startBubble(t, withAPIServers(2, BalanceRoundRobin))
		cut := b.pinned(t, "apiserver-1")
		ensureNamespace(t, cut, "t1")
		createCM(t, cut, newCM("t1", "a", 0, nil))
		if err := b.srv.PartitionAPIServer("apiserver-1", true); err != nil {
			t.Fatal(err)
		}
		_, err := cut.CoreV1().ConfigMaps("t1").Create(t.Context(), newCM("t1", "b", 0, nil), metav1.CreateOptions{})
		if !apierrors.IsTimeout(err) {
			t.Errorf("Create on the partitioned instance = %v, want 504 Timeout", err)
		}
		if _, err := cut.CoreV1().ConfigMaps("t1").Get(t.Context(), "a", metav1.GetOptions{}); !apierrors.IsTimeout(err) {
			t.Errorf("Get(a) from storage on the partitioned instance = %v, want 504 Timeout", err)
		}
		if _, err := cut.CoreV1().ConfigMaps("t1").Get(t.Context(), "a", metav1.GetOptions{ResourceVersion: "0"}); err != nil {
			t.Errorf("Get(a, rv=0) from the partitioned instance's cache = %v, want a", err)
		}
		if err := b.srv.HealAPIServer("apiserver-1"); err != nil {
			t.Fatal(err)
		}
		if _, err := cut.CoreV1().ConfigMaps("t1").Create(t.Context(), newCM("t1", "b", 0, nil), metav1.CreateOptions{}); err != nil {
			t.Errorf("Create after healing = %v", err)
		}
	})
}

// TestTimeLaggedCache: with a lag in time, a write is in the cache that
// long after it committed, on the server's clock, for lists and watches.
func TestTimeLaggedCache(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := startBubble(t, withAPIServers(2, BalanceRoundRobin))
		fresh, stale := b.pinned(t, "apiserver-0"), b.pinned(t, "apiserver-1")
		ensureNamespace(t, fresh, "t1")
		if err := b.srv.LagAPIServer("apiserver-1", APIServerLag{Duration: 10 * time.Second}); err != nil {
			t.Fatal(err)
		}
		w, err := stale.CoreV1().ConfigMaps("t1").Watch(t.Context(), metav1.ListOptions{ResourceVersion: formatRV(b.srv.store.CurrentRV())})
		if err != nil {
			t.Fatal(err)
		}
		defer w.Stop()
		start := time.Now()
		createCM(t, fresh, newCM("t1", "a", 0, nil))
		list := func() []string {
			got, err := stale.CoreV1().ConfigMaps("t1").List(t.Context(), metav1.ListOptions{ResourceVersion: "0"})
			if err != nil {
				t.Fatal(err)
			}
			return cmNames(got.Items)
		}
		if got := list(); len(got) != 0 {
			t.Errorf("List(rv=0) at once = %v, want nothing yet", got)
		}
		ev := <-w.ResultChan()
		if got := time.Since(start); ev.Type != watch.Added || got != 10*time.Second {
			t.Errorf("watch event %s after %v, want ADDED after 10s", ev.Type, got)
		}
		if diff := cmp.Diff([]string{"a"}, list()); diff != "" {
			t.Errorf("List(rv=0) after 10s (-want +got):\n%s", diff)
		}
	})
}

// TestWatchListInitialStateFixedBeforeHeaders: a watch-list's initial
// state is the one at the RV fixed before its headers went out, as the
// cacher takes its initial events before the handler writes them. A write
// the client makes once Watch has returned is an event after that state,
// even while the watch still waits for a stale cache: folded into the
// initial state, a create and a label change that moves the object out of
// the selector would be two events lost.
func TestWatchListInitialStateFixedBeforeHeaders(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := startBubble(t, withAPIServers(2, BalanceRoundRobin))
		fresh, stale := b.pinned(t, "apiserver-0"), b.pinned(t, "apiserver-1")
		ensureNamespace(t, fresh, "t1")
		if err := b.srv.LagAPIServer("apiserver-1", APIServerLag{Duration: 2 * time.Second}); err != nil {
			t.Fatal(err)
		}
		createCM(t, fresh, newCM("t1", "seed", 0, nil)) // in the stale cache 2s from now
		w, err := stale.CoreV1().ConfigMaps("t1").Watch(t.Context(), metav1.ListOptions{
			SendInitialEvents: ptrTo(true), ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan,
			AllowWatchBookmarks: true, LabelSelector: "app=a",
		})
		if err != nil {
			t.Fatal(err)
		}
		defer w.Stop()
		// The watch has its headers and waits for the cache to reach the
		// seed's write; these two land in the cache with it.
		createCM(t, fresh, newCM("t1", "x", 0, map[string]string{"app": "a"}))
		if _, err := fresh.CoreV1().ConfigMaps("t1").Patch(t.Context(), "x", types.MergePatchType,
			[]byte(`{"metadata":{"labels":{"app":"b"}}}`), metav1.PatchOptions{}); err != nil {
			t.Fatal(err)
		}
		var got []string
		for ev := range w.ResultChan() {
			if ev.Type == watch.Bookmark {
				continue
			}
			got = append(got, string(ev.Type)+" "+ev.Object.(*corev1.ConfigMap).Name)
			if len(got) == 2 {
				break
			}
		}
		if diff := cmp.Diff([]string{"ADDED x", "DELETED x"}, got); diff != "" {
			t.Errorf("watch-list events after its initial state (-want +got):\n%s", diff)
		}
	})
}
