package fakeapiserver

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"pgregory.net/rapid"

	"github.com/lw-sim/lw-sim/watchcheck"
)

// The apiserver instances under rapid: three instances over one store in
// one testing/synctest bubble; the machine writes through the first, which
// no fault touches, and draws the instance faults (a lag in writes or in
// time, a freeze, a partition, a restart, a heal) on the other two, LISTs
// at resourceVersion "0" and watches on any of the three. After every
// action, at a quiescent point:
//
//	cache lists   a LIST at "0" is exactly the history's state at the RV it
//	              reports, no instance's reported RV goes back, and none
//	              of its streams has delivered past it
//	streams       every stream, whichever instance served it, keeps
//	              watchcheck's guarantees against the one history
//	expired       a watch from below its instance's last restart gets the
//	              410 ERROR alone, and no other watch gets one
//	events        a LIST of Events (no watch cache: storage) at "0" on
//	              any instance holds every Event written, at an RV no
//	              older than the last, whatever the instance's faults;
//	              on a partitioned instance it is the 504
//
// and at the end, every instance healed: every open stream has caught up
// with the history.

// instanceNames are the machine's instances; the first is never faulted.
var instanceNames = []string{"apiserver-0", "apiserver-1", "apiserver-2"}

// instanceWatch is one watch the machine opened.
type instanceWatch struct {
	w        *rawWatch
	instance string
	base     int64
	expired  bool
}

// instanceChaos is the machine's state; hist is the model.
type instanceChaos struct {
	t       testing.TB
	b       *bubble
	cs      kubernetes.Interface
	rec     *watchcheck.Transport
	hist    watchcheck.History
	live    map[string]string // key → uid
	gen     int
	watches []*instanceWatch
	// lastRV0 is, per instance, the RV its last LIST at "0" reported;
	// restartRV the RV of its last restart.
	lastRV0, restartRV map[string]int64
	// partitioned is the instances cut off the store; events the names
	// of the Events written, the last at lastEventRV.
	partitioned map[string]bool
	events      []string
	lastEventRV int64
}

func newInstanceChaos(t testing.TB) *instanceChaos {
	b := newBubble(t, withAPIServers(len(instanceNames), BalanceRoundRobin), WithConfig(func(c *Config) {
		c.Watch.HistoryMinEvents = 10000 // no eviction: expiry comes from restarts only
		c.Watch.HistoryMinAge = -1
		c.Compaction.Interval = -1
	}))
	m := &instanceChaos{t: t, b: b, cs: b.pinned(t, instanceNames[0]), rec: &watchcheck.Transport{},
		live: map[string]string{}, lastRV0: map[string]int64{}, restartRV: map[string]int64{}, partitioned: map[string]bool{}}
	b.http.Transport = m.rec.Wrap(b.http.Transport)
	return m
}

// close stops every watch and the server.
func (m *instanceChaos) close() {
	for _, w := range m.watches {
		w.w.stop()
	}
	m.b.close(m.t)
	synctest.Wait()
}

// Write creates, updates or deletes a ConfigMap through the fresh instance.
func (m *instanceChaos) Write(rt *rapid.T) {
	name := rapid.SampledFrom([]string{"a", "b", "c"}).Draw(rt, "name")
	key := "default/" + name
	uid, exists := m.live[key]
	cms := m.cs.CoreV1().ConfigMaps("default")
	ctx := context.Background()
	if exists && rapid.IntRange(0, 2).Draw(rt, "delete") == 0 {
		if err := cms.Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
			rt.Fatalf("Delete(%s): %v", key, err)
		}
		m.hist = append(m.hist, watchcheck.Change{RV: m.b.srv.store.CurrentRV(), Key: key, UID: uid, Deleted: true})
		delete(m.live, key)
		return
	}
	m.gen++
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name}, Data: map[string]string{"n": strconv.Itoa(m.gen)}}
	var got *corev1.ConfigMap
	var err error
	if exists {
		got, err = cms.Update(ctx, cm, metav1.UpdateOptions{})
	} else {
		got, err = cms.Create(ctx, cm, metav1.CreateOptions{})
	}
	if err != nil {
		rt.Fatalf("write %s: %v", key, err)
	}
	rv, _ := strconv.ParseInt(got.ResourceVersion, 10, 64)
	m.live[key] = string(got.UID)
	m.hist = append(m.hist, watchcheck.Change{RV: rv, Key: key, UID: string(got.UID)})
}

// Fault changes one of the faulted instances.
func (m *instanceChaos) Fault(rt *rapid.T) {
	name := rapid.SampledFrom(instanceNames[1:]).Draw(rt, "instance")
	var err error
	switch kind := rapid.SampledFrom([]string{"lag", "lag-time", "freeze", "partition", "restart", "heal"}).Draw(rt, "fault"); kind {
	case "lag":
		err = m.b.srv.LagAPIServer(name, APIServerLag{Events: int64(rapid.IntRange(1, 4).Draw(rt, "events"))})
	case "lag-time":
		err = m.b.srv.LagAPIServer(name, APIServerLag{Duration: rapid.SampledFrom([]time.Duration{time.Second, 10 * time.Second}).Draw(rt, "duration")})
	case "freeze":
		err = m.b.srv.FreezeAPIServer(name, true)
	case "partition":
		err = m.b.srv.PartitionAPIServer(name, true)
		m.partitioned[name] = true
	case "restart":
		// The model's floor is the store's RV at the restart, not what
		// the server says it is.
		m.restartRV[name] = m.b.srv.store.CurrentRV()
		_, err = m.b.srv.RestartAPIServer(name)
	case "heal":
		err = m.b.srv.HealAPIServer(name)
		delete(m.partitioned, name)
	}
	if err != nil {
		rt.Fatalf("fault on %s: %v", name, err)
	}
	synctest.Wait() // the restarted instance's watches have ended
}

// WriteEvent creates an Event through the fresh instance.
func (m *instanceChaos) WriteEvent(rt *rapid.T) {
	name := "e" + strconv.Itoa(len(m.events))
	got, err := m.cs.CoreV1().Events("default").Create(context.Background(), newEvent("default", name), metav1.CreateOptions{})
	if err != nil {
		rt.Fatalf("create event %s: %v", name, err)
	}
	m.lastEventRV, _ = strconv.ParseInt(got.ResourceVersion, 10, 64)
	m.events = append(m.events, name)
}

// ListEventsRV0 lists Events at "0" on a random instance: storage, never
// a cache (events).
func (m *instanceChaos) ListEventsRV0(rt *rapid.T) {
	name := rapid.SampledFrom(instanceNames).Draw(rt, "instance")
	got, err := m.b.pinned(m.t, name).CoreV1().Events("default").List(context.Background(), metav1.ListOptions{ResourceVersion: "0"})
	if m.partitioned[name] {
		if !apierrors.IsTimeout(err) {
			rt.Fatalf("Events List(rv=0) on the partitioned %s = %v, want the 504 (events)", name, err)
		}
		return
	}
	if err != nil {
		rt.Fatalf("Events List(rv=0) on %s: %v", name, err)
	}
	if diff := cmp.Diff(m.events, eventNames(got.Items), cmpopts.EquateEmpty(), cmpopts.SortSlices(func(a, b string) bool { return a < b })); diff != "" {
		rt.Fatalf("Events List(rv=0) on %s (events) (-written +listed):\n%s", name, diff)
	}
	if rv, _ := strconv.ParseInt(got.ResourceVersion, 10, 64); rv < m.lastEventRV {
		rt.Fatalf("Events List(rv=0) on %s at rv %d, before the last Event's %d (events)", name, rv, m.lastEventRV)
	}
}

// Advance runs virtual time on (time lags, bookmarks).
func (m *instanceChaos) Advance(rt *rapid.T) {
	time.Sleep(rapid.SampledFrom([]time.Duration{time.Second, 10 * time.Second, 61 * time.Second}).Draw(rt, "advance"))
	synctest.Wait()
}

// ListRV0 lists at "0" on a random instance: the cache as it is.
func (m *instanceChaos) ListRV0(rt *rapid.T) {
	name := rapid.SampledFrom(instanceNames).Draw(rt, "instance")
	synctest.Wait() // the streams have delivered what they will at this instant
	streams := m.rec.Streams()
	got, err := m.b.pinned(m.t, name).CoreV1().ConfigMaps("default").List(context.Background(), metav1.ListOptions{ResourceVersion: "0"})
	if err != nil {
		rt.Fatalf("List(rv=0) on %s: %v", name, err)
	}
	rv, _ := strconv.ParseInt(got.ResourceVersion, 10, 64)
	if rv < m.lastRV0[name] {
		rt.Fatalf("List(rv=0) on %s at rv %d, after one at rv %d: the cache went back (cache lists)", name, rv, m.lastRV0[name])
	}
	m.lastRV0[name] = rv
	for i, s := range streams {
		if m.watches[i].instance != name {
			continue
		}
		for _, e := range s.Events {
			if e.Type != watch.Error && e.RV > rv {
				rt.Fatalf("stream %s on %s delivered rv %d, but its cache is at rv %d (cache lists)", s.Name, name, e.RV, rv)
			}
		}
	}
	want := map[string]string{}
	for _, c := range m.hist {
		if c.RV > rv {
			break
		}
		if c.Deleted {
			delete(want, c.Key)
		} else {
			want[c.Key] = strconv.FormatInt(c.RV, 10)
		}
	}
	have := map[string]string{}
	for _, it := range got.Items {
		have[it.Namespace+"/"+it.Name] = it.ResourceVersion
	}
	if diff := cmp.Diff(want, have, cmpopts.EquateEmpty()); diff != "" {
		rt.Fatalf("List(rv=0) on %s at rv %d is not the history's state there (cache lists) (-history +list):\n%s", name, rv, diff)
	}
}

// Watch opens a watch on a random instance from the current RV, an RV of
// the history or as a watch-list.
func (m *instanceChaos) Watch(rt *rapid.T) {
	name := rapid.SampledFrom(instanceNames).Draw(rt, "instance")
	q := url.Values{"watch": {"true"}, "timeoutSeconds": {"1800"}, "allowWatchBookmarks": {"true"}}
	iw := &instanceWatch{instance: name, base: m.b.srv.store.CurrentRV()}
	switch rapid.SampledFrom([]string{"current", "history", "watchList"}).Draw(rt, "start") {
	case "current":
		q.Set("resourceVersion", formatRV(iw.base))
	case "history":
		if len(m.hist) == 0 {
			rt.Skip("no history")
		}
		iw.base = m.hist[rapid.IntRange(0, len(m.hist)-1).Draw(rt, "from")].RV
		q.Set("resourceVersion", formatRV(iw.base))
	case "watchList":
		if slices.Contains([]string{"apiserver-1", "apiserver-2"}, name) {
			// A watch-list waits for its instance's cache to reach the
			// store (504 ERROR after 3 s on a frozen one): fine, but the
			// model has no use for its timing; keep them on the fresh one.
			name, iw.instance = instanceNames[0], instanceNames[0]
		}
		q.Set("sendInitialEvents", "true")
		q.Set("resourceVersionMatch", "NotOlderThan")
	}
	iw.expired = q.Get("sendInitialEvents") == "" && iw.base < m.restartRV[name]
	req, err := http.NewRequest(http.MethodGet, m.b.srv.URL()+"/api/v1/namespaces/default/configmaps?"+q.Encode(), nil)
	if err != nil {
		rt.Fatal(err)
	}
	req.Header.Set(APIServerHeader, name)
	iw.w = m.b.openWatchRequest(nopCleanup{m.t}, req)
	if iw.w.resp.StatusCode != http.StatusOK {
		rt.Fatalf("WATCH on %s: HTTP %d", name, iw.w.resp.StatusCode)
	}
	m.watches = append(m.watches, iw)
}

// Check: every stream keeps the guarantees, and the 410s are exactly the
// model's.
func (m *instanceChaos) Check(rt *rapid.T) {
	synctest.Wait()
	streams := m.rec.Streams()
	if len(streams) != len(m.watches) {
		rt.Fatalf("recorded %d streams for %d watches", len(streams), len(m.watches))
	}
	if err := watchcheck.Check(m.hist, streams...); err != nil {
		rt.Fatalf("history:\n%s\n%v (streams)", formatHistory(m.hist), err)
	}
	for i, s := range streams {
		w := m.watches[i]
		got410 := slices.ContainsFunc(s.Events, func(e watchcheck.Event) bool { return e.Type == watch.Error && e.Code == http.StatusGone })
		if got410 != w.expired {
			rt.Fatalf("stream %s on %s from rv %d (restart rv %d): got the 410 %v, want %v (expired); events %+v",
				s.Name, w.instance, w.base, m.restartRV[w.instance], got410, w.expired, s.Events)
		}
	}
}

// caughtUp heals every instance and checks that every open stream has
// delivered its whole history.
func (m *instanceChaos) caughtUp(rt *rapid.T) {
	for _, name := range instanceNames[1:] {
		if err := m.b.srv.HealAPIServer(name); err != nil {
			rt.Fatal(err)
		}
		delete(m.partitioned, name)
	}
	time.Sleep(time.Second)
	synctest.Wait()
	for i, s := range m.rec.Streams() {
		if isDone(m.watches[i].w) {
			continue
		}
		want, ok := watchcheck.Expected(m.hist, s)
		if !ok {
			continue
		}
		got := changesOf(s.Events)
		if diff := cmp.Diff(want, got, cmpopts.EquateEmpty(), cmpopts.IgnoreFields(watchcheck.Event{}, "Labels", "Fields")); diff != "" {
			rt.Fatalf("open stream %s on %s is not caught up once healed (-want +got):\n%s", s.Name, m.watches[i].instance, diff)
		}
	}
}

// TestRapidAPIServerInstances runs the machine; every check is one run on
// a fresh server, all in one synctest bubble.
func TestRapidAPIServerInstances(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		streams := 0
		rapid.Check(inBubble{t}, func(rt *rapid.T) {
			m := newInstanceChaos(t)
			defer m.close()
			rt.Repeat(rapid.StateMachineActions(m))
			m.caughtUp(rt)
			streams += len(m.rec.Streams())
		})
		t.Logf("checked %d streams", streams)
	})
}
