package conformance

import (
	"context"
	"net/http"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/lw-sim/lw-sim/internal/kubewire"
)

// listPagingCases are the cases of this file, in the order [Cases] runs them.
func listPagingCases() []Case {
	return []Case{
		{Name: "ListPagination", Run: runListPagination},
		{Name: "ListPodsNodeNameToken", Run: runListPodsNodeNameToken},
		{Name: "ListExactlyLimitRemainingNoToken", Run: runListExactlyLimitRemainingNoToken},
		{Name: "ListContinuePinnedRV", Run: runListContinuePinnedRV},
		{Name: "ListContinueTokenFormat", Run: runListContinueTokenFormat},
		{Name: "ListContinueLimitChange", Run: runListContinueLimitChange},
		{Name: "ListRemainingCountOmittedWithSelector", Run: runListRemainingCountOmittedWithSelector},
		{Name: "ListSelectorTokenWithoutMoreMatches", Run: runListSelectorTokenWithoutMoreMatches},
		{Name: "ListContinueWithRV0Accepted", Run: runListContinueWithRV0Accepted},
		{Name: "ListContinueLatestToken", Run: runListContinueLatestToken},
		{Name: "ListAllNamespacesOrder", Run: runListAllNamespacesOrder},
		{Name: "ListExactCompacted", Run: runListExactCompacted, Exclusive: true},
		{Name: "ListContinueCompacted", Run: runListContinueCompacted, Exclusive: true},
	}
}

// runListPagination: 5 items, limit 2: pages of 2, 2, 1; remainingItemCount
// 3 then 1 then absent; a continue token until the last page; every page at
// the first page's RV (storage/continue.go).
func runListPagination(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	e.createN(ctx, "a", "b", "c", "d", "e")
	p1 := e.list(ctx, "limit", "2")
	p2 := e.list(ctx, "limit", "2", "continue", p1.Metadata.Continue)
	p3 := e.list(ctx, "limit", "2", "continue", p2.Metadata.Continue)
	type page struct {
		Names     []string
		Continue  bool
		Remaining *int64
	}
	pageOf := func(l list) page {
		return page{Names: l.names(), Continue: l.Metadata.Continue != "", Remaining: l.Metadata.RemainingItemCount}
	}
	three, one := int64(3), int64(1)
	want := []page{{[]string{"a", "b"}, true, &three}, {[]string{"c", "d"}, true, &one}, {[]string{"e"}, false, nil}}
	if diff := cmp.Diff(want, []page{pageOf(p1), pageOf(p2), pageOf(p3)}); diff != "" {
		t.Errorf("pages (-want +got):\n%s", diff)
	}
	if p1.Metadata.ResourceVersion != p2.Metadata.ResourceVersion || p2.Metadata.ResourceVersion != p3.Metadata.ResourceVersion {
		t.Errorf("page RVs %s, %s, %s; want all equal", p1.Metadata.ResourceVersion, p2.Metadata.ResourceVersion, p3.Metadata.ResourceVersion)
	}
}

// runListExactlyLimitRemainingNoToken: when exactly limit items remain, the
// page carries no continue token (storage/etcd3/store.go GetList: hasMore).
func runListExactlyLimitRemainingNoToken(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	e.createN(ctx, "a", "b", "c", "d")
	p1 := e.list(ctx, "limit", "2")
	if p1.Metadata.Continue == "" {
		t.Fatalf("page 1: no continue token with 2 items left")
	}
	p2 := e.list(ctx, "limit", "2", "continue", p1.Metadata.Continue)
	if p2.Metadata.Continue != "" || p2.Metadata.RemainingItemCount != nil {
		t.Errorf("page 2: continue=%q remaining=%v, want neither", p2.Metadata.Continue, p2.Metadata.RemainingItemCount)
	}
	full := e.list(ctx, "limit", "4")
	if full.Metadata.Continue != "" {
		t.Errorf("limit=4 over 4 items: continue=%q, want none", full.Metadata.Continue)
	}
}

// runListContinuePinnedRV: later pages show the state at the first page's
// RV, not writes made in between (storage/continue.go).
func runListContinuePinnedRV(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	e.createN(ctx, "a", "b", "c")
	p1 := e.list(ctx, "limit", "1")
	e.update(ctx, "b", "v2", nil)
	e.createN(ctx, "bb")
	e.del(ctx, "c")
	p2 := e.list(ctx, "limit", "10", "continue", p1.Metadata.Continue)
	if diff := cmp.Diff([]string{"b", "c"}, p2.names()); diff != "" {
		t.Errorf("page 2 names (-want +got):\n%s", diff)
	}
	if p2.Metadata.ResourceVersion != p1.Metadata.ResourceVersion {
		t.Errorf("page 2 rv = %s, want page 1's %s", p2.Metadata.ResourceVersion, p1.Metadata.ResourceVersion)
	}
	if len(p2.Items) > 0 {
		if got := p2.Items[0]["data"].(map[string]any)["k"]; got != "v" {
			t.Errorf("b on page 2 has data %v, want the old value v", got)
		}
	}
}

// runListContinueTokenFormat: the token is unpadded URL base64 of
// {"v":"meta.k8s.io/v1","rv":<list RV>,"start":"<last name>\u0000"}; the
// cache writes "/b\u0000", etcd "b\u0000" (storage/continue.go EncodeContinue).
func runListContinueTokenFormat(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	e.createN(ctx, "a", "b", "c")
	p1 := e.list(ctx, "limit", "2")
	tok := decodeContinue(t, p1.Metadata.Continue)
	if tok.Version != "meta.k8s.io/v1" {
		t.Errorf("token v = %q", tok.Version)
	}
	if tok.RV != p1.rv(t) {
		t.Errorf("token rv = %d, want list rv %d", tok.RV, p1.rv(t))
	}
	if got := strings.TrimPrefix(tok.Start, "/"); got != "b\x00" {
		t.Errorf("token start = %q, want \"b\\x00\" (optionally with a leading /)", tok.Start)
	}
}

// runListContinueLimitChange: the limit may change between pages
// (storage/continue.go).
func runListContinueLimitChange(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	e.createN(ctx, "a", "b", "c", "d", "e")
	p1 := e.list(ctx, "limit", "2")
	p2 := e.list(ctx, "limit", "10", "continue", p1.Metadata.Continue)
	if diff := cmp.Diff([]string{"c", "d", "e"}, p2.names()); diff != "" {
		t.Errorf("names (-want +got):\n%s", diff)
	}
	if p2.Metadata.Continue != "" {
		t.Errorf("continue = %q on the last page", p2.Metadata.Continue)
	}
}

// runListRemainingCountOmittedWithSelector: with a label selector the
// page has no remainingItemCount (storage/etcd3/store.go GetList).
func runListRemainingCountOmittedWithSelector(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	e.createN(ctx, "a", "b", "c", "d")
	p1 := e.list(ctx, "limit", "2", "labelSelector", "app=x")
	if p1.Metadata.RemainingItemCount != nil {
		t.Errorf("remainingItemCount = %d with a selector, want absent", *p1.Metadata.RemainingItemCount)
	}
	if p1.Metadata.Continue == "" {
		t.Errorf("no continue token with more matches left")
	}
}

// runListSelectorTokenWithoutMoreMatches: with a selector a token may be
// issued when no further item matches; the next page is then empty and
// final (storage/etcd3/store.go GetList).
func runListSelectorTokenWithoutMoreMatches(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	e.create(ctx, "a", map[string]string{"app": "x"})
	e.create(ctx, "b", map[string]string{"app": "x"})
	e.create(ctx, "c", map[string]string{"app": "y"})
	p1 := e.list(ctx, "limit", "2", "labelSelector", "app=x")
	if diff := cmp.Diff([]string{"a", "b"}, p1.names()); diff != "" {
		t.Errorf("page 1 (-want +got):\n%s", diff)
	}
	if p1.Metadata.Continue == "" {
		t.Fatalf("page 1: no continue token, want one (c exists beyond b, unmatched)")
	}
	p2 := e.list(ctx, "limit", "2", "labelSelector", "app=x", "continue", p1.Metadata.Continue)
	if len(p2.Items) != 0 || p2.Metadata.Continue != "" {
		t.Errorf("page 2: names %v continue %q, want empty and final", p2.names(), p2.Metadata.Continue)
	}
}

// runListContinueWithRV0Accepted: continue with resourceVersion=0 is
// accepted and the token's RV wins (storage/interfaces.go ValidateListOptions).
func runListContinueWithRV0Accepted(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	e.createN(ctx, "a", "b", "c")
	p1 := e.list(ctx, "limit", "2")
	p2 := e.list(ctx, "limit", "2", "continue", p1.Metadata.Continue, "resourceVersion", "0")
	if diff := cmp.Diff([]string{"c"}, p2.names()); diff != "" {
		t.Errorf("names (-want +got):\n%s", diff)
	}
	if p2.Metadata.ResourceVersion != p1.Metadata.ResourceVersion {
		t.Errorf("rv = %s, want token rv %s", p2.Metadata.ResourceVersion, p1.Metadata.ResourceVersion)
	}
}

// runListContinueLatestToken: a token with rv -1 continues at the latest
// RV from its start key, with fresh tokens at that RV (storage/continue.go).
func runListContinueLatestToken(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	e.createN(ctx, "a", "b", "c", "d")
	tok := kubewire.EncodeContinueJSON([]byte(`{"v":"meta.k8s.io/v1","rv":-1,"start":"a\u0000"}`))
	e.createN(ctx, "bb")
	cur := e.currentRV(ctx)
	p := e.list(ctx, "limit", "2", "continue", tok)
	if diff := cmp.Diff([]string{"b", "bb"}, p.names()); diff != "" {
		t.Errorf("names (-want +got):\n%s", diff)
	}
	if got := p.rv(t); got < cur {
		t.Errorf("rv = %d, want the latest (>= %d)", got, cur)
	}
	if p.Metadata.Continue == "" {
		t.Fatalf("no continue token, want one (c, d left)")
	}
	if got := decodeContinue(t, p.Metadata.Continue).RV; got != p.rv(t) {
		t.Errorf("next token rv = %d, want the page rv %d", got, p.rv(t))
	}
	if p.Metadata.RemainingItemCount == nil || *p.Metadata.RemainingItemCount != 2 {
		t.Errorf("remainingItemCount = %v, want 2", p.Metadata.RemainingItemCount)
	}
}

// runListAllNamespacesOrder: an all-namespaces LIST orders by namespace/name;
// fieldSelector metadata.namespace narrows it
// (storage/cacher/store/store_btree.go OrderedListPrefix; kubernetes
// registry/core/configmap/strategy.go SelectableFields).
func runListAllNamespacesOrder(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	e2 := setupSibling(ctx, t, e)
	lbl := map[string]string{"case": e.ns}
	e.create(ctx, "b", lbl)
	e2.create(ctx, "a", lbl)
	e.create(ctx, "a", lbl)
	r := e.c.do(ctx, t, request{Path: "/api/v1/configmaps", Query: q("labelSelector", "case="+e.ns)})
	r.mustCode(t, http.StatusOK, "list all namespaces")
	var l list
	r.decode(t, &l)
	var got []string
	for _, it := range l.Items {
		got = append(got, metaOf(it)["namespace"].(string)+"/"+nameOf(it))
	}
	// Storage keys are <namespace>/<name>, compared as bytes: "ns-b/a"
	// sorts before "ns/a" because '-' < '/'.
	want := []string{e.ns + "/a", e.ns + "/b", e2.ns + "/a"}
	sort.Strings(want)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("all-namespace order (-want +got):\n%s", diff)
	}
	r = e.c.do(ctx, t, request{Path: "/api/v1/configmaps", Query: q("labelSelector", "case="+e.ns, "fieldSelector", "metadata.namespace="+e2.ns)})
	r.mustCode(t, http.StatusOK, "list all namespaces by namespace field")
	var l2 list
	r.decode(t, &l2)
	if diff := cmp.Diff([]string{"a"}, l2.names()); diff != "" {
		t.Errorf("fieldSelector metadata.namespace (-want +got):\n%s", diff)
	}
}

// setupSibling creates a second namespace for a case that needs two.
func setupSibling(ctx context.Context, t *testing.T, e *env) *env {
	t.Helper()
	ns := e.ns + "-b"
	r := e.c.do(ctx, t, request{Method: http.MethodPost, Path: "/api/v1/namespaces", Body: object{
		"apiVersion": "v1", "kind": "Namespace", "metadata": object{"name": ns},
	}})
	r.mustCode(t, http.StatusCreated, "create namespace "+ns)
	t.Cleanup(func() { deleteNamespace(e.c.target, ns) })
	return &env{t: t, c: e.c, ns: ns}
}

// runListExactCompacted: an Exact LIST at a compacted RV is 410 Expired
// "The resourceVersion for the provided list is too old." (storage/etcd3/errors.go
// interpretListError).
func runListExactCompacted(ctx context.Context, t *testing.T, target Target) {
	comp := requireCompactor(t, target)
	e := setup(ctx, t, target)
	rvs := e.createN(ctx, "a", "b")
	e.update(ctx, "a", "v2", nil)
	if err := comp.Compact(ctx, e.currentRV(ctx)); err != nil {
		t.Fatal(err)
	}
	want := wantStatus(http.StatusGone, metav1.StatusReasonExpired, "The resourceVersion for the provided list is too old.", nil)
	for _, qs := range [][]string{
		{"resourceVersion", itoa(rvs[0]), "resourceVersionMatch", "Exact"},
		{"resourceVersion", itoa(rvs[0]), "limit", "1"},
	} {
		r := e.c.do(ctx, t, request{Path: e.cms(), Query: q(qs...)})
		checkStatus(t, "list "+q(qs...).Encode(), r, want)
	}
}

// runListContinueCompacted: a continue token whose RV was compacted is 410
// Expired with the inconsistent-continue message and a fresh token with
// rv -1 in metadata.continue; that token resumes after the same key at the
// latest RV (storage/interfaces.go ValidateListOptions).
func runListContinueCompacted(ctx context.Context, t *testing.T, target Target) {
	comp := requireCompactor(t, target)
	e := setup(ctx, t, target)
	e.createN(ctx, "a", "b", "c", "d")
	p1 := e.list(ctx, "limit", "2")
	e.update(ctx, "c", "v2", nil)
	if err := comp.Compact(ctx, e.currentRV(ctx)); err != nil {
		t.Fatal(err)
	}
	r := e.c.do(ctx, t, request{Path: e.cms(), Query: q("limit", "2", "continue", p1.Metadata.Continue)})
	want := wantStatus(http.StatusGone, metav1.StatusReasonExpired, inconsistentContinueMsg, nil)
	want.Continue = true
	checkStatus(t, "continue after compaction", r, want)
	st := r.status(t)
	if st.Continue == "" {
		return
	}
	tok := decodeContinue(t, st.Continue)
	if tok.RV != -1 || strings.TrimPrefix(tok.Start, "/") != "b\x00" {
		t.Errorf("inconsistent token = %+v, want rv -1 and start b\\x00", tok)
	}
	p2 := e.list(ctx, "limit", "2", "continue", st.Continue)
	if diff := cmp.Diff([]string{"c", "d"}, p2.names()); diff != "" {
		t.Errorf("names after the inconsistent token (-want +got):\n%s", diff)
	}
	if len(p2.Items) > 0 && p2.Items[0]["data"].(map[string]any)["k"] != "v2" {
		t.Errorf("c = %v, want the latest value v2", p2.Items[0]["data"])
	}
}

// inconsistentContinueMsg is etcd3/errors.go's inconsistentContinue text.
const inconsistentContinueMsg = "The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list."

// runListPodsNodeNameToken: the watch cache lists pods selected by
// spec.nodeName through its spec.nodeName index (pod/strategy.go Indexers)
// when it reads its latest snapshot, and hasMore then counts the index's
// pods only (cacher.go GetList): a first page that takes the node's last
// pod has no continue token though a pod on another node follows. A
// continue page is read without the index: there the pod that follows
// counts, as for any selector (ListSelectorTokenWithoutMoreMatches).
func runListPodsNodeNameToken(ctx context.Context, t *testing.T, target Target) {
	e := setup(ctx, t, target)
	for _, p := range [][2]string{{"a", "n1"}, {"b", "n1"}, {"c", "n2"}} {
		e.createPod(ctx, pod(p[0], p[1], object{"name": "c", "image": "busybox"}))
	}
	page := func(query ...string) list {
		r := e.c.do(ctx, t, request{Path: e.pods(), Query: q(query...)})
		r.mustCode(t, http.StatusOK, "list pods "+q(query...).Encode())
		var l list
		r.decode(t, &l)
		return l
	}
	names := func(l list) []string {
		var out []string
		for _, it := range l.Items {
			out = append(out, metaOf(it)["name"].(string))
		}
		return out
	}
	p1 := page("limit", "2", "fieldSelector", "spec.nodeName=n1")
	if diff := cmp.Diff([]string{"a", "b"}, names(p1)); diff != "" || p1.Metadata.Continue != "" {
		t.Errorf("first page of 2: continue %q (-want +got names):\n%s; want no token (no more n1 pods in the index)", p1.Metadata.Continue, diff)
	}
	p0 := page("limit", "1", "fieldSelector", "spec.nodeName=n1")
	if p0.Metadata.Continue == "" {
		t.Fatalf("first page of 1: no continue token, want one (b follows in the index)")
	}
	p2 := page("limit", "1", "fieldSelector", "spec.nodeName=n1", "continue", p0.Metadata.Continue)
	if diff := cmp.Diff([]string{"b"}, names(p2)); diff != "" || p2.Metadata.Continue == "" {
		t.Errorf("continue page of 1: continue %q (-want +got names):\n%s; want a token (c follows, unmatched)", p2.Metadata.Continue, diff)
	}
}
