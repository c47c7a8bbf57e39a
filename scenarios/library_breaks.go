package scenarios

import (
	"sort"
	"strings"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/lw-sim/lw-sim/listwatch"
)

func noLostEvents() *Scenario {
	return &Scenario{
		Name:    "no-lost-events",
		Answers: []QuestionID{QWatchLostEvents, QWatchBreaks},
		Summary: "No event is lost if the client resumes from the last RV it processed: a re-watch replays every missed change; after a 410 a relist plus a diff against the local store recovers the rest (the listwatch client does both).",
		Seed:    6,
		Steps: func(e *Env) error {
			r := &noLostRun{e: e}
			return phases(r.disconnect, r.changeWhileAway, r.resumeReplays, r.clientRelists, r.storeEqualsServer)
		},
	}
}

// phases runs a scenario's phases in order and stops at the first error.
func phases(ps ...func() error) error {
	for _, p := range ps {
		if err := p(); err != nil {
			return err
		}
	}
	return nil
}

// noLostRun is the state no-lost-events carries from phase to phase.
type noLostRun struct {
	e *Env
	// last is the RV of the last event the raw client processed.
	last   string
	missed []missedChange
	c      *Client
}

// missedChange is a change made while the raw client was away.
type missedChange struct {
	typ      watch.EventType
	name, rv string
}

// disconnect lists, watches with a 5 s timeout, processes one event and
// lets the server end the watch.
func (r *noLostRun) disconnect() error {
	e := r.e
	if _, err := createShuffled(e, []string{"alpha", "bravo"}); err != nil {
		return err
	}
	list, err := e.Get(cmPath)
	if err != nil {
		return err
	}
	w1, err := e.Watch(cmPath + "?watch=true&timeoutSeconds=5&resourceVersion=" + list.RV)
	if err != nil {
		return err
	}
	if _, err := e.Update(Namespace, "alpha", "2"); err != nil {
		return err
	}
	ev, err := w1.Expect(watch.Modified, key("alpha"))
	if err != nil {
		return err
	}
	r.last = ev.RV
	if err := e.AwaitTimers(1); err != nil {
		return err
	}
	e.Step(5 * time.Second)
	return w1.ExpectEnd()
}

// changeWhileAway adds, modifies and deletes an object while no watch is
// open.
func (r *noLostRun) changeWhileAway() error {
	e := r.e
	e.Note("the client is disconnected; its last RV is %s. Three changes happen meanwhile", r.last)
	for _, c := range []struct {
		typ  watch.EventType
		name string
	}{{watch.Added, "charlie"}, {watch.Modified, "bravo"}, {watch.Deleted, "alpha"}} {
		var rv string
		var err error
		switch c.typ {
		case watch.Added:
			rv, err = e.Create(Namespace, c.name, "1")
		case watch.Modified:
			rv, err = e.Update(Namespace, c.name, "2")
		default:
			rv, err = e.Delete(Namespace, c.name)
		}
		if err != nil {
			return err
		}
		r.missed = append(r.missed, missedChange{c.typ, c.name, rv})
	}
	return nil
}

// resumeReplays re-watches from the last RV processed: every missed change
// arrives.
func (r *noLostRun) resumeReplays() error {
	e := r.e
	w2, err := e.Watch(cmPath + "?watch=true&resourceVersion=" + r.last)
	if err != nil {
		return err
	}
	defer w2.Close()
	for _, c := range r.missed {
		ev, err := w2.Expect(c.typ, key(c.name))
		if err != nil {
			return err
		}
		if err := e.Expect(ev.RV == c.rv, "missed %s %s replayed at rv %s", c.typ, c.name, c.rv); err != nil {
			return err
		}
	}
	return nil
}

// clientRelists starts the listwatch client, restarts the watch cache
// under it and changes objects while it backs off: it gets 410, relists
// and diffs.
func (r *noLostRun) clientRelists() error {
	e := r.e
	e.Note("the listwatch client does this by itself, and re-lists + diffs when resuming is impossible (410)")
	c, err := e.StartClient(Namespace, listwatch.Options{PageSize: 2})
	if err != nil {
		return err
	}
	r.c = c
	if err := awaitClientWatching(e); err != nil {
		return err
	}
	clientRV := c.LastSyncResourceVersion()
	if _, err := e.Create(OtherNamespace, "noise", "x"); err != nil {
		return err
	}
	e.RestartWatchCache()
	if err := awaitBackoff(e); err != nil {
		return err
	}
	e.Note("while the client waits, changes it cannot resume to (its rv %s is older than the restart)", clientRV)
	if _, err := e.Delete(Namespace, "bravo"); err != nil {
		return err
	}
	if _, err := e.Update(Namespace, "charlie", "3"); err != nil {
		return err
	}
	if _, err := e.Create(Namespace, "delta", "1"); err != nil {
		return err
	}
	e.Step(scenarioBackoff.Duration)
	if err := awaitRelist(e); err != nil {
		return err
	}
	return awaitClientWatching(e)
}

// storeEqualsServer checks the relist's diff and the client's store.
func (r *noLostRun) storeEqualsServer() error {
	e := r.e
	tl := e.Timeline()
	if err := e.Expect(hasEntry(tl, KindClient, "relist", "410") && hasEntry(tl, KindClient, "applied", "type=DELETED key=default/bravo"),
		"the client got 410, re-listed, and reported bravo's deletion from the diff"); err != nil {
		return err
	}
	server, err := e.quiet.CoreV1().ConfigMaps(Namespace).List(e.Context(), metav1.ListOptions{})
	if err != nil {
		return err
	}
	want := versions(server.Items)
	var got []string
	for _, o := range r.c.Indexer().List() {
		cm := o.(*corev1.ConfigMap)
		got = append(got, cm.Name+"@"+cm.ResourceVersion)
	}
	sort.Strings(got)
	if diff := cmp.Diff(want, got); diff != "" {
		return e.Expect(false, "client store equals the server (-server +client):\n%s", diff)
	}
	return e.Expect(true, "the client's store equals the server's state: %s", strings.Join(got, " "))
}

// awaitBackoff waits until the listwatch client backs off after its
// watch closed, and its backoff timer is armed.
func awaitBackoff(e *Env) error {
	if err := e.AwaitClient("backoff after the closed watch", func(en Entry) bool { return IsClientEntry(en, listwatch.TraceBackoff) }); err != nil {
		return err
	}
	return e.AwaitTimers(1)
}

// awaitRelist waits, stepping through backoffs, until the listwatch
// client listed again.
func awaitRelist(e *Env) error {
	return e.AwaitClientStepping("relist", func(en Entry) bool { return IsClientEntry(en, listwatch.TraceListed) })
}

// awaitClientWatching waits until the listwatch client's watch request was
// answered and the three timers of an open watch are armed: the server's
// deadline and bookmark timers, and the client's own deadline (it ends a
// watch the server has not ended 30 s past timeoutSeconds).
func awaitClientWatching(e *Env) error {
	if err := e.AwaitClient("watching", func(en Entry) bool {
		return en.Kind == KindResponse && strings.Contains(en.Text, "the body stays open")
	}); err != nil {
		return err
	}
	return e.AwaitTimers(3)
}

// hasEntry reports whether tl has an entry of kind whose text contains
// every part.
func hasEntry(tl Timeline, kind Kind, parts ...string) bool {
	for _, en := range tl {
		if en.Kind != kind {
			continue
		}
		all := true
		for _, p := range parts {
			all = all && strings.Contains(en.Text, p)
		}
		if all {
			return true
		}
	}
	return false
}

// versions lists name@rv of items, sorted.
func versions(items []corev1.ConfigMap) []string {
	out := make([]string, 0, len(items))
	for _, it := range items {
		out = append(out, it.Name+"@"+it.ResourceVersion)
	}
	sort.Strings(out)
	return out
}
