package fakeapiserver

import (
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/lw-sim/lw-sim/fakeapiserver/internal/tables"
)

// The accessors through which the kubectl-facing packages (internal/tables,
// internal/discovery, internal/openapi) see a served resource: each
// package declares the narrow interface it consumes, and resourceInfo
// satisfies them all. Method names avoid the fields of the embedded
// [Resource] (Kind, ShortNames, ...), which a method would shadow.

var _ tables.Resource = (*resourceInfo)(nil)

// GroupVersionKind is the served kind.
func (r *resourceInfo) GroupVersionKind() schema.GroupVersionKind { return r.Kind }

// GroupResource is the group-qualified resource ("pods", "deployments.apps").
func (r *resourceInfo) GroupResource() schema.GroupResource { return r.qualified() }

// TableConvertor is a custom resource's printer-column convertor; nil for
// the built-in printers.
func (r *resourceInfo) TableConvertor() tables.Convertor {
	if r.custom == nil {
		return nil
	}
	return r.custom.table
}
