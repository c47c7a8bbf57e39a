package fakeapiserver

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"pgregory.net/rapid"

	"github.com/lw-sim/lw-sim/fakeapiserver/store"
)

// The encoding property: a LIST page the server builds from its versions'
// cached encodings is byte for byte the serializer's encoding of the same
// list (the store's page at the answer's RV, items without kind and
// apiVersion), in JSON and in protobuf, across random creates, updates and
// deletes with arbitrary strings, compactions, selectors and paging, with
// writes and compactions between the pages of one paged LIST.

// encodeMachine is the rapid state machine of the property.
type encodeMachine struct {
	ctx  context.Context
	srv  *Server
	cs   kubernetes.Interface
	http *http.Client
	res  *resourceInfo
	live map[string]bool // "<ns>/<name>" of the live configmaps
}

// Write creates, updates or deletes a random configmap with random data.
func (m *encodeMachine) Write(t *rapid.T) {
	ns := rapid.SampledFrom(listRapidNamespaces).Draw(t, "ns")
	name := rapid.SampledFrom(listRapidNames).Draw(t, "name")
	key := ns + "/" + name
	client := m.cs.CoreV1().ConfigMaps(ns)
	cm := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{"p": rapid.SampledFrom([]string{"even", "odd"}).Draw(t, "p")}},
		Data:       map[string]string{"v": rapid.String().Draw(t, "v")},
	}
	var err error
	switch {
	case !m.live[key]:
		_, err = client.Create(m.ctx, cm, metav1.CreateOptions{})
		m.live[key] = true
	case rapid.Bool().Draw(t, "delete"):
		err = client.Delete(m.ctx, name, metav1.DeleteOptions{})
		delete(m.live, key)
	default:
		_, err = client.Update(m.ctx, cm, metav1.UpdateOptions{})
	}
	if err != nil {
		t.Fatalf("write %s: %v", key, err)
	}
}

// Compact compacts to a random RV at or above the current point.
func (m *encodeMachine) Compact(t *rapid.T) {
	rv := rapid.Int64Range(m.srv.CompactedRV(), m.srv.store.CurrentRV()).Draw(t, "compactTo")
	if err := m.srv.Compact(rv); err != nil {
		t.Fatalf("Compact(%d): %v", rv, err)
	}
}

// List walks a paged LIST in a random media type, scope, limit and
// selector, with random writes and compactions between pages, and checks
// every page it gets.
func (m *encodeMachine) List(t *rapid.T) {
	mt := rapid.SampledFrom([]string{runtime.ContentTypeJSON, runtime.ContentTypeProtobuf}).Draw(t, "accept")
	ns := rapid.SampledFrom(append([]string{""}, listRapidNamespaces...)).Draw(t, "scope")
	even := rapid.Bool().Draw(t, "evenOnly")
	q := url.Values{"limit": {strconv.Itoa(rapid.IntRange(0, 4).Draw(t, "limit"))}}
	if even {
		q.Set("labelSelector", "p=even")
	}
	start := ""
	for {
		body, code := m.get(t, listPath(ns, q), mt)
		if code == http.StatusGone {
			return // compacted between pages
		}
		if code != http.StatusOK {
			t.Fatalf("LIST %s: %d %s", listPath(ns, q), code, body)
		}
		lm, last := m.check(t, mt, body, scopePrefix(ns), start, q, even)
		if lm.Continue == "" {
			return
		}
		q.Set("continue", lm.Continue)
		start = last + "\x00"
		if rapid.Bool().Draw(t, "writeBetweenPages") {
			m.Write(t)
		}
		if rapid.IntRange(0, 4).Draw(t, "compactBetweenPages") == 0 {
			m.Compact(t)
		}
	}
}

// get sends a raw GET and returns the body and status code.
func (m *encodeMachine) get(t *rapid.T, path, mt string) ([]byte, int) {
	req, err := http.NewRequestWithContext(m.ctx, http.MethodGet, m.srv.URL()+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", mt)
	resp, err := m.http.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return body, resp.StatusCode
}

// check compares body with the serializer's encoding of the store's page
// at the answer's RV (its metadata taken from the answer, which the same
// serializer wrote), and returns that metadata and the page's last key.
func (m *encodeMachine) check(t *rapid.T, mt string, body []byte, prefix, start string, q url.Values, even bool) (metav1.ListMeta, string) {
	info := serializerFor(t, m.srv, mt)
	var got corev1.ConfigMapList
	if _, _, err := info.Serializer.Decode(body, nil, &got); err != nil {
		t.Fatalf("decode %s page: %v", mt, err)
	}
	rv, err := strconv.ParseInt(got.ResourceVersion, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	limit, _ := strconv.Atoi(q.Get("limit"))
	opts := store.ListOptions{RV: rv, Prefix: prefix, Start: start, Limit: limit}
	if even {
		opts.Filter = func(o runtime.Object) bool { return o.(*corev1.ConfigMap).Labels["p"] == "even" }
	}
	page, err := m.srv.store.List(m.res.storageKey, opts)
	if err != nil {
		t.Fatalf("store read at rv %d: %v", rv, err)
	}
	want := &corev1.ConfigMapList{ListMeta: got.ListMeta, Items: []corev1.ConfigMap{}}
	want.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("ConfigMapList"))
	for _, o := range page.Items {
		item := *o.(*corev1.ConfigMap)
		item.TypeMeta = metav1.TypeMeta{}
		want.Items = append(want.Items, item)
	}
	wantBody, err := encode(info, want)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(body, wantBody) {
		t.Fatalf("%s page at rv %d differs from the codec's encoding of the store's page (-codec +served):\n%s", mt, rv, cmp.Diff(string(wantBody), string(body)))
	}
	last := ""
	if n := len(page.Keys); n > 0 {
		last = page.Keys[n-1]
	}
	return got.ListMeta, last
}

// TestListPageEncodingMatchesCodec is the encoding property.
func TestListPageEncodingMatchesCodec(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		srv, stop := listRapidServer(rt)
		tr := &http.Transport{}
		defer func() { stop(); tr.CloseIdleConnections() }()
		cs := srv.Clientset()
		for _, ns := range listRapidNamespaces {
			if _, err := cs.CoreV1().Namespaces().Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
				rt.Fatal(err)
			}
		}
		m := &encodeMachine{ctx: t.Context(), srv: srv, cs: cs, http: &http.Client{Transport: tr}, res: configMapsResource(t, srv), live: map[string]bool{}}
		rt.Repeat(map[string]func(*rapid.T){
			"Write":   m.Write,
			"Compact": m.Compact,
			"List":    m.List,
		})
	})
}
