package fakeapiserver

import (
	"encoding/json"
	"fmt"
	"math/bits"
	"net/http"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// kube-apiserver stores each object as one etcd transaction, and etcd (as
// the real server runs it, with its defaults) refuses large ones: the
// etcd client will not send a gRPC message over 2 MiB, and the etcd
// server refuses a request over 1.5 MiB. So an object a little over
// 1.5 MiB in its storage encoding (protobuf for built-in kinds, JSON for
// custom resources) cannot be written, whatever the request body limit
// (3 MiB) allowed; a JSON patch's copies can grow one past it from a
// small body. The real server answers with etcd's error as a 500 of no
// reason (responsewriters.ErrorToAPIStatus of an error that is no Status).
const (
	// etcdMaxRequestBytes is etcd's --max-request-bytes default
	// (server/embed DefaultMaxRequestBytes).
	etcdMaxRequestBytes = 3 << 19
	// etcdClientMaxSendBytes is the etcd client's gRPC send limit
	// (client/v3 defaultMaxCallSendMsgSize).
	etcdClientMaxSendBytes = 2 << 20
	// etcdRaftHeaderBytes approximates what etcd's InternalRaftRequest adds
	// to the client's TxnRequest (its header: request ID, auth revision)
	// before it compares the size with etcdMaxRequestBytes.
	etcdRaftHeaderBytes = 16
	// etcdKeyPrefix is kube-apiserver's default --etcd-prefix.
	etcdKeyPrefix = "/registry/"
)

// errEtcdRequestTooLarge is etcd's rpctypes.ErrRequestTooLarge as the real
// server answers it.
var errEtcdRequestTooLarge = etcdError("etcdserver: request is too large")

// etcdError is an error the real server passes through from etcd: 500,
// no reason, the error's text.
func etcdError(msg string) *apierrors.StatusError {
	return &apierrors.StatusError{ErrStatus: metav1.Status{
		Status: metav1.StatusFailure, Code: http.StatusInternalServerError, Message: msg,
	}}
}

// fitStorage returns obj if etcd would take it, else the error the real
// server gives. As the create, update and patch handlers do when etcd says
// too large (handlers isTooLargeError), it tries once more without
// managedFields, which may be large and are safe to drop: the object it
// then returns is a copy without them.
func fitStorage(res *resourceInfo, key string, obj runtime.Object) (runtime.Object, error) {
	err := checkStorageSize(res, key, obj)
	if err == nil {
		return obj, nil
	}
	m := mustAccessor(obj)
	if len(m.GetManagedFields()) == 0 {
		return nil, err
	}
	obj = obj.DeepCopyObject()
	mustAccessor(obj).SetManagedFields(nil)
	if err := checkStorageSize(res, key, obj); err != nil {
		return nil, err
	}
	return obj, nil
}

// checkStorageSize is nil when the etcd transaction writing obj at key
// fits etcd's limits, else the real server's 500.
func checkStorageSize(res *resourceInfo, key string, obj runtime.Object) error {
	value, err := storageValueSize(res, obj)
	if err != nil {
		return err
	}
	txn := etcdTxnSize(len(etcdKeyPrefix)+len(res.storageKey)+1+len(key), value)
	switch {
	case txn > etcdClientMaxSendBytes:
		return etcdError(fmt.Sprintf("rpc error: code = ResourceExhausted desc = trying to send message larger than max (%d vs. %d)", txn, etcdClientMaxSendBytes))
	case txn+etcdRaftHeaderBytes > etcdMaxRequestBytes:
		return errEtcdRequestTooLarge
	}
	return nil
}

// protoSizer is the generated Size of k8s.io/api types: the length of
// their protobuf message, computed without encoding it.
type protoSizer interface {
	Size() int
}

// storageValueSize is the length of obj's storage encoding: for a built-in
// kind the k8s protobuf envelope (protobuf_encode.go) around its message,
// for a custom resource its JSON and the serializer's newline.
func storageValueSize(res *resourceInfo, obj runtime.Object) (int, error) {
	if sz, ok := obj.(protoSizer); ok {
		apiVersion, kind := res.Kind.GroupVersion().String(), res.Kind.Kind
		typeMeta := fieldSize(len(apiVersion)) + fieldSize(len(kind))
		// Unknown{1: TypeMeta, 2: raw, 3: contentEncoding "", 4: contentType ""}
		unknown := fieldSize(typeMeta) + fieldSize(sz.Size()) + fieldSize(0) + fieldSize(0)
		return len(protobufMagic) + unknown, nil
	}
	data, err := json.Marshal(obj)
	if err != nil {
		return 0, fmt.Errorf("size of %T: %w", obj, err)
	}
	return len(data) + 1, nil
}

// etcdTxnSize is the length of the TxnRequest kube-apiserver sends to
// write a value of n bytes at a key of k bytes: a compare on the key's mod
// revision, a put, and (for an update) a get of the key when the compare
// fails. The update's form is the larger by a few bytes; both are counted
// as it, the difference being below what the limits can tell apart.
func etcdTxnSize(k, n int) int {
	// Compare{result 0, target MOD (2 bytes), key, mod_revision (up to 10)}
	compare := 2 + fieldSize(k) + 1 + 9
	put := fieldSize(k) + fieldSize(n)
	get := fieldSize(fieldSize(k))
	return fieldSize(compare) + fieldSize(fieldSize(put)) + fieldSize(get)
}

// fieldSize is the length of a length-delimited protobuf field whose
// content is n bytes: a one-byte tag, n's varint, n bytes.
func fieldSize(n int) int {
	return 1 + varintSize(uint64(n)) + n
}

// varintSize is the length of x as a protobuf varint.
func varintSize(x uint64) int {
	return (bits.Len64(x|1) + 6) / 7
}
