package fakeapiserver

import (
	"fmt"
	"slices"

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
// fields. syncCRDOpenAPI publishes them through the OpenAPI service's
// runtime hook (v2: into the one document; v3: as the document of each CRD
// group-version) whenever a CRD's served versions change.

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

// syncCRDOpenAPI publishes (or withdraws) the OpenAPI documents of the
// given CRD group-versions after a CRD changed: each gets the merged v3
// document of the CRDs serving it and its v2 paths and definitions; one no
// CRD serves any more is withdrawn. Configured group-versions are never
// touched.
//
// The v3 document is built now (discovery and /openapi/v3 list it at
// once), the v2 part only when /openapi/v2 is first served with it: it
// needs the parsed captured /openapi/v2 (seconds under -race, paid once
// per process) and few tests ever ask for v2. The part is built from the
// CRDs of this moment (stored objects are immutable), so what a v2
// document generation serves does not depend on when it is first asked.
func (s *Server) syncCRDOpenAPI(gvs []schema.GroupVersion) {
	if s.openapi == nil {
		return
	}
	for _, gv := range gvs {
		if slices.Contains(s.cfg.GroupVersions, gv) {
			continue
		}
		doc, ok, err := s.customOpenAPIV3(gv)
		if err != nil || !ok {
			s.openapi.removeGroupVersion(gv)
			continue
		}
		crds := s.establishedCRDs()
		s.openapi.addGroupVersion(gv, doc, func() (*openAPIV2Part, error) {
			return customOpenAPIV2Part(crds, gv), nil
		})
	}
}

// customOpenAPIV2Part is the /openapi/v2 contribution of a CRD
// group-version, built from the established crds: its paths and its kinds'
// definitions, plus the shared definitions the server's base document
// lacks (the base's own, with every group's kinds in their
// x-kubernetes-group-version-kind, win, as builder.MergeSpecs keeps the
// static spec's). It is nil when no crd serves gv or one cannot be built.
func customOpenAPIV2Part(crds []*apiextensionsv1.CustomResourceDefinition, gv schema.GroupVersion) *openAPIV2Part {
	merged := &spec.Swagger{}
	for _, crd := range crds {
		if crd.Spec.Group != gv.Group || !apihelpers.HasServedCRDVersion(crd, gv.Version) {
			continue
		}
		sw, err := builder.BuildOpenAPIV2(crd, gv.Version, builder.Options{V2: true, IncludeSelectableFields: true})
		if err != nil {
			return nil
		}
		sw.Definitions = handler.PruneDefaults(sw.Definitions)
		if merged, err = builder.MergeSpecs(merged, sw); err != nil {
			return nil
		}
	}
	if merged.Paths == nil {
		return nil
	}
	var base spec.Definitions
	if c, err := capturedOpenAPIV2(); err == nil && c.base != nil {
		base = c.base.Definitions
	}
	part := &openAPIV2Part{Paths: merged.Paths.Paths, Definitions: spec.Definitions{}}
	for name, def := range merged.Definitions {
		if _, shared := base[name]; !shared {
			part.Definitions[name] = def
		}
	}
	return part
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
