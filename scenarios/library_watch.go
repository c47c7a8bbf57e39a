package scenarios

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
)

// cmPath is the ConfigMap collection of [Namespace].
const cmPath = "/api/v1/namespaces/" + Namespace + "/configmaps"

// greek are object names; scenarios create them in a seeded order.
var greek = []string{"alpha", "bravo", "charlie", "delta", "echo", "foxtrot"}

// createShuffled creates ConfigMaps named names in an order drawn from the
// run's seed and returns each name's RV.
func createShuffled(e *Env, names []string) (map[string]string, error) {
	rvs := make(map[string]string, len(names))
	for _, i := range e.Rand().Perm(len(names)) {
		rv, err := e.Create(Namespace, names[i], fmt.Sprintf("v%d", e.Rand().IntN(100)))
		if err != nil {
			return nil, err
		}
		rvs[names[i]] = rv
	}
	return rvs, nil
}

func rvNum(rv string) int64 {
	n, _ := strconv.ParseInt(rv, 10, 64)
	return n
}

func key(name string) string { return Namespace + "/" + name }

func watchWithoutRVFloodsAdded() *Scenario {
	return &Scenario{
		Name:    "watch-without-rv-floods-added",
		Answers: []QuestionID{QWatchResourceVersion},
		Summary: "A watch without resourceVersion (or with \"0\") first replays the whole collection as synthetic ADDED events, in key order, then streams changes.",
		Seed:    1,
		Steps: func(e *Env) error {
			names := greek[:4]
			rvs, err := createShuffled(e, names)
			if err != nil {
				return err
			}
			e.Note("the objects exist before the watch starts; they were created in a random order")
			w, err := e.Watch(cmPath + "?watch=true")
			if err != nil {
				return err
			}
			for _, n := range names { // key order, not creation order
				ev, err := w.Expect(watch.Added, key(n))
				if err != nil {
					return err
				}
				if err := e.Expect(ev.RV == rvs[n], "synthetic ADDED %s carries the object's own RV %s", n, rvs[n]); err != nil {
					return err
				}
			}
			if err := e.Expect(true, "the watch without resourceVersion sent one ADDED per existing object, in key order (not RV order)"); err != nil {
				return err
			}
			rv, err := e.Update(Namespace, "bravo", "changed")
			if err != nil {
				return err
			}
			ev, err := w.Expect(watch.Modified, key("bravo"))
			if err != nil {
				return err
			}
			if err := e.Expect(ev.RV == rv, "after the initial ADDED events the same stream carries live changes (MODIFIED at %s)", rv); err != nil {
				return err
			}
			w.Close()

			e.Note("resourceVersion=0 with allowWatchBookmarks=true is a watch-list request (1.37 defaulting): ADDED for all, then a bookmark that says the initial state is complete")
			cur, err := e.CurrentRV()
			if err != nil {
				return err
			}
			w2, err := e.Watch(cmPath + "?watch=true&resourceVersion=0&allowWatchBookmarks=true")
			if err != nil {
				return err
			}
			for _, n := range names {
				if _, err := w2.Expect(watch.Added, key(n)); err != nil {
					return err
				}
			}
			bm, err := w2.Expect(watch.Bookmark, "")
			if err != nil {
				return err
			}
			if err := e.Expect(bm.InitialEventsEnd && bm.RV == cur, "the initial-events-end bookmark carries the snapshot's RV %s", cur); err != nil {
				return err
			}
			w2.Close()

			e.Note("with the RV of what it already has, the watch replays nothing and only streams what comes after")
			w3, err := e.Watch(cmPath + "?watch=true&resourceVersion=" + cur)
			if err != nil {
				return err
			}
			rv, err = e.Create(Namespace, "foxtrot", "new")
			if err != nil {
				return err
			}
			ev, err = w3.Expect(watch.Added, key("foxtrot"))
			if err != nil {
				return err
			}
			return e.Expect(ev.RV == rv, "the first event of the watch from rv %s is the new object (rv %s): no flood", cur, rv)
		},
	}
}

func watchFromListRV() *Scenario {
	return &Scenario{
		Name:    "watch-from-list-rv",
		Answers: []QuestionID{QWatchResourceVersion, QWatchLostEvents},
		Summary: "LIST, then WATCH from the list's resourceVersion: exactly the changes made after the list, in RV order, with no gap and no duplicate.",
		Seed:    2,
		Steps: func(e *Env) error {
			names := greek[:4]
			if _, err := createShuffled(e, names); err != nil {
				return err
			}
			list, err := e.Clientset().CoreV1().ConfigMaps(Namespace).List(e.Context(), metav1.ListOptions{})
			if err != nil {
				return err
			}
			listRV := list.ResourceVersion
			e.Note("the client has the state at rv %s; changes land before its watch is open", listRV)
			// Three changes in the gap between LIST and WATCH, on objects
			// the seed picks.
			pick := e.Rand().Perm(len(names))
			upd, del := names[pick[0]], names[pick[1]]
			type change struct {
				typ watch.EventType
				key string
				rv  string
			}
			var want []change
			rv, err := e.Update(Namespace, upd, "changed")
			if err != nil {
				return err
			}
			want = append(want, change{watch.Modified, key(upd), rv})
			if rv, err = e.Delete(Namespace, del); err != nil {
				return err
			}
			want = append(want, change{watch.Deleted, key(del), rv})
			if rv, err = e.Create(Namespace, "echo", "new"); err != nil {
				return err
			}
			want = append(want, change{watch.Added, key("echo"), rv})

			w, err := e.WatchTyped(Namespace, metav1.ListOptions{ResourceVersion: listRV})
			if err != nil {
				return err
			}
			for _, c := range want {
				ev, err := w.Expect(c.typ, c.key)
				if err != nil {
					return err
				}
				if err := e.Expect(ev.RV == c.rv, "%s %s replayed at its write's RV %s", c.typ, c.key, c.rv); err != nil {
					return err
				}
			}
			if err := e.Expect(true, "the watch from rv %s replayed the 3 changes made after the list, in RV order, and none of the %d unchanged objects", listRV, len(names)-2); err != nil {
				return err
			}

			cur, err := e.CurrentRV()
			if err != nil {
				return err
			}
			future := strconv.FormatInt(rvNum(cur)+2, 10)
			e.Note("a watch from an RV the server has not reached yet is accepted (200) and stays silent until the RV passes it")
			w2, err := e.Watch(cmPath + "?watch=true&resourceVersion=" + future)
			if err != nil {
				return err
			}
			for _, n := range []string{"foxtrot", "golf", "hotel"} {
				if rv, err = e.Create(Namespace, n, "new"); err != nil {
					return err
				}
			}
			ev, err := w2.Expect(watch.Added, key("hotel"))
			if err != nil {
				return err
			}
			return e.Expect(ev.RV == rv, "the watch from future rv %s skipped the writes at or below it; its first event is rv %s", future, rv)
		},
	}
}

func watchIsServerPush() *Scenario {
	return &Scenario{
		Name:    "watch-is-server-push",
		Answers: []QuestionID{QWatchPushOrPull, QWatchProtocol},
		Summary: "A watch is one long HTTP GET whose chunked response stays open; the server writes each change into it as it happens. The client never polls.",
		Seed:    3,
		Steps: func(e *Env) error {
			cur, err := e.CurrentRV()
			if err != nil {
				return err
			}
			e.Note("one request: an ordinary GET with watch=true")
			w, err := e.Watch(cmPath + "?watch=true&resourceVersion=" + cur)
			if err != nil {
				return err
			}
			resp := w.Response
			if err := e.Expect(resp.StatusCode == http.StatusOK && resp.Header.Get("Content-Type") == "application/json",
				"status 200 and Content-Type application/json (not ;stream=watch) arrive before any event exists"); err != nil {
				return err
			}
			if err := e.Expect(slices.Equal(resp.TransferEncoding, []string{"chunked"}) && resp.ContentLength == -1,
				"Transfer-Encoding chunked and no Content-Length: the body has no end the client could wait for"); err != nil {
				return err
			}
			steps := []struct {
				after time.Duration
				do    func() (string, error)
				typ   watch.EventType
			}{
				{10 * time.Second, func() (string, error) { return e.Create(Namespace, "pushed", "1") }, watch.Added},
				{20 * time.Second, func() (string, error) { return e.Update(Namespace, "pushed", "2") }, watch.Modified},
				{30 * time.Second, func() (string, error) { return e.Delete(Namespace, "pushed") }, watch.Deleted},
			}
			for _, s := range steps {
				e.Step(s.after)
				rv, err := s.do()
				if err != nil {
					return err
				}
				ev, err := w.Expect(s.typ, key("pushed"))
				if err != nil {
					return err
				}
				if err := e.Expect(ev.RV == rv && ev.Kind == "ConfigMap" && ev.APIVersion == "v1",
					"%s arrived on the open response right after the write, as a {\"type\",\"object\"} frame whose object has kind and apiVersion", s.typ); err != nil {
					return err
				}
			}
			st := e.Server().WatchStats()
			return e.Expect(st.Started == 1 && st.EventsSent == 3,
				"the server counted 1 watch request and 3 events sent on it: pushed, not polled")
		},
	}
}

func watchTimeout() *Scenario {
	return &Scenario{
		Name:    "watch-timeout",
		Answers: []QuestionID{QWatchTimeout, QWatchBreaks},
		Summary: "Every watch has a deadline: timeoutSeconds, or 30 to 60 minutes by default. The server ends the response cleanly at it, after a bookmark about 2 s before.",
		Seed:    4,
		Steps: func(e *Env) error {
			cur, err := e.CurrentRV()
			if err != nil {
				return err
			}
			w, err := e.Watch(cmPath + "?watch=true&allowWatchBookmarks=true&timeoutSeconds=10&resourceVersion=" + cur)
			if err != nil {
				return err
			}
			// The deadline and the bookmark schedule.
			if err := e.AwaitTimers(2); err != nil {
				return err
			}
			e.Note("a write elsewhere moves the global RV; the watch of %s has nothing to send for it", Namespace)
			other, err := e.Create(OtherNamespace, "elsewhere", "x")
			if err != nil {
				return err
			}
			e.Step(8 * time.Second)
			bm, err := w.Expect(watch.Bookmark, "")
			if err != nil {
				return err
			}
			if err := e.Expect(bm.RV == other && e.Elapsed() == 8*time.Second,
				"a BOOKMARK at rv %s came 2 s before the deadline: the client can resume from a fresh RV", other); err != nil {
				return err
			}
			if err := e.AwaitTimers(2); err != nil {
				return err
			}
			e.Step(2 * time.Second)
			if err := w.ExpectEnd(); err != nil {
				return err
			}
			if err := e.Expect(e.Elapsed() == 10*time.Second, "timeoutSeconds=10: the server ended the response at 10 s, with no ERROR event"); err != nil {
				return err
			}

			e.Note("without timeoutSeconds the server picks 30 min × a random factor in [1, 2)")
			if cur, err = e.CurrentRV(); err != nil {
				return err
			}
			opened := e.Elapsed()
			w2, err := e.Watch(cmPath + "?watch=true&resourceVersion=" + cur)
			if err != nil {
				return err
			}
			if err := e.AwaitTimers(1); err != nil {
				return err
			}
			e.Step(30*time.Minute - time.Second)
			if _, err := e.Create(Namespace, "still-open", "x"); err != nil {
				return err
			}
			if _, err := w2.Expect(watch.Added, key("still-open")); err != nil {
				return err
			}
			if err := e.Expect(true, "after 29m59s the watch is still open"); err != nil {
				return err
			}
			e.Step(30*time.Minute + time.Second)
			if err := w2.ExpectEnd(); err != nil {
				return err
			}
			return e.Expect(e.Elapsed()-opened == time.Hour, "by 60 min the server had ended it: the default deadline lies in [30 min, 60 min)")
		},
	}
}
