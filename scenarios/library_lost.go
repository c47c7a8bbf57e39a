package scenarios

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/lw-sim/lw-sim/listwatch"
)

// laneNaive is the lane of the deliberately wrong client of lost-events.
const laneNaive = "naive"

// naiveCache is what the naive client of lost-events believes: the names
// it has, from the events it applied.
type naiveCache map[string]bool

// apply applies a watch event the way a client that trusts every event
// does.
func (c naiveCache) apply(ev WatchEvent) {
	name := strings.TrimPrefix(ev.Key, Namespace+"/")
	switch ev.Type {
	case watch.Added, watch.Modified:
		c[name] = true
	case watch.Deleted:
		delete(c, name)
	}
}

func (c naiveCache) String() string {
	return "[" + strings.Join(slices.Sorted(maps.Keys(c)), " ") + "]"
}

func lostEvents() *Scenario {
	return &Scenario{
		Name:    "lost-events",
		Answers: []QuestionID{QWatchLostEvents},
		Summary: "Events are lost by clients, not by the server: a naive client that resumes from a stale RV, ignores the ERROR 410 event and re-watches without relisting keeps an object that was deleted, while the listwatch client, next to it, relists, diffs and ends equal to the server.",
		Seed:    13,
		Steps: func(e *Env) error {
			r := &lostRun{e: e, cache: naiveCache{}}
			return phases(r.startListwatch, r.naiveSyncs, r.restartAndChange, r.naiveMistakes, r.listwatchRecovers)
		},
	}
}

// lostRun is the state lost-events carries from phase to phase.
type lostRun struct {
	e *Env
	c *Client
	// listRV is the naive client's LIST's RV; lastRV the RV of the last
	// event it applied.
	listRV, lastRV string
	cache          naiveCache
	w1             *Stream
}

// startListwatch starts the correct client next to which the naive one
// runs.
func (r *lostRun) startListwatch() error {
	if _, err := createShuffled(r.e, []string{"alpha", "bravo"}); err != nil {
		return err
	}
	c, err := r.e.StartClient(Namespace, listwatch.Options{})
	if err != nil {
		return err
	}
	r.c = c
	return awaitClientWatching(r.e)
}

// naiveSyncs lists and watches from the list's RV, as both clients do,
// and applies one event.
func (r *lostRun) naiveSyncs() error {
	e := r.e
	e.Note("the naive client lists and watches from the list's RV, and applies every event it reads")
	e.SetLane(laneNaive)
	defer e.SetLane("")
	list, err := e.Get(cmPath)
	if err != nil {
		return err
	}
	r.listRV = list.RV
	for _, n := range list.Names {
		r.cache[n] = true
	}
	if r.w1, err = e.Watch(cmPath + "?watch=true&resourceVersion=" + list.RV); err != nil {
		return err
	}
	if _, err := e.Update(Namespace, "alpha", "2"); err != nil {
		return err
	}
	ev, err := r.w1.Expect(watch.Modified, key("alpha"))
	if err != nil {
		return err
	}
	r.cache.apply(ev)
	r.lastRV = ev.RV
	return e.AwaitClient("alpha applied", func(en Entry) bool { return IsClientEntry(en, listwatch.TraceApplied) })
}

// restartAndChange ends both clients' watches with an apiserver restart
// and changes objects while they are away.
func (r *lostRun) restartAndChange() error {
	e := r.e
	if _, err := e.Create(OtherNamespace, "noise", "x"); err != nil {
		return err
	}
	e.RestartWatchCache()
	if err := r.w1.ExpectEnd(); err != nil {
		return err
	}
	if err := awaitBackoff(e); err != nil {
		return err
	}
	e.Note("both clients are disconnected; meanwhile bravo is deleted and charlie created")
	if _, err := e.Delete(Namespace, "bravo"); err != nil {
		return err
	}
	_, err := e.Create(Namespace, "charlie", "1")
	return err
}

// naiveMistakes plays the naive client's three mistakes: a stale resume,
// the ERROR event ignored, a re-watch instead of a relist.
func (r *lostRun) naiveMistakes() error {
	e := r.e
	e.SetLane(laneNaive)
	defer e.SetLane("")
	e.Note("mistake 1: the naive client resumes from a stale RV, its LIST's %s, not the last event it processed (%s)", r.listRV, r.lastRV)
	w2, err := e.Watch(cmPath + "?watch=true&resourceVersion=" + r.listRV)
	if err != nil {
		return err
	}
	errEv, err := w2.Next()
	if err != nil {
		return err
	}
	if err := e.Expect(errEv.Type == watch.Error && errEv.Status != nil && errEv.Status.Code == 410,
		"the server answers the stale RV with ERROR 410 Expired, in an HTTP 200 stream"); err != nil {
		return err
	}
	if err := w2.ExpectEnd(); err != nil {
		return err
	}
	e.Note("mistake 2: the naive client ignores the ERROR event (not an object: nothing to apply) and takes the end for a timeout; its cache is now %s", r.cache)
	e.Note("mistake 3: it does not relist; it re-watches with no resourceVersion, whose ADDED replay looks like a resync")
	w3, err := e.Watch(cmPath + "?watch=true")
	if err != nil {
		return err
	}
	defer w3.Close()
	for _, n := range []string{"alpha", "charlie"} {
		ev, err := w3.Expect(watch.Added, key(n))
		if err != nil {
			return err
		}
		r.cache.apply(ev)
	}
	return nil
}

// listwatchRecovers lets the listwatch client relist and compares both
// clients with the server.
func (r *lostRun) listwatchRecovers() error {
	e := r.e
	e.Note("the listwatch client got the same 410 when it resumed from its last RV; after its backoff it relists and diffs")
	e.Step(scenarioBackoff.Duration)
	if err := awaitRelist(e); err != nil {
		return err
	}
	server, err := e.quiet.CoreV1().ConfigMaps(Namespace).List(e.Context(), metav1.ListOptions{})
	if err != nil {
		return err
	}
	want := naiveCache{}
	for _, it := range server.Items {
		want[it.Name] = true
	}
	got := naiveCache{}
	for _, o := range r.c.Indexer().List() {
		got[o.(*corev1.ConfigMap).Name] = true
	}
	if err := e.Expect(got.String() == want.String(), "listwatch's store %s equals the server's %s: the relist's diff reported bravo deleted", got, want); err != nil {
		return err
	}
	return e.Expect(r.cache["bravo"] && !want["bravo"],
		"%s", fmt.Sprintf("the naive client's cache %s still has bravo, deleted on the server: a no-RV watch replays what exists, never what was deleted; the DELETED event is lost for good", r.cache))
}
