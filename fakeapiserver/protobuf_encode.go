package fakeapiserver

import (
	"encoding/binary"
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/lw-sim/lw-sim/fakeapiserver/store"
)

// The k8s protobuf wire format (apimachinery runtime/serializer/protobuf):
// the 4-byte magic, then a runtime.Unknown message whose raw field holds
// the object's own message:
//
//	Unknown{1: TypeMeta{1: apiVersion, 2: kind}, 2: raw, 3: contentEncoding "", 4: contentType ""}
//
// A list's message is {1: ListMeta, 2: item, 2: item, ...}: its items are
// a repeated embedded message, the last field. Building these from cached
// item bytes is byte-identical to the serializer's output
// (TestCachedEncodingsMatchCodecForEveryKind).
const protobufMagic = "k8s\x00"

// Protobuf tags (field number << 3 | wire type 2, length-delimited).
const (
	tagField1 = 1<<3 | 2
	tagField2 = 2<<3 | 2
	tagField3 = 3<<3 | 2
	tagField4 = 4<<3 | 2
)

// protoMarshaler is the generated Marshal of k8s.io/api types.
type protoMarshaler interface {
	Marshal() ([]byte, error)
}

// cachedProtobuf is obj's protobuf message (no envelope), from its
// version's cache.
func cachedProtobuf(enc *store.Encodings, obj runtime.Object) ([]byte, error) {
	return enc.Get(slotProtobuf, func() ([]byte, error) {
		obj := storedObject(obj, enc)
		m, ok := obj.(protoMarshaler)
		if !ok {
			return nil, fmt.Errorf("%T does not implement the protobuf marshalling interface", obj)
		}
		b, err := m.Marshal()
		if err != nil {
			return nil, fmt.Errorf("marshal %T: %w", obj, err)
		}
		return b, nil
	})
}

// spliceProtobuf writes the page as the protobuf serializer writes the
// full list: the envelope, the list's metadata (the frame's own Marshal,
// its items being empty), then every item's cached message as field 2.
func (p *listPage) spliceProtobuf() (*pageBuffer, error) {
	m, ok := p.list.(protoMarshaler)
	if !ok {
		return nil, fmt.Errorf("%T does not implement the protobuf marshalling interface", p.list)
	}
	frame, err := m.Marshal()
	if err != nil {
		return nil, fmt.Errorf("marshal %T: %w", p.list, err)
	}
	pb := p.takeBuffer()
	err = p.cachedParts(pb, slotProtobuf, func(k int) ([]byte, error) { return cachedProtobuf(p.encs[k], p.items[k]) })
	if err != nil {
		return nil, err
	}
	raw := len(frame)
	for _, b := range pb.parts {
		raw += fieldLen(len(b))
	}
	spliceProtobufList(pb, p.list.GetObjectKind().GroupVersionKind(), frame, raw)
	return pb, nil
}

// spliceProtobufList splices a list of kind gvk into pb: the envelope
// around a message of raw bytes, the list's own fields (frame), then
// pb.parts, each as field 2.
func spliceProtobufList(pb *pageBuffer, gvk schema.GroupVersionKind, frame []byte, raw int) {
	pb.glue = appendEnvelopeHead(pb.glue, gvk, raw)
	pb.glue = append(pb.glue, frame...)
	for _, b := range pb.parts {
		pb.glue = append(pb.glue, tagField2)
		pb.glue = binary.AppendUvarint(pb.glue, uint64(len(b)))
		pb.share(b)
	}
	pb.glue = appendEnvelopeTail(pb.glue)
}

// protobufObject is one object of kind gvk in the protobuf serializer's
// form, from its cached message: what a watch event carries. obj may be
// nil for a stored version (see storedObject).
func protobufObject(enc *store.Encodings, obj runtime.Object, gvk schema.GroupVersionKind) ([]byte, error) {
	msg, err := cachedProtobuf(enc, obj)
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, envelopeLen(gvk, len(msg)))
	out = appendEnvelopeHead(out, gvk, len(msg))
	out = append(out, msg...)
	return appendEnvelopeTail(out), nil
}

// typeMetaLen is the size of runtime.TypeMeta's message for gvk.
func typeMetaLen(gvk schema.GroupVersionKind) int {
	return fieldLen(len(gvk.GroupVersion().String())) + fieldLen(len(gvk.Kind))
}

// envelopeLen is the size of a whole envelope around a raw message of
// rawLen bytes.
func envelopeLen(gvk schema.GroupVersionKind, rawLen int) int {
	return len(protobufMagic) + fieldLen(typeMetaLen(gvk)) + fieldLen(rawLen) + 4
}

// appendEnvelopeHead appends the magic, Unknown's TypeMeta and the key and
// length of its raw field; the caller appends rawLen bytes of raw, then
// appendEnvelopeTail.
func appendEnvelopeHead(out []byte, gvk schema.GroupVersionKind, rawLen int) []byte {
	out = append(out, protobufMagic...)
	out = append(out, tagField1)
	out = binary.AppendUvarint(out, uint64(typeMetaLen(gvk)))
	out = appendField(out, tagField1, []byte(gvk.GroupVersion().String()))
	out = appendField(out, tagField2, []byte(gvk.Kind))
	out = append(out, tagField2)
	return binary.AppendUvarint(out, uint64(rawLen))
}

// appendEnvelopeTail appends Unknown's empty contentEncoding and
// contentType, which the generated Marshal writes even when empty.
func appendEnvelopeTail(out []byte) []byte {
	return append(out, tagField3, 0, tagField4, 0)
}

// appendField appends a length-delimited field.
func appendField(out []byte, tag byte, b []byte) []byte {
	out = append(out, tag)
	out = binary.AppendUvarint(out, uint64(len(b)))
	return append(out, b...)
}

// fieldLen is the size of a length-delimited field of n bytes: the tag,
// the varint length, the bytes.
func fieldLen(n int) int {
	return 1 + uvarintLen(uint64(n)) + n
}

// uvarintLen is the size of v as a protobuf varint.
func uvarintLen(v uint64) int {
	n := 1
	for v >= 0x80 {
		v >>= 7
		n++
	}
	return n
}
