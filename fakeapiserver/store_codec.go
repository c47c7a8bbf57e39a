package fakeapiserver

import (
	"fmt"
	"reflect"
	"sync"
	"sync/atomic"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/lw-sim/lw-sim/fakeapiserver/store"
)

// protoUnmarshaler is the generated Unmarshal of k8s.io/api types.
type protoUnmarshaler interface {
	Unmarshal(data []byte) error
}

// protobufCodec keeps a built-in object in the store as its protobuf
// message, the bytes of its version's slotProtobuf (protobuf_encode.go),
// so a stored version costs that encoding, and its decoded object only
// while something holds it (store.Codec). It is what etcd keeps of an
// object in kube-apiserver; the message has no apiVersion and kind, which
// Decode sets back from gvk.
type protobufCodec struct {
	typ reflect.Type // the struct type a *typ is
	gvk schema.GroupVersionKind
	// decodes counts Decode calls: the stored objects of this kind that
	// reads found no decoded object of (the tests check paths that must
	// not decode).
	decodes atomic.Int64
}

var _ store.Codec = (*protobufCodec)(nil)

// Slot is slotProtobuf: the canonical encoding is the cached one.
func (*protobufCodec) Slot() int { return slotProtobuf }

// Encode is obj's generated Marshal.
func (c *protobufCodec) Encode(obj runtime.Object) ([]byte, error) {
	m, ok := obj.(protoMarshaler)
	if !ok {
		return nil, fmt.Errorf("%T does not implement the protobuf marshalling interface", obj)
	}
	return m.Marshal()
}

// Decode is a new *typ's generated Unmarshal of data, of kind gvk.
func (c *protobufCodec) Decode(data []byte) (runtime.Object, error) {
	c.decodes.Add(1)
	p := reflect.New(c.typ).Interface()
	obj, ok := p.(runtime.Object)
	u, ok2 := p.(protoUnmarshaler)
	if !ok || !ok2 {
		return nil, fmt.Errorf("%T is not a protobuf runtime.Object", p)
	}
	if err := u.Unmarshal(data); err != nil {
		return nil, fmt.Errorf("unmarshal %T: %w", p, err)
	}
	obj.GetObjectKind().SetGroupVersionKind(c.gvk)
	return obj, nil
}

// storeCodecs memoises the store's codec of each Go type and kind
// (store.Options.Codec): a typed object with generated protobuf
// marshalling is kept as its protobuf, an unstructured one (a custom
// resource) as its JSON (customresource_store.go); anything else (objects
// without a kind) is kept as written.
type storeCodecs struct {
	m sync.Map // codecKey → *protobufCodec
	// keepUnstructured keeps unstructured objects as written (tests).
	keepUnstructured bool
	// customDecodes counts the custom resources decoded, as
	// protobufCodec.decodes does a kind's.
	customDecodes atomic.Int64
}

// codecKey names a protobufCodec.
type codecKey struct {
	typ reflect.Type
	gvk schema.GroupVersionKind
}

// codec is store.Options.Codec.
func (sc *storeCodecs) codec(_ string, obj runtime.Object) store.Codec {
	if u, ok := obj.(*unstructured.Unstructured); ok {
		if u.GetKind() == "" || sc.keepUnstructured {
			return nil // not decodable: kept as written
		}
		return unstructuredCodec{decodes: &sc.customDecodes}
	}
	if _, ok := obj.(protoMarshaler); !ok {
		return nil
	}
	if _, ok := obj.(protoUnmarshaler); !ok {
		return nil
	}
	t := reflect.TypeOf(obj)
	gvk := obj.GetObjectKind().GroupVersionKind()
	if t.Kind() != reflect.Pointer || gvk.Empty() {
		return nil
	}
	k := codecKey{typ: t.Elem(), gvk: gvk}
	if c, ok := sc.m.Load(k); ok {
		return c.(*protobufCodec)
	}
	c, _ := sc.m.LoadOrStore(k, &protobufCodec{typ: t.Elem(), gvk: gvk})
	return c.(*protobufCodec)
}
