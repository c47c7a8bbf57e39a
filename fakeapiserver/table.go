package fakeapiserver

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/lw-sim/lw-sim/fakeapiserver/internal/tables"
)

// toTable converts objects of res into the Table kubectl asks for
// (Accept: application/json;as=Table;v=v1;g=meta.k8s.io) with the server's
// clock; see [tables.Convert] for listMeta, includeObject and the errors.
// isList is set for a list's items, unset for a single object.
func (s *Server) toTable(res *resourceInfo, objs []runtime.Object, listMeta metav1.ListMeta, includeObject metav1.IncludeObjectPolicy, isList bool) (*metav1.Table, error) {
	return tables.Convert(res, objs, tables.Options{ListMeta: listMeta, IncludeObject: includeObject, Now: s.cfg.Clock.Now(), List: isList})
}
