package fakeapiserver

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/validate/content"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilrand "k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/apiserver/pkg/admission"

	"github.com/lw-sim/lw-sim/fakeapiserver/store"
)

const (
	// maxGenerateNameAttempts is how often a create with generateName
	// retries on a name collision (registry/generic/registry/store.go
	// maxNameGenerationCreateAttempts).
	maxGenerateNameAttempts = 8
	// generateNamePrefixMax and generateNameSuffix are the apiserver's
	// SimpleNameGenerator: the prefix is cut to 58 bytes, 5 random
	// characters follow (storage/names/generate.go).
	generateNamePrefixMax = 58
	generateNameSuffix    = 5
)

// errResourceVersionOnCreate is storage.ErrResourceVersionSetOnCreate, a
// plain error: the client sees a 500 with no reason [observed].
var errResourceVersionOnCreate = errors.New("resourceVersion should not be set on objects to be created")

// isStorageRV reports whether a create body's resourceVersion makes etcd3's
// store refuse it (apiserver pkg/storage/etcd3/store.go Create): the
// APIObjectVersioner reads it as a non-zero uint64 (strconv.ParseUint,
// so "007" counts and "-1", " 7" or "abc" do not). Any other value is
// replaced by the stored resourceVersion. A dry run never reaches the
// store (registry/generic/registry/dryrun.go) and answers the value as
// given.
func isStorageRV(rv string) bool {
	n, err := strconv.ParseUint(rv, 10, 64)
	return err == nil && n != 0
}

// handleCreate answers a POST to a collection: 201 with the stored
// object. The checks run in handlers/create.go's order: Accept (406),
// Content-Type (415), body size (413), CreateOptions (400/422), decoding
// (400), then createObject.
func (s *Server) handleCreate(req *request) (response, error) {
	obj, out, err := s.decodeCreate(req)
	if err != nil {
		return response{}, err
	}
	obj = s.trackCreate(req, obj)
	if err := s.admitRBACCreate(req, obj); err != nil { // rbac_escalation.go
		return response{}, err
	}
	obj, err = s.create(req.res, req.info.namespace, obj, isDryRun(req.r), writeAdmission(req, nil))
	if err != nil {
		return response{}, err
	}
	return response{code: http.StatusCreated, out: out, obj: obj}, nil
}

// decodeCreate runs the create handler's steps up to a decoded, defaulted
// object.
func (s *Server) decodeCreate(req *request) (runtime.Object, outputType, error) {
	out, err := s.negotiateOutput(req.r, req.transforms())
	if err != nil {
		return nil, out, err
	}
	if _, err := s.inputSerializer(req.r, req.r.Header.Get("Content-Type")); err != nil {
		return nil, out, err
	}
	body, err := s.readBody(req.r)
	if err != nil {
		return nil, out, err
	}
	directive, err := createOptions(req.r)
	if err != nil {
		return nil, out, err
	}
	obj, err := s.decodeObject(req, body, directive)
	if err != nil {
		return nil, out, err
	}
	req.res.applyDefaults(obj)
	return obj, out, nil
}

// createObject runs a create through the steps of the real create path in
// order: namespace defaulting (400 on mismatch), namespace lifecycle
// admission (404 for a missing namespace), system fields and validation
// (422), then the store (500 for a set resourceVersion, 409 AlreadyExists).
func (s *Server) createObject(res *resourceInfo, namespace string, obj runtime.Object) (runtime.Object, error) {
	return s.create(res, namespace, obj, false, nil)
}

// create is createObject, as a dry run when dryRun is set (dryrun.go),
// through admission when ar is set (admission.go): mutating admission
// after the namespace checks, validating admission after validation.
func (s *Server) create(res *resourceInfo, namespace string, obj runtime.Object, dryRun bool, ar *admissionRequest) (runtime.Object, error) {
	if err := checkObjectNamespace(res, namespace, obj); err != nil {
		return nil, err
	}
	if !res.ClusterScoped {
		if err := s.admitNamespace(res, obj); err != nil {
			return nil, err
		}
	}
	if err := s.admitMutating(ar, admission.Create, obj, nil); err != nil {
		return nil, err
	}
	m := mustAccessor(obj)
	generate := m.GetName() == "" && m.GetGenerateName() != ""
	s.fillCreateMeta(res, obj)
	writes := res.writeStrategy() // write_strategy.go
	if err := writes.prepareCreate(s, res, obj); err != nil {
		return nil, err
	}
	// What the object takes from a pool (a Service's cluster IP and node
	// ports), held until the create is stored or has failed.
	done, err := writes.allocate(s, res, allocation{obj: obj, dryRun: dryRun})
	if err != nil {
		return nil, err
	}
	defer done()
	base := obj
	for attempt := 1; ; attempt++ {
		if generate {
			// Each attempt starts again from the prepared object, as the
			// generic store's retry does, so what derives from the name
			// (PrepareNamedForCreate) is the new name's.
			obj = base.DeepCopyObject()
			m = mustAccessor(obj)
			m.SetName(generateName(m.GetGenerateName()))
		}
		if prepare := res.strategy.PrepareNamedForCreate; prepare != nil {
			prepare(obj)
		}
		if err := invalid(res, obj, writes.validateCreate(s, ar.request(), res, obj)); err != nil {
			return nil, err
		}
		if err := s.admitValidating(ar, admission.Create, obj, nil); err != nil {
			return nil, err
		}
		if !dryRun && isStorageRV(m.GetResourceVersion()) {
			// etcd3 store Create: only an RV the versioner reads, and not
			// 0, is refused; anything else is overwritten. Dry-run
			// storage skips the check.
			return nil, errResourceVersionOnCreate
		}
		stored, err := s.storeCreate(res, objectKey(res, m.GetNamespace(), m.GetName()), obj, dryRun)
		switch {
		case err == nil:
			if !dryRun {
				writes.afterWrite(s, stored)
			}
			return stored, nil
		case !errors.Is(err, store.ErrAlreadyExists):
			return nil, err
		case generate && attempt < maxGenerateNameAttempts:
			continue
		case generate:
			return nil, apierrors.NewGenerateNameConflict(res.qualified(), m.GetName(), 1)
		default:
			return nil, interpretStoreError(err, res.qualified(), m.GetName())
		}
	}
}

// admitNamespace is the NamespaceLifecycle admission plugin for creates
// (apiserver pkg/admission/plugin/namespace/lifecycle): an object without
// a namespace passes (validation refuses it later); the namespace must
// exist (404 from the namespace lookup, which the plugin's loopback
// client refuses to make for a name that is no path segment: a 500) and
// not be in phase Terminating (403 with a NamespaceTerminating cause,
// naming the object by name, else generateName, else "Unknown", as
// admission.NewForbidden does before the name is generated).
func (s *Server) admitNamespace(res *resourceInfo, obj runtime.Object) error {
	nsRes := s.namespaces()
	m := mustAccessor(obj)
	ns := m.GetNamespace()
	if ns == "" {
		return nil
	}
	if msgs := content.IsPathSegmentName(ns); len(msgs) != 0 {
		// client-go rest/request.go Name: "invalid resource name", which
		// the plugin wraps in NewInternalError.
		return apierrors.NewInternalError(fmt.Errorf("invalid resource name %q: %v", ns, msgs))
	}
	cur, err := s.store.Get(nsRes.storageKey, ns, 0)
	if err != nil {
		return interpretStoreError(err, nsRes.qualified(), ns)
	}
	if nsObj, ok := cur.(*corev1.Namespace); !ok || nsObj.Status.Phase != corev1.NamespaceTerminating {
		return nil
	}
	name := m.GetName()
	if name == "" {
		name = m.GetGenerateName()
	}
	if name == "" {
		name = "Unknown"
	}
	forbidden := apierrors.NewForbidden(res.qualified(), name,
		fmt.Errorf("unable to create new content in namespace %s because it is being terminated", ns))
	forbidden.ErrStatus.Details.Causes = append(forbidden.ErrStatus.Details.Causes, metav1.StatusCause{
		Type:    corev1.NamespaceTerminatingCause,
		Message: fmt.Sprintf("namespace %s is being terminated", ns),
		Field:   "metadata.namespace",
	})
	return forbidden
}

// generateName appends the random suffix to a generateName prefix.
func generateName(prefix string) string {
	if len(prefix) > generateNamePrefixMax {
		prefix = prefix[:generateNamePrefixMax]
	}
	return prefix + utilrand.String(generateNameSuffix)
}

// namespaces returns the core namespaces resource, which every server
// serves (lifecycle admission and seeding depend on it).
func (s *Server) namespaces() *resourceInfo {
	r, _ := s.resources.lookup(schema.GroupVersionResource{Version: "v1", Resource: "namespaces"})
	return r
}
