package fakeapiserver

import (
	"errors"
	"net/http"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/lw-sim/lw-sim/fakeapiserver/store"
	"github.com/lw-sim/lw-sim/internal/kubewire"
)

// Dry runs (?dryRun=All) go through every step of a write (decoding,
// defaulting, admission, system fields, validation, preconditions,
// conflicts) and stop where the store would write, as apiserver's
// DryRunnableStorage (registry/generic/registry/dryrun.go) does: nothing is
// stored, no resourceVersion is consumed and no watch event is sent. The
// answer is the object as it would have been stored: a create carries uid,
// creationTimestamp and generation, and no resourceVersion unless the body
// had one, which it answers as given (etcd3's check that a create has none
// is never reached; write_create.go isStorageRV); an update or a
// graceful delete carries the current resourceVersion. Values other than
// "All" were already refused by the options' validation (422).

// isDryRun reports whether a create, update or patch asks for a dry run:
// its options (from the query) passed validation, so any dryRun value is
// "All".
func isDryRun(r *http.Request) bool {
	return len(kubewire.QueryOf(r)["dryRun"]) > 0
}

// isDryRunDelete reports whether delete options ask for a dry run.
func isDryRunDelete(opts *metav1.DeleteOptions) bool {
	return opts != nil && len(opts.DryRun) > 0
}

// storeCreate stores a new object, or for a dry run checks only that the
// key is free (409 AlreadyExists from the caller otherwise) and returns
// obj as it is, without a resourceVersion. Only a real write meets etcd's
// size limits (a dry run never reaches etcd).
func (s *Server) storeCreate(res *resourceInfo, key string, obj runtime.Object, dryRun bool) (runtime.Object, error) {
	if !dryRun {
		obj, err := s.toStorageVersion(res, obj) // a conversion webhook's (customresource_conversion.go)
		if err != nil {
			return nil, err
		}
		obj, err = fitStorage(res, key, obj) // etcd's size limits (write_storage_limit.go)
		if err != nil {
			return nil, err
		}
		stored, err := s.noteWrite(s.store.Create(res.storageKey, key, obj.DeepCopyObject()))
		if err != nil {
			return nil, err
		}
		s.viewWritten(res, key, stored) // customresource_view.go
		return s.fromStorageVersion(res, stored)
	}
	_, err := s.store.Get(res.storageKey, key, 0)
	switch {
	case err == nil:
		return nil, store.ErrAlreadyExists
	case errors.Is(err, store.ErrNotFound):
		// DryRunnableStorage's copyInto encodes and decodes: a conversion
		// webhook converts both ways (customresource_conversion.go).
		return s.dryRunRoundTrip(res, obj)
	default:
		return nil, err
	}
}

// storeUpdate writes next over the object at oldRV, or for a dry run
// returns next as it is (at the current resourceVersion).
func (s *Server) storeUpdate(res *resourceInfo, key string, next runtime.Object, oldRV int64, dryRun bool) (runtime.Object, error) {
	if dryRun {
		return s.dryRunRoundTrip(res, next)
	}
	next, err := s.toStorageVersion(res, next) // a conversion webhook's (customresource_conversion.go)
	if err != nil {
		return nil, err
	}
	next, err = fitStorage(res, key, next) // etcd's size limits (write_storage_limit.go)
	if err != nil {
		return nil, err
	}
	stored, err := s.noteWrite(s.store.Update(res.storageKey, key, next, oldRV))
	if err != nil {
		return nil, err
	}
	s.viewWritten(res, key, stored) // customresource_view.go
	return s.fromStorageVersion(res, stored)
}

// storeDelete removes the object at rv, or for a dry run returns cur, the
// object as it would have been deleted.
func (s *Server) storeDelete(res *resourceInfo, key string, cur runtime.Object, rv int64, dryRun bool) (runtime.Object, error) {
	if dryRun {
		return cur, nil
	}
	deleted, err := s.noteWrite(s.store.Delete(res.storageKey, key, rv))
	if err != nil || !res.convertsOnRead() {
		return deleted, err
	}
	return res.conversion.fromStorage(deleted) // builtin_conversion.go
}
