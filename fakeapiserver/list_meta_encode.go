package fakeapiserver

import (
	"bytes"
	"fmt"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1beta1 "k8s.io/apimachinery/pkg/apis/meta/v1beta1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/lw-sim/lw-sim/fakeapiserver/store"
)

// The metadata-only forms of a stored version are cached beside its full
// encodings (list_encode.go: slotMetaJSON, slotMetaProtobuf), and a
// PartialObjectMetadataList page or a PartialObjectMetadata watch event is
// assembled from them as a full page is from the full encodings. Unlike
// those, they are cached for custom resources too: an object's metadata is
// the same in every served version and under every schema of its CRD
// (defaults never reach metadata), so nothing a CRD update changes is in
// them.

// partialListKind is the kind of the metadata list.
const partialListKind = "PartialObjectMetadataList"

// metaListPage is a LIST page on its way to a client that asked for
// PartialObjectMetadataList: the page it transforms (its items, their
// encoding caches, its buffer pool) and the list frame in the meta.k8s.io
// version asked for. In JSON, and in protobuf for v1, it is encoded by
// copying each item's cached metadata into the frame; otherwise the full
// list is built and goes through the serializer. Either way the bytes are
// the serializer's for the list asPartialObjectMetadataList builds
// (TestMetaListPageEncodingMatchesCodec).
type metaListPage struct {
	page *listPage
	gv   schema.GroupVersion
	// lm is the page's list metadata (resourceVersion, continue,
	// remainingItemCount).
	lm metav1.ListMeta
}

// newMetaListPage is p as a PartialObjectMetadataList of gv.
func newMetaListPage(p *listPage, gv schema.GroupVersion) (*metaListPage, error) {
	l, err := meta.ListAccessor(p.list)
	if err != nil {
		return nil, err
	}
	return &metaListPage{page: p, gv: gv, lm: listMetaOf(l)}, nil
}

// GetObjectKind is the metadata list's kind.
func (m *metaListPage) GetObjectKind() schema.ObjectKind {
	gvk := m.gv.WithKind(partialListKind)
	return &metav1.TypeMeta{APIVersion: gvk.GroupVersion().String(), Kind: gvk.Kind}
}

// DeepCopyObject copies the page; the items stay shared.
func (m *metaListPage) DeepCopyObject() runtime.Object {
	cp := *m
	if p, ok := m.page.DeepCopyObject().(*listPage); ok {
		cp.page = p
	}
	return &cp
}

// releaseBody returns the page's buffer (see listPage.releaseBody).
func (m *metaListPage) releaseBody() { m.page.releaseBody() }

// encodeBody encodes the metadata list in info's media type.
func (m *metaListPage) encodeBody(info runtime.SerializerInfo) ([]byte, error) {
	pb, err := m.spliceBody(info)
	if err != nil {
		return nil, err
	}
	if pb != nil {
		return pb.join(), nil
	}
	full, err := m.materialize()
	if err != nil {
		return nil, err
	}
	return encode(info, full)
}

// spliceBody splices the metadata list in info's media type from its
// items' cached metadata, into a buffer the caller joins or gzips; nil
// when the list is encoded whole instead.
func (m *metaListPage) spliceBody(info runtime.SerializerInfo) (*pageBuffer, error) {
	switch {
	case len(m.page.items) == 0:
		// No splice: the frame alone, with items null as the real list
		// (whose Items nobody appended to) has it.
	case info.MediaType == runtime.ContentTypeJSON:
		return m.spliceJSON(info)
	case info.MediaType == runtime.ContentTypeProtobuf && m.gv == metav1.SchemeGroupVersion:
		return m.spliceProtobuf()
	}
	return nil, nil
}

// materialize builds the list asPartialObjectMetadataList returns: the
// v1 or v1beta1 type, items appended one by one (nil when there are none).
func (m *metaListPage) materialize() (runtime.Object, error) {
	var items []metav1.PartialObjectMetadata
	for _, obj := range m.page.objects() {
		partial, err := partialObjectMetadata(obj, m.gv)
		if err != nil {
			return nil, err
		}
		items = append(items, *partial)
	}
	if m.gv == metav1beta1.SchemeGroupVersion {
		l := &metav1beta1.PartialObjectMetadataList{ListMeta: m.lm, Items: items}
		l.SetGroupVersionKind(m.gv.WithKind(partialListKind))
		return l, nil
	}
	l := &metav1.PartialObjectMetadataList{ListMeta: m.lm, Items: items}
	l.SetGroupVersionKind(m.gv.WithKind(partialListKind))
	return l, nil
}

// frame is the list with an empty, non-null items array to splice into.
func (m *metaListPage) frame() runtime.Object {
	gvk := m.gv.WithKind(partialListKind)
	if m.gv == metav1beta1.SchemeGroupVersion {
		l := &metav1beta1.PartialObjectMetadataList{ListMeta: m.lm, Items: []metav1.PartialObjectMetadata{}}
		l.SetGroupVersionKind(gvk)
		return l
	}
	l := &metav1.PartialObjectMetadataList{ListMeta: m.lm, Items: []metav1.PartialObjectMetadata{}}
	l.SetGroupVersionKind(gvk)
	return l
}

// spliceJSON writes the frame as the serializer does and splices the
// items in, each its PartialObjectMetadata type meta around the cached
// metadata member.
func (m *metaListPage) spliceJSON(info runtime.SerializerInfo) (*pageBuffer, error) {
	head, tail, err := jsonFrame(info, m.frame())
	if err != nil {
		return nil, err
	}
	open := partialJSONOpen(m.gv)
	pb := m.page.takeBuffer()
	err = m.page.cachedParts(pb, slotMetaJSON, func(k int) ([]byte, error) {
		return cachedMetaJSON(info, m.page.encs[k], m.page.items[k])
	})
	if err != nil {
		return nil, err
	}
	pb.joinJSONItems(head, open, "}", tail)
	return pb, nil
}

// spliceProtobuf writes the v1 list as the protobuf serializer does: the
// envelope, the list metadata (field 1), then each item's cached message as
// field 2. (v1beta1 numbers its items 1 and its metadata 2, so the
// serializer writes those.)
func (m *metaListPage) spliceProtobuf() (*pageBuffer, error) {
	head := &metav1.PartialObjectMetadataList{ListMeta: m.lm}
	frame, err := head.Marshal()
	if err != nil {
		return nil, fmt.Errorf("marshal %s: %w", partialListKind, err)
	}
	pb := m.page.takeBuffer()
	err = m.page.cachedParts(pb, slotMetaProtobuf, func(k int) ([]byte, error) {
		return cachedMetaProtobuf(m.page.encs[k], m.page.items[k])
	})
	if err != nil {
		return nil, err
	}
	raw := len(frame)
	for _, b := range pb.parts {
		raw += fieldLen(len(b))
	}
	spliceProtobufList(pb, m.gv.WithKind(partialListKind), frame, raw)
	return pb, nil
}

// partialJSONOpen is a PartialObjectMetadata of gv in JSON up to its
// metadata member: its kind and apiVersion, in the serializer's order.
func partialJSONOpen(gv schema.GroupVersion) string {
	return `{"kind":"PartialObjectMetadata","apiVersion":"` + gv.String() + `",`
}

// cachedMetaJSON is the "metadata":{...} member of obj's
// PartialObjectMetadata in JSON, from its version's cache: the
// serializer's encoding of the PartialObjectMetadata without its opening
// brace and type meta (withoutTypeMeta), its closing brace and newline.
func cachedMetaJSON(info runtime.SerializerInfo, enc *store.Encodings, obj runtime.Object) ([]byte, error) {
	return enc.Get(slotMetaJSON, func() ([]byte, error) {
		obj := storedObject(obj, enc)
		partial, err := partialObjectMetadata(obj, metav1.SchemeGroupVersion)
		if err != nil {
			return nil, err
		}
		b, err := encode(info, partial)
		if err != nil {
			return nil, err
		}
		member, err := withoutTypeMeta(bytes.TrimSuffix(b, []byte("\n")))
		if err != nil || !bytes.HasSuffix(member, []byte("}")) {
			return nil, fmt.Errorf("encode PartialObjectMetadata: unexpected JSON %.100q: %w", b, err)
		}
		return member[:len(member)-1], nil
	})
}

// cachedMetaProtobuf is obj's PartialObjectMetadata message (no envelope),
// from its version's cache.
func cachedMetaProtobuf(enc *store.Encodings, obj runtime.Object) ([]byte, error) {
	return enc.Get(slotMetaProtobuf, func() ([]byte, error) {
		obj := storedObject(obj, enc)
		partial, err := partialObjectMetadata(obj, metav1.SchemeGroupVersion)
		if err != nil {
			return nil, err
		}
		b, err := partial.Marshal()
		if err != nil {
			return nil, fmt.Errorf("marshal PartialObjectMetadata: %w", err)
		}
		return b, nil
	})
}

// partialObjectBytes is obj as a PartialObjectMetadata of gv in info's
// media type, from its version's cached metadata in JSON and protobuf:
// what a watch event of a metadata-only watch carries.
func partialObjectBytes(info runtime.SerializerInfo, enc *store.Encodings, obj runtime.Object, gv schema.GroupVersion) ([]byte, error) {
	switch info.MediaType {
	case runtime.ContentTypeJSON:
		member, err := cachedMetaJSON(info, enc, obj)
		if err != nil {
			return nil, err
		}
		open := partialJSONOpen(gv)
		out := make([]byte, 0, len(open)+len(member)+1)
		out = append(out, open...)
		out = append(out, member...)
		return append(out, '}'), nil
	case runtime.ContentTypeProtobuf:
		msg, err := cachedMetaProtobuf(enc, obj)
		if err != nil {
			return nil, err
		}
		gvk := gv.WithKind("PartialObjectMetadata")
		out := make([]byte, 0, envelopeLen(gvk, len(msg)))
		out = appendEnvelopeHead(out, gvk, len(msg))
		out = append(out, msg...)
		return appendEnvelopeTail(out), nil
	}
	partial, err := partialObjectMetadata(obj, gv)
	if err != nil {
		return nil, err
	}
	return encode(info, partial)
}
