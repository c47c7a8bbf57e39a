package openapi

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"k8s.io/kube-openapi/pkg/spec3"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

// v2RefPrefix is where a v2 document's definitions are referred to.
const v2RefPrefix = "#/definitions/"

// generatedV2Part is the /openapi/v2 part of a group-version whose v3
// document [Generate] built, derived from that document (the two are one
// source, as kube-apiserver builds both from the same definitions): its
// schemas as definitions and its paths as v2 operations (query and path
// parameters, the body parameter, responses by status code). Definitions
// the captured base document has are left to it, and one the captured
// document has (the meta types, ObjectMeta, DeleteOptions, ...) is the
// captured one, with the definitions it refers to, as for CRDs
// (customResourceV2Part): every part that names a shared definition then
// names the same one, so the composed document does not depend on the
// order parts are merged in (it did: the generated placeholder or a
// captured part's full definition won by chance).
func generatedV2Part(doc *spec3.OpenAPI) func() (*V2Part, error) {
	return func() (*V2Part, error) {
		c, err := capturedOpenAPIV2()
		if err != nil {
			return nil, err
		}
		part := &V2Part{Paths: map[string]spec.PathItem{}, Definitions: spec.Definitions{}}
		static := spec.Definitions{}
		for name, s := range doc.Components.Schemas {
			if _, inBase := c.base.Definitions[name]; inBase {
				continue
			}
			if def, ok := c.definitions[name]; ok {
				static[name] = def
				continue
			}
			def, err := v2Schema(s)
			if err != nil {
				return nil, fmt.Errorf("openapi: v2 definition %s: %w", name, err)
			}
			part.Definitions[name] = *def
		}
		maps.Copy(static, reachableDefinitions(c.definitions, static))
		for name, def := range static {
			if _, inBase := c.base.Definitions[name]; !inBase {
				part.Definitions[name] = def
			}
		}
		for p, item := range doc.Paths.Paths {
			v2, err := v2PathItem(item)
			if err != nil {
				return nil, fmt.Errorf("openapi: v2 path %s: %w", p, err)
			}
			part.Paths[p] = v2
		}
		return part, nil
	}
}

// v2Schema is s with every reference to a v3 schema pointed at the v2
// definition of the same name (a deep copy through JSON), and without the
// properties of an object that keeps unknown fields.
func v2Schema(s *spec.Schema) (*spec.Schema, error) {
	raw, err := json.Marshal(s)
	if err != nil {
		return nil, err
	}
	raw = []byte(strings.ReplaceAll(string(raw), `"`+schemaRefPrefix, `"`+v2RefPrefix))
	out := &spec.Schema{}
	if err := json.Unmarshal(raw, out); err != nil {
		return nil, err
	}
	dropOpenProperties(out)
	return out, nil
}

// dropOpenProperties removes the properties and the object type of every
// schema in s that keeps unknown fields, as apiextensions-apiserver's v2
// conversion (controller/openapi/v2 ToStructuralOpenAPIV2) does for CRD
// schemas: v2 has no such extension, and kubectl's v2 validation takes an
// object with properties for a closed one and refuses any other field.
func dropOpenProperties(s *spec.Schema) {
	if open, _ := s.Extensions[extPreserveUnknownFields].(bool); open {
		s.Properties, s.Items = nil, nil
		if s.Type.Contains("object") {
			s.Type = nil
		}
	}
	for name, p := range s.Properties {
		dropOpenProperties(&p)
		s.Properties[name] = p
	}
	if s.Items != nil && s.Items.Schema != nil {
		dropOpenProperties(s.Items.Schema)
	}
}

// v2PathItem converts one generated path with its operations.
func v2PathItem(p *spec3.Path) (spec.PathItem, error) {
	var item spec.PathItem
	params, err := v2Parameters(p.Parameters, nil)
	if err != nil {
		return item, err
	}
	item.Parameters = params
	for _, slot := range []struct {
		from *spec3.Operation
		to   **spec.Operation
	}{{p.Get, &item.Get}, {p.Put, &item.Put}, {p.Post, &item.Post}, {p.Delete, &item.Delete}, {p.Patch, &item.Patch}} {
		if slot.from == nil {
			continue
		}
		if *slot.to, err = v2Operation(slot.from); err != nil {
			return item, err
		}
	}
	return item, nil
}

// v2Operation converts one operation: its parameters (the request body
// becomes the "body" parameter), the media types it consumes and
// produces, and its responses.
func v2Operation(op *spec3.Operation) (*spec.Operation, error) {
	out := &spec.Operation{
		OperationProps:   spec.OperationProps{Description: op.Description, ID: op.OperationId, Tags: op.Tags, Schemes: []string{"https"}},
		VendorExtensible: spec.VendorExtensible{Extensions: maps.Clone(op.Extensions)},
	}
	params, err := v2Parameters(op.Parameters, op.RequestBody)
	if err != nil {
		return nil, err
	}
	out.Parameters = params
	if op.RequestBody != nil {
		out.Consumes = slices.Sorted(maps.Keys(op.RequestBody.Content))
	}
	if op.Responses == nil {
		return out, nil
	}
	out.Responses = &spec.Responses{ResponsesProps: spec.ResponsesProps{StatusCodeResponses: map[int]spec.Response{}}}
	produces := map[string]bool{}
	for code, r := range op.Responses.StatusCodeResponses {
		resp := spec.Response{ResponseProps: spec.ResponseProps{Description: r.Description}}
		for mt, m := range r.Content {
			produces[mt] = true
			if m.Schema != nil && resp.Schema == nil {
				if resp.Schema, err = v2Schema(m.Schema); err != nil {
					return nil, err
				}
			}
		}
		out.Responses.StatusCodeResponses[code] = resp
	}
	out.Produces = slices.Sorted(maps.Keys(produces))
	return out, nil
}

// v2Parameters converts v3 parameters, whose schemas are simple types in a
// generated document, and a request body into v2 ones.
func v2Parameters(ps []*spec3.Parameter, body *spec3.RequestBody) ([]spec.Parameter, error) {
	var out []spec.Parameter
	if body != nil {
		for _, mt := range slices.Sorted(maps.Keys(body.Content)) {
			s, err := v2Schema(body.Content[mt].Schema)
			if err != nil {
				return nil, err
			}
			out = append(out, spec.Parameter{ParamProps: spec.ParamProps{Name: "body", In: "body", Required: body.Required, Schema: s}})
			break // v2 has one body parameter; every media type names the same schema
		}
	}
	for _, p := range ps {
		v2 := spec.Parameter{ParamProps: spec.ParamProps{Name: p.Name, In: p.In, Description: p.Description, Required: p.Required}}
		if p.Schema != nil && len(p.Schema.Type) > 0 {
			v2.Type = p.Schema.Type[0]
			v2.UniqueItems = p.Schema.UniqueItems
		}
		out = append(out, v2)
	}
	return out, nil
}
