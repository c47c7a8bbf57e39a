package scenarios

import (
	"fmt"
	"net/url"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
)

// Sizes of watch-list-vs-paging: enough objects of enough bytes that the
// one-response list is clearly bigger than a page, and a page than one
// object, while the run stays well under a second.
const (
	wlObjects  = 120
	wlPayload  = 2 << 10
	wlPageSize = 40
)

// Lanes of watch-list-vs-paging: three clients reading the same collection.
const (
	lanePager     = "pager"
	laneListRV0   = "list-rv0"
	laneWatchList = "watch-list"
)

func watchListVsPaging() *Scenario {
	return &Scenario{
		Name:    "watch-list-vs-paging",
		Answers: []QuestionID{QListHuge, QListPaging},
		Summary: "Three ways to read a big collection: paging bounds each response to a page but costs a request per page; a LIST with resourceVersion=0 ignores limit and answers everything at once; a watch-list streams one object per frame in a single request and goes on as the watch.",
		Seed:    15,
		Steps: func(e *Env) error {
			r := &wlRun{e: e}
			defer e.SetLane("")
			return phases(r.createBig, r.page, r.listRV0, r.watchList, r.compare)
		},
	}
}

// wlRun is the state watch-list-vs-paging carries from phase to phase:
// the last write's RV and the largest thing each reader had to hold.
type wlRun struct {
	e                           *Env
	last                        string
	maxPage, rv0Bytes, maxFrame int
}

// createBig creates the collection, recorded as one entry.
func (r *wlRun) createBig() error {
	e := r.e
	payload := strings.Repeat("x", wlPayload)
	for i := range wlObjects {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("obj-%03d", i)}, Data: map[string]string{"v": payload}}
		out, err := e.quiet.CoreV1().ConfigMaps(Namespace).Create(e.Context(), cm, metav1.CreateOptions{})
		if err != nil {
			return err
		}
		r.last = out.ResourceVersion
	}
	e.record(KindWrite, r.last, "%d creates of %d KiB each, up to rv %s", wlObjects, wlPayload>>10, r.last)
	return nil
}

// page reads the collection a page at a time, following continue tokens.
func (r *wlRun) page() error {
	e := r.e
	e.SetLane(lanePager)
	pages, pagedBytes := 0, 0
	next := cmPath + "?limit=" + fmt.Sprint(wlPageSize)
	for {
		res, err := e.Get(next)
		if err != nil {
			return err
		}
		if res.Code != 200 {
			return e.Expect(false, "page %d: %d", pages+1, res.Code)
		}
		pages++
		pagedBytes += res.Bytes
		r.maxPage = max(r.maxPage, res.Bytes)
		if res.Continue == "" {
			break
		}
		next = cmPath + "?limit=" + fmt.Sprint(wlPageSize) + "&continue=" + url.QueryEscape(res.Continue)
	}
	return e.Expect(pages == wlObjects/wlPageSize,
		"paging: %d requests of at most %d items; largest response %s, %s in all", pages, wlPageSize, kib(r.maxPage), kib(pagedBytes))
}

// listRV0 reads the collection from the watch cache in one response.
func (r *wlRun) listRV0() error {
	e := r.e
	e.SetLane(laneListRV0)
	res, err := e.Get(cmPath + "?resourceVersion=0&limit=" + fmt.Sprint(wlPageSize))
	if err != nil {
		return err
	}
	r.rv0Bytes = res.Bytes
	return e.Expect(res.Code == 200 && len(res.Names) == wlObjects && res.Continue == "",
		"resourceVersion=0 is served from the watch cache and ignores limit: one response of %d items, %s", len(res.Names), kib(res.Bytes))
}

// watchList streams the collection an object per frame, up to the
// initial-events-end bookmark, and goes on watching.
func (r *wlRun) watchList() error {
	e := r.e
	e.SetLane(laneWatchList)
	w, err := e.Watch(cmPath + "?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true")
	if err != nil {
		return err
	}
	defer w.Close()
	evs, err := w.ReadUntil(func(ev WatchEvent) bool { return ev.Type == watch.Bookmark && ev.InitialEventsEnd })
	if err != nil {
		return err
	}
	added, streamed := 0, 0
	for _, ev := range evs {
		streamed += ev.Bytes
		if ev.Type == watch.Added {
			added++
			r.maxFrame = max(r.maxFrame, ev.Bytes)
		}
	}
	end := evs[len(evs)-1]
	e.record(KindEvent, end.RV, "%s %d ADDED events (one object per frame, at most %s), then BOOKMARK (k8s.io/initial-events-end)", w.Name(), added, kib(r.maxFrame))
	if err := e.Expect(added == wlObjects && end.RV == r.last,
		"watch-list: 1 request; %d objects streamed one per frame, %s in all; the bookmark's rv %s is where the same stream goes on as a watch", added, kib(streamed), end.RV); err != nil {
		return err
	}
	if _, err := e.Create(Namespace, "after", "1"); err != nil {
		return err
	}
	_, err = w.Expect(watch.Added, key("after"))
	return err
}

// compare checks what each reader had to hold at once.
func (r *wlRun) compare() error {
	r.e.SetLane("")
	return r.e.Expect(r.maxFrame*wlPageSize/2 < r.maxPage && r.maxPage*2 < r.rv0Bytes,
		"the largest thing either side must hold at once: one object (%s) for the watch-list, one page (%s) for the pager, the whole list (%s) for resourceVersion=0", kib(r.maxFrame), kib(r.maxPage), kib(r.rv0Bytes))
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

// kib renders a byte count in KiB with one decimal.
func kib(n int) string { return fmt.Sprintf("%.1f KiB", float64(n)/1024) }
