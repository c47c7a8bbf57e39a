package fakeapiserver

import (
	"cmp"
	"net/http"
	"strconv"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/admission"
)

// handleUpdate answers a PUT of an object or its status: 200 with the
// stored object. The checks run in handlers/update.go's order: Accept
// (406), body size (413), UpdateOptions (400/422), Content-Type (415),
// decoding (400), namespace then name against the URL (400), then the
// update (404, 409).
func (s *Server) handleUpdate(req *request) (response, error) {
	obj, out, err := s.decodeUpdate(req)
	if err != nil {
		return response{}, err
	}
	replace := replaceWith(req.res, obj)
	obj, err = s.updateObject(req, func(cur runtime.Object) (runtime.Object, error) {
		next, err := replace(cur)
		if err != nil {
			return nil, err
		}
		return s.trackUpdate(req, cur, next), nil
	})
	if err != nil {
		return response{}, err
	}
	return response{code: http.StatusOK, out: out, obj: obj}, nil
}

// decodeUpdate runs the update handler's steps up to a decoded, defaulted
// object whose name and namespace match the URL.
func (s *Server) decodeUpdate(req *request) (runtime.Object, outputType, error) {
	out, err := s.negotiateOutput(req.r, req.transforms())
	if err != nil {
		return nil, out, err
	}
	body, err := s.readBody(req.r)
	if err != nil {
		return nil, out, err
	}
	directive, err := updateOptions(req.r)
	if err != nil {
		return nil, out, err
	}
	obj, err := s.decodeObject(req, body, directive)
	if err != nil {
		return nil, out, err
	}
	if err := checkObjectNamespace(req.res, req.info.namespace, obj); err != nil {
		return nil, out, err
	}
	if err := checkObjectName(obj, req.info.name); err != nil {
		return nil, out, err
	}
	req.res.applyDefaults(obj)
	return obj, out, nil
}

// updateFunc computes the desired object from the current one; it must
// return a fresh object it owns.
type updateFunc func(current runtime.Object) (runtime.Object, error)

// updateObject is the optimistic read-modify-write loop of
// registry/generic/registry/store.go Update over etcd3 GuaranteedUpdate:
// read the current object, compute the new one, and write it only if the
// object is still at the version read; when a concurrent write wins, start
// over. A resourceVersion in the new object is a precondition checked
// against each fresh read (409 Conflict when stale); without one the update
// is unconditional.
func (s *Server) updateObject(req *request, compute updateFunc) (runtime.Object, error) {
	for {
		old, raw, err := s.currentVersion(req.res, req.info.namespace, req.info.name)
		if err != nil {
			return nil, err
		}
		next, err := compute(old)
		if err != nil {
			return nil, err
		}
		// The handlers' admission transformer (update.go, patch.go
		// applyAdmission), after the new object is computed.
		if err := s.admitMutating(writeAdmission(req, nil), admission.Update, next, old); err != nil {
			return nil, err
		}
		stored, retry, err := s.tryUpdate(req, updateBase{view: old, stored: raw}, next)
		if !retry {
			return stored, err
		}
	}
}

// updateBase is the object an update starts from: as read (view: a custom
// resource defaulted by its CRD's current schema, what the update is
// computed, prepared and validated against, as etcd3's GuaranteedUpdate
// decodes it) and as stored (what the update is a no-op against: the
// etcd store compares the new encoding with the stored bytes, so an
// update that only adds a new default is written).
type updateBase struct {
	view, stored runtime.Object
}

// tryUpdate makes one attempt; retry is true when a concurrent write moved
// the object after it was read.
func (s *Server) tryUpdate(req *request, cur updateBase, next runtime.Object) (runtime.Object, bool, error) {
	old := cur.view
	res, name := req.res, req.info.name
	// The RBAC storages check escalation on the updated object before the
	// generic store's preconditions (rbac_escalation.go).
	if err := s.checkRBACWrite(req, next, old); err != nil {
		return nil, false, err
	}
	oldMeta, nextMeta := mustAccessor(old), mustAccessor(next)
	// The store reads the precondition with the versioner
	// (registry/generic/registry/store.go Update, ObjectResourceVersion):
	// an RV that is no uint64 is its plain parse error (a 500), 0 is no
	// precondition.
	wantRV, err := strconv.ParseUint(cmp.Or(nextMeta.GetResourceVersion(), "0"), 10, 64)
	if err != nil {
		return nil, false, err
	}
	if oldRV, _ := parseResourceVersion(oldMeta.GetResourceVersion()); wantRV != 0 && wantRV != uint64(oldRV) {
		return nil, false, conflict(res, name)
	}
	if req.isStatus() {
		base := old.DeepCopyObject()
		copyStatus(base, next)
		keepStatusMetadata(res, base, next, old)
		if prepare := res.strategy.PrepareForStatusUpdate; prepare != nil {
			prepare(base, old, s.now())
		}
		keepManagedFields(base, next)
		next, nextMeta = base, mustAccessor(base)
	} else if req.isApproval() {
		base := prepareApprovalUpdate(next, old, s.now())
		// csrApprovalStrategy resets the spec and the status but its
		// conditions, not the metadata.
		keepStatusMetadata(res, base, next, old)
		keepManagedFields(base, next)
		next, nextMeta = base, mustAccessor(base)
	} else {
		if res.hasStatus {
			copyStatus(next, old)
		}
		// The finalize subresource has a strategy of its own
		// (subresource_finalize.go).
		if prepare := res.strategy.PrepareForUpdate; prepare != nil && !req.isFinalize() {
			prepare(next, old)
		}
	}
	prepareUpdate(res, next, old)
	nextMeta.SetResourceVersion(oldMeta.GetResourceVersion())
	if !req.isStatus() {
		// What the object takes from a pool (a Service keeps or gets its
		// cluster IP and node ports), before validation as beginUpdate
		// runs.
		done, err := res.writeStrategy().allocate(s, res, allocation{
			key: objectKey(res, req.info.namespace, name), obj: next, old: old, dryRun: isDryRun(req.r),
		})
		if err != nil {
			return nil, false, err
		}
		defer done()
	}
	// The strategy's update preparation and validation (write_strategy.go).
	errs, err := res.writeStrategy().validateUpdate(s, req, next, old)
	if err == nil {
		err = invalid(res, next, errs)
	}
	if err != nil {
		return nil, false, err
	}
	// The store's updateValidation, before the no-op check.
	if err := s.admitValidating(writeAdmission(req, nil), admission.Update, next, old); err != nil {
		return nil, false, err
	}
	// etcd3's GuaranteedUpdate compares the encoding, in the storage
	// version, with the stored bytes: an object a conversion webhook
	// converts is converted first (customresource_conversion.go).
	toStore, err := s.toStorageVersion(res, next)
	if err != nil {
		return nil, false, err
	}
	if sameObject(toStore, cur.stored) {
		return old, false, nil
	}
	oldRV, _ := parseResourceVersion(oldMeta.GetResourceVersion())
	key := objectKey(res, req.info.namespace, name)
	if shouldDeleteOnUpdate(res, next) {
		return s.deleteOnUpdate(req, key, next, oldRV)
	}
	if isApplyRequest(req) && !isDryRun(req.r) {
		// Too large for etcd, an apply is not retried without managedFields
		// as other writes are (handlers/patch.go): write_storage_limit.go.
		if err := checkStorageSize(res, key, toStore); err != nil {
			return nil, false, err
		}
	}
	stored, err := s.storeUpdate(res, key, toStore, oldRV, isDryRun(req.r))
	if isRetryable(err) {
		return nil, true, nil
	}
	if err == nil && !isDryRun(req.r) {
		res.writeStrategy().afterWrite(s, stored)
	}
	return stored, false, err
}

// shouldDeleteOnUpdate reports whether an update removed the last finalizer
// of an object that is being deleted with no grace left, which deletes it
// (registry/generic/registry/store.go ShouldDeleteDuringUpdate), unless
// its kind's strategy still holds it (a Namespace's spec.finalizers:
// ShouldDeleteNamespaceDuringUpdate).
func shouldDeleteOnUpdate(res *resourceInfo, obj runtime.Object) bool {
	if holds := res.strategy.HoldsDeletion; holds != nil && holds(obj) {
		return false
	}
	m := mustAccessor(obj)
	grace := m.GetDeletionGracePeriodSeconds()
	return m.GetDeletionTimestamp() != nil && len(m.GetFinalizers()) == 0 && (grace == nil || *grace == 0)
}

// deleteOnUpdate deletes the object in place of the update; the response is
// the request's object at its old resourceVersion [observed on v1.37.2;
// apiserver pkg/registry/generic/registry/store.go Update,
// ShouldDeleteDuringUpdate].
func (s *Server) deleteOnUpdate(req *request, key string, next runtime.Object, oldRV int64) (runtime.Object, bool, error) {
	_, err := s.storeDelete(req.res, key, next, oldRV, isDryRun(req.r))
	if isRetryable(err) {
		return nil, true, nil
	}
	if err != nil {
		return nil, false, err
	}
	if !isDryRun(req.r) {
		req.res.writeStrategy().afterFinalDelete(s, req.res) // a terminating CRD may now finish (crd_lifecycle.go)
	}
	return next, false, nil
}
