package fakeapiserver

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/lw-sim/lw-sim/internal/kubewire"
)

// cmView is the part of a listed ConfigMap the LIST tests compare.
type cmView struct {
	Namespace, Name, RV, V string
}

// viewCMs projects ConfigMaps for comparison.
func viewCMs(items []corev1.ConfigMap) []cmView {
	out := make([]cmView, 0, len(items))
	for _, cm := range items {
		out = append(out, cmView{Namespace: cm.Namespace, Name: cm.Name, RV: cm.ResourceVersion, V: cm.Data["v"]})
	}
	return out
}

// rawList is a LIST answer read with plain HTTP, so the tests see the wire
// form (status code, headers, exact metadata) that client-go hides.
type rawList struct {
	code   int
	header http.Header
	body   []byte
	// list is the decoded body of a 200; status that of an error.
	list   corev1.ConfigMapList
	status metav1.Status
	// err is a transport or decoding failure.
	err error
}

// listClient sends raw LIST requests to one server over a transport the
// test owns, so no connection outlives the test.
type listClient struct {
	srv  *Server
	http *http.Client
}

func newListClient(tb testing.TB, srv *Server) *listClient {
	tb.Helper()
	tr := &http.Transport{}
	tb.Cleanup(tr.CloseIdleConnections)
	return &listClient{srv: srv, http: &http.Client{Transport: tr}}
}

// get sends GET path (with its query) and decodes the answer. It fails the
// test only on transport or decoding errors, never on the HTTP code.
func (c *listClient) get(tb testing.TB, path string) rawList {
	tb.Helper()
	out := c.do(path)
	if out.err != nil {
		tb.Fatal(out.err)
	}
	return out
}

// do is get for any goroutine: it reports failures in rawList.err.
func (c *listClient) do(path string) rawList {
	resp, err := c.http.Get(c.srv.URL() + path)
	if err != nil {
		return rawList{err: fmt.Errorf("GET %s = %w", path, err)}
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return rawList{err: fmt.Errorf("GET %s: read body = %w", path, err)}
	}
	out := rawList{code: resp.StatusCode, header: resp.Header, body: body}
	target := any(&out.list)
	if resp.StatusCode != http.StatusOK {
		target = &out.status
	}
	if err := json.Unmarshal(body, target); err != nil {
		out.err = fmt.Errorf("GET %s: decode %s = %w", path, body, err)
	}
	return out
}

// listPath is the configmaps collection of ns ("" for all namespaces) with
// the query q.
func listPath(ns string, q url.Values) string {
	p := "/api/v1/configmaps"
	if ns != "" {
		p = "/api/v1/namespaces/" + ns + "/configmaps"
	}
	if len(q) > 0 {
		p += "?" + q.Encode()
	}
	return p
}

// query builds url.Values from key, value pairs.
func query(kv ...string) url.Values {
	q := url.Values{}
	for i := 0; i+1 < len(kv); i += 2 {
		q.Set(kv[i], kv[i+1])
	}
	return q
}

// newCM is a ConfigMap ns/name with data v and optional labels.
func newCM(ns, name string, v int, labels map[string]string) *corev1.ConfigMap {
	return &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: labels},
		Data:       map[string]string{"v": strconv.Itoa(v)},
	}
}

// ensureNamespace creates namespace ns through the API unless it exists.
func ensureNamespace(tb testing.TB, cs kubernetes.Interface, ns string) {
	tb.Helper()
	_, err := cs.CoreV1().Namespaces().Get(tb.Context(), ns, metav1.GetOptions{})
	if err == nil {
		return
	}
	if _, err := cs.CoreV1().Namespaces().Create(tb.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		tb.Fatalf("create namespace %s = %v", ns, err)
	}
}

// createCM creates a ConfigMap through client-go and returns its RV.
func createCM(tb testing.TB, cs kubernetes.Interface, cm *corev1.ConfigMap) int64 {
	tb.Helper()
	got, err := cs.CoreV1().ConfigMaps(cm.Namespace).Create(tb.Context(), cm, metav1.CreateOptions{})
	if err != nil {
		tb.Fatalf("create configmap %s/%s = %v", cm.Namespace, cm.Name, err)
	}
	return mustParseRV(tb, got.ResourceVersion)
}

func mustParseRV(tb testing.TB, rv string) int64 {
	tb.Helper()
	n, err := strconv.ParseInt(rv, 10, 64)
	if err != nil {
		tb.Fatalf("resourceVersion %q is not a number: %v", rv, err)
	}
	return n
}

// fiveCMs creates cm-a … cm-e in namespace t1 (data v = 1 … 5, label
// app=x on a, c, e) and returns their RVs.
func fiveCMs(tb testing.TB, cs kubernetes.Interface) []int64 {
	tb.Helper()
	ensureNamespace(tb, cs, "t1")
	var rvs []int64
	for i, name := range []string{"cm-a", "cm-b", "cm-c", "cm-d", "cm-e"} {
		var labels map[string]string
		if i%2 == 0 {
			labels = map[string]string{"app": "x"}
		}
		rvs = append(rvs, createCM(tb, cs, newCM("t1", name, i+1, labels)))
	}
	return rvs
}

// names lists the names of views, for short expectations.
func names(views []cmView) []string {
	out := make([]string, 0, len(views))
	for _, v := range views {
		out = append(out, v.Name)
	}
	return out
}

// TestListResourceVersionSemantics pins which state each
// resourceVersion/resourceVersionMatch/limit combination reads and the list
// RV it reports (apiserver pkg/storage/cacher/delegator.go GetList,
// pkg/storage/cacher/cacher.go computeListLimit).
func TestListResourceVersionSemantics(t *testing.T) {
	srv := Start(t)
	cs := srv.Clientset()
	rvs := fiveCMs(t, cs)
	last := rvs[4]
	// One more write after the ConfigMaps moves the global RV past every item.
	ensureNamespace(t, cs, "other")
	cur := srv.store.CurrentRV()
	c := newListClient(t, srv)
	mid := strconv.FormatInt(rvs[1], 10) // cm-a and cm-b exist
	all := []string{"cm-a", "cm-b", "cm-c", "cm-d", "cm-e"}
	tests := []struct {
		name      string
		q         url.Values
		wantRV    int64
		wantNames []string
		wantMore  bool
		reason    string
	}{
		{name: "unset", q: query(), wantRV: cur, wantNames: all,
			reason: "a consistent read reports the global RV, above every item's"},
		{name: "unset with limit", q: query("limit", "2"), wantRV: cur, wantNames: all[:2], wantMore: true},
		{name: "0", q: query("resourceVersion", "0"), wantRV: cur, wantNames: all},
		{name: "0 ignores limit", q: query("resourceVersion", "0", "limit", "2"), wantRV: cur, wantNames: all,
			reason: "cacher.go computeListLimit drops the limit for RV 0"},
		{name: "0 NotOlderThan ignores limit", q: query("resourceVersion", "0", "resourceVersionMatch", "NotOlderThan", "limit", "2"), wantRV: cur, wantNames: all},
		{name: "00 honours limit", q: query("resourceVersion", "00", "limit", "2"), wantRV: cur, wantNames: all[:2], wantMore: true,
			reason: "computeListLimit compares the string with \"0\"; \"00\" parses to 0 and reads the latest state"},
		{name: "N legacy", q: query("resourceVersion", mid), wantRV: cur, wantNames: all,
			reason: "no match and no limit is NotOlderThan"},
		{name: "N NotOlderThan", q: query("resourceVersion", mid, "resourceVersionMatch", "NotOlderThan"), wantRV: cur, wantNames: all},
		{name: "N NotOlderThan limit", q: query("resourceVersion", mid, "resourceVersionMatch", "NotOlderThan", "limit", "2"), wantRV: cur, wantNames: all[:2], wantMore: true},
		{name: "N Exact", q: query("resourceVersion", mid, "resourceVersionMatch", "Exact"), wantRV: rvs[1], wantNames: all[:2]},
		{name: "N legacy with limit", q: query("resourceVersion", mid, "limit", "1"), wantRV: rvs[1], wantNames: all[:1], wantMore: true,
			reason: "RV N with a limit and no match is an exact read (legacy paging)"},
		{name: "N legacy limit -1", q: query("resourceVersion", mid, "limit", "-1"), wantRV: cur, wantNames: all,
			reason: "limit <= 0 is no limit, so not a legacy exact read"},
		{name: "last Exact", q: query("resourceVersion", strconv.FormatInt(last, 10), "resourceVersionMatch", "Exact"), wantRV: last, wantNames: all},
		{name: "before the namespace", q: query("resourceVersion", "2", "resourceVersionMatch", "Exact"), wantRV: 2, wantNames: []string{},
			reason: "the real server answered RV 2 Exact with items:[] [observed on v1.37.2]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := c.get(t, listPath("t1", tt.q))
			if got.code != http.StatusOK {
				t.Fatalf("LIST(%s) = %d %s, want 200", tt.q.Encode(), got.code, got.body)
			}
			if rv := got.list.ResourceVersion; rv != strconv.FormatInt(tt.wantRV, 10) {
				t.Errorf("LIST(%s) rv = %q, want %d (%s)", tt.q.Encode(), rv, tt.wantRV, tt.reason)
			}
			if diff := cmp.Diff(tt.wantNames, names(viewCMs(got.list.Items)), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("LIST(%s) items mismatch (-want +got) (%s):\n%s", tt.q.Encode(), tt.reason, diff)
			}
			if more := got.list.Continue != ""; more != tt.wantMore {
				t.Errorf("LIST(%s) continue = %q, want present=%v", tt.q.Encode(), got.list.Continue, tt.wantMore)
			}
		})
	}
}

// TestListPaging walks a 5-item, limit-2 list as v1.37.2 pages it:
// tokens pinned at the first page's RV, remainingItemCount 3 then 1, a last
// page with only resourceVersion, and a changed limit mid-list.
func TestListPaging(t *testing.T) {
	srv := Start(t)
	cs := srv.Clientset()
	rvs := fiveCMs(t, cs)
	c := newListClient(t, srv)
	listRV := srv.store.CurrentRV()
	want := func(cont string, remaining *int64) metav1.ListMeta {
		return metav1.ListMeta{ResourceVersion: strconv.FormatInt(listRV, 10), Continue: cont, RemainingItemCount: remaining}
	}
	ptr := func(n int64) *int64 { return &n }

	p1 := c.get(t, listPath("t1", query("limit", "2")))
	tok1 := kubewire.EncodeContinue("t1/cm-b", "t1/", listRV, true)
	if diff := cmp.Diff(want(tok1, ptr(3)), p1.list.ListMeta); diff != "" {
		t.Errorf("page 1 metadata mismatch (-want +got):\n%s", diff)
	}
	// Writes between pages change nothing in later pages.
	if err := cs.CoreV1().ConfigMaps("t1").Delete(t.Context(), "cm-c", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	createCM(t, cs, newCM("t1", "cm-bb", 9, nil))

	p2 := c.get(t, listPath("t1", query("limit", "2", "continue", p1.list.Continue)))
	tok2 := kubewire.EncodeContinue("t1/cm-d", "t1/", listRV, true)
	if diff := cmp.Diff(want(tok2, ptr(1)), p2.list.ListMeta); diff != "" {
		t.Errorf("page 2 metadata mismatch (-want +got):\n%s", diff)
	}
	p3 := c.get(t, listPath("t1", query("limit", "2", "continue", p2.list.Continue)))
	if diff := cmp.Diff(want("", nil), p3.list.ListMeta); diff != "" {
		t.Errorf("last page metadata mismatch (-want +got):\n%s", diff)
	}
	got := append(append(viewCMs(p1.list.Items), viewCMs(p2.list.Items)...), viewCMs(p3.list.Items)...)
	var wantItems []cmView
	for i, name := range []string{"cm-a", "cm-b", "cm-c", "cm-d", "cm-e"} {
		wantItems = append(wantItems, cmView{Namespace: "t1", Name: name, RV: strconv.FormatInt(rvs[i], 10), V: strconv.Itoa(i + 1)})
	}
	if diff := cmp.Diff(wantItems, got); diff != "" {
		t.Errorf("paged items mismatch (-want +got):\n%s", diff)
	}

	// The limit may change between pages (observed: limit=10 with a limit=2 token).
	rest := c.get(t, listPath("t1", query("limit", "10", "continue", p1.list.Continue)))
	if diff := cmp.Diff([]string{"cm-c", "cm-d", "cm-e"}, names(viewCMs(rest.list.Items))); diff != "" {
		t.Errorf("limit=10 continue items mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want("", nil), rest.list.ListMeta); diff != "" {
		t.Errorf("limit=10 continue metadata mismatch (-want +got):\n%s", diff)
	}
}

// TestListContinueAndRemainingRules pins when a token and a
// remainingItemCount appear (apiserver pkg/storage/continue.go
// PrepareContinueToken, cacher.go GetList hasMoreListItems).
func TestListContinueAndRemainingRules(t *testing.T) {
	srv := Start(t)
	cs := srv.Clientset()
	fiveCMs(t, cs)
	c := newListClient(t, srv)
	tests := []struct {
		name          string
		q             url.Values
		wantNames     []string
		wantContinue  bool
		wantRemaining *int64
		reason        string
	}{
		{name: "exactly limit items", q: query("limit", "5"), wantNames: []string{"cm-a", "cm-b", "cm-c", "cm-d", "cm-e"},
			reason: "no item after the last one: no token"},
		{name: "one more than limit", q: query("limit", "4"), wantNames: []string{"cm-a", "cm-b", "cm-c", "cm-d"}, wantContinue: true, wantRemaining: ptrTo[int64](1)},
		{name: "label selector", q: query("limit", "2", "labelSelector", "app=x"), wantNames: []string{"cm-a", "cm-c"}, wantContinue: true,
			reason: "a selector hides remainingItemCount"},
		{name: "label selector short page", q: query("limit", "3", "labelSelector", "app=x"), wantNames: []string{"cm-a", "cm-c", "cm-e"},
			reason: "cm-e is the last key: nothing follows"},
		{name: "selector matching nothing", q: query("limit", "2", "labelSelector", "app=nope"), wantNames: []string{}},
		{name: "field selector", q: query("limit", "1", "fieldSelector", "metadata.name!=cm-a"), wantNames: []string{"cm-b"}, wantContinue: true},
		{name: "token though nothing more matches", q: query("limit", "1", "fieldSelector", "metadata.name=cm-d"), wantNames: []string{"cm-d"}, wantContinue: true,
			reason: "cm-e follows cm-d and is not checked against the selector"},
		{name: "empty selector counts", q: query("limit", "2", "labelSelector", ""), wantNames: []string{"cm-a", "cm-b"}, wantContinue: true, wantRemaining: ptrTo[int64](3),
			reason: "an empty selector is no selector (SelectionPredicate.Empty)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := c.get(t, listPath("t1", tt.q))
			if got.code != http.StatusOK {
				t.Fatalf("LIST(%s) = %d %s", tt.q.Encode(), got.code, got.body)
			}
			if diff := cmp.Diff(tt.wantNames, names(viewCMs(got.list.Items)), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("LIST(%s) items mismatch (-want +got):\n%s", tt.q.Encode(), diff)
			}
			if (got.list.Continue != "") != tt.wantContinue {
				t.Errorf("LIST(%s) continue = %q, want present=%v (%s)", tt.q.Encode(), got.list.Continue, tt.wantContinue, tt.reason)
			}
			if diff := cmp.Diff(tt.wantRemaining, got.list.RemainingItemCount); diff != "" {
				t.Errorf("LIST(%s) remainingItemCount mismatch (-want +got) (%s):\n%s", tt.q.Encode(), tt.reason, diff)
			}
		})
	}

	// A token issued although nothing else matches leads to an empty last page.
	first := c.get(t, listPath("t1", query("limit", "1", "fieldSelector", "metadata.name=cm-d")))
	next := c.get(t, listPath("t1", query("limit", "1", "fieldSelector", "metadata.name=cm-d", "continue", first.list.Continue)))
	if len(next.list.Items) != 0 || next.list.Continue != "" {
		t.Errorf("page after the selector's last match = %d items, continue %q; want 0 items and no token", len(next.list.Items), next.list.Continue)
	}
}

func ptrTo[T any](v T) *T { return &v }

// TestListKeyOrderAcrossNamespaces checks byte order of namespace/name over
// all namespaces, and the token's all-namespaces start key form.
func TestListKeyOrderAcrossNamespaces(t *testing.T) {
	srv := Start(t)
	cs := srv.Clientset()
	for _, ns := range []string{"b", "a-x", "a"} {
		ensureNamespace(t, cs, ns)
	}
	for _, key := range [][2]string{{"b", "a"}, {"a-x", "a"}, {"a", "z"}, {"a", "b"}, {"a", "0"}} {
		createCM(t, cs, newCM(key[0], key[1], 0, nil))
	}
	c := newListClient(t, srv)
	var got []string
	q := query("limit", "2")
	for {
		page := c.get(t, listPath("", q))
		for _, cm := range page.list.Items {
			got = append(got, cm.Namespace+"/"+cm.Name)
		}
		if page.list.Continue == "" {
			break
		}
		q.Set("continue", page.list.Continue)
	}
	// "a/" < "a-x/" would be wrong: '-' (0x2d) sorts before '/' (0x2f).
	want := []string{"a-x/a", "a/0", "a/b", "a/z", "b/a"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("all-namespaces paged order mismatch (-want +got):\n%s", diff)
	}
	page := c.get(t, listPath("", query("limit", "1")))
	tok, err := decodeTokenJSON(page.list.Continue)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"v":"meta.k8s.io/v1","rv":` + page.list.ResourceVersion + `,"start":"/a-x/a\u0000"}`; tok != want {
		t.Errorf("all-namespaces token = %s, want %s", tok, want)
	}
}

// TestListNamespaceFieldSelectorNarrows checks that metadata.namespace=X on
// an all-namespaces LIST reads only X's keys (registry store.go
// ListPredicate): no token when X is exhausted, and a namespace-relative
// start key in the token.
func TestListNamespaceFieldSelectorNarrows(t *testing.T) {
	srv := Start(t)
	cs := srv.Clientset()
	for _, ns := range []string{"a", "b"} {
		ensureNamespace(t, cs, ns)
		createCM(t, cs, newCM(ns, "x", 0, nil))
		createCM(t, cs, newCM(ns, "y", 0, nil))
	}
	c := newListClient(t, srv)
	page := c.get(t, listPath("", query("limit", "2", "fieldSelector", "metadata.namespace=a")))
	if diff := cmp.Diff([]string{"x", "y"}, names(viewCMs(page.list.Items))); diff != "" {
		t.Errorf("items mismatch (-want +got):\n%s", diff)
	}
	if page.list.Continue != "" {
		t.Errorf("continue = %q, want none: namespace a has no more keys", page.list.Continue)
	}
	page = c.get(t, listPath("", query("limit", "1", "fieldSelector", "metadata.namespace=a")))
	tok, err := decodeTokenJSON(page.list.Continue)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"v":"meta.k8s.io/v1","rv":` + page.list.ResourceVersion + `,"start":"/x\u0000"}`; tok != want {
		t.Errorf("narrowed token = %s, want %s", tok, want)
	}
}

// TestListWireShape checks the raw JSON: items without kind/apiVersion,
// "items":[] for an empty list, and metadata with only resourceVersion on
// a last page (apiserver pkg/storage/cacher/cacher.go GetList; observed).
func TestListWireShape(t *testing.T) {
	srv := Start(t)
	cs := srv.Clientset()
	ensureNamespace(t, cs, "t1")
	c := newListClient(t, srv)
	rv := strconv.FormatInt(srv.store.CurrentRV(), 10)
	empty := c.get(t, listPath("t1", query("limit", "2")))
	want := `{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"` + rv + `"},"items":[]}`
	if got := string(bytes.TrimSpace(empty.body)); got != want {
		t.Errorf("empty LIST body = %s, want %s", got, want)
	}
	createCM(t, cs, newCM("t1", "a", 1, nil))
	full := c.get(t, listPath("t1", nil))
	var raw struct {
		Metadata map[string]any   `json:"metadata"`
		Items    []map[string]any `json:"items"`
	}
	if err := json.Unmarshal(full.body, &raw); err != nil {
		t.Fatal(err)
	}
	if len(raw.Items) != 1 {
		t.Fatalf("LIST items = %d, want 1", len(raw.Items))
	}
	for _, field := range []string{"kind", "apiVersion"} {
		if v, ok := raw.Items[0][field]; ok {
			t.Errorf("list item has %s = %v, want none", field, v)
		}
	}
	if diff := cmp.Diff(map[string]any{"resourceVersion": full.list.ResourceVersion}, raw.Metadata); diff != "" {
		t.Errorf("last page metadata mismatch (-want +got):\n%s", diff)
	}
	if got := full.header.Get("Content-Type"); got != "application/json" {
		t.Errorf("Content-Type = %q, want application/json", got)
	}
}

// decodeTokenJSON returns the JSON inside a continue token.
func decodeTokenJSON(token string) (string, error) {
	data, err := base64.RawURLEncoding.DecodeString(token)
	return string(data), err
}
