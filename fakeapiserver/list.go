package fakeapiserver

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/lw-sim/lw-sim/fakeapiserver/store"
	"github.com/lw-sim/lw-sim/internal/kubewire"
)

// Messages of the 410s a LIST can get (apiserver pkg/storage/etcd3/errors.go).
const (
	listTooOldMessage    = "The resourceVersion for the provided list is too old."
	inconsistentContinue = "The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list."
)

// listRead is the store read a LIST resolves to.
type listRead struct {
	rv    int64  // exact RV to read at; 0 = the latest state
	start string // first store key to consider, "" = from the prefix
	limit int64
	// continued marks a read that came from a continue token, whose
	// compaction gets the inconsistent-continue 410.
	continued bool
	// latest marks a read of the cache's latest snapshot (a consistent,
	// resourceVersion=0 or not-older-than read, no continue token): the
	// watch cache lists those through an index when the selector has one
	// (watch_cache.go waitAndGetLatestSnapshot), and hasMore then counts
	// the index's items only (cacher.go GetList).
	latest bool
}

// handleList answers a LIST: negotiate, parse options, pick the read RV
// as the watch cache does (apiserver pkg/storage/cacher/delegator.go
// GetList), read one page: 200 with the typed
// list, or its Table form. Every answer, errors included, carries the
// compaction point (read after the list) in X-Lwsim-Compacted-Revision.
func (s *Server) handleList(req *request) (response, error) {
	resp, err := s.listResponse(req)
	s.setCompactedHeader(req.w)
	if err != nil {
		return response{}, err
	}
	s.faultListPage(req, resp.obj) // page numbers for LIST faults (faults_request.go)
	return resp, nil
}

// listResponse runs a LIST up to the page to answer with.
func (s *Server) listResponse(req *request) (response, error) {
	out, err := s.negotiateOutput(req.r, req.transforms())
	if err != nil {
		return response{}, err
	}
	p, err := s.parseListOptions(req)
	if err != nil {
		return response{}, err
	}
	if err := collectionKeyError(req.res, req.info.namespace); err != nil { // storage_key.go
		return response{}, err
	}
	list, items, err := s.readList(req, p)
	if err != nil {
		return response{}, err
	}
	rows := &tableRows{items: items, list: list}
	if page, ok := list.(*listPage); ok {
		rows.items, rows.page = nil, page
	}
	return response{code: http.StatusOK, out: out, obj: list, table: rows}, nil
}

// readList resolves the read, runs it and builds the typed list object.
func (s *Server) readList(req *request, p listParams) (runtime.Object, []runtime.Object, error) {
	read, err := s.chooseListRead(req, p)
	if err != nil {
		return nil, nil, err
	}
	filter := p.filter
	if p.narrowed {
		filter = nil // the keys walked are what it matches (list_index.go)
	}
	arrays := s.pageBufs.getArrays()
	res, err := s.store.List(req.res.storageKey, store.ListOptions{
		RV: read.rv, Prefix: p.prefix, Start: read.start, Limit: int(read.limit), Filter: filter,
		Scan: p.scan, Name: p.name, Index: p.index,
		IndexMore: read.latest && p.index != nil && p.index.Name == indexNodeName,
		// A built-in storage version's page is spliced from its cached
		// encodings: only a miss decodes an item (listPage.objects). So
		// is a custom resource's, where its view is the stored object
		// (readViews).
		Undecoded: (req.res.readStrategy().reusesEncodings() && !req.res.convertsOnRead()) || s.splicesCustom(req.res),
		Reuse:     store.ListResult{Items: arrays.items, Keys: arrays.keys, Encodings: arrays.encs},
	})
	if err != nil {
		s.pageBufs.putArrays(arrays)
		return nil, nil, s.listReadError(err, read, p)
	}
	// The page's arrays, recycled with its buffers once its body is
	// written (listPage.releaseBody), or left to the collector.
	arrays.items, arrays.keys, arrays.encs = res.Items, res.Keys, res.Encodings
	if res.Items, err = s.readViews(req.res, res.Items, res.Encodings); err != nil { // customresource_view.go
		return nil, nil, err
	}
	list, err := s.buildList(req.res, res, p)
	if lp, ok := list.(*listPage); ok {
		lp.arrays = arrays
	}
	return list, res.Items, err
}

// chooseListRead maps resourceVersion, resourceVersionMatch, limit and
// continue to a store read as kube-apiserver's watch cache does
// (apiserver pkg/storage/interfaces.go ValidateListOptions, then
// cacher/delegator/interface.go ShouldDelegateList and
// cacher/watch_cache.go waitUntilFreshAndList; watch_cache.go in this
// package has the table), reading the serving instance's cache: waiting up
// to 3 s for an RV its cache has not reached (504 after that):
//
//	continue token                   exact at the token's RV (waits if ahead;
//	                                 410 + rv -1 token if compacted), or a
//	                                 consistent read if the token's rv < 0
//	RV unset                         consistent: the cache once at the
//	                                 store's RV, else storage (the latest)
//	RV N, NotOlderThan               the cache once it has reached N
//	RV N, no match, limit <= 0       same (legacy NotOlderThan)
//	RV N, Exact                      exactly N (410 when compacted)
//	RV N, no match, limit > 0        same (legacy paging semantics)
//	RV "0" (or a 0 like "00")        the cache as it is, no wait
//
// A fresh cache is the store, so "the cache" is the latest state then.
// The limit is dropped when resourceVersion is the string "0"
// (cacher.go computeListLimit), with or without a continue token: such a
// request is answered whole from the cache. A resource with no watch cache
// (events) reads etcd instead: the same RV choices with no wait, and
// "0" with a limit is a page of the latest state. Exact with "0", a match
// without an RV, and a match with continue were refused as 422 before.
func (s *Server) chooseListRead(req *request, p listParams) (listRead, error) {
	opts := p.opts
	inst, err := s.readViewOf(req.r, req.res) // the watch cache, or storage (watch_cache.go)
	read := listRead{limit: opts.Limit}
	if err != nil {
		return read, err
	}
	if opts.ResourceVersion == "0" && !inst.uncached {
		read.limit = 0
	}
	if opts.Continue != "" {
		return s.continueRead(req, inst, p, read)
	}
	if opts.ResourceVersion == "" {
		rv, err := s.consistentReadRV(req.r.Context(), inst)
		read.rv, read.latest = rv, true
		return read, err
	}
	n, err := parseRequestedRV(opts.ResourceVersion)
	if err != nil {
		return read, apierrors.NewBadRequest(fmt.Sprintf("invalid resource version: %v", err))
	}
	if n == 0 {
		read.rv, read.latest = cacheListRV(inst), true
		return read, nil
	}
	if _, err := s.waitForRV(req.r.Context(), inst, n); err != nil {
		return read, err
	}
	exact := opts.ResourceVersionMatch == metav1.ResourceVersionMatchExact ||
		(opts.ResourceVersionMatch == "" && opts.Limit > 0)
	if exact {
		read.rv = storeRV(n) // reached, so no more than the current RV
		return read, nil
	}
	read.rv, read.latest = cacheListRV(inst), true
	return read, nil
}

// continueRead resolves a continue token (400 for a bad one, or for a
// resourceVersion other than "" or "0" beside it). A token RV the cache has
// not reached yet waits like an exact RV does (cacher.go
// ShouldDelegateContinue → waitAndListExactRV), then 504s; a token with a
// negative RV is a consistent read.
func (s *Server) continueRead(req *request, inst *apiserverInstance, p listParams, read listRead) (listRead, error) {
	start, rv, err := kubewire.DecodeContinue(p.opts.Continue, p.prefix)
	if err != nil {
		return read, apierrors.NewBadRequest(fmt.Sprintf("invalid continue token: %v", err))
	}
	if rv := p.opts.ResourceVersion; rv != "" && rv != "0" {
		return read, apierrors.NewBadRequest("specifying resource version is not allowed when using continue")
	}
	read.start, read.continued = start, true
	if rv > 0 {
		if _, err := s.waitForRV(req.r.Context(), inst, uint64(rv)); err != nil {
			return read, err
		}
		read.rv = rv
		return read, nil
	}
	read.rv, err = s.consistentReadRV(req.r.Context(), inst)
	return read, err
}

// listReadError turns a store error into the LIST's API error: a compacted
// exact read is 410 "too old"; a compacted continue is 410 with a token
// (rv -1) that continues inconsistently from the latest state.
func (s *Server) listReadError(err error, read listRead, p listParams) error {
	switch {
	case errors.Is(err, store.ErrCompacted) && read.continued:
		// read.start is the token's "<last key>\x00"; re-encode it in the
		// etcd form the real 410 carries.
		last := read.start[:len(read.start)-1]
		st := apierrors.NewResourceExpired(inconsistentContinue)
		st.ErrStatus.ListMeta.Continue = kubewire.EncodeContinue(last, p.prefix, -1, false)
		return st
	case errors.Is(err, store.ErrCompacted):
		return apierrors.NewResourceExpired(listTooOldMessage)
	case errors.Is(err, store.ErrFutureRV):
		return kubewire.TooLargeResourceVersion(uint64(read.rv), s.store.CurrentRV())
	}
	return err
}

// buildList makes the LIST answer (PodList, ...) for a page: a listPage,
// whose items go out without apiVersion/kind, as the real server lists
// them, in a never-null items array, with the continue token and
// remainingItemCount of apiserver pkg/storage/continue.go
// (PrepareContinueToken). Built-in resources encode it from their versions'
// cached encodings (list_encode.go).
func (s *Server) buildList(res *resourceInfo, page store.ListResult, p listParams) (runtime.Object, error) {
	list := res.newList()
	list.GetObjectKind().SetGroupVersionKind(res.listKind)
	if err := setListItems(list, nil); err != nil { // the frame: items [], not null
		return nil, err
	}
	lm, err := meta.ListAccessor(list)
	if err != nil {
		return nil, err
	}
	lm.SetResourceVersion(strconv.FormatInt(page.RV, 10))
	if page.More && len(page.Keys) > 0 {
		// The watch cache's start key has a leading "/", etcd's (a
		// resource with no watch cache) not.
		lm.SetContinue(kubewire.EncodeContinue(page.Keys[len(page.Keys)-1], p.prefix, page.RV, res.hasWatchCache()))
		if !p.hasSelector {
			remaining := page.Remaining
			lm.SetRemainingItemCount(&remaining)
		}
	}
	encs := page.Encodings
	if res.convertsOnRead() {
		// The stored objects' cached forms (their metadata too: v1
		// annotations) are not the converted items'.
		encs = make([]*store.Encodings, len(page.Items))
	}
	lp := &listPage{list: list, items: page.Items, encs: encs, cached: res.readStrategy().reusesEncodings(), bufs: &s.pageBufs}
	if s.splicesCustom(res) {
		lp.custom = res
	}
	return lp, nil
}

// splicesCustom reports whether res is a custom resource whose JSON pages
// are spliced from its stored encodings (listPage.spliceCustomJSON): all
// are, but with Config.customResourcesDecoded, the tests' reference.
func (s *Server) splicesCustom(res *resourceInfo) bool {
	return res.custom != nil && !s.cfg.customResourcesDecoded
}

// setListItems copies items into list.Items (a value slice for typed lists,
// so the store's shared objects are not touched) and clears each copy's
// apiVersion and kind.
func setListItems(list runtime.Object, items []runtime.Object) error {
	if err := meta.SetList(list, items); err != nil {
		return fmt.Errorf("set list items: %w", err)
	}
	if _, ok := list.(*unstructured.UnstructuredList); ok {
		// Custom resources are listed with their apiVersion and kind; the
		// items share the store's maps, which must not be written.
		return nil
	}
	return meta.EachListItem(list, func(o runtime.Object) error {
		o.GetObjectKind().SetGroupVersionKind(schemaEmptyGVK)
		return nil
	})
}

// includeObjectParam reads ?includeObject= for the Table form.
func includeObjectParam(r *http.Request) metav1.IncludeObjectPolicy {
	return metav1.IncludeObjectPolicy(kubewire.QueryOf(r).Get("includeObject"))
}
