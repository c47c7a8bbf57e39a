package fakeapiserver

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/lw-sim/lw-sim/fakeapiserver/store"
)

// The objects kube-apiserver creates itself, at start and again when they
// go missing, each by the controller that owns it there:
//
//	namespaces default, kube-system,   systemnamespaces controller, every minute
//	kube-public, kube-node-lease       (bootstrap_namespaces.go)
//	Service default/kubernetes         kubernetesservice controller, every 10 s
//	                                   (bootstrap_service.go)
//	FlowSchemas and priority levels    APF config producer, every minute
//	                                   (apf_config.go)
//	local APIServices                  the aggregator's autoregistration, at
//	                                   start only (apiservices.go)
//
// New creates them all, in that order, through the loopback client
// (loopback.go), so they are written as any client's objects are (same
// defaults, validation, managedFields under the kube-apiserver manager,
// watch events). The server's controller loop (controllers.go) recreates
// a missing one at the next tick of its owner's period, counted from New
// on the server's clock, as the real controllers poll on theirs.

// seedManager is the field manager of the objects kube-apiserver creates
// itself (its loopback client's User-Agent prefix).
const seedManager = "kube-apiserver"

// bootstrapObject is one object the server creates itself.
type bootstrapObject struct {
	gvr       schema.GroupVersionResource
	namespace string
	name      string
	// body is the create's body, a typed object with its TypeMeta.
	body runtime.Object
	// query carries the create's options (a fieldManager).
	query url.Values
}

// path is the collection path of the object's resource.
func (b bootstrapObject) path() string {
	p := "/apis/" + b.gvr.Group + "/" + b.gvr.Version
	if b.gvr.Group == "" {
		p = "/api/" + b.gvr.Version
	}
	if b.namespace != "" {
		p += "/namespaces/" + b.namespace
	}
	return p + "/" + b.gvr.Resource
}

// seedBootstrap creates every bootstrap object at New. A group-version
// the server does not serve has none; the core namespaces must be served.
func (s *Server) seedBootstrap() error {
	if s.namespaces() == nil {
		return fmt.Errorf("fakeapiserver: core/v1 namespaces must be served")
	}
	var objs []bootstrapObject
	objs = append(objs, s.systemNamespaceObjects()...)
	objs = append(objs, s.kubernetesServiceObjects()...)
	objs = append(objs, s.apfConfigObjects()...)
	objs = append(objs, s.localAPIServiceObjects()...)
	for _, b := range objs {
		if err := s.createBootstrap(s.stopCtx, b); err != nil {
			return fmt.Errorf("fakeapiserver: seed %s %s: %w", b.gvr.Resource, b.name, err)
		}
	}
	return nil
}

// createBootstrap creates one bootstrap object through the loopback
// client; a resource the server does not serve is skipped.
func (s *Server) createBootstrap(ctx context.Context, b bootstrapObject) error {
	if _, ok := s.resources.lookup(b.gvr); !ok {
		return nil
	}
	_, err := s.loopback(ctx, loopbackRequest{method: http.MethodPost, path: b.path(), query: b.query, body: b.body})
	return err
}

// missingBootstrap returns those of objs the store does not hold (or whose
// resource is not served: none of those).
func (s *Server) missingBootstrap(objs []bootstrapObject) []bootstrapObject {
	var missing []bootstrapObject
	for _, b := range objs {
		res, ok := s.resources.lookup(b.gvr)
		if !ok {
			continue
		}
		_, err := s.store.Get(res.storageKey, objectKey(res, b.namespace, b.name), 0)
		if errors.Is(err, store.ErrNotFound) {
			missing = append(missing, b)
		}
	}
	return missing
}

// recreateMissing creates those of objs that are missing, as the owning
// controller's periodic pass does; one that now exists (created
// concurrently) is fine. It returns the first other error.
func (s *Server) recreateMissing(ctx context.Context, objs []bootstrapObject) error {
	var first error
	for _, b := range s.missingBootstrap(objs) {
		if err := s.createBootstrap(ctx, b); err != nil && !apierrors.IsAlreadyExists(err) && first == nil {
			first = fmt.Errorf("fakeapiserver: recreate %s %s: %w", b.gvr.Resource, b.name, err)
		}
	}
	return first
}
