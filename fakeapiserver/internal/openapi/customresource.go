package openapi

import (
	"encoding/json"
	"fmt"
	"sync"

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
// fields. SyncCustomResources publishes them (v2: into the one document;
// v3: as the document of each CRD group-version) whenever a CRD's served
// versions change.

// SyncCustomResources publishes (or withdraws) the documents of the given
// CRD group-versions after a CRD changed, from the established crds: each
// gets the merged v3 document of the CRDs serving it and its v2 paths and
// definitions; one no CRD serves any more is withdrawn. The caller leaves
// out the group-versions it configured, which CRDs never replace.
//
// Both documents are built when first asked for, from crds (stored
// objects are immutable), so what a generation serves does not depend on
// when it is asked: as the real server's openapiv3 controller builds a
// CRD's v3 spec after the CRD is written, not in the write, and building
// it walks the whole schema. The v2 part also needs the parsed captured
// /openapi/v2 (seconds under -race, paid once per process) and few tests
// ever ask for v2. A v3 document that cannot be built (never for a CRD v1
// validation accepted) is not listed and not served, as if withdrawn, as
// the controller publishes no spec it cannot build. The v3 specs of the
// CRDs' versions come from specs (see [CRDSpecs]; nil builds them).
func (o *Service) SyncCustomResources(crds []*apiextensionsv1.CustomResourceDefinition, gvs []schema.GroupVersion, specs *CRDSpecs) {
	for _, gv := range gvs {
		if !servesGroupVersion(crds, gv) {
			o.RemoveGroupVersion(gv)
			continue
		}
		v3 := newV3Doc(func() ([]byte, error) {
			doc, _, err := CustomResourceV3(crds, gv, specs) // ok: crds serve gv
			if err != nil {
				return nil, fmt.Errorf("%w: %w", errUnbuilt, err)
			}
			return json.Marshal(doc)
		})
		o.publish(gv, v3, v2Part{load: sync.OnceValues(func() (*V2Part, error) {
			return customResourceV2Part(crds, gv), nil
		})})
	}
}

// servesGroupVersion reports whether one of crds serves gv.
func servesGroupVersion(crds []*apiextensionsv1.CustomResourceDefinition, gv schema.GroupVersion) bool {
	for _, crd := range crds {
		if crd.Spec.Group == gv.Group && apihelpers.HasServedCRDVersion(crd, gv.Version) {
			return true
		}
	}
	return false
}

// CustomResourceV3 returns the /openapi/v3 document of a CRD group-version:
// the specs of every crd serving it, merged as builder.MergeSpecsV3 merges
// them; ok is false when no crd serves gv. Each CRD's spec comes from
// built (see [CRDSpecs]; nil builds them).
func CustomResourceV3(crds []*apiextensionsv1.CustomResourceDefinition, gv schema.GroupVersion, built *CRDSpecs) (doc *spec3.OpenAPI, ok bool, err error) {
	var specs []*spec3.OpenAPI
	for _, crd := range crds {
		if crd.Spec.Group != gv.Group || !apihelpers.HasServedCRDVersion(crd, gv.Version) {
			continue
		}
		v3, err := built.V3(crd, gv.Version)
		if err != nil {
			return nil, false, fmt.Errorf("openapi: v3 of %s %s: %w", crd.Name, gv.Version, err)
		}
		specs = append(specs, v3)
	}
	if len(specs) == 0 {
		return nil, false, nil
	}
	doc, err = builder.MergeSpecsV3(specs...)
	if err != nil {
		return nil, false, fmt.Errorf("openapi: merge v3 of %s: %w", gv, err)
	}
	return doc, true, nil
}

// customResourceV2Part is the /openapi/v2 contribution of a CRD
// group-version, built from crds: its paths and its kinds' definitions
// (defaults pruned, as the openapi controller prunes them). A definition
// the captured document has too (DeleteOptions, ObjectMeta, ...) is the
// captured one, as builder.MergeSpecs keeps the static spec's on a
// conflict; those of the server's base document are left out, as the base
// carries them. The part is nil when no crd serves gv or one cannot be
// built.
//
// Every part that names a shared definition thus names the same one, so
// the composed document does not depend on the order parts are merged in
// (it did: the builder's DeleteOptions lists fewer group-version-kinds).
func customResourceV2Part(crds []*apiextensionsv1.CustomResourceDefinition, gv schema.GroupVersion) *V2Part {
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
	c, err := capturedOpenAPIV2()
	if err != nil {
		return nil
	}
	part := &V2Part{Paths: merged.Paths.Paths, Definitions: spec.Definitions{}}
	for name, def := range merged.Definitions {
		if _, inBase := c.base.Definitions[name]; inBase {
			continue
		}
		if static, ok := c.definitions[name]; ok {
			def = static
		}
		part.Definitions[name] = def
	}
	return part
}
