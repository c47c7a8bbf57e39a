package fakeapiserver

import (
	"fmt"

	"k8s.io/apiextensions-apiserver/pkg/apihelpers"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/controller/openapi/builder"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/kube-openapi/pkg/handler"
	"k8s.io/kube-openapi/pkg/spec3"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

// The OpenAPI documents of CRDs, built as apiextensions-apiserver's
// controllers build them (pkg/controller/openapi for /openapi/v2,
// pkg/controller/openapiv3 for /openapi/v3) with its builder package:
// the schema of each served version, the paths of the resource and its
// subresources, x-kubernetes-group-version-kind, the CRD's selectable
// fields. The /openapi handlers merge them in (v2: into the one document;
// v3: as the document of each CRD group-version).

// customOpenAPIV2 returns the v2 specs of every established CRD, one per
// CRD with all its served versions merged, defaults pruned as the openapi
// controller prunes them before merging with the static spec (merge them
// with builder.MergeSpecs).
func (s *Server) customOpenAPIV2() ([]*spec.Swagger, error) {
	var out []*spec.Swagger
	for _, crd := range s.establishedCRDs() {
		merged := &spec.Swagger{}
		for _, v := range crd.Spec.Versions {
			if !v.Served {
				continue
			}
			sw, err := builder.BuildOpenAPIV2(crd, v.Name, builder.Options{V2: true, IncludeSelectableFields: true})
			if err != nil {
				return nil, fmt.Errorf("fakeapiserver: OpenAPI v2 of %s %s: %w", crd.Name, v.Name, err)
			}
			sw.Definitions = handler.PruneDefaults(sw.Definitions)
			if merged, err = builder.MergeSpecs(merged, sw); err != nil {
				return nil, fmt.Errorf("fakeapiserver: merge OpenAPI v2 of %s: %w", crd.Name, err)
			}
		}
		out = append(out, merged)
	}
	return out, nil
}

// customOpenAPIV3 returns the v3 document of a CRD group-version: the
// specs of every established CRD serving it, merged; ok is false when no
// CRD serves gv.
func (s *Server) customOpenAPIV3(gv schema.GroupVersion) (doc *spec3.OpenAPI, ok bool, err error) {
	var specs []*spec3.OpenAPI
	for _, crd := range s.establishedCRDs() {
		if crd.Spec.Group != gv.Group || !apihelpers.HasServedCRDVersion(crd, gv.Version) {
			continue
		}
		v3, err := builder.BuildOpenAPIV3(crd, gv.Version, builder.Options{IncludeSelectableFields: true})
		if err != nil {
			return nil, false, fmt.Errorf("fakeapiserver: OpenAPI v3 of %s %s: %w", crd.Name, gv.Version, err)
		}
		specs = append(specs, v3)
	}
	if len(specs) == 0 {
		return nil, false, nil
	}
	doc, err = builder.MergeSpecsV3(specs...)
	if err != nil {
		return nil, false, fmt.Errorf("fakeapiserver: merge OpenAPI v3 of %s: %w", gv, err)
	}
	return doc, true, nil
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
