package fakeapiserver

import (
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
)

// storagePreconditionFailed is the 409 of a storage precondition
// (storage.Preconditions.Check) as InterpretUpdateError reports it: a
// Conflict on the resource quoting the StorageError, whose key is the
// object's etcd key under kube-apiserver's default prefix /registry.
func storagePreconditionFailed(res *resourceInfo, namespace, name, msg string) error {
	key := "/registry/" + res.gvr.Resource + "/"
	if namespace != "" {
		key += namespace + "/"
	}
	return apierrors.NewConflict(res.qualified(), name,
		fmt.Errorf("StorageError: invalid object, Code: 4, Key: %s%s, ResourceVersion: 0, AdditionalErrorMsg: %s", key, name, msg))
}

// uidPrecondition is the uid precondition a PUT body carries
// (rest.DefaultUpdatedObjectInfo.Preconditions): a set uid must be the
// stored object's.
func uidPrecondition(res *resourceInfo, uid types.UID, cur runtime.Object) error {
	m := mustAccessor(cur)
	if uid == "" || uid == m.GetUID() {
		return nil
	}
	return storagePreconditionFailed(res, m.GetNamespace(), m.GetName(),
		fmt.Sprintf("Precondition failed: UID in precondition: %v, UID in object meta: %v", uid, m.GetUID()))
}

// replaceWith is the update function of a PUT: the body, after the uid
// precondition it carries.
func replaceWith(res *resourceInfo, body runtime.Object) updateFunc {
	uid := mustAccessor(body).GetUID()
	return func(cur runtime.Object) (runtime.Object, error) {
		if err := uidPrecondition(res, uid, cur); err != nil {
			return nil, err
		}
		return body.DeepCopyObject(), nil
	}
}
