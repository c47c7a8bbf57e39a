package fakeapiserver

import (
	"context"
	"errors"
	"slices"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	genericvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/api/validation/path"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/lw-sim/lw-sim/fakeapiserver/internal/validation"
)

// writeStrategy is what the write paths call where kube-apiserver's generic
// registry calls its strategy (registry/rest/create.go BeforeCreate,
// update.go BeforeUpdate) and the controllers that follow a write. A
// resource has one, chosen when it is registered: built-in kinds run
// their internal/kinds strategy ([builtinWrites]); the
// CustomResourceDefinition resource ([crdWrites]) and custom resources
// ([customWrites]) are adapters over apiextensions-apiserver's strategies;
// Services ([serviceWrites]) allocate and Namespaces ([namespaceWrites])
// terminate on delete.
// The adapters hold no state: the server passes itself.
type writeStrategy interface {
	// allocate takes what the object needs from a server-wide pool before
	// it is validated (a Service's cluster IP and node ports: the service
	// REST's beginCreate and beginUpdate); release, never nil, must be
	// called once the write is stored or has failed.
	allocate(s *Server, res *resourceInfo, a allocation) (release func(), err error)
	// prepareCreate runs after the system fields are set and before the
	// name is final; an error refuses the create.
	prepareCreate(s *Server, res *resourceInfo, obj runtime.Object) error
	// validateCreate validates a new object once its name is final; req
	// is the create's request, nil for a write made outside one (seeding).
	validateCreate(s *Server, req *request, res *resourceInfo, obj runtime.Object) field.ErrorList
	// validateUpdate prepares and validates an update of the main resource
	// or of the subresource req names (status, approval, finalize); next
	// already carries old's server-owned metadata.
	validateUpdate(s *Server, req *request, next, old runtime.Object) (field.ErrorList, error)
	// afterWrite runs once a create or an update is stored (not on a dry
	// run).
	afterWrite(s *Server, stored runtime.Object)
	// delete makes one attempt at a DELETE (write_delete.go): the generic
	// store's ([storeDelete]) or the REST's own. It returns the answer,
	// whether the object is gone, and whether to retry at a newer state.
	delete(s *Server, d deletion) (obj runtime.Object, deleted, retry bool, err error)
	// checkPatchType refuses a patch type the resource's handler does not
	// apply (415).
	checkPatchType(pt types.PatchType) error
	// afterFinalDelete runs once an update removed the object's last
	// finalizer and so deleted it (not on a dry run).
	afterFinalDelete(s *Server, res *resourceInfo)
}

// genericHooks are the patch and delete hooks of the kinds whose handler
// takes every patch type and that nothing waits on.
type genericHooks struct{}

func (genericHooks) checkPatchType(types.PatchType) error { return nil }

func (genericHooks) afterFinalDelete(*Server, *resourceInfo) {}

var (
	_ writeStrategy = builtinWrites{}
	_ writeStrategy = serviceWrites{}
	_ writeStrategy = namespaceWrites{}
	_ writeStrategy = crdWrites{}
	_ writeStrategy = customWrites{}
	_ writeStrategy = admissionConfigWrites{}
)

// allocation is what an allocate hook allocates for: the object's store
// key (empty on create), the object about to be written, the stored one
// (nil on create), and whether the write is a dry run (nothing is kept).
type allocation struct {
	key      string
	obj, old runtime.Object
	dryRun   bool
}

// noAllocation is the allocate of the kinds that allocate nothing.
type noAllocation struct{}

func (noAllocation) allocate(*Server, *resourceInfo, allocation) (func(), error) {
	return func() {}, nil
}

// serviceWrites is builtinWrites with the Service REST's allocation of
// cluster IPs and node ports (service_prepare.go, service_alloc.go).
type serviceWrites struct{ builtinWrites }

func (serviceWrites) allocate(s *Server, res *resourceInfo, a allocation) (func(), error) {
	return s.allocateService(res, a)
}

// builtinWrites runs a built-in kind's [Resource] validation and its
// internal/kinds strategy (whose create hooks objectmeta.go calls with the
// system fields). Every error list passes through ErrorList.Filter: every
// built-in strategy of kube-apiserver v1.37 embeds
// rest.DeclarativeValidation, whose migration checks pass the handwritten
// errors through ToAggregate, which drops an error equal to an earlier one.
type builtinWrites struct {
	noAllocation
	storeDelete
	genericHooks
}

func (builtinWrites) prepareCreate(*Server, *resourceInfo, runtime.Object) error { return nil }

// validateCreate is the resource's Validate (nil: the generic metadata
// checks) with ValidateObjectMeta's "metadata.namespace: Required value"
// where it reports it, after the name errors: the validation table reads
// an object's scope from its namespace, and one namespaced object reaches
// it without one, a create at the route with an empty namespace segment
// ("/api/v1/namespaces//configmaps"), which kube-apiserver admits
// (NamespaceLifecycle passes objects without a namespace) and its
// validation refuses.
func (builtinWrites) validateCreate(_ *Server, _ *request, res *resourceInfo, obj runtime.Object) field.ErrorList {
	validate := res.Validate
	if validate == nil {
		validate = validation.Generic
	}
	errs := validate(obj, nil)
	if !res.ClusterScoped && mustAccessor(obj).GetNamespace() == "" {
		i := 0
		for i < len(errs) && (errs[i].Field == "metadata.name" || errs[i].Field == "metadata.generateName") {
			i++
		}
		errs = slices.Insert(errs, i, field.Required(field.NewPath("metadata", "namespace"), ""))
	}
	return errs.Filter()
}

// validateUpdate is the ValidateUpdate of the strategy of the endpoint
// written: the status strategy (the resource's ValidateStatus, nil: the
// metadata update checks), a CertificateSigningRequest's approval
// strategy, a Namespace's finalize strategy, else the main resource's.
func (builtinWrites) validateUpdate(_ *Server, req *request, next, old runtime.Object) (field.ErrorList, error) {
	var validate ValidateFunc
	switch {
	case req.isStatus():
		validate = req.res.ValidateStatus
		if validate == nil {
			validate = validation.MetaUpdate
		}
	case req.isApproval():
		validate = validation.ValidateCSRApprovalUpdate
	case req.isFinalize():
		validate = validation.NamespaceFinalizeUpdate
	default:
		validate = req.res.Validate
		if validate == nil {
			validate = validation.Generic
		}
	}
	return validate(next, old).Filter(), nil
}

func (builtinWrites) afterWrite(*Server, runtime.Object) {}

// crdWrites adapts apiextensions-apiserver's CustomResourceDefinition
// strategies (crd.go) and runs the CRD controllers after a write
// (crd_lifecycle.go).
type crdWrites struct {
	noAllocation
	genericHooks
}

// prepareCreate is the CRD strategy's PrepareForCreate.
func (crdWrites) prepareCreate(s *Server, _ *resourceInfo, obj runtime.Object) error {
	return s.crds.prepareCreate(obj)
}

// validateCreate is the CRD strategy's Validate, then the common
// ObjectMeta validation, as BeforeCreate runs them.
func (crdWrites) validateCreate(s *Server, _ *request, res *resourceInfo, obj runtime.Object) field.ErrorList {
	return withObjectMeta(res, obj, s.crds.validateCreate(obj))
}

// validateUpdate is the CRD strategy's (or status strategy's)
// PrepareForUpdate, then BeforeUpdate's common checks and ValidateUpdate.
func (crdWrites) validateUpdate(s *Server, req *request, next, old runtime.Object) (field.ErrorList, error) {
	specific, err := s.crds.prepareUpdate(next, old, req.isStatus())
	if err != nil {
		return nil, err
	}
	return append(commonUpdateErrors(req.res, next, old), specific...), nil
}

// afterWrite runs what the CRD controllers do after a CRD changed.
func (crdWrites) afterWrite(s *Server, stored runtime.Object) {
	s.reconcileCRD(mustAccessor(stored).GetName())
}

// delete is the CRD REST's Delete, which terminates the CRD
// (crd_lifecycle.go).
func (crdWrites) delete(s *Server, d deletion) (runtime.Object, bool, bool, error) {
	return s.terminateCRD(d.res, d.cur, d.curRV, d.dryRun())
}

// customWrites adapts apiextensions-apiserver's custom resource
// strategies (customresource.NewStrategy, NewStatusStrategy). An object is
// prepared and validated in the request's version and stored in the
// storage version ("None" conversion: only apiVersion changes; "Webhook":
// the store converts it, customresource_conversion.go).
type customWrites struct {
	noAllocation
	storeDelete
}

// prepareCreate refuses a custom resource of a terminating CRD (403), as
// the handler's forbidCreateAdmission does, then runs PrepareForCreate.
func (customWrites) prepareCreate(s *Server, res *resourceInfo, obj runtime.Object) error {
	if s.crdTerminating(res.custom.crdName) {
		return apierrors.NewForbidden(res.qualified(), mustAccessor(obj).GetName(), errors.New("create not allowed while custom resource definition is terminating"))
	}
	res.custom.serving().strategy.PrepareForCreate(context.Background(), obj)
	return nil
}

// validateCreate is the strategy's Validate, then the common ObjectMeta
// validation; a generateName retry comes back here.
func (customWrites) validateCreate(_ *Server, _ *request, res *resourceInfo, obj runtime.Object) field.ErrorList {
	setVersion(obj, res.Kind.GroupVersion())
	defer res.custom.backToStorageVersion(res, obj)
	return withObjectMeta(res, obj, res.custom.serving().strategy.Validate(context.Background(), obj))
}

// validateUpdate is the strategy's (or status strategy's)
// PrepareForUpdate, then BeforeUpdate's common checks and ValidateUpdate,
// both sides seen in the request's version.
func (customWrites) validateUpdate(_ *Server, req *request, next, old runtime.Object) (field.ErrorList, error) {
	res := req.res
	strategy := res.custom.serving().strategy
	if req.isStatus() {
		strategy = res.custom.serving().statusStrategy
	}
	ctx := context.Background()
	gv := res.Kind.GroupVersion()
	old = inVersion(old, gv)
	setVersion(next, gv)
	defer res.custom.backToStorageVersion(res, next)
	strategy.PrepareForUpdate(ctx, next, old)
	errs := commonUpdateErrors(res, next, old)
	return append(errs, strategy.ValidateUpdate(ctx, next, old)...), nil
}

func (customWrites) afterWrite(*Server, runtime.Object) {}

// checkPatchType is the CR handler's 415 for a strategic merge patch
// (customresource_hooks.go).
func (customWrites) checkPatchType(pt types.PatchType) error { return customPatchType(pt) }

// afterFinalDelete runs the CRD finalizer again when the CRD is
// terminating, so the CRD goes once its last object has
// (crd_lifecycle.go).
func (customWrites) afterFinalDelete(s *Server, res *resourceInfo) {
	if s.crdTerminating(res.custom.crdName) {
		s.finalizeCRD(res.custom.crdName)
	}
}

// withObjectMeta is BeforeCreate's order: the strategy's errors, and only
// without any, the common ObjectMeta validation.
func withObjectMeta(res *resourceInfo, obj runtime.Object, errs field.ErrorList) field.ErrorList {
	if len(errs) > 0 {
		return errs
	}
	return genericvalidation.ValidateObjectMetaAccessor(mustAccessor(obj), !res.ClusterScoped, path.ValidatePathSegmentName, field.NewPath("metadata"))
}

// invalid is the one 422 of a failed validation (nil for none): Invalid,
// the Kind (group-qualified), the object's name and one cause per field
// error. The Kind is that of the internal type kube-apiserver validated
// (rest.BeforeCreate's objectMetaAndKind): an events.k8s.io Event is a
// core Event there, so its 422 names "Event" without a group.
func invalid(res *resourceInfo, obj runtime.Object, errs field.ErrorList) error {
	if len(errs) == 0 {
		return nil
	}
	gk := res.Kind.GroupKind()
	if internalPackages[gk.Group] == "core" {
		gk.Group = ""
	}
	return apierrors.NewInvalid(gk, mustAccessor(obj).GetName(), errs)
}
