package fakeapiserver

import (
	"errors"
	"fmt"
	"net/http"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilrand "k8s.io/apimachinery/pkg/util/rand"

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

// serveCreate answers a POST to a collection: 201 with the stored object.
func (s *Server) serveCreate(req *request) {
	out, err := s.negotiateOutput(req.r, false)
	if err != nil {
		s.writeError(req.w, req.r, err)
		return
	}
	body, err := s.readBody(req.r)
	if err != nil {
		s.writeError(req.w, req.r, err)
		return
	}
	obj, err := s.decodeObject(req, body)
	if err == nil {
		obj, err = s.createObject(req.res, req.info.namespace, obj)
	}
	if err != nil {
		s.writeError(req.w, req.r, err)
		return
	}
	s.respond(req.w, out, http.StatusCreated, obj)
}

// createObject runs a create through the steps of the real create path in
// order: namespace defaulting (400 on mismatch), namespace lifecycle
// admission (404 for a missing namespace), system fields and validation
// (422), then the store (500 for a set resourceVersion, 409 AlreadyExists).
func (s *Server) createObject(res *resourceInfo, namespace string, obj runtime.Object) (runtime.Object, error) {
	if err := checkObjectNamespace(res, namespace, obj); err != nil {
		return nil, err
	}
	if !res.ClusterScoped {
		if err := s.admitNamespace(res, obj); err != nil {
			return nil, err
		}
	}
	m := mustAccessor(obj)
	generate := m.GetName() == "" && m.GetGenerateName() != ""
	s.fillCreateMeta(res, obj)
	for attempt := 1; ; attempt++ {
		if generate {
			m.SetName(generateName(m.GetGenerateName()))
		}
		if err := validateName(res, obj); err != nil {
			return nil, err
		}
		if m.GetResourceVersion() != "" {
			return nil, errResourceVersionOnCreate
		}
		stored, err := s.store.Create(res.storageKey, objectKey(res, m.GetNamespace(), m.GetName()), obj.DeepCopyObject())
		switch {
		case err == nil:
			return stored, nil
		case !errors.Is(err, store.ErrAlreadyExists):
			return nil, err
		case generate && attempt < maxGenerateNameAttempts:
			continue
		case generate:
			return nil, apierrors.NewGenerateNameConflict(res.qualified(), m.GetName(), 1)
		default:
			return nil, apierrors.NewAlreadyExists(res.qualified(), m.GetName())
		}
	}
}

// admitNamespace is the NamespaceLifecycle admission plugin for creates:
// the namespace must exist (404) and not be terminating (403).
func (s *Server) admitNamespace(res *resourceInfo, obj runtime.Object) error {
	nsRes := s.namespaces()
	ns := mustAccessor(obj).GetNamespace()
	cur, err := s.store.Get(nsRes.storageKey, ns, 0)
	if errors.Is(err, store.ErrNotFound) {
		return apierrors.NewNotFound(nsRes.qualified(), ns)
	}
	if err != nil {
		return err
	}
	if mustAccessor(cur).GetDeletionTimestamp() != nil {
		return apierrors.NewForbidden(res.qualified(), mustAccessor(obj).GetName(),
			fmt.Errorf("unable to create new content in namespace %s because it is being terminated", ns))
	}
	return nil
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
