package scenarios

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strconv"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/pager"
)

// createItems creates n ConfigMaps item-00 … with seeded values and
// returns their names in key order.
func createItems(e *Env, n int) ([]string, error) {
	names := make([]string, n)
	for i := range n {
		names[i] = fmt.Sprintf("item-%02d", i)
		if _, err := e.Create(Namespace, names[i], strconv.Itoa(e.Rand().IntN(1000))); err != nil {
			return nil, err
		}
	}
	return names, nil
}

// pagedList lists the ConfigMaps of [Namespace] with client-go's pager at
// pageSize, calling between after each page but the last; it returns the
// items' names and the list's RV.
func pagedList(e *Env, pageSize int64, between func(page int) error) ([]string, string, error) {
	page := 0
	p := pager.New(func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
		if page > 0 && between != nil {
			if err := between(page); err != nil {
				return nil, err
			}
		}
		page++
		l, err := e.Clientset().CoreV1().ConfigMaps(Namespace).List(ctx, opts)
		if err != nil {
			return nil, err
		}
		return l, nil
	})
	p.PageSize = pageSize
	obj, _, err := p.List(e.Context(), metav1.ListOptions{})
	if err != nil {
		return nil, "", err
	}
	var names []string
	if err := meta.EachListItem(obj, func(o runtime.Object) error {
		m, err := meta.Accessor(o)
		if err != nil {
			return err
		}
		names = append(names, m.GetName())
		return nil
	}); err != nil {
		return nil, "", err
	}
	lm, err := meta.ListAccessor(obj)
	if err != nil {
		return nil, "", err
	}
	return names, lm.GetResourceVersion(), nil
}

func hugeListPaging() *Scenario {
	return &Scenario{
		Name:    "huge-list-paging",
		Answers: []QuestionID{QListHuge, QListPaging},
		Summary: "Page a big LIST with limit/continue (client-go's pager does it): each response stays small, and every page is read at the first page's RV, so the result is one consistent snapshot even while writes happen.",
		Seed:    7,
		Steps: func(e *Env) error {
			r := &hugeRun{e: e}
			return phases(r.pageWhileWriting, r.snapshot, r.rv0IgnoresLimit)
		},
	}
}

// Sizes of huge-list-paging.
const hugeTotal, hugePageSize = 25, 10

// hugeRun is the state huge-list-paging carries from phase to phase.
type hugeRun struct {
	e                  *Env
	names, got         []string
	snapshotRV, listRV string
	victim             string
}

// pageWhileWriting lists with client-go's pager and writes between the
// first and the second page.
func (r *hugeRun) pageWhileWriting() error {
	e := r.e
	var err error
	if r.names, err = createItems(e, hugeTotal); err != nil {
		return err
	}
	if r.snapshotRV, err = e.CurrentRV(); err != nil {
		return err
	}
	e.Note("client-go's pager lists %d objects %d at a time; writes happen between pages", hugeTotal, hugePageSize)
	r.victim = r.names[hugePageSize+e.Rand().IntN(hugePageSize)] // on page 2, not read yet
	r.got, r.listRV, err = pagedList(e, hugePageSize, func(page int) error {
		if page != 1 {
			return nil
		}
		if _, err := e.Delete(Namespace, r.victim); err != nil {
			return err
		}
		if _, err := e.Update(Namespace, r.names[0], "changed"); err != nil {
			return err
		}
		_, err := e.Create(Namespace, "item-99", "new")
		return err
	})
	return err
}

// snapshot checks that every page was read at the first page's RV.
func (r *hugeRun) snapshot() error {
	e := r.e
	tl := e.Timeline()
	pages := 0
	for _, en := range tl {
		if en.Kind == KindResponse && en.RV == r.snapshotRV {
			pages++
		}
	}
	if err := e.Expect(pages == 3, "all 3 pages report metadata.resourceVersion %s, the first page's", r.snapshotRV); err != nil {
		return err
	}
	if err := e.Expect(r.listRV == r.snapshotRV && slices.Equal(r.got, r.names),
		"the pager's result is the snapshot at rv %s: %d items, %s still in it, item-99 not yet", r.snapshotRV, hugeTotal, r.victim); err != nil {
		return err
	}
	return e.Expect(hasEntry(tl, KindResponse, "remainingItemCount 15"), "page 1 announced remainingItemCount 15")
}

// rv0IgnoresLimit lists from the watch cache with a limit it ignores.
func (r *hugeRun) rv0IgnoresLimit() error {
	e := r.e
	e.Note("resourceVersion=0 asks the watch cache for whatever it has, and the cache ignores limit")
	res, err := e.Get(cmPath + "?resourceVersion=0&limit=" + strconv.Itoa(hugePageSize))
	if err != nil {
		return err
	}
	return e.Expect(res.Code == http.StatusOK && len(res.Names) == hugeTotal && res.Continue == "",
		"rv=0&limit=%d returned all %d current items in one response, no continue token", hugePageSize, hugeTotal)
}

func expiredContinue() *Scenario {
	return &Scenario{
		Name:    "expired-continue",
		Answers: []QuestionID{QListPaging, QListHuge},
		Summary: "A continue token whose RV was compacted gets 410 Expired with a fresh token (rv -1) that continues inconsistently at the latest RV; client-go's pager instead re-lists in full.",
		Seed:    9,
		Steps: func(e *Env) error {
			r := &expiredRun{e: e}
			return phases(r.compactUnderToken, r.followFreshToken, r.pagerRelists)
		},
	}
}

// expiredRun is the state expired-continue carries from phase to phase.
type expiredRun struct {
	e     *Env
	names []string
	p1    *ListResult
	// cur is the RV compacted to under the first page's token.
	cur   string
	fresh string
}

// compactUnderToken reads page 1, compacts past its RV and asks for page
// 2: 410 with a fresh token.
func (r *expiredRun) compactUnderToken() error {
	e := r.e
	var err error
	if r.names, err = createItems(e, 6); err != nil {
		return err
	}
	if r.p1, err = e.Get(cmPath + "?limit=2"); err != nil {
		return err
	}
	if _, err := e.Create(Namespace, "item-03a", "new"); err != nil {
		return err
	}
	if r.cur, err = e.CurrentRV(); err != nil {
		return err
	}
	if err := e.Compact(r.cur); err != nil {
		return err
	}
	p2, err := e.Get(cmPath + "?limit=2&continue=" + r.p1.Continue)
	if err != nil {
		return err
	}
	if err := e.Expect(p2.Code == http.StatusGone && p2.Status.Reason == metav1.StatusReasonExpired && p2.Status.Continue != "",
		"page 2 after compaction: 410 Expired, with a new token in metadata.continue (not in details)"); err != nil {
		return err
	}
	r.fresh = p2.Status.Continue
	tok, err := decodeContinue(r.fresh)
	if err != nil {
		return err
	}
	return e.Expect(tok.RV == -1, "the new token has rv -1: continue at the latest RV")
}

// followFreshToken follows the fresh token: the rest, at the latest RV.
func (r *expiredRun) followFreshToken() error {
	p3, err := r.e.Get(cmPath + "?limit=10&continue=" + r.fresh)
	if err != nil {
		return err
	}
	return r.e.Expect(p3.RV == r.cur && slices.Equal(p3.Names, []string{"item-02", "item-03", "item-03a", "item-04", "item-05"}),
		"following it gives the rest at rv %s, not at the first page's rv %s: item-03a shows up, an inconsistent list", r.cur, r.p1.RV)
}

// pagerRelists has client-go's pager meet the same 410: it lists again in
// full.
func (r *expiredRun) pagerRelists() error {
	e := r.e
	e.Note("client-go's pager does not use that token: on 410 it lists everything again, unpaged")
	got, listRV, err := pagedList(e, 2, func(page int) error {
		if page != 1 {
			return nil
		}
		rv, err := e.Create(Namespace, "item-06", "new")
		if err != nil {
			return err
		}
		return e.Compact(rv)
	})
	if err != nil {
		return err
	}
	want := append(slices.Clone(r.names[:4]), "item-03a")
	want = append(want, r.names[4:]...)
	want = append(want, "item-06")
	slices.Sort(want)
	tl := e.Timeline()
	if err := e.Expect(hasEntry(tl, KindResponse, "410 Gone"), "the pager's second page got 410"); err != nil {
		return err
	}
	last := tl[len(tl)-2] // the full re-list's request, then its response
	if err := e.Expect(last.Kind == KindRequest && last.Text == "GET "+cmPath, "the pager re-listed with no limit and no continue"); err != nil {
		return err
	}
	return e.Expect(slices.Equal(got, want) && listRV != r.p1.RV, "its result is one consistent list at rv %s with all %d items", listRV, len(want))
}
