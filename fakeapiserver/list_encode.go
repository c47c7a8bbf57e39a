package fakeapiserver

import (
	"bytes"
	"errors"
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/lw-sim/lw-sim/fakeapiserver/store"
)

// Slots of a stored version's encoding cache (store.Encodings). One
// serializer fills each slot, so only built-in resources, whose encodings
// do not depend on the request, use the full encodings' slots.
const (
	// slotJSON holds the scheme's JSON serializer output for the object
	// (kind and apiVersion included), without the trailing newline.
	slotJSON = iota
	// slotProtobuf holds the object's generated protobuf Marshal: the
	// message the k8s protobuf envelope wraps (protobuf_encode.go).
	slotProtobuf
	// slotMetaJSON holds the "metadata":{...} member of the object's
	// PartialObjectMetadata in JSON: that object without the type meta
	// around it, which depends on the meta.k8s.io version asked for
	// (list_meta_encode.go). Custom resources fill it too.
	slotMetaJSON
	// slotMetaProtobuf holds the object's PartialObjectMetadata message
	// (its one field, the ObjectMeta), the same in v1 and v1beta1.
	slotMetaProtobuf
)

// selfEncoder is a response body that encodes itself faster than the
// serializer would, into exactly the serializer's bytes (see encode).
type selfEncoder interface {
	encodeBody(info runtime.SerializerInfo) ([]byte, error)
}

// listPage is a LIST answer on its way to the client: the typed list
// (kind, apiVersion, metadata, empty items) and the page's store versions.
// For a built-in resource in JSON or protobuf it is encoded by copying each
// version's cached encoding into the list's frame, so a page costs a copy,
// not an encode; otherwise (custom resources, YAML) the full list is built
// and goes through the serializer. Either way the bytes are the
// serializer's for the full list (TestListPageEncodingMatchesCodec).
type listPage struct {
	list  runtime.Object
	items []runtime.Object
	encs  []*store.Encodings
	// cached is set for built-in resources, whose item encodings are
	// cached with their versions.
	cached bool
	// custom is the resource of a custom resource's page, whose items
	// left out (nil) are stored objects that are their own view
	// (readViews): in JSON they are spliced from their stored encoding.
	custom *resourceInfo
	// bufs is the server's pool the body is assembled in; buf is the
	// buffer the body was taken from, until releaseBody returns it.
	bufs *pageBuffers
	buf  *pageBuffer
	// arrays, when set, hold items and encs (the store read's arrays),
	// recycled by releaseBody.
	arrays *listArrays
	// packSlot is 1 + the encoding slot the body was spliced from
	// (cachedParts), 0 for none: releaseBody packs the items' encodings
	// in it (store.PackSlots) once the body is written.
	packSlot int
}

// GetObjectKind is the list's kind.
func (p *listPage) GetObjectKind() schema.ObjectKind { return p.list.GetObjectKind() }

// DeepCopyObject copies the list frame; the items are immutable store
// objects and stay shared. The copy encodes into its own buffer.
func (p *listPage) DeepCopyObject() runtime.Object {
	return &listPage{list: p.list.DeepCopyObject(), items: slices.Clone(p.items), encs: slices.Clone(p.encs), cached: p.cached, custom: p.custom, bufs: p.bufs}
}

// objects are the page's items, each decoded if the store read left it
// out (store.ListOptions.Undecoded): what a form that is not spliced
// from cached encodings reads.
func (p *listPage) objects() []runtime.Object {
	for k, obj := range p.items {
		if obj == nil {
			p.items[k] = p.encs[k].Object()
		}
	}
	return p.items
}

// storedObject is obj, or when the read left it out (nil) the object
// enc holds, decoded if need be: what an encoding cache miss encodes.
func storedObject(obj runtime.Object, enc *store.Encodings) runtime.Object {
	if obj != nil {
		return obj
	}
	return enc.Object()
}

// cachedParts sets pb.parts to the page's items' encodings in slot, read
// from their caches at once (store.CachedSlots: a cold page's cache
// misses overlap), and from miss(k) for an item k not cached yet.
func (p *listPage) cachedParts(pb *pageBuffer, slot int, miss func(k int) ([]byte, error)) error {
	pb.parts = store.CachedSlots(p.encs, slot, pb.parts[:0])
	for k, b := range pb.parts {
		if b != nil {
			continue
		}
		b, err := miss(k)
		if err != nil {
			return err
		}
		pb.parts[k] = b
	}
	if !store.Packed(pb.parts) {
		p.packSlot = 1 + slot
	}
	return nil
}

// takeBuffer is an empty buffer for the body, from the server's pool when
// the page has one; releaseBody gives it back.
func (p *listPage) takeBuffer() *pageBuffer {
	p.releaseBuffer()
	if p.bufs == nil {
		p.buf = &pageBuffer{}
	} else {
		p.buf = p.bufs.get()
	}
	return p.buf
}

// releaseBody ends the page's life as a response: the caller is done
// with the body (respond calls it once the body is written;
// ResponseWriter.Write keeps no reference) and with the page. A body
// spliced from cached encodings that lie scattered over the heap has
// them packed into one allocation, in the page's order (store.PackSlots),
// so the next read of the page, the next traversal's, copies them in
// sequential runs: after the write, when they are at hand and the client
// is reading. The body's buffer and the store read's arrays go back to
// the server's pools, and the page drops its items.
func (p *listPage) releaseBody() {
	if p.packSlot > 0 {
		store.PackSlots(p.encs, p.packSlot-1)
		p.packSlot = 0
	}
	p.releaseBuffer()
	if p.arrays != nil && p.bufs != nil {
		p.items, p.encs = nil, nil
		p.bufs.putArrays(p.arrays)
	}
	p.arrays = nil
}

// releaseBuffer returns the buffer of the body encodeBody returned to the
// pool, before the page is spliced again or once it is done.
func (p *listPage) releaseBuffer() {
	if p.buf != nil && p.bufs != nil {
		p.bufs.put(p.buf)
	}
	p.buf = nil
}

// GetListMeta is the list's metadata (meta.ListAccessor reads it).
func (p *listPage) GetListMeta() metav1.ListInterface {
	lm, err := meta.ListAccessor(p.list)
	if err != nil {
		return nil
	}
	return lm
}

// encodeBody encodes the page in info's media type.
func (p *listPage) encodeBody(info runtime.SerializerInfo) ([]byte, error) {
	pb, err := p.spliceBody(info)
	if err != nil {
		return nil, err
	}
	if pb != nil {
		return pb.join(), nil
	}
	full, err := p.materialize()
	if err != nil {
		return nil, err
	}
	return encode(info, full)
}

// spliceBody splices the page in info's media type from its items' cached
// encodings (a built-in resource in JSON or protobuf), into a buffer the
// caller joins or gzips; nil when the page is encoded whole instead.
func (p *listPage) spliceBody(info runtime.SerializerInfo) (*pageBuffer, error) {
	if p.cached {
		switch info.MediaType {
		case runtime.ContentTypeJSON:
			return p.spliceJSON(info)
		case runtime.ContentTypeProtobuf:
			return p.spliceProtobuf()
		}
	}
	if p.custom != nil && p.custom.custom != nil && info.MediaType == runtime.ContentTypeJSON {
		return p.spliceCustomJSON(info)
	}
	return nil, nil
}

// materialize builds the full typed list: a copy of the frame with the
// items set as the real server lists them (setListItems).
func (p *listPage) materialize() (runtime.Object, error) {
	full := p.list.DeepCopyObject()
	if err := setListItems(full, p.objects()); err != nil {
		return nil, err
	}
	return full, nil
}

// itemsOpen is where a list's JSON frame opens its items. The key can only
// match the list's own member: inside a JSON string every quote is
// escaped, and no other top-level member is called items.
var itemsOpen = []byte(`"items":[`)

// jsonFrame is list's JSON encoding with an empty items array, cut where
// the items go.
func jsonFrame(info runtime.SerializerInfo, list runtime.Object) (head, tail []byte, err error) {
	frame, err := encode(info, list)
	if err != nil {
		return nil, nil, err
	}
	i := bytes.Index(frame, itemsOpen)
	if i < 0 {
		return nil, nil, fmt.Errorf("encode %T: no items array in %.100q", list, frame)
	}
	return frame[:i+len(itemsOpen)], frame[i+len(itemsOpen):], nil
}

// spliceJSON writes the list frame as the serializer does, with an empty
// items array, and splices the items in: each version's cached JSON
// without its kind and apiVersion, joined by commas.
func (p *listPage) spliceJSON(info runtime.SerializerInfo) (*pageBuffer, error) {
	head, tail, err := jsonFrame(info, p.list)
	if err != nil {
		return nil, err
	}
	pb := p.takeBuffer()
	err = p.cachedParts(pb, slotJSON, func(k int) ([]byte, error) { return cachedJSON(info, p.encs[k], p.items[k]) })
	if err != nil {
		return nil, err
	}
	for k, b := range pb.parts {
		if pb.parts[k], err = withoutTypeMeta(b); err != nil {
			return nil, fmt.Errorf("encode list item %T: %w", storedObject(p.items[k], p.encs[k]), err)
		}
	}
	pb.joinJSONItems(head, "{", "", tail) // each item lost its '{' with its kind
	return pb, nil
}

// spliceCustomJSON writes a custom resource list's frame as the
// serializer does, with an empty items array, and splices the items in,
// each as the serializer encodes it alone: the stored encoding (slotJSON,
// customresource_store.go) of an item whose view is the stored object in
// the served version, else the item's view encoded. An UnstructuredList's
// items are encoding/json's of their maps, as each is alone.
func (p *listPage) spliceCustomJSON(info runtime.SerializerInfo) (*pageBuffer, error) {
	head, tail, err := jsonFrame(info, p.list)
	if err != nil {
		return nil, err
	}
	pb := p.takeBuffer()
	for k, obj := range p.items {
		var b []byte
		if obj == nil {
			if _, asServed := viewIsStored(p.custom, p.encs[k]); asServed {
				b, err = p.encs[k].Get(slotJSON, func() ([]byte, error) { return encodeItem(info, p.encs[k].Object()) })
			} else {
				b, err = encodeItem(info, p.encs[k].Object()) // the view is the stored object
			}
		} else {
			b, err = encodeItem(info, obj)
		}
		if err != nil {
			return nil, err
		}
		pb.parts = append(pb.parts, b)
	}
	pb.joinJSONItems(head, "", "", tail)
	return pb, nil
}

// encodeItem is obj encoded alone, without the trailing newline.
func encodeItem(info runtime.SerializerInfo, obj runtime.Object) ([]byte, error) {
	b, err := encode(info, obj)
	return bytes.TrimSuffix(b, []byte("\n")), err
}

// cachedJSON is obj's JSON encoding (kind and apiVersion included, no
// trailing newline), from its version's cache.
func cachedJSON(info runtime.SerializerInfo, enc *store.Encodings, obj runtime.Object) ([]byte, error) {
	return enc.Get(slotJSON, func() ([]byte, error) {
		obj := storedObject(obj, enc)
		b, err := encode(info, obj)
		return bytes.TrimSuffix(b, []byte("\n")), err
	})
}

// typeMetaKeys are TypeMeta's JSON member keys, in the order
// encoding/json writes them.
var typeMetaKeys = [][]byte{[]byte(`"kind":`), []byte(`"apiVersion":`)}

// withoutTypeMeta returns a built-in object's JSON after its opening brace
// and its kind and apiVersion members: what a list item is, because a typed
// list's items carry no kind or apiVersion (setListItems). encoding/json
// writes the two first, in this order: TypeMeta is the first, inline field
// of every built-in type.
func withoutTypeMeta(b []byte) ([]byte, error) {
	if len(b) < 2 || b[0] != '{' {
		return nil, errors.New("not a JSON object")
	}
	rest := b[1:]
	for _, key := range typeMetaKeys {
		if !bytes.HasPrefix(rest, key) {
			continue
		}
		n := jsonStringLen(rest[len(key):])
		if n < 0 {
			return nil, fmt.Errorf("bad %s member", key)
		}
		rest = rest[len(key)+n:]
		rest = bytes.TrimPrefix(rest, []byte(","))
	}
	return rest, nil
}

// jsonStringLen is the length of the JSON string b starts with, quotes
// included, or -1 if b does not start with a whole string.
func jsonStringLen(b []byte) int {
	if len(b) == 0 || b[0] != '"' {
		return -1
	}
	for i := 1; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return -1
}
