package openapi

import (
	"sync"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/controller/openapi/builder"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/kube-openapi/pkg/spec3"
)

// CRDSpecs memoises the v3 spec of each version of each CRD, as
// builder.BuildOpenAPIV3 builds it with the options the openapiv3
// controller uses (IncludeSelectableFields). Building one walks the whole
// schema (a CRD with 20 000 properties takes a good part of a second), and
// the server needs it several times per CRD change: for the group-version's
// /openapi/v3 document, whose other CRDs have not changed, and for the
// CRD's managed-fields type converter (which reads the same schemas; the
// selectable-fields extension is not one it reads).
//
// A spec depends only on the CRD's spec, so an entry is keyed by the CRD's
// UID and generation (which its strategy bumps on every spec change); a
// CRD without a UID (not stored) is never memoised. A returned spec is
// shared: callers must not modify it. The zero value is ready; a nil
// *CRDSpecs builds every time. Safe for concurrent use.
type CRDSpecs struct {
	mu    sync.Mutex
	byUID map[types.UID]*crdSpecsOf
}

// crdSpecsOf are the memoised specs of one generation of a CRD.
type crdSpecsOf struct {
	generation int64
	byVersion  map[string]builtSpec
}

// builtSpec is one result of builder.BuildOpenAPIV3.
type builtSpec struct {
	spec *spec3.OpenAPI
	err  error
}

// V3 returns builder.BuildOpenAPIV3(crd, version, {IncludeSelectableFields:
// true}), built once per generation of crd.
func (c *CRDSpecs) V3(crd *apiextensionsv1.CustomResourceDefinition, version string) (*spec3.OpenAPI, error) {
	if c == nil || crd.UID == "" {
		return buildV3(crd, version)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	of, ok := c.byUID[crd.UID]
	if !ok || of.generation != crd.Generation {
		if c.byUID == nil {
			c.byUID = map[types.UID]*crdSpecsOf{}
		}
		of = &crdSpecsOf{generation: crd.Generation, byVersion: map[string]builtSpec{}}
		c.byUID[crd.UID] = of
	}
	b, ok := of.byVersion[version]
	if !ok {
		b.spec, b.err = buildV3(crd, version)
		of.byVersion[version] = b
	}
	return b.spec, b.err
}

// Forget drops the specs of the CRD with uid (deleted).
func (c *CRDSpecs) Forget(uid types.UID) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.byUID, uid)
}

// buildV3 builds the v3 spec of one version of crd.
func buildV3(crd *apiextensionsv1.CustomResourceDefinition, version string) (*spec3.OpenAPI, error) {
	return builder.BuildOpenAPIV3(crd, version, builder.Options{IncludeSelectableFields: true})
}
