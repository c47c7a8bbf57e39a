package fakeapiserver

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/apimachinery/pkg/util/yaml"
)

// checkPatchBody is handlers/patch.go validateAndTranscodePatch: an apply
// body must be YAML (a superset of JSON), any other patch JSON; both 400.
func checkPatchBody(patch []byte, patchType types.PatchType) error {
	if patchType == types.ApplyYAMLPatchType {
		if _, err := yaml.ToJSON(patch); err != nil {
			return apierrors.NewBadRequest(fmt.Sprintf("error encoding patch: %v", err))
		}
		return nil
	}
	if !json.Valid(patch) {
		return apierrors.NewBadRequest("invalid JSON patch")
	}
	return nil
}

// applyPatch answers a server-side apply (PATCH with
// application/apply-patch+yaml) after handlePatch's common checks: 201
// when it created the object, 200 when it updated it (or changed nothing).
func (s *Server) applyPatch(req *request, out outputType, in patchInput) (response, error) {
	obj, created, err := s.applyObject(req, newApplier(s, req, in))
	if err != nil {
		return response{}, err
	}
	code := http.StatusOK
	if created {
		code = http.StatusCreated
	}
	return response{code: code, out: out, obj: obj}, nil
}

// applyObject runs an apply as the real patch handler does with
// forceAllowCreate: the read-modify-write loop updates an existing object
// (its one read decides); a missing one is created from the applied
// configuration (the main resource only: the status and approval
// subresources never create, 404). A concurrent create between the read
// and the write starts over.
func (s *Server) applyObject(req *request, a *applier) (runtime.Object, bool, error) {
	for {
		obj, err := s.updateObject(req, a.apply)
		if !apierrors.IsNotFound(err) || req.isPartialWrite() {
			return obj, false, err
		}
		obj, err = s.applyCreate(req, a)
		if apierrors.IsAlreadyExists(err) {
			continue
		}
		return obj, err == nil, err
	}
}

// applyCreate applies to an empty object and creates the result
// (patch.go applyPatcher.createNewObject, then the create branch of
// registry Store.Update): a uid in the configuration is a 409 since no
// object has it; a resourceVersion is ignored, as storage resets it.
func (s *Server) applyCreate(req *request, a *applier) (runtime.Object, error) {
	obj, err := a.apply(req.res.newObject())
	if err != nil {
		return nil, err
	}
	m := mustAccessor(obj)
	if uid := m.GetUID(); uid != "" {
		return nil, apierrors.NewConflict(req.res.qualified(), req.info.name,
			fmt.Errorf("uid mismatch: the provided object specified uid %s, and no existing object was found", uid))
	}
	m.SetResourceVersion("")
	if err := s.admitRBACCreate(req, obj); err != nil { // rbac_escalation.go
		return nil, err
	}
	return s.create(req.res, req.info.namespace, obj, isDryRun(req.r), writeAdmission(req, nil))
}

// newApplier is the applier of a request's configuration, with the field
// manager and force of its PatchOptions.
func newApplier(s *Server, req *request, in patchInput) *applier {
	return &applier{
		s: s, req: req, patch: in.patch, directive: in.directive,
		manager: in.opts.FieldManager, force: in.opts.Force != nil && *in.opts.Force,
	}
}

// applier merges one applied configuration into successive versions of
// the object (patch.go applyPatcher).
type applier struct {
	s         *Server
	req       *request
	patch     []byte
	directive string
	manager   string
	force     bool
	// fm, when set, is the field manager to apply with instead of the
	// request endpoint's (the scale subresource's).
	fm *managedfields.FieldManager
	// config is the configuration decoded, on the first attempt.
	config *unstructured.Unstructured
}

// decoded returns a copy of the decoded configuration (the field manager
// may keep what it is given), decoding it on first use: a 400 for YAML
// the body check let through.
func (a *applier) decoded() (*unstructured.Unstructured, error) {
	if a.config == nil {
		config := &unstructured.Unstructured{Object: map[string]any{}}
		if err := yaml.Unmarshal(a.patch, &config.Object); err != nil {
			return nil, apierrors.NewBadRequest(fmt.Sprintf("error decoding patch: %v", err))
		}
		a.config = config
	}
	return a.config.DeepCopy(), nil
}

// apply merges the configuration into cur with the endpoint's field
// manager (409 on conflicts unless forced), checks duplicate fields under
// Strict (400) or Warn (warnings), then namespace and name against the URL.
func (a *applier) apply(cur runtime.Object) (runtime.Object, error) {
	patchObj, err := a.decoded()
	if err != nil {
		return nil, err
	}
	fm := a.fm
	if fm == nil {
		if fm, err = a.req.fieldManager(); err != nil {
			return nil, err
		}
	}
	kept := managedTimes(cur)
	start := time.Now()
	obj, err := fm.Apply(cur, patchObj, a.manager, a.force)
	if err != nil {
		return nil, err
	}
	if err := a.checkStrict(); err != nil {
		return nil, err
	}
	a.s.stampManagedFields(obj, start, kept)
	obj.GetObjectKind().SetGroupVersionKind(a.req.res.Kind)
	if err := checkObjectNamespace(a.req.res, a.req.info.namespace, obj); err != nil {
		return nil, err
	}
	return obj, checkObjectName(obj, a.req.info.name)
}

// checkStrict looks for duplicate fields in the configuration (unknown ones
// already failed the typed conversion): a 400 under Strict, warnings under
// Warn.
func (a *applier) checkStrict() error {
	if a.directive == metav1.FieldValidationIgnore {
		return nil
	}
	err := yaml.UnmarshalStrict(a.patch, &map[string]any{})
	if err == nil {
		return nil
	}
	if a.directive == metav1.FieldValidationStrict {
		return apierrors.NewBadRequest(fmt.Sprintf("error strict decoding patch: %v", err))
	}
	addWarnings(a.req.w, []error{err})
	return nil
}
