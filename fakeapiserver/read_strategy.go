package fakeapiserver

import (
	"net/http"
	"time"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/lw-sim/lw-sim/fakeapiserver/internal/discovery"
	"github.com/lw-sim/lw-sim/fakeapiserver/internal/tables"
	"github.com/lw-sim/lw-sim/fakeapiserver/store"
)

// readStrategy is where the read paths (views, encoding caches, tables,
// field managers, scale, discovery, storage keys) serve a custom resource
// otherwise than a built-in kind, as kube-apiserver serves CRDs through
// apiextensions-apiserver's handler (customresource_handler.go) and
// built-ins through their registries. A resource has one, chosen when it
// is registered, as its [writeStrategy] is: [builtinReads], or
// [customReads] for a version of a CRD's resource (customresource_*.go).
type readStrategy interface {
	// gone is closed when the resource stops being served (its CRD was
	// deleted); nil, never ready, for built-ins.
	gone(res *resourceInfo) <-chan struct{}
	// view is obj as a read returns it; enc is its encoding cache (nil
	// for an object that is not a stored version).
	view(s *Server, res *resourceInfo, obj runtime.Object, enc *store.Encodings) (runtime.Object, error)
	// reusesEncodings reports whether a stored object's cached encodings
	// are its answer (a custom resource is answered as its CRD is now).
	reusesEncodings() bool
	// tableConvertor is the printer-column convertor; nil for the
	// built-in printers (internal/tables).
	tableConvertor(res *resourceInfo) tables.Convertor
	// tableSecond is the second a watch's Table ages are computed in.
	tableSecond(s *Server) int64
	// internalTypeName is the Go type kube-apiserver holds an object (or
	// a list) of res in, as its 406 messages name it.
	internalTypeName(res *resourceInfo, list bool) string
	// notAListError is the answer to PartialObjectMetadataList for one
	// object.
	notAListError(res *resourceInfo) error
	// keyPrefix is the etcd key prefix its storage's messages quote.
	keyPrefix(res *resourceInfo) string
	// scaleServed reports whether the resource has a /scale subresource;
	// scaleVerbs are its reads and writes.
	scaleServed(s *Server, res *resourceInfo) bool
	scaleVerbs() map[string]scaleFunc
	// discovery describes the resource in discovery; definedByCRD is set
	// for a CRD's group-version.
	discovery(t discoveryTable, res *resourceInfo) discovery.Resource
	definedByCRD() bool
	// withResource returns r carrying what negotiation needs of res (a
	// custom resource's serializers).
	withResource(r *http.Request, res *resourceInfo) *http.Request
	// newFieldManagers builds the resource's field managers.
	newFieldManagers(l *lazyFieldManagers, res *resourceInfo) (fieldManagers, error)
	// statusResetsMetadata reports whether the status strategy resets all
	// of metadata beyond the kind's own rule.
	statusResetsMetadata() bool
}

var (
	_ readStrategy = builtinReads{}
	_ readStrategy = customReads{}
)

// readStrategy returns the resource's read adapter.
func (r *resourceInfo) readStrategy() readStrategy {
	if r.reads == nil {
		return builtinReads{}
	}
	return r.reads
}

// builtinReads serves a built-in or scheme-derived kind: stored objects
// are answered as stored, from their cached encodings, on the server's
// clock.
type builtinReads struct{}

func (builtinReads) gone(*resourceInfo) <-chan struct{} { return nil }

func (builtinReads) view(_ *Server, _ *resourceInfo, obj runtime.Object, _ *store.Encodings) (runtime.Object, error) {
	return obj, nil
}

func (builtinReads) reusesEncodings() bool { return true }

func (builtinReads) tableConvertor(*resourceInfo) tables.Convertor { return nil }

func (builtinReads) tableSecond(s *Server) int64 { return s.cfg.Clock.Now().Unix() }

func (builtinReads) internalTypeName(res *resourceInfo, list bool) string {
	return builtinTypeName(res, list) // response_transform.go
}

func (builtinReads) notAListError(res *resourceInfo) error {
	return transformNotAcceptable("you requested PartialObjectMetadataList, but the requested object is not a list (" + builtinTypeName(res, false) + ")")
}

func (builtinReads) keyPrefix(res *resourceInfo) string { return "/" + res.gvr.Resource }

func (builtinReads) scaleServed(s *Server, res *resourceInfo) bool {
	return s.subresourceServed(res, "scale")
}

func (builtinReads) scaleVerbs() map[string]scaleFunc { return builtinScaleVerbs }

func (builtinReads) discovery(t discoveryTable, res *resourceInfo) discovery.Resource {
	return discovery.Resource{Entry: res.discoveryEntry(), Subresources: t.subresourceEntries(res)}
}

func (builtinReads) definedByCRD() bool { return false }

func (builtinReads) withResource(r *http.Request, _ *resourceInfo) *http.Request { return r }

func (builtinReads) newFieldManagers(l *lazyFieldManagers, res *resourceInfo) (fieldManagers, error) {
	return l.newBuiltin(res) // managedfields.go
}

func (builtinReads) statusResetsMetadata() bool { return false }

// customReads serves a version of a CRD's resource as
// apiextensions-apiserver does: read under the CRD's current schemas,
// its printer columns on the wall clock, its own scale and serializers.
type customReads struct{}

func (customReads) gone(res *resourceInfo) <-chan struct{} { return res.custom.life.done }

func (customReads) view(s *Server, res *resourceInfo, obj runtime.Object, enc *store.Encodings) (runtime.Object, error) {
	return s.customView(res, obj, enc) // customresource_view.go
}

func (customReads) reusesEncodings() bool { return false }

func (customReads) tableConvertor(res *resourceInfo) tables.Convertor { return res.custom.table }

// tableSecond is the wall clock's: apiextensions-apiserver's table
// convertor reads that.
func (customReads) tableSecond(*Server) int64 { return time.Now().Unix() }

func (customReads) internalTypeName(_ *resourceInfo, list bool) string {
	if list {
		return "*unstructured.UnstructuredList"
	}
	return "*unstructured.Unstructured"
}

func (customReads) notAListError(*resourceInfo) error { return errContentNotList }

func (customReads) keyPrefix(res *resourceInfo) string {
	return "/" + res.gvr.Group + "/" + res.gvr.Resource
}

func (customReads) scaleServed(_ *Server, res *resourceInfo) bool { return res.custom.scale != nil }

func (customReads) scaleVerbs() map[string]scaleFunc { return customScaleVerbs } // customresource_scale.go

func (customReads) discovery(t discoveryTable, res *resourceInfo) discovery.Resource {
	return t.customResource(res)
}

func (customReads) definedByCRD() bool { return true }

func (customReads) withResource(r *http.Request, res *resourceInfo) *http.Request {
	return withCustomResource(r, res) // customresource_codec.go
}

func (customReads) newFieldManagers(_ *lazyFieldManagers, res *resourceInfo) (fieldManagers, error) {
	return newCustomFieldManagers(res) // customresource_fields.go
}

// statusResetsMetadata: the custom resource status strategy's reset
// fields name metadata and spec (apiextensions-apiserver customresource
// status_strategy.go GetResetFields).
func (customReads) statusResetsMetadata() bool { return true }
