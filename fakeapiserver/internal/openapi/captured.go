package openapi

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/kube-openapi/pkg/validation/spec"

	"github.com/lw-sim/lw-sim/fakeapiserver/internal/captured"
)

// V2Part is what one group-version contributes to /openapi/v2: its
// paths and the definitions they refer to (transitively).
type V2Part struct {
	Paths       map[string]spec.PathItem
	Definitions spec.Definitions
}

// capturedV2 is kube-apiserver's /openapi/v2 split by what serves it.
type capturedV2 struct {
	// base is the document without any group's paths or definitions: info,
	// security, the shared parameters, the server-wide paths this server
	// serves (/api/, /apis/, /version/) and the definitions they need.
	base *spec.Swagger
	// groupPaths are the /apis/<group>/ paths, served with any version of
	// the group.
	groupPaths map[string]map[string]spec.PathItem
	// parts are the group-versions' paths and definitions.
	parts map[schema.GroupVersion]*V2Part
	// definitions are all of the document's definitions: where a CRD's
	// document names one too, this one is served (see
	// customResourceV2Part).
	definitions spec.Definitions
}

// capturedOpenAPIV2 parses the captured /openapi/v2 once per process (it
// is immutable data from the binary; parsing its 2.3 MB for each server
// would slow every test that starts one). Servers only read it.
var capturedOpenAPIV2 = sync.OnceValues(loadCapturedOpenAPIV2)

// capturedOpenAPIV3 maps each captured /openapi/v3 path ("api/v1",
// "apis/apps") to its document, exactly the bytes kube-apiserver served (so
// hashes and ETags agree with it), decompressed on first use, once per
// process.
var capturedOpenAPIV3 = sync.OnceValues(func() (map[string]*v3Doc, error) {
	paths, err := captured.OpenAPIV3Paths()
	if err != nil {
		return nil, err
	}
	docs := make(map[string]*v3Doc, len(paths))
	for _, p := range paths {
		docs[p] = newV3Doc(func() ([]byte, error) { return captured.OpenAPIV3(p) })
	}
	return docs, nil
})

// servedServerWidePaths are the server-wide OpenAPI paths whose endpoints
// the server serves (fakeapiserver health.go); kube-apiserver's others
// (/.well-known/openid-configuration/, /openid/v1/jwks/) are left out.
var servedServerWidePaths = map[string]bool{"/api/": true, "/apis/": true, "/version/": true}

// loadCapturedOpenAPIV2 splits the captured /openapi/v2 by path prefix and
// gives each group-version the definitions its paths reach.
func loadCapturedOpenAPIV2() (*capturedV2, error) {
	raw, err := captured.OpenAPIV2()
	if err != nil {
		return nil, err
	}
	full := &spec.Swagger{}
	if err := json.Unmarshal(raw, full); err != nil {
		return nil, fmt.Errorf("openapi: captured OpenAPI v2: %w", err)
	}
	c := &capturedV2{groupPaths: map[string]map[string]spec.PathItem{}, parts: map[schema.GroupVersion]*V2Part{}, definitions: full.Definitions}
	base := *full
	base.Paths = &spec.Paths{Paths: map[string]spec.PathItem{}}
	basePaths := map[string]spec.PathItem{}
	for p, item := range full.Paths.Paths {
		gv, group, ok := openAPIV2PathOwner(p)
		switch {
		case ok && group != "":
			if c.groupPaths[group] == nil {
				c.groupPaths[group] = map[string]spec.PathItem{}
			}
			c.groupPaths[group][p] = item
		case ok:
			part := c.parts[gv]
			if part == nil {
				part = &V2Part{Paths: map[string]spec.PathItem{}}
				c.parts[gv] = part
			}
			part.Paths[p] = item
		case servedServerWidePaths[p]:
			basePaths[p] = item
		}
	}
	for _, part := range c.parts {
		part.Definitions = reachableDefinitions(full.Definitions, part.Paths)
	}
	base.Paths.Paths = basePaths
	base.Definitions = reachableDefinitions(full.Definitions, basePaths)
	// kube-openapi's builder always adds the Patch definition, which no
	// path refers to by $ref.
	const patch = "io.k8s.apimachinery.pkg.apis.meta.v1.Patch"
	base.Definitions[patch] = full.Definitions[patch]
	c.base = &base
	return c, nil
}

// openAPIV2PathOwner tells who serves a v2 path: a group-version
// (/api/v1/..., /apis/<g>/<v>/...), a group (/apis/<g>/, group set), or
// neither (ok false).
func openAPIV2PathOwner(p string) (gv schema.GroupVersion, group string, ok bool) {
	parts := strings.Split(strings.Trim(p, "/"), "/")
	switch {
	case len(parts) >= 2 && parts[0] == "api":
		return schema.GroupVersion{Version: parts[1]}, "", true
	case len(parts) >= 3 && parts[0] == "apis":
		return schema.GroupVersion{Group: parts[1], Version: parts[2]}, "", true
	case len(parts) == 2 && parts[0] == "apis":
		return schema.GroupVersion{}, parts[1], true
	}
	return schema.GroupVersion{}, "", false
}

// reachableDefinitions returns the definitions that root (paths, or
// definitions) refers to, directly or through other definitions.
func reachableDefinitions(all spec.Definitions, root any) spec.Definitions {
	out := spec.Definitions{}
	var queue []string
	visit := func(v any) {
		for _, name := range definitionRefs(v) {
			if _, seen := out[name]; !seen {
				if def, ok := all[name]; ok {
					out[name] = def
					queue = append(queue, name)
				}
			}
		}
	}
	visit(root)
	for len(queue) > 0 {
		name := queue[0]
		queue = queue[1:]
		visit(all[name])
	}
	return out
}

// definitionRefs lists the definitions a path item or schema refers to,
// found in its JSON form (every $ref, however deeply nested).
func definitionRefs(v any) []string {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	var generic any
	if err := json.Unmarshal(raw, &generic); err != nil {
		return nil
	}
	var out []string
	var walk func(any)
	walk = func(x any) {
		switch t := x.(type) {
		case map[string]any:
			for k, v := range t {
				if ref, ok := v.(string); ok && k == "$ref" {
					if name, ok := strings.CutPrefix(ref, "#/definitions/"); ok {
						out = append(out, name)
					}
					continue
				}
				walk(v)
			}
		case []any:
			for _, v := range t {
				walk(v)
			}
		}
	}
	walk(generic)
	return out
}
