package listwatch

import (
	"context"
	"errors"
	"fmt"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/pager"
)

// sync brings the store to a fresh snapshot of the server: by watch-list if
// enabled and not refused, else by a paged LIST.
func (c *Client) sync(ctx context.Context) outcome {
	if c.opts.WatchList && !c.watchListRefused {
		s, err := c.watchList(ctx)
		switch {
		case err == nil:
			return outcome{next: rewatch, productive: true, stream: s}
		case errors.Is(err, ErrWatchListRefused):
			c.watchListRefused = true
			c.trace(TraceEvent{Kind: TraceFallback, Reason: "server refused watch-list", Err: err})
		default:
			c.trace(TraceEvent{Kind: TraceListError, Err: err})
			return outcome{next: relist, err: err}
		}
	}
	items, listRV, err := c.list(ctx)
	if err == nil {
		err = c.replace(items, listRV)
	}
	if err != nil {
		c.trace(TraceEvent{Kind: TraceListError, Err: err})
		return outcome{next: relist, err: err}
	}
	return outcome{next: rewatch, productive: true}
}

// list reads the whole collection with client-go's pager.
//
// It asks for resourceVersion "" (a consistent read of the latest state),
// not "0" as the Reflector's first list does: "0" may be served from a
// stale watch cache, older than RVs this client already passed, which would
// move its RV backwards after a relist (guarantee 2). Later pages are pinned
// to the first page's RV by the continue token; if that token expires (410
// Expired), the pager re-lists in full at "" (FullListIfExpired).
func (c *Client) list(ctx context.Context) ([]runtime.Object, string, error) {
	pages := 0
	p := pager.New(func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
		if pages > 0 && opts.Continue == "" {
			c.trace(TraceEvent{Kind: TraceFullList, Reason: "continue token expired"})
		}
		obj, err := c.lw.List(ctx, opts)
		if err != nil {
			return nil, err
		}
		pages++
		c.tracePage(obj)
		return obj, nil
	})
	p.PageSize = max(c.opts.PageSize, 0)
	obj, _, err := p.List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, "", fmt.Errorf("list: %w", err)
	}
	lm, err := meta.ListAccessor(obj)
	if err != nil {
		return nil, "", fmt.Errorf("list: %w", err)
	}
	// WithAlloc copies each item out of the page's slice, so the store does
	// not pin whole pages in memory (the Reflector does the same).
	items, err := meta.ExtractListWithAlloc(obj)
	if err != nil {
		return nil, "", fmt.Errorf("list: %w", err)
	}
	return items, lm.GetResourceVersion(), nil
}

// tracePage reports one LIST page.
func (c *Client) tracePage(obj runtime.Object) {
	e := TraceEvent{Kind: TracePage, Items: meta.LenList(obj)}
	if lm, err := meta.ListAccessor(obj); err == nil {
		e.ListRV, e.Continue = lm.GetResourceVersion(), lm.GetContinue() != ""
	}
	c.trace(e)
}
