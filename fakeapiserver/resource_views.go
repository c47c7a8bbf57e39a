package fakeapiserver

import (
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/kube-openapi/pkg/spec3"

	"github.com/lw-sim/lw-sim/fakeapiserver/internal/openapi"
	"github.com/lw-sim/lw-sim/fakeapiserver/internal/tables"
)

// How the kubectl-facing packages (internal/tables, internal/discovery,
// internal/openapi) see the served resources: each package declares the
// narrow interface it consumes, and resourceInfo satisfies them all.
// Method names avoid the fields of the embedded [Resource] (Kind,
// ShortNames, ...), which a method would shadow.

var (
	_ tables.Resource  = (*resourceInfo)(nil)
	_ openapi.Resource = (*resourceInfo)(nil)
)

// GroupVersionResource is where the resource is served.
func (r *resourceInfo) GroupVersionResource() schema.GroupVersionResource { return r.gvr }

// GroupVersionKind is the served kind.
func (r *resourceInfo) GroupVersionKind() schema.GroupVersionKind { return r.Kind }

// ListGroupVersionKind is the served list kind.
func (r *resourceInfo) ListGroupVersionKind() schema.GroupVersionKind { return r.listKind }

// GroupResource is the group-qualified resource ("pods", "deployments.apps").
func (r *resourceInfo) GroupResource() schema.GroupResource { return r.qualified() }

// Namespaced reports whether the resource lives in namespaces.
func (r *resourceInfo) Namespaced() bool { return !r.ClusterScoped }

// HasStatus reports whether the resource has a status subresource.
func (r *resourceInfo) HasStatus() bool { return r.hasStatus }

// DeleteReturnsObject reports whether DELETE answers with the deleted object.
func (r *resourceInfo) DeleteReturnsObject() bool { return r.ReturnsDeletedObject }

// NewObject returns an empty object of the kind.
func (r *resourceInfo) NewObject() runtime.Object { return r.newObject() }

// NewList returns an empty object of the list kind.
func (r *resourceInfo) NewList() runtime.Object { return r.newList() }

// TableConvertor is a custom resource's printer-column convertor; nil for
// the built-in printers.
func (r *resourceInfo) TableConvertor() tables.Convertor { return r.readStrategy().tableConvertor(r) }

// generateOpenAPI is the generated /openapi/v3 document of gv (one
// kube-apiserver has none for): its stored resources; a create-only one
// (a review) has no schema of its own there.
func (t *resourceTable) generateOpenAPI(gv schema.GroupVersion) *spec3.OpenAPI {
	var stored []openapi.Resource
	for _, res := range t.resourcesOf(gv) {
		if res.newList != nil {
			stored = append(stored, res)
		}
	}
	return openapi.Generate(gv, stored)
}
