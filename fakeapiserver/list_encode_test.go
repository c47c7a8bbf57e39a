package fakeapiserver

import (
	"bytes"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1beta1 "k8s.io/apimachinery/pkg/apis/meta/v1beta1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/lw-sim/lw-sim/fakeapiserver/store"
)

// fataler is what serializerFor needs of a *testing.T or a *rapid.T.
type fataler interface {
	Helper()
	Fatalf(format string, args ...any)
}

// serializerFor is the server's serializer of a media type.
func serializerFor(t fataler, srv *Server, mediaType string) runtime.SerializerInfo {
	t.Helper()
	info, ok := runtime.SerializerInfoForMediaType(srv.codecs.SupportedMediaTypes(), mediaType)
	if !ok {
		t.Fatalf("no serializer for %s", mediaType)
	}
	return info
}

// sampleObject is a new object of res's kind with metadata that JSON must
// escape (HTML characters, non-ASCII) and an RV.
func sampleObject(t testing.TB, res *resourceInfo, name string) runtime.Object {
	t.Helper()
	obj := res.newObject()
	obj.GetObjectKind().SetGroupVersionKind(res.Kind)
	m, err := meta.Accessor(obj)
	if err != nil {
		t.Fatalf("%v: %v", res.Kind, err)
	}
	m.SetName(name)
	m.SetNamespace("ns")
	m.SetResourceVersion("42")
	m.SetLabels(map[string]string{"a": "<b>&\"c\"", "é": "ü\u2028"})
	return obj
}

// TestCachedEncodingsMatchCodecForEveryKind checks, for every built-in resource
// served, that a LIST page and a watch event's object built from cached
// item encodings, and their metadata-only forms (PartialObjectMetadataList,
// PartialObjectMetadata, v1 and v1beta1), are byte for byte what the
// serializers write for the full list and the object, in JSON and in
// protobuf: the list frames, the
// removal of the items' kind and apiVersion, and the protobuf envelope and
// item framing hold for every kind, not only for the pods and configmaps
// the property test writes.
func TestCachedEncodingsMatchCodecForEveryKind(t *testing.T) {
	srv, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	srv.resources.mu.RLock()
	var infos []*resourceInfo
	for _, res := range srv.resources.byGVR {
		if res.review == nil && res.custom == nil {
			infos = append(infos, res)
		}
	}
	srv.resources.mu.RUnlock()
	sort.Slice(infos, func(i, j int) bool { return infos[i].gvr.String() < infos[j].gvr.String() })
	for _, mt := range []string{runtime.ContentTypeJSON, runtime.ContentTypeProtobuf} {
		info := serializerFor(t, srv, mt)
		for _, res := range infos {
			items := []runtime.Object{sampleObject(t, res, "a"), sampleObject(t, res, "b")}
			page, err := srv.buildList(res, store.ListResult{Items: items, Encodings: []*store.Encodings{{}, {}}, RV: 7}, listParams{})
			if err != nil {
				t.Fatalf("%v: buildList: %v", res.gvr, err)
			}
			checkPage(t, info, page.(*listPage))
			checkObject(t, info, items[0])
			for _, gv := range []schema.GroupVersion{metav1.SchemeGroupVersion, metav1beta1.SchemeGroupVersion} {
				checkMetaPage(t, info, page.(*listPage), gv)
				checkPartialObject(t, info, items[0], gv)
			}
		}
	}
}

// checkPage compares a page's cached encoding (twice: filling the caches,
// then from them) with the serializer's encoding of the full list.
func checkPage(t *testing.T, info runtime.SerializerInfo, page *listPage) {
	t.Helper()
	full, err := page.materialize()
	if err != nil {
		t.Fatal(err)
	}
	want, err := encode(info, full)
	if err != nil {
		t.Fatalf("%s %v: %v", info.MediaType, page.list.GetObjectKind().GroupVersionKind(), err)
	}
	for range 2 {
		got, err := encode(info, page)
		if err != nil {
			t.Fatalf("%s %v: %v", info.MediaType, page.list.GetObjectKind().GroupVersionKind(), err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("%s %v: page from cached items differs from the codec's list (-codec +cached):\n%s",
				info.MediaType, page.list.GetObjectKind().GroupVersionKind(), cmp.Diff(want, got))
		}
	}
}

// checkObject compares a watch event's object from the cache with the
// serializer's encoding of it.
func checkObject(t *testing.T, info runtime.SerializerInfo, obj runtime.Object) {
	t.Helper()
	want, err := encode(info, obj)
	if err != nil {
		t.Fatal(err)
	}
	enc := &store.Encodings{}
	var got []byte
	if info.MediaType == runtime.ContentTypeProtobuf {
		got, err = protobufObject(enc, obj, obj.GetObjectKind().GroupVersionKind())
	} else {
		got, err = cachedJSON(info, enc, obj)
		want = bytes.TrimSuffix(want, []byte("\n"))
	}
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s %v: cached object differs from the codec's (-codec +cached):\n%s",
			info.MediaType, obj.GetObjectKind().GroupVersionKind(), cmp.Diff(want, got))
	}
}

// checkMetaPage compares a page's metadata list from cached item metadata
// (twice: filling the caches, then from them) with the serializer's
// encoding of the list asPartialObjectMetadataList builds.
func checkMetaPage(t *testing.T, info runtime.SerializerInfo, page *listPage, gv schema.GroupVersion) {
	t.Helper()
	mp, err := newMetaListPage(page, gv)
	if err != nil {
		t.Fatal(err)
	}
	full, err := mp.materialize()
	if err != nil {
		t.Fatal(err)
	}
	want, err := encode(info, full)
	if err != nil {
		t.Fatalf("%s %v: %v", info.MediaType, gv, err)
	}
	for range 2 {
		got, err := encode(info, mp)
		if err != nil {
			t.Fatalf("%s %v: %v", info.MediaType, gv, err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("%s %v of %v: metadata page from cached items differs from the codec's list (-codec +cached):\n%s",
				info.MediaType, gv, page.list.GetObjectKind().GroupVersionKind(), cmp.Diff(want, got))
		}
		mp.releaseBody()
	}
}

// checkPartialObject compares a metadata watch event's object from the
// cache with the serializer's encoding of its PartialObjectMetadata.
func checkPartialObject(t *testing.T, info runtime.SerializerInfo, obj runtime.Object, gv schema.GroupVersion) {
	t.Helper()
	partial, err := partialObjectMetadata(obj, gv)
	if err != nil {
		t.Fatal(err)
	}
	want, err := encode(info, partial)
	if err != nil {
		t.Fatal(err)
	}
	got, err := partialObjectBytes(info, &store.Encodings{}, obj, gv)
	if err != nil {
		t.Fatal(err)
	}
	if want = bytes.TrimSuffix(want, []byte("\n")); !bytes.Equal(got, want) {
		t.Fatalf("%s %v of %v: cached metadata differs from the codec's (-codec +cached):\n%s",
			info.MediaType, gv, obj.GetObjectKind().GroupVersionKind(), cmp.Diff(want, got))
	}
}

// TestWithoutTypeMeta covers the JSON member stripping on its edges.
func TestWithoutTypeMeta(t *testing.T) {
	for in, want := range map[string]string{
		`{"kind":"Pod","apiVersion":"v1","metadata":{}}`: `"metadata":{}}`,
		`{"kind":"Pod","apiVersion":"v1"}`:               `}`,
		`{"apiVersion":"v1","metadata":{}}`:              `"metadata":{}}`,
		`{"metadata":{"kind":"x"}}`:                      `"metadata":{"kind":"x"}}`,
		`{"kind":"a\"b\\","metadata":{}}`:                `"metadata":{}}`,
		`{}`:                                             `}`,
	} {
		got, err := withoutTypeMeta([]byte(in))
		if err != nil || string(got) != want {
			t.Errorf("withoutTypeMeta(%s) = %s, %v; want %s", in, got, err, want)
		}
	}
	for _, bad := range []string{``, `[]`, `{"kind":"unterminated`, `{"kind":3}`} {
		if got, err := withoutTypeMeta([]byte(bad)); err == nil {
			t.Errorf("withoutTypeMeta(%s) = %s, want an error", bad, got)
		}
	}
}
