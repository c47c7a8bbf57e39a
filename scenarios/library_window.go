package scenarios

import (
	"fmt"

	"k8s.io/apimachinery/pkg/watch"

	"github.com/lw-sim/lw-sim/fakeapiserver"
)

// windowEvents is the size of the watch cache's ring in
// watch-cache-window: a real server keeps 100 to 102 400 events per
// resource, 3 keeps the timeline short.
const windowEvents = 3

// WatchCacheHorizon records that the watch cache now keeps history from rv
// on: a watch can start at rv or later, an older one gets ERROR 410.
// Only the scenario knows where the horizon is (it configured the window),
// so it says so; the HTML diagram shades the RVs below it.
func (e *Env) WatchCacheHorizon(rv, format string, args ...any) {
	en := e.entry(KindNote, rv, format, args...)
	en.Horizon = HorizonWatchCache
	e.append(en)
}

func watchCacheWindow() *Scenario {
	return &Scenario{
		Name:    "watch-cache-window",
		Answers: []QuestionID{QWatchBreaks, QWatchLostEvents},
		Summary: "A watch's 410 comes from the apiserver's watch cache, whose window of recent events is much shorter than etcd's history: a watch from an RV etcd still serves (a LIST at it answers 200) gets ERROR 410 once the window moved past it; etcd compaction is the horizon of LISTs.",
		Seed:    14,
		Config: func(cfg *fakeapiserver.Config) {
			cfg.Watch.HistoryMinEvents = windowEvents
			cfg.Watch.HistoryMaxEvents = windowEvents
			cfg.Watch.HistoryMinAge = -1 // count only, no 75 s growth
		},
		Steps: func(e *Env) error {
			e.Note("the watch cache of this server keeps the newest %d ConfigMap events (a real one keeps 100 to 102400, and grows to hold 75 s)", windowEvents)
			var rvs []string
			for i := range 7 {
				rv, err := e.Create(Namespace, fmt.Sprintf("item-%d", i), "1")
				if err != nil {
					return err
				}
				rvs = append(rvs, rv)
			}
			if err := e.Compact(rvs[1]); err != nil {
				return err
			}
			// The ring holds the last windowEvents events; a watch can
			// start at the RV just before the oldest of them.
			horizon := rvs[len(rvs)-windowEvents-1]
			e.WatchCacheHorizon(horizon, "watch cache: holds the events after rv %s (the newest %d); a watch from rv %s or later can resume, an older one cannot", horizon, windowEvents, horizon)

			old := rvs[2] // above etcd's compaction, below the watch cache's horizon
			e.Note("rv %s: etcd still has it, the watch cache no longer does", old)
			w1, err := e.Watch(cmPath + "?watch=true&resourceVersion=" + old)
			if err != nil {
				return err
			}
			ev, err := w1.Expect(watch.Error, "")
			if err != nil {
				return err
			}
			want := fmt.Sprintf("too old resource version: %s (%s)", old, horizon)
			if err := e.Expect(ev.Status.Code == 410 && ev.Status.Message == want,
				"a watch from rv %s: ERROR 410 %q, answered by the watch cache (the number in brackets is its horizon, not etcd's compaction at %s)", old, want, rvs[1]); err != nil {
				return err
			}
			if err := w1.ExpectEnd(); err != nil {
				return err
			}
			r, err := e.Get(cmPath + "?resourceVersion=" + old + "&resourceVersionMatch=Exact")
			if err != nil {
				return err
			}
			if err := e.Expect(r.Code == 200 && r.RV == old,
				"a LIST exactly at rv %s answers 200: the state at %s is still readable from etcd, the watch just cannot replay from it", old, old); err != nil {
				return err
			}

			w2, err := e.Watch(cmPath + "?watch=true&resourceVersion=" + horizon)
			if err != nil {
				return err
			}
			for _, i := range []int{4, 5, 6} {
				if _, err := w2.Expect(watch.Added, key(fmt.Sprintf("item-%d", i))); err != nil {
					return err
				}
			}
			w2.Close()
			if err := e.Expect(true, "a watch from the horizon, rv %s, replays the %d events the cache holds", horizon, windowEvents); err != nil {
				return err
			}

			gone := rvs[0] // below etcd's compaction
			r, err = e.Get(cmPath + "?resourceVersion=" + gone + "&resourceVersionMatch=Exact")
			if err != nil {
				return err
			}
			return e.Expect(r.Code == 410 && r.Status != nil && r.Status.Reason == "Expired",
				"a LIST exactly at rv %s, below etcd's compaction at %s: 410 Expired, answered by etcd; compaction is the horizon of reads, the watch cache that of watches", gone, rvs[1])
		},
	}
}
