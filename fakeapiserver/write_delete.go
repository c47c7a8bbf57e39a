package fakeapiserver

import (
	"fmt"
	"net/http"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metainternalversionscheme "k8s.io/apimachinery/pkg/apis/meta/internalversion/scheme"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/lw-sim/lw-sim/fakeapiserver/store"
)

// handleDelete answers a DELETE of one object: 200 with the object when it
// was only marked for deletion (finalizers, pod grace) or when the kind
// returns deleted objects (pods), else 200 with a Success Status.
func (s *Server) handleDelete(req *request) (response, error) {
	out, opts, err := s.readDelete(req)
	if err != nil {
		return response{}, err
	}
	obj, deleted, err := s.deleteObject(req.res, req.info.namespace, req.info.name, opts, writeAdmission(req, opts))
	if err != nil {
		return response{}, err
	}
	if deleted && !req.res.ReturnsDeletedObject {
		obj = deleteSuccess(req.res, obj)
	}
	return response{code: deleteCode(deleted, opts), out: out, obj: obj}, nil
}

// deleteCode is handlers/delete.go's status: 202 Accepted when the object
// was not deleted at once and the client asked for cascading deletion with
// the old orphanDependents=false (kube keeps 202 to that case alone, so as
// not to break clients), else 200.
func deleteCode(deleted bool, opts *metav1.DeleteOptions) int {
	//nolint:staticcheck // SA1019: the deprecated option decides the code
	if o := opts.OrphanDependents; !deleted && o != nil && !*o {
		return http.StatusAccepted
	}
	return http.StatusOK
}

// handleDeleteCollection deletes every object the selectors match (latest
// state) and answers, as Store.DeleteCollection does, 200 with the list it
// read: the items as they were before their deletes, at the list's RV.
func (s *Server) handleDeleteCollection(req *request) (response, error) {
	out, opts, err := s.readDelete(req)
	if err != nil {
		return response{}, err
	}
	p, err := s.parseListOptions(req)
	if err != nil {
		return response{}, err
	}
	if err := collectionKeyError(req.res, req.info.namespace); err != nil { // storage_key.go
		return response{}, err
	}
	page, err := s.store.List(req.res.storageKey, store.ListOptions{Prefix: p.prefix, Filter: p.filter})
	if err != nil {
		return response{}, err
	}
	if err := s.deleteItems(req.res, page.Items, opts, writeAdmission(req, opts)); err != nil {
		return response{}, err
	}
	if page.Items, err = s.readViews(req.res, page.Items, page.Encodings); err != nil { // the items as read
		return response{}, err
	}
	list, err := s.buildList(req.res, page, p)
	if err != nil {
		return response{}, err
	}
	return response{code: http.StatusOK, out: out, obj: list}, nil
}

// readDelete makes a delete's checks before any object is read: Accept
// (406), then the DeleteOptions (413, 415, 400, 422).
func (s *Server) readDelete(req *request) (outputType, *metav1.DeleteOptions, error) {
	out, err := s.negotiateOutput(req.r, req.transforms())
	if err != nil {
		return out, nil, err
	}
	opts, err := s.deleteOptions(req.r)
	return out, opts, err
}

// deleteItems deletes each of items with opts; one deleted concurrently
// (404) is skipped.
func (s *Server) deleteItems(res *resourceInfo, items []runtime.Object, opts *metav1.DeleteOptions, ar *admissionRequest) error {
	for _, item := range items {
		m := mustAccessor(item)
		_, _, err := s.deleteObject(res, m.GetNamespace(), m.GetName(), opts, ar)
		if err != nil && !apierrors.IsNotFound(err) {
			return err
		}
	}
	return nil
}

// deleteOptions reads DeleteOptions from the body (any served encoding) or,
// without a body, from the query.
func (s *Server) deleteOptions(r *http.Request) (*metav1.DeleteOptions, error) {
	opts := &metav1.DeleteOptions{}
	body, err := s.readBody(r)
	if err != nil {
		return nil, err
	}
	if len(body) > 0 {
		info, err := s.inputSerializer(nil, r.Header.Get("Content-Type"))
		if err != nil {
			return nil, err
		}
		if err := s.checkYAMLBody(info.MediaType, body); err != nil { // write_limits_yaml.go
			return nil, err
		}
		defaults := metav1.SchemeGroupVersion.WithKind("DeleteOptions")
		obj, _, err := metaDecoder(info).Decode(body, &defaults, opts)
		if err != nil {
			return nil, apierrors.NewBadRequest(err.Error())
		}
		if obj != opts {
			return nil, apierrors.NewBadRequest("decoded object cannot be converted to DeleteOptions")
		}
	} else if err := decodeOptions(r, opts); err != nil {
		return nil, err
	}
	opts.IgnoreStoreReadErrorWithClusterBreakingPotential = nil // AllowUnsafeMalformedObjectDeletion is off
	if errs := metav1validation.ValidateDeleteOptions(opts); len(errs) > 0 {
		return nil, apierrors.NewInvalid(schema.GroupKind{Group: metav1.GroupName, Kind: "DeleteOptions"}, "", errs)
	}
	return opts, nil
}

// metaDecoder is the decoder of info's media type over the meta.k8s.io
// scheme, converting to meta.k8s.io/v1, which delete.go decodes
// DeleteOptions with (metainternalversionscheme.Codecs.DecoderToVersion):
// a body of another kind is "not registered" there, whatever the server
// serves.
func metaDecoder(info runtime.SerializerInfo) runtime.Decoder {
	codecs := metainternalversionscheme.Codecs
	for _, m := range codecs.SupportedMediaTypes() {
		if m.MediaType == info.MediaType {
			return codecs.DecoderToVersion(m.Serializer, metav1.SchemeGroupVersion)
		}
	}
	return info.Serializer
}

// deleteObject deletes one object as registry/generic/registry/store.go
// Delete does: preconditions (409), then either a graceful mark (finalizers
// or a pod's grace period: an update that sets deletionTimestamp) or the
// removal. deleted reports whether the object is gone.
func (s *Server) deleteObject(res *resourceInfo, namespace, name string, opts *metav1.DeleteOptions, ar *admissionRequest) (runtime.Object, bool, error) {
	for {
		cur, err := s.current(res, namespace, name)
		if err != nil {
			return nil, false, err
		}
		if err := checkPreconditions(res, name, cur, opts.Preconditions); err != nil {
			return nil, false, err
		}
		if err := s.admitDelete(ar, cur); err != nil { // admission.go
			return nil, false, err
		}
		obj, deleted, retry, err := s.tryDelete(res, namespace, name, cur, opts)
		if !retry {
			return obj, deleted, err
		}
	}
}

// deletion is one attempt at deleting the object stored at key, whose
// current state is cur at curRV.
type deletion struct {
	res   *resourceInfo
	key   string
	cur   runtime.Object
	curRV int64
	opts  *metav1.DeleteOptions
}

// dryRun reports whether the delete only says what it would do.
func (d deletion) dryRun() bool { return isDryRunDelete(d.opts) }

// tryDelete makes one attempt at the current state cur, by the resource's
// write strategy: the generic store's Delete (storeDelete), or the REST's
// own (a Namespace's, a CRD's).
func (s *Server) tryDelete(res *resourceInfo, namespace, name string, cur runtime.Object, opts *metav1.DeleteOptions) (runtime.Object, bool, bool, error) {
	d := deletion{res: res, key: objectKey(res, namespace, name), cur: cur, opts: opts}
	d.curRV, _ = parseResourceVersion(mustAccessor(cur).GetResourceVersion())
	return res.writeStrategy().delete(s, d)
}

// storeDelete is the generic store's Delete (registry/generic/registry/
// store.go): a graceful mark when finalizers or the kind's grace hold the
// object, else the removal. It returns the answer, whether the object is
// gone, and whether to retry at a newer state.
type storeDelete struct{}

func (storeDelete) delete(s *Server, d deletion) (runtime.Object, bool, bool, error) {
	res, key, cur, curRV, opts := d.res, d.key, d.cur, d.curRV, d.opts
	grace := s.gracePeriod(res, cur, opts)
	m := mustAccessor(cur)
	// Graceful kinds (pods) are always marked first, even for an
	// immediate delete: the real server emits MODIFIED (deletionTimestamp,
	// grace 0) then DELETED. An object left with finalizers (its own, or
	// the propagation ones the options ask for) is only marked.
	finalizers, gcChanged := gcFinalizers(res.strategy.GCPolicy, m, opts) // write_delete_gc.go
	if gcChanged && s.pendingGraceful(res, cur, grace) {
		// BeforeDelete's pendingGraceful: finalizers cannot be changed by
		// DeleteOptions once a graceful deletion is under way.
		finalizers, gcChanged = m.GetFinalizers(), false
	}
	// updateForGracefulDeletionAndFinalizers' errDeleteNow: when the last
	// (propagation) finalizer goes, the object goes, unmarked.
	deleteNow := gcChanged && len(finalizers) == 0 && res.strategy.GracefulDelete == nil
	if !deleteNow && (len(finalizers) > 0 || gcChanged || res.strategy.GracefulDelete != nil) {
		marked, changed := s.markDeleting(res, cur, grace)
		if gcChanged {
			if !changed {
				marked = cur.DeepCopyObject()
			}
			mustAccessor(marked).SetFinalizers(finalizers)
			changed = true
		}
		if changed {
			stored, err := s.storeUpdate(res, key, marked, curRV, isDryRunDelete(opts))
			if isRetryable(err) {
				return nil, false, true, nil
			}
			if err != nil || len(finalizers) > 0 || grace > 0 {
				return stored, false, false, err
			}
			if isDryRunDelete(opts) {
				// Store.Delete returns the dry-run mark as the deleted object.
				return stored, true, false, nil
			}
			curRV, _ = parseResourceVersion(mustAccessor(stored).GetResourceVersion())
		} else if len(finalizers) > 0 || grace > 0 {
			return cur, false, false, nil
		}
	}
	deleted, err := s.storeDelete(res, key, cur, curRV, isDryRunDelete(opts))
	if isRetryable(err) {
		return nil, false, true, nil
	}
	return deleted, err == nil, false, err
}

// gracePeriod is the grace a delete gets: the strategy's
// CheckGracefulDelete (pods: internal/kinds core_pod.go); everything else
// is deleted at once.
func (s *Server) gracePeriod(res *resourceInfo, cur runtime.Object, opts *metav1.DeleteOptions) int64 {
	if grace := res.strategy.GracefulDelete; grace != nil {
		return grace(cur, opts.GracePeriodSeconds)
	}
	return 0
}

// markDeleting returns a copy of cur marked for deletion in grace seconds,
// as registry/rest/delete.go BeforeDelete does; changed is false when it was
// already marked and the grace does not shorten. A first mark sets
// deletionTimestamp to now plus grace and bumps the generation; shortening
// an existing mark moves deletionTimestamp earlier by the difference (never
// before now) and leaves the generation alone.
func (s *Server) markDeleting(res *resourceInfo, cur runtime.Object, grace int64) (runtime.Object, bool) {
	m := mustAccessor(cur)
	old := m.GetDeletionGracePeriodSeconds()
	if m.GetDeletionTimestamp() != nil && (old == nil || *old <= grace) {
		return cur, false
	}
	marked := cur.DeepCopyObject()
	mm := mustAccessor(marked)
	now := s.cfg.Clock.Now().UTC().Truncate(time.Second)
	at := now.Add(time.Duration(grace) * time.Second)
	if dt := m.GetDeletionTimestamp(); dt != nil {
		// BeforeDelete moves the deletionTimestamp back by the old grace
		// and forward by the new one, never into the past; a graceful
		// request whose whole grace has already passed becomes grace 1, so
		// someone else still makes the final delete.
		at = dt.Add(-time.Duration(*old) * time.Second).Add(time.Duration(grace) * time.Second)
		if at.Before(now) {
			at = now
			if grace != 0 {
				grace = 1
			}
		}
	} else if mm.GetGeneration() > 0 {
		mm.SetGeneration(mm.GetGeneration() + 1)
	}
	t := metav1.NewTime(at)
	mm.SetDeletionTimestamp(&t)
	mm.SetDeletionGracePeriodSeconds(&grace)
	return marked, true
}

// pendingGraceful is registry/rest/delete.go BeforeDelete's pendingGraceful:
// a graceful kind already marked with a grace period (not 0) that this
// delete does not shorten.
func (s *Server) pendingGraceful(res *resourceInfo, cur runtime.Object, grace int64) bool {
	m := mustAccessor(cur)
	old := m.GetDeletionGracePeriodSeconds()
	return res.strategy.GracefulDelete != nil && m.GetDeletionTimestamp() != nil && old != nil && *old != 0 && grace >= *old
}

// checkPreconditions applies DeleteOptions.preconditions; a mismatch is a
// 409 naming the Kind, as registry/rest/delete.go BeforeDelete words it.
func checkPreconditions(res *resourceInfo, name string, cur runtime.Object, pre *metav1.Preconditions) error {
	if pre == nil {
		return nil
	}
	m := mustAccessor(cur)
	gr := schema.GroupResource{Group: res.Kind.Group, Resource: res.Kind.Kind}
	if pre.UID != nil && *pre.UID != m.GetUID() {
		return apierrors.NewConflict(gr, name, fmt.Errorf("the UID in the precondition (%s) does not match the UID in record (%s). The object might have been deleted and then recreated", *pre.UID, m.GetUID()))
	}
	if pre.ResourceVersion != nil && *pre.ResourceVersion != m.GetResourceVersion() {
		return apierrors.NewConflict(gr, name, fmt.Errorf("the ResourceVersion in the precondition (%s) does not match the ResourceVersion in record (%s). The object might have been modified", *pre.ResourceVersion, m.GetResourceVersion()))
	}
	return nil
}

// deleteSuccess is the Status an immediate delete answers with for kinds
// that do not return the object (Store.finalizeDelete): no code, details
// naming the resource and the uid.
func deleteSuccess(res *resourceInfo, obj runtime.Object) *metav1.Status {
	m := mustAccessor(obj)
	return &metav1.Status{
		TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   metav1.StatusSuccess,
		Details: &metav1.StatusDetails{
			Name: m.GetName(), Group: res.gvr.Group, Kind: res.gvr.Resource, UID: m.GetUID(),
		},
	}
}
