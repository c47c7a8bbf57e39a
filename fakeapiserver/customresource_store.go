package fakeapiserver

import (
	"encoding/json"
	"fmt"
	"sync/atomic"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/lw-sim/lw-sim/fakeapiserver/store"
)

// unstructuredCodec keeps a custom resource in the store as its JSON, the
// bytes of its version's slotJSON (list_encode.go), so a stored version
// costs that encoding, and its decoded object only while something holds
// it (store.Codec). It is what etcd keeps of a custom resource in
// kube-apiserver, and what apiextensions-apiserver decodes on every read
// that misses its watch cache. The bytes are encoding/json's of the
// object's map, the serializer's encoding of the object as stored (no
// trailing newline); custom resources do not otherwise use slotJSON,
// because they are answered as their read view (customresource_view.go),
// which slotJSON holds only when the view is the stored object.
type unstructuredCodec struct {
	// decodes counts Decode calls (storeCodecs.customDecodes).
	decodes *atomic.Int64
}

var _ store.Codec = unstructuredCodec{}

// Slot is slotJSON.
func (unstructuredCodec) Slot() int { return slotJSON }

// Encode is the JSON of obj's map.
func (unstructuredCodec) Encode(obj runtime.Object) ([]byte, error) {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return nil, fmt.Errorf("%T is not unstructured", obj)
	}
	return json.Marshal(u.Object)
}

// Decode is the unstructured JSON scheme's decode of data into a new
// object (integers as int64, other numbers as float64, as every decoded
// request body), into an Unstructured even when it has an items member.
func (c unstructuredCodec) Decode(data []byte) (runtime.Object, error) {
	c.decodes.Add(1)
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON(data); err != nil {
		return nil, fmt.Errorf("unmarshal custom resource: %w", err)
	}
	return u, nil
}
