package fakeapiserver

import (
	"errors"
	"time"

	"k8s.io/apiextensions-apiserver/pkg/apihelpers"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/lw-sim/lw-sim/fakeapiserver/store"
)

// kube-apiserver runs controllers over CRDs (apiextensions-apiserver
// pkg/controller): the naming controller accepts names (NamesAccepted, and
// Established False "Installing"), the establishing controller then sets
// Established True, the CRD handler starts serving the resource, and the
// finalizer controller deletes every custom resource of a deleted CRD
// before it removes the customresourcecleanup finalizer. They run
// asynchronously there; here they run in the request that changed the CRD,
// in the same order and with the same status writes, so when a create or
// update of a CRD returns, its resources are served (a client that waits
// for Established, as it must on a real server, sees it at once).

// crdCleanupFinalizer is the finalizer a deleted CRD carries until its
// objects are gone.
const crdCleanupFinalizer = apiextensionsv1.CustomResourceCleanupFinalizer

// reconcileCRD brings a CRD's status and served resources up to date after
// a write: names, Established, then the resource table.
func (s *Server) reconcileCRD(name string) {
	s.crds.mu.Lock()
	defer s.crds.mu.Unlock()
	crd, ok := s.updateCRDStatus(name, s.acceptNames)
	if !ok {
		return
	}
	if apihelpers.IsCRDConditionTrue(crd, apiextensionsv1.NamesAccepted) {
		s.registerCRD(crd)
		crd, ok = s.updateCRDStatus(name, s.establish)
		if !ok {
			return
		}
	}
	s.registerCRD(crd)
}

// registerCRD serves the resources of an established CRD (or the ones of a
// CRD being established), built from its accepted names.
func (s *Server) registerCRD(crd *apiextensionsv1.CustomResourceDefinition) {
	if crd.Status.AcceptedNames.Plural == "" || !apihelpers.IsCRDConditionTrue(crd, apiextensionsv1.NamesAccepted) {
		return
	}
	infos, err := s.crds.infosLocked(crd, s.crds.lifeLocked(crd.Name), serviceResolver{s: s}, s.cfg.Logger)
	if err != nil {
		// As the handler: a CRD it cannot serve is not served.
		s.cfg.Logger.Warn("fakeapiserver: CustomResourceDefinition not served", "name", crd.Name, "err", err)
		infos = nil
	}
	old := s.resources.customOf(crd.Name)
	s.resources.setCustom(crd.Name, infos)
	s.syncCRDOpenAPI(append(servedGVs(old), servedGVs(infos)...)) // crd_openapi.go
}

// acceptNames is the naming controller's calculateNamesAndConditions. It
// reports whether it changed crd.
func (s *Server) acceptNames(crd *apiextensionsv1.CustomResourceDefinition) bool {
	if apiequality.Semantic.DeepEqual(crd.Spec.Names, crd.Status.AcceptedNames) &&
		apihelpers.FindCRDCondition(crd, apiextensionsv1.NamesAccepted) != nil {
		return false
	}
	usedResources, usedKinds := otherCRDNames(s.listCRDs(), crd.Name, crd.Spec.Group)
	cond := apiextensionsv1.CustomResourceDefinitionCondition{Type: apiextensionsv1.NamesAccepted, Status: apiextensionsv1.ConditionUnknown}
	req, acc := crd.Spec.Names, crd.Status.AcceptedNames
	names := acc
	conflict := func(reason string, err error) {
		cond.Status, cond.Reason, cond.Message = apiextensionsv1.ConditionFalse, reason, err.Error()
	}
	if err := nameInUse(req.Plural, acc.Plural, usedResources); err != nil {
		conflict("PluralConflict", err)
	} else {
		names.Plural = req.Plural
	}
	if err := nameInUse(req.Singular, acc.Singular, usedResources); err != nil {
		conflict("SingularConflict", err)
	} else {
		names.Singular = req.Singular
	}
	if !apiequality.Semantic.DeepEqual(req.ShortNames, acc.ShortNames) {
		var errs []error
		for _, sn := range req.ShortNames {
			if err := nameInUse(sn, "", usedResources); err != nil && !containsString(acc.ShortNames, sn) {
				errs = append(errs, err)
			}
		}
		if err := errors.Join(errs...); err != nil {
			conflict("ShortNamesConflict", err)
		} else {
			names.ShortNames = req.ShortNames
		}
	}
	if err := nameInUse(req.Kind, acc.Kind, usedKinds); err != nil {
		conflict("KindConflict", err)
	} else {
		names.Kind = req.Kind
	}
	if err := nameInUse(req.ListKind, acc.ListKind, usedKinds); err != nil {
		conflict("ListKindConflict", err)
	} else {
		names.ListKind = req.ListKind
	}
	names.Categories = req.Categories
	if cond.Status == apiextensionsv1.ConditionUnknown {
		cond.Status, cond.Reason, cond.Message = apiextensionsv1.ConditionTrue, "NoConflicts", "no conflicts found"
	}
	established := apiextensionsv1.CustomResourceDefinitionCondition{
		Type: apiextensionsv1.Established, Status: apiextensionsv1.ConditionFalse, Reason: "NotAccepted", Message: "not all names are accepted",
	}
	if old := apihelpers.FindCRDCondition(crd, apiextensionsv1.Established); old != nil {
		established = *old
	}
	if established.Status != apiextensionsv1.ConditionTrue && cond.Status == apiextensionsv1.ConditionTrue {
		established = apiextensionsv1.CustomResourceDefinitionCondition{
			Type: apiextensionsv1.Established, Status: apiextensionsv1.ConditionFalse, Reason: "Installing", Message: "the initial names have been accepted",
		}
	}
	crd.Status.AcceptedNames = names
	s.setCRDCondition(crd, cond)
	s.setCRDCondition(crd, established)
	return true
}

// establish is the establishing controller: once names are accepted, the
// CRD is Established.
func (s *Server) establish(crd *apiextensionsv1.CustomResourceDefinition) bool {
	if !apihelpers.IsCRDConditionTrue(crd, apiextensionsv1.NamesAccepted) || apihelpers.IsCRDConditionTrue(crd, apiextensionsv1.Established) {
		return false
	}
	s.setCRDCondition(crd, apiextensionsv1.CustomResourceDefinitionCondition{
		Type: apiextensionsv1.Established, Status: apiextensionsv1.ConditionTrue, Reason: "InitialNamesAccepted", Message: "the initial names have been accepted",
	})
	return true
}

// setCRDCondition is apihelpers.SetCRDCondition on the server's clock: the
// transition time moves only when the status does.
func (s *Server) setCRDCondition(crd *apiextensionsv1.CustomResourceDefinition, c apiextensionsv1.CustomResourceDefinitionCondition) {
	c.LastTransitionTime = metav1.NewTime(s.cfg.Clock.Now().UTC().Truncate(time.Second))
	for i, old := range crd.Status.Conditions {
		if old.Type != c.Type {
			continue
		}
		if old.Status == c.Status {
			c.LastTransitionTime = old.LastTransitionTime
		}
		crd.Status.Conditions[i] = c
		return
	}
	crd.Status.Conditions = append(crd.Status.Conditions, c)
}

// updateCRDStatus applies change to the current CRD and writes it if it
// changed (a status update: one MODIFIED event). It returns the CRD as
// stored; ok is false when the CRD is gone. change may modify only the
// status and metadata it is given: the spec is the stored CRD's, shared
// (stored objects are immutable), not a copy, as copying a large schema
// twice per CRD write cost as much as encoding it.
func (s *Server) updateCRDStatus(name string, change func(*apiextensionsv1.CustomResourceDefinition) bool) (*apiextensionsv1.CustomResourceDefinition, bool) {
	res, ok := s.crdResource()
	if !ok {
		return nil, false
	}
	for {
		obj, err := s.current(res, "", name)
		if err != nil {
			return nil, false
		}
		cur, ok := obj.(*apiextensionsv1.CustomResourceDefinition)
		if !ok {
			return nil, false
		}
		next := statusCopy(cur)
		if !change(next) {
			return cur, true
		}
		rv, _ := parseResourceVersion(cur.ResourceVersion)
		stored, err := s.store.Update(res.storageKey, name, next, rv)
		if errors.Is(err, store.ErrConflict) {
			continue
		}
		if err != nil {
			return nil, false
		}
		crd, ok := stored.(*apiextensionsv1.CustomResourceDefinition)
		return crd, ok
	}
}

// statusCopy is a copy of crd whose metadata and status are its own and
// whose spec is crd's.
func statusCopy(crd *apiextensionsv1.CustomResourceDefinition) *apiextensionsv1.CustomResourceDefinition {
	out := &apiextensionsv1.CustomResourceDefinition{TypeMeta: crd.TypeMeta, Spec: crd.Spec}
	crd.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	crd.Status.DeepCopyInto(&out.Status)
	return out
}

// listCRDs returns every stored CRD.
func (s *Server) listCRDs() []*apiextensionsv1.CustomResourceDefinition {
	res, ok := s.crdResource()
	if !ok {
		return nil
	}
	page, err := s.store.List(res.storageKey, store.ListOptions{})
	if err != nil {
		return nil
	}
	out := make([]*apiextensionsv1.CustomResourceDefinition, 0, len(page.Items))
	for _, item := range page.Items {
		if crd, ok := item.(*apiextensionsv1.CustomResourceDefinition); ok {
			out = append(out, crd)
		}
	}
	return out
}

// terminateCRD is the CRD REST's Delete (apiextensions-apiserver
// pkg/registry/customresourcedefinition/etcd.go): the first DELETE sets
// deletionTimestamp, the customresourcecleanup finalizer and the
// Terminating condition (MODIFIED; 200 with the CRD). Then the finalizer
// controller runs: Terminating "InstanceDeletionInProgress", every custom
// resource deleted (a DELETED event each), the finalizer removed, which
// deletes the CRD; its resources stop being served and their watches end.
// A dry run answers the marked CRD and changes nothing.
func (s *Server) terminateCRD(res *resourceInfo, cur runtime.Object, curRV int64, dryRun bool) (runtime.Object, bool, bool, error) {
	crd, ok := cur.(*apiextensionsv1.CustomResourceDefinition)
	if !ok {
		return nil, false, false, errNotCRD(cur)
	}
	if crd.DeletionTimestamp != nil {
		return crd, false, false, nil
	}
	marked := crd.DeepCopy()
	now := metav1.NewTime(s.cfg.Clock.Now().UTC().Truncate(time.Second))
	marked.DeletionTimestamp = &now
	if !apihelpers.CRDHasFinalizer(marked, crdCleanupFinalizer) {
		marked.Finalizers = append(marked.Finalizers, crdCleanupFinalizer)
	}
	s.setCRDCondition(marked, apiextensionsv1.CustomResourceDefinitionCondition{
		Type: apiextensionsv1.Terminating, Status: apiextensionsv1.ConditionTrue, Reason: "InstanceDeletionPending",
		Message: "CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon",
	})
	stored, err := s.storeUpdate(res, crd.Name, marked, curRV, dryRun)
	if isRetryable(err) {
		return nil, false, true, nil
	}
	if err != nil || dryRun {
		return stored, false, false, err
	}
	s.finalizeCRD(crd.Name)
	return stored, false, false, nil
}

// finalizeCRD is the finalizer controller's sync for a deleted CRD.
func (s *Server) finalizeCRD(name string) {
	s.crds.mu.Lock()
	defer s.crds.mu.Unlock()
	crd, ok := s.updateCRDStatus(name, func(crd *apiextensionsv1.CustomResourceDefinition) bool {
		if c := apihelpers.FindCRDCondition(crd, apiextensionsv1.Terminating); c != nil && c.Reason == "InstanceDeletionInProgress" {
			return false // a later pass, after objects with finalizers went
		}
		s.setCRDCondition(crd, apiextensionsv1.CustomResourceDefinitionCondition{
			Type: apiextensionsv1.Terminating, Status: apiextensionsv1.ConditionTrue, Reason: "InstanceDeletionInProgress", Message: "CustomResource deletion is in progress",
		})
		return true
	})
	if !ok || crd.DeletionTimestamp == nil {
		return
	}
	if !s.deleteCustomObjects(crd) {
		// Objects with finalizers remain: the CRD stays Terminating until
		// the last of them goes (customWrites.afterFinalDelete runs this
		// again then), as the real finalizer controller waits and retries.
		return
	}
	res, ok := s.crdResource()
	if !ok {
		return
	}
	for {
		obj, err := s.current(res, "", name)
		if err != nil {
			return
		}
		rv, _ := parseResourceVersion(mustAccessor(obj).GetResourceVersion())
		_, err = s.store.Delete(res.storageKey, name, rv)
		if errors.Is(err, store.ErrConflict) {
			continue
		}
		break
	}
	old := s.resources.customOf(name)
	s.resources.setCustom(name, nil)
	s.syncCRDOpenAPI(servedGVs(old))
	s.crds.endLocked(name)
}

// deleteCustomObjects deletes every object of the CRD's resource; it
// reports whether none is left.
func (s *Server) deleteCustomObjects(crd *apiextensionsv1.CustomResourceDefinition) bool {
	infos := s.resources.customOf(crd.Name)
	if len(infos) == 0 {
		return true // never established: nothing was served, nothing stored
	}
	res := infos[0]
	page, err := s.store.List(res.storageKey, store.ListOptions{})
	if err != nil {
		return false
	}
	for _, item := range page.Items {
		m := mustAccessor(item)
		_, _, err := s.deleteObject(res, m.GetNamespace(), m.GetName(), &metav1.DeleteOptions{}, nil)
		if err != nil && !apierrors.IsNotFound(err) {
			return false
		}
	}
	page, err = s.store.List(res.storageKey, store.ListOptions{Limit: 1})
	return err == nil && len(page.Items) == 0
}

// containsString reports whether list holds v.
func containsString(list []string, v string) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}
