package fakeapiserver

import (
	"errors"
	"fmt"
	"net/http"
	"path"
	"reflect"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1beta1 "k8s.io/apimachinery/pkg/apis/meta/v1beta1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// A response's object becomes what the client asked for with as= in
// kube-apiserver's transformResponseObject (handlers/response.go), after
// the verb has run (a write is stored even when its answer is then a 406):
// a Status passes unchanged; a Table, PartialObjectMetadata or
// PartialObjectMetadataList of meta.k8s.io v1 or v1beta1 replaces the
// object otherwise. Watch events take the same route one event at a time
// (watch_encode.go).

// transformResponse is doTransformObject for a verb's answer: the object
// to encode in place of resp.obj.
func (s *Server) transformResponse(req *request, resp response) (runtime.Object, error) {
	obj := resp.obj
	if _, isStatus := obj.(*metav1.Status); isStatus {
		return obj, nil
	}
	gv := resp.out.targetGV
	switch resp.out.target {
	case targetTable:
		rows := resp.table
		if rows == nil {
			rows = rowsOf(obj)
		}
		return s.tableOf(req, rows, gv)
	case targetPartial:
		return asPartialObjectMetadata(req.res, obj, gv)
	case targetPartialList:
		return asPartialObjectMetadataList(req.res, obj, gv)
	}
	return obj, nil
}

// rowsOf is what a Table of a write's answer has rows for: a list's items
// (a deletecollection's answer), else the object.
func rowsOf(obj runtime.Object) *tableRows {
	if p, ok := obj.(*listPage); ok {
		return &tableRows{page: p, list: p.list}
	}
	return &tableRows{items: []runtime.Object{obj}}
}

// asPartialObjectMetadata is handlers/response.go asPartialObjectMetadata:
// the object's metadata alone, or the 406 for a list.
func asPartialObjectMetadata(res *resourceInfo, obj runtime.Object, gv schema.GroupVersion) (runtime.Object, error) {
	if _, isPage := obj.(*listPage); isPage || meta.IsListType(obj) {
		return nil, transformNotAcceptable(fmt.Sprintf("you requested PartialObjectMetadata, but the requested object is a list (%s)", internalTypeName(res, true)))
	}
	return partialObjectMetadata(obj, gv)
}

// partialObjectMetadata is obj's metadata as a PartialObjectMetadata of gv
// (meta.AsPartialObjectMetadata, which copies a typed object's ObjectMeta
// whole and reads an unstructured one field by field).
func partialObjectMetadata(obj runtime.Object, gv schema.GroupVersion) (*metav1.PartialObjectMetadata, error) {
	m, err := meta.Accessor(obj)
	if err != nil {
		return nil, err
	}
	partial := meta.AsPartialObjectMetadata(m)
	partial.SetGroupVersionKind(gv.WithKind("PartialObjectMetadata"))
	return partial, nil
}

// errContentNotList is what asPartialObjectMetadataList meets for a custom
// resource: an *unstructured.Unstructured passes its ListInterface check
// (it has the list metadata accessors) and then fails to iterate, a 500
// with no reason [observed].
var errContentNotList = errors.New("content is not a list")

// asPartialObjectMetadataList is handlers/response.go
// asPartialObjectMetadataList: a list's items' metadata, or the 406 for a
// single built-in object. A LIST page stays a page, encoded from the
// items' cached metadata (list_meta_encode.go).
func asPartialObjectMetadataList(res *resourceInfo, obj runtime.Object, gv schema.GroupVersion) (runtime.Object, error) {
	if p, ok := obj.(*listPage); ok {
		return newMetaListPage(p, gv)
	}
	return nil, res.readStrategy().notAListError(res)
}

// transformNotAcceptable is handlers/response.go errNotAcceptable: a 406
// with the message alone.
func transformNotAcceptable(message string) error {
	return &apierrors.StatusError{ErrStatus: metav1.Status{
		Status:  metav1.StatusFailure,
		Code:    http.StatusNotAcceptable,
		Reason:  metav1.StatusReasonNotAcceptable,
		Message: message,
	}}
}

// internalPackages names the internal API package of the built-in groups
// whose objects kube-apiserver does not keep in a package of the group's
// own name: events.k8s.io Events are core Events.
var internalPackages = map[string]string{
	"events.k8s.io": "core",
}

// internalTypeName is the Go type kube-apiserver holds an object (or, for
// list, a list) of res in when it transforms it, as the 406 messages name
// it: unstructured types for custom resources, else builtinTypeName.
func internalTypeName(res *resourceInfo, list bool) string {
	return res.readStrategy().internalTypeName(res, list)
}

// builtinTypeName is the internal type of a built-in kind,
// "*core.ConfigMap", "*apps.DeploymentList", whose package is the
// versioned package's parent directory (k8s.io/api/apps/v1 → apps).
func builtinTypeName(res *resourceInfo, list bool) string {
	pkg, ok := internalPackages[res.Kind.Group]
	if !ok {
		pkg = path.Base(path.Dir(reflect.TypeOf(res.newObject()).Elem().PkgPath()))
	}
	kind := res.Kind.Kind
	if list {
		kind = res.listKind.Kind
	}
	return "*" + pkg + "." + kind
}

// inTableVersion gives a Table and the PartialObjectMetadata its rows
// embed the meta.k8s.io version the client asked for (asTable sets gv on
// both; the Table types of v1beta1 are v1's). The table is fresh, so it is
// changed in place.
func inTableVersion(table *metav1.Table, gv schema.GroupVersion) *metav1.Table {
	if gv != metav1beta1.SchemeGroupVersion {
		return table
	}
	table.APIVersion = gv.String()
	for i := range table.Rows {
		if p, ok := table.Rows[i].Object.Object.(*metav1.PartialObjectMetadata); ok {
			p.SetGroupVersionKind(gv.WithKind("PartialObjectMetadata"))
		}
	}
	return table
}
