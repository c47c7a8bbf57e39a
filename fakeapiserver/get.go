package fakeapiserver

import (
	"errors"
	"net/http"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/lw-sim/lw-sim/fakeapiserver/store"
)

// serveGet answers a GET of one object (or of its status subresource, which
// is the whole object). resourceVersion "" and "0" read the latest state; N
// reads the latest once the store has reached N (504 after 3 s otherwise),
// as the watch cache serves GET (cacher/delegator.go Get).
func (s *Server) serveGet(req *request) {
	out, err := s.negotiateOutput(req.r, true)
	if err != nil {
		s.writeError(req.w, req.r, err)
		return
	}
	obj, err := s.getObject(req)
	if err != nil {
		s.writeError(req.w, req.r, err)
		return
	}
	if out.table {
		table, err := s.toTable(req.res, []runtime.Object{obj}, metav1.ListMeta{}, includeObjectParam(req.r))
		if err != nil {
			s.writeError(req.w, req.r, err)
			return
		}
		s.respond(req.w, out, http.StatusOK, table)
		return
	}
	s.respond(req.w, out, http.StatusOK, obj)
}

// getObject reads the named object after the resourceVersion wait.
func (s *Server) getObject(req *request) (runtime.Object, error) {
	rv, err := parseResourceVersion(req.r.URL.Query().Get("resourceVersion"))
	if err != nil {
		// The watch cache returns the versioner's plain error: a 500 with no
		// reason, like the WATCH case the spec observed (§2.5).
		return nil, err
	}
	if rv > 0 {
		if err := s.waitForRV(req.r.Context(), rv); err != nil {
			return nil, err
		}
	}
	return s.current(req.res, req.info.namespace, req.info.name)
}

// current returns the live object or the API's 404.
func (s *Server) current(res *resourceInfo, namespace, name string) (runtime.Object, error) {
	obj, err := s.store.Get(res.storageKey, objectKey(res, namespace, name), 0)
	if errors.Is(err, store.ErrNotFound) {
		return nil, apierrors.NewNotFound(res.qualified(), name)
	}
	return obj, err
}

// objectKey is the store key of an object: "<ns>/<name>" for namespaced
// resources, "<name>" for cluster-scoped ones, so byte order of keys is
// kube-apiserver's namespace/name order.
func objectKey(res *resourceInfo, namespace, name string) string {
	if res.ClusterScoped {
		return name
	}
	return namespace + "/" + name
}
