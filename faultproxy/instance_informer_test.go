package faultproxy

import (
	"context"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"

	"github.com/lw-sim/lw-sim/faults"
	"github.com/lw-sim/lw-sim/watchcheck"
)

// noWatchList hides watch-list support from the Reflector, as
// KUBE_FEATURE_WatchListClient=false does for the whole process.
type noWatchList struct{ *cache.ListWatch }

func (noWatchList) IsWatchListSemanticsUnSupported() bool { return true }

// requestLog records the URIs of an informer's requests.
type requestLog struct {
	mu   sync.Mutex
	uris []string
}

func (l *requestLog) wrap(rt http.RoundTripper) http.RoundTripper {
	return roundTripFunc(func(req *http.Request) (*http.Response, error) {
		l.mu.Lock()
		l.uris = append(l.uris, req.URL.RequestURI())
		l.mu.Unlock()
		return rt.RoundTrip(req)
	})
}

// since returns the URIs from mark on, and the new mark.
func (l *requestLog) since(mark int) ([]string, int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.uris[mark:]), len(l.uris)
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// informerThrough runs a ConfigMap informer of default with cfg (watch-list
// or LIST then WATCH) until the test ends.
func informerThrough(t *testing.T, cfg *rest.Config, watchList bool) cache.SharedIndexInformer {
	t.Helper()
	cms := kubernetes.NewForConfigOrDie(cfg).CoreV1().ConfigMaps("default")
	lw := &cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
			return cms.List(ctx, o)
		},
		WatchFuncWithContext: cms.Watch,
	}
	var lwi cache.ListerWatcher = lw
	if !watchList {
		lwi = noWatchList{lw}
	}
	inf := cache.NewSharedIndexInformerWithOptions(lwi, &corev1.ConfigMap{}, cache.SharedIndexInformerOptions{})
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { inf.RunWithContext(ctx) })
	t.Cleanup(func() { cancel(); wg.Wait() })
	return inf
}

// storeState is an informer store as name → RV.
func storeState(inf cache.SharedIndexInformer) map[string]string {
	out := map[string]string{}
	for _, o := range inf.GetStore().List() {
		cm := o.(*corev1.ConfigMap)
		out[cm.Name] = cm.ResourceVersion
	}
	return out
}

// upstreamState is default's ConfigMaps as name → RV, read upstream, and
// the list's RV.
func upstreamState(t *testing.T, tg target) (map[string]string, string) {
	t.Helper()
	l, err := tg.writer.CoreV1().ConfigMaps("default").List(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, cm := range l.Items {
		out[cm.Name] = cm.ResourceVersion
	}
	return out, l.ResourceVersion
}

// TestProxyFreezeInformerConverges: an informer through a frozen proxy
// sees none of the writes made meanwhile; healed, it converges to the
// upstream's state, and every stream it got keeps etcd's watch guarantees
// against the history of the writes (in order, no gap, no repeat).
func TestProxyFreezeInformerConverges(t *testing.T) {
	for _, watchList := range []bool{false, true} {
		t.Run("WatchListClient="+strconv.FormatBool(watchList), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				tg := proxiedTarget(t)
				var rec watchcheck.Transport
				cfg := rest.CopyConfig(tg.rest)
				cfg.ContentType, cfg.AcceptContentTypes = "application/json", "application/json"
				cfg.WrapTransport = rec.Wrap
				wcms := tg.writer.CoreV1().ConfigMaps("default")
				ctx := context.Background()
				var h watchcheck.History
				write := func(name, app string) {
					cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"app": app}}}
					got, err := wcms.Update(ctx, cm, metav1.UpdateOptions{})
					if err != nil {
						got, err = wcms.Create(ctx, cm, metav1.CreateOptions{})
					}
					if err != nil {
						t.Fatal(err)
					}
					h = append(h, watchcheck.Change{RV: mustRV(got.ResourceVersion), Key: "default/" + name, UID: string(got.UID), Labels: maps.Clone(got.Labels)})
				}
				del := func(name string) {
					var last watchcheck.Change
					for _, c := range h {
						if c.Key == "default/"+name {
							last = c
						}
					}
					if err := wcms.Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
						t.Fatal(err)
					}
					_, rv := upstreamState(t, tg) // no other writer: its RV is the delete's
					h = append(h, watchcheck.Change{RV: mustRV(rv), Key: last.Key, UID: last.UID, Deleted: true, Labels: last.Labels})
				}
				write("a", "x")
				write("b", "x")
				inf := informerThrough(t, cfg, watchList)
				synctest.Wait()
				before := storeState(inf)
				if want, _ := upstreamState(t, tg); !inf.HasSynced() || !cmp.Equal(want, before) {
					t.Fatalf("informer before the freeze: synced %v, %v, want %v", inf.HasSynced(), before, want)
				}

				if _, err := tg.inj.Add(faults.Fault{Kind: faults.FreezeAPIServer}); err != nil {
					t.Fatal(err)
				}
				write("a", "y")
				write("c", "x")
				del("b")
				time.Sleep(2 * time.Minute) // bookmarks and all: nothing gets through
				synctest.Wait()
				if diff := cmp.Diff(before, storeState(inf)); diff != "" {
					t.Errorf("informer moved while the proxy was frozen (-before +now):\n%s", diff)
				}

				if _, err := tg.inj.Add(faults.Fault{Kind: faults.HealAPIServer}); err != nil {
					t.Fatal(err)
				}
				synctest.Wait()
				want, _ := upstreamState(t, tg)
				if diff := cmp.Diff(want, storeState(inf)); diff != "" {
					t.Errorf("informer after heal (-upstream +informer):\n%s", diff)
				}
				streams := rec.Streams()
				t.Logf("%d streams recorded, %d events on the last", len(streams), len(streams[len(streams)-1].Events))
				if len(streams) == 0 {
					t.Fatal("no watch stream recorded")
				}
				if err := watchcheck.Check(h, streams...); err != nil {
					t.Error(err)
				}
			})
		})
	}
}

// TestProxyRestartInformerRelists: a restart ends the informer's watch;
// its re-watch from an RV below the restart point (the RV moved on with a
// write elsewhere) gets the 410 ERROR, and the Reflector relists (a LIST,
// or a watch-list) and sees later writes.
func TestProxyRestartInformerRelists(t *testing.T) {
	for _, watchList := range []bool{false, true} {
		t.Run("WatchListClient="+strconv.FormatBool(watchList), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				tg := proxiedTarget(t)
				tg.create(t, "a")
				var log requestLog
				cfg := rest.CopyConfig(tg.rest)
				cfg.WrapTransport = log.wrap
				inf := informerThrough(t, cfg, watchList)
				synctest.Wait()
				if !inf.HasSynced() {
					t.Fatal("informer not synced")
				}
				// A watch shorter than a second ends in a relist anyway
				// (client-go's "very short watch"): let it last.
				time.Sleep(10 * time.Second)
				_, mark := log.since(0)
				if _, err := tg.writer.CoreV1().Secrets("default").Create(t.Context(), &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "s"}}, metav1.CreateOptions{}); err != nil {
					t.Fatal(err)
				}
				if _, err := tg.inj.Add(faults.Fault{Kind: faults.RestartAPIServer}); err != nil {
					t.Fatal(err)
				}
				time.Sleep(time.Minute) // the Reflector's backoff
				synctest.Wait()
				uris, _ := log.since(mark)
				t.Logf("requests after the restart: %q", uris)
				// The re-watch from the informer's RV (the 410), then the
				// relist (from that RV: a Reflector forgets its RV only when
				// a LIST says it expired).
				if len(uris) < 2 || !strings.Contains(uris[0], "watch=true") || strings.Contains(uris[0], "sendInitialEvents") {
					t.Errorf("requests after the restart %q, want a re-watch first", uris)
				}
				relisted := slices.ContainsFunc(uris, func(u string) bool {
					if watchList {
						return strings.Contains(u, "sendInitialEvents=true")
					}
					return !strings.Contains(u, "watch=")
				})
				if !relisted {
					t.Errorf("no relist after the restart; requests: %q", uris)
				}
				tg.create(t, "after")
				synctest.Wait()
				want, _ := upstreamState(t, tg)
				if diff := cmp.Diff(want, storeState(inf)); diff != "" {
					t.Errorf("informer after the restart (-upstream +informer):\n%s", diff)
				}
				recs := tg.inj.Records()
				if len(recs) != 1 || !strings.Contains(recs[0].Detail, "from a LIST of namespaces upstream") {
					t.Errorf("records %+v, want the restart with its RV from upstream", recs)
				}
			})
		})
	}
}
