package fakeapiserver

import (
	"errors"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/lw-sim/lw-sim/fakeapiserver/store"
)

// optimisticLockErrorMsg is the 409's message of a stale resourceVersion
// (registry/generic/registry/store.go OptimisticLockErrorMsg).
const optimisticLockErrorMsg = "the object has been modified; please apply your changes to the latest version and try again"

// interpretStoreError is the one translation of a store error on the
// object name of resource gr into the API's error, as storeerr does for
// kube-apiserver's registry (k8s.io/apiserver pkg/storage/errors
// storage.go InterpretGetError, InterpretCreateError,
// InterpretUpdateError, InterpretDeleteError): not found is 404, already
// exists 409 AlreadyExists, a failed precondition 409 Conflict. Other
// errors, nil included, are returned as they are. The read paths' own
// errors (a compacted or future resourceVersion of a LIST or a WATCH) are
// theirs: list.go listReadError, watch.go endOnReadError.
func interpretStoreError(err error, gr schema.GroupResource, name string) error {
	switch {
	case errors.Is(err, store.ErrNotFound):
		return apierrors.NewNotFound(gr, name)
	case errors.Is(err, store.ErrAlreadyExists):
		return apierrors.NewAlreadyExists(gr, name)
	case errors.Is(err, store.ErrConflict):
		return apierrors.NewConflict(gr, name, errors.New(optimisticLockErrorMsg))
	}
	return err
}

// conflict is the 409 of a stale resourceVersion precondition.
func conflict(res *resourceInfo, name string) error {
	return interpretStoreError(store.ErrConflict, res.qualified(), name)
}

// isRetryable reports a store error that means "the object moved after it
// was read": the caller reads again (etcd3 GuaranteedUpdate's retry).
func isRetryable(err error) bool {
	return errors.Is(err, store.ErrConflict) || errors.Is(err, store.ErrNotFound)
}
