package fakeapiserver

import (
	"slices"

	"k8s.io/apiextensions-apiserver/pkg/apihelpers"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// syncCRDOpenAPI publishes (or withdraws) the OpenAPI documents of the
// given CRD group-versions after a CRD changed, from the CRDs established
// now (see [openapi.Service.SyncCustomResources]). Configured
// group-versions are never touched.
func (s *Server) syncCRDOpenAPI(gvs []schema.GroupVersion) {
	if s.openapi == nil {
		return
	}
	gvs = slices.DeleteFunc(slices.Clone(gvs), func(gv schema.GroupVersion) bool {
		return slices.Contains(s.cfg.GroupVersions, gv)
	})
	s.openapi.SyncCustomResources(s.establishedCRDs(), gvs, &s.crds.specs)
}

// establishedCRDs returns the stored CRDs that are Established.
func (s *Server) establishedCRDs() []*apiextensionsv1.CustomResourceDefinition {
	var out []*apiextensionsv1.CustomResourceDefinition
	for _, crd := range s.listCRDs() {
		if apihelpers.IsCRDConditionTrue(crd, apiextensionsv1.Established) {
			out = append(out, crd)
		}
	}
	return out
}

// servedGVs lists the group-versions of resource entries.
func servedGVs(infos []*resourceInfo) []schema.GroupVersion {
	var out []schema.GroupVersion
	for _, info := range infos {
		if gv := info.gvr.GroupVersion(); !slices.Contains(out, gv) {
			out = append(out, gv)
		}
	}
	return out
}
