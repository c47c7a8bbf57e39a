package fakeapiserver

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1beta1 "k8s.io/apimachinery/pkg/apis/meta/v1beta1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes"
	"pgregory.net/rapid"

	"github.com/lw-sim/lw-sim/fakeapiserver/store"
)

// The encoding property: a LIST page the server builds from its versions'
// cached encodings is byte for byte the serializer's encoding of the same
// list (the store's page at the answer's RV, items without kind and
// apiVersion, or their metadata alone as a PartialObjectMetadataList of
// meta.k8s.io v1 or v1beta1), in JSON and in protobuf, across random creates, updates and
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

// Bulk creates or updates from 16 to 40 configmaps in one namespace, so
// pages are long enough for their encodings to be packed
// (store.PackSlots), and a later Bulk rewrites some of those packed.
func (m *encodeMachine) Bulk(t *rapid.T) {
	ns := rapid.SampledFrom(listRapidNamespaces).Draw(t, "ns")
	n := rapid.IntRange(16, 40).Draw(t, "n")
	client := m.cs.CoreV1().ConfigMaps(ns)
	for i := range n {
		name := fmt.Sprintf("bulk-%02d", i)
		key := ns + "/" + name
		if m.live[key] && !rapid.Bool().Draw(t, "rewrite") {
			continue
		}
		cm := &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{"p": rapid.SampledFrom([]string{"even", "odd"}).Draw(t, "p")}},
			Data:       map[string]string{"v": rapid.StringN(0, 40, -1).Draw(t, "v")},
		}
		var err error
		if m.live[key] {
			_, err = client.Update(m.ctx, cm, metav1.UpdateOptions{})
		} else {
			_, err = client.Create(m.ctx, cm, metav1.CreateOptions{})
		}
		if err != nil {
			t.Fatalf("write %s: %v", key, err)
		}
		m.live[key] = true
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
	// A metadata-only LIST (list_meta_encode.go) in one of its versions,
	// or the objects.
	view := rapid.SampledFrom([]string{"", "v1", "v1beta1"}).Draw(t, "metadataView")
	accept := mt
	if view != "" {
		accept += ";as=PartialObjectMetadataList;g=meta.k8s.io;v=" + view
	}
	ns := rapid.SampledFrom(append([]string{""}, listRapidNamespaces...)).Draw(t, "scope")
	even := rapid.Bool().Draw(t, "evenOnly")
	// Pages of 20 and more have their encodings packed once written
	// (store.PackSlots), so the next read of them is spliced from packed
	// encodings.
	q := url.Values{"limit": {strconv.Itoa(rapid.SampledFrom([]int{0, 1, 2, 3, 4, 20, 50}).Draw(t, "limit"))}}
	if even {
		q.Set("labelSelector", "p=even")
	}
	start := ""
	for {
		body, code := m.get(t, listPath(ns, q), accept)
		if code == http.StatusGone {
			return // compacted between pages
		}
		if code != http.StatusOK {
			t.Fatalf("LIST %s: %d %s", listPath(ns, q), code, body)
		}
		lm, last := m.check(t, pageCheck{mt: mt, view: view, body: body, prefix: scopePrefix(ns), start: start, q: q, even: even})
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

// pageCheck is one page to check: its media type and metadata view ("",
// v1 or v1beta1), the body, and the read it answers.
type pageCheck struct {
	mt, view      string
	body          []byte
	prefix, start string
	q             url.Values
	even          bool
}

// check compares the body with the serializer's encoding of the store's
// page at the answer's RV (its metadata taken from the answer, which the
// same serializer wrote), as the objects or as asPartialObjectMetadataList
// builds their metadata, and returns that metadata and the page's last key.
func (m *encodeMachine) check(t *rapid.T, c pageCheck) (metav1.ListMeta, string) {
	info := serializerFor(t, m.srv, c.mt)
	got, err := decodeListMeta(info, c.view, c.body)
	if err != nil {
		t.Fatalf("decode %s page (view %q): %v", c.mt, c.view, err)
	}
	rv, err := strconv.ParseInt(got.ResourceVersion, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	limit, _ := strconv.Atoi(c.q.Get("limit"))
	opts := store.ListOptions{RV: rv, Prefix: c.prefix, Start: c.start, Limit: limit}
	if c.even {
		opts.Filter = func(o runtime.Object) bool { return o.(*corev1.ConfigMap).Labels["p"] == "even" }
	}
	page, err := m.srv.store.List(m.res.storageKey, opts)
	if err != nil {
		t.Fatalf("store read at rv %d: %v", rv, err)
	}
	want, err := wantEncodedPage(c.view, got, page.Items)
	if err != nil {
		t.Fatal(err)
	}
	wantBody, err := encode(info, want)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(c.body, wantBody) {
		t.Fatalf("%s page (view %q) at rv %d differs from the codec's encoding of the store's page (-codec +served):\n%s", c.mt, c.view, rv, cmp.Diff(string(wantBody), string(c.body)))
	}
	last := ""
	if n := len(page.Keys); n > 0 {
		last = page.Keys[n-1]
	}
	return got, last
}

// decodeListMeta decodes a page's list metadata: of a ConfigMapList, or of
// a PartialObjectMetadataList of the view's version.
func decodeListMeta(info runtime.SerializerInfo, view string, body []byte) (metav1.ListMeta, error) {
	var into runtime.Object = &corev1.ConfigMapList{}
	switch view {
	case "v1":
		into = &metav1.PartialObjectMetadataList{}
	case "v1beta1":
		into = &metav1beta1.PartialObjectMetadataList{}
	}
	if _, _, err := info.Serializer.Decode(body, nil, into); err != nil {
		return metav1.ListMeta{}, err
	}
	l, err := meta.ListAccessor(into)
	if err != nil {
		return metav1.ListMeta{}, err
	}
	return listMetaOf(l), nil
}

// wantEncodedPage is the list a page must encode as: the store's items without
// kind and apiVersion, or their PartialObjectMetadata with them (none:
// a null items array, as the real server appends to a nil slice).
func wantEncodedPage(view string, lm metav1.ListMeta, items []runtime.Object) (runtime.Object, error) {
	if view == "" {
		want := &corev1.ConfigMapList{ListMeta: lm, Items: []corev1.ConfigMap{}}
		want.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("ConfigMapList"))
		for _, o := range items {
			item := *o.(*corev1.ConfigMap)
			item.TypeMeta = metav1.TypeMeta{}
			want.Items = append(want.Items, item)
		}
		return want, nil
	}
	gv := schema.GroupVersion{Group: metav1.GroupName, Version: view}
	var partials []metav1.PartialObjectMetadata
	for _, o := range items {
		p, err := partialObjectMetadata(o, gv)
		if err != nil {
			return nil, err
		}
		partials = append(partials, *p)
	}
	if view == "v1beta1" {
		want := &metav1beta1.PartialObjectMetadataList{ListMeta: lm, Items: partials}
		want.SetGroupVersionKind(gv.WithKind("PartialObjectMetadataList"))
		return want, nil
	}
	want := &metav1.PartialObjectMetadataList{ListMeta: lm, Items: partials}
	want.SetGroupVersionKind(gv.WithKind("PartialObjectMetadataList"))
	return want, nil
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
			"Bulk":    m.Bulk,
			"Compact": m.Compact,
			"List":    m.List,
		})
	})
}
