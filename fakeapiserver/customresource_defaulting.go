package fakeapiserver

import (
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
)

// apiextensions-apiserver's structural defaulting (schema/defaulting
// algorithm.go Default) walks every property of the schema at every object
// node it visits, looking for defaults: for a CRD whose spec has 2 000
// properties and no default, that is 2 000 map entries (each a Structural
// copied by value) per object read, the whole cost of building a custom
// object's read view (customresource_view.go) and of the first LIST of a
// CRD's objects (issue 25: 40 µs an object; the real server pays it once,
// when its watch cache decodes each object from etcd). Default only ever
// writes a default (or a nil over a nil), so the schema trimmed to the
// nodes with a default at or below them defaults every object exactly as
// the full schema does; it is built with the CRD's serving info (on
// first use, once per CRD generation: crServing, crd.go infosLocked), and is nil
// when the schema has no default at all, which makes Default a no-op.

// defaultingSchemas maps each version of structural to its defaulting
// schema ([defaultingSchema]).
func defaultingSchemas(structural map[string]*structuralschema.Structural) map[string]*structuralschema.Structural {
	out := make(map[string]*structuralschema.Structural, len(structural))
	for v, s := range structural {
		out[v] = defaultingSchema(s)
	}
	return out
}

// defaultingSchema is s trimmed to what structuraldefaulting.Default
// reads on the way to a default: nil if no node of s has one; otherwise a
// node with s's Generic (its default and nullability), the properties,
// items and additional properties that have a default at or below them,
// trimmed likewise. A node that keeps its additional properties keeps
// every property name (those without a default as empty schemas), so that
// no property's value is defaulted as an additional property's.
func defaultingSchema(s *structuralschema.Structural) *structuralschema.Structural {
	if s == nil {
		return nil
	}
	out := &structuralschema.Structural{Generic: s.Generic}
	found := s.Default.Object != nil
	if items := defaultingSchema(s.Items); items != nil {
		out.Items, found = items, true
	}
	if s.AdditionalProperties != nil {
		if ap := defaultingSchema(s.AdditionalProperties.Structural); ap != nil {
			out.AdditionalProperties, found = &structuralschema.StructuralOrBool{Structural: ap}, true
		}
	}
	for name, prop := range s.Properties {
		p := defaultingSchema(&prop)
		if p == nil {
			if out.AdditionalProperties == nil {
				continue
			}
			p = &structuralschema.Structural{}
		} else {
			found = true
		}
		if out.Properties == nil {
			out.Properties = map[string]structuralschema.Structural{}
		}
		out.Properties[name] = *p
	}
	if !found {
		return nil
	}
	return out
}
