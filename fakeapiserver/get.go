package fakeapiserver

import (
	"net/http"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/lw-sim/lw-sim/internal/kubewire"
)

// handleGet answers a GET of one object (or of its status subresource,
// which is the whole object): 200 with it, or its Table form.
// resourceVersion "" reads storage (the latest state); "0" the serving
// instance's watch cache as it is; N the cache once it has reached N (504
// after 3 s otherwise), as kube-apiserver serves GET
// (cacher/delegator.go Get, cacher.go Get).
func (s *Server) handleGet(req *request) (response, error) {
	out, err := s.negotiateOutput(req.r, req.transforms())
	if err != nil {
		return response{}, err
	}
	obj, err := s.getObject(req)
	if err != nil {
		return response{}, err
	}
	return response{code: http.StatusOK, out: out, obj: obj, table: &tableRows{items: []runtime.Object{obj}}}, nil
}

// getObject reads the named object after the resourceVersion wait.
func (s *Server) getObject(req *request) (runtime.Object, error) {
	// The registry builds the key before the watch cache parses the
	// resourceVersion or waits for it (storage_key.go).
	if err := itemKeyError(req.res, req.info.namespace, req.info.name); err != nil {
		return nil, err
	}
	rv, err := parseRequestedRV(kubewire.QueryOf(req.r).Get("resourceVersion"))
	if err != nil {
		// The watch cache returns the versioner's plain error: a 500 with no
		// reason, as a WATCH at such an RV gets (apiserver
		// pkg/storage/cacher/cacher.go Get and Watch: ParseResourceVersion).
		return nil, err
	}
	inst, err := s.readViewOf(req.r, req.res) // the watch cache, or storage (watch_cache.go)
	if err != nil {
		return nil, err
	}
	if kubewire.QueryOf(req.r).Get("resourceVersion") == "" {
		if inst.isPartitioned() {
			return nil, errStorageUnreachable()
		}
		return s.current(req.res, req.info.namespace, req.info.name)
	}
	if rv > 0 {
		if _, err := s.waitForRV(req.r.Context(), inst, rv); err != nil {
			return nil, err
		}
	}
	return s.currentAt(req.res, req.info.namespace, req.info.name, cacheListRV(inst))
}

// current returns the live object as a read returns it (a custom
// resource under its CRD's current schema: customresource_view.go) or the
// API's 404, or the error of a namespace and name that make no storage key
// (storage_key.go): every read, update, patch and delete of one object
// comes here first.
func (s *Server) current(res *resourceInfo, namespace, name string) (runtime.Object, error) {
	view, _, err := s.currentVersion(res, namespace, name)
	return view, err
}

// currentAt is current as of the store's rv (0: the latest): the object a
// watch cache at rv holds.
func (s *Server) currentAt(res *resourceInfo, namespace, name string, rv int64) (runtime.Object, error) {
	if rv == 0 {
		return s.current(res, namespace, name)
	}
	obj, enc, err := s.store.GetVersion(res.storageKey, objectKey(res, namespace, name), rv)
	if err != nil {
		return nil, interpretStoreError(err, notFoundResource(res), name)
	}
	view, err := s.readView(res, obj, enc)                     // the watch cache's, converted once
	return view, corruptObjectError(res, namespace, name, err) // customresource_conversion.go
}

// currentVersion is current with the object as stored: the two differ for
// a custom resource stored before its CRD gained a default.
func (s *Server) currentVersion(res *resourceInfo, namespace, name string) (view, stored runtime.Object, err error) {
	if err := itemKeyError(res, namespace, name); err != nil {
		return nil, nil, err
	}
	obj, enc, err := s.store.GetVersion(res.storageKey, objectKey(res, namespace, name), 0)
	if err != nil {
		return nil, nil, interpretStoreError(err, notFoundResource(res), name)
	}
	view, err = s.readView(res, obj, etcdRead(res, enc))
	return view, obj, corruptObjectError(res, namespace, name, err) // customresource_conversion.go
}

// notFoundResource is the resource a 404 of res names: its own, but for
// componentstatuses, whose REST says "componentstatus" (kubernetes
// pkg/registry/core/componentstatus/rest.go Get).
func notFoundResource(res *resourceInfo) schema.GroupResource {
	if gr := res.qualified(); gr != (schema.GroupResource{Resource: "componentstatuses"}) {
		return gr
	}
	return schema.GroupResource{Resource: "componentstatus"}
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
