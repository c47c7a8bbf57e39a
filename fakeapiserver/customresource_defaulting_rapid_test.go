package fakeapiserver

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	"k8s.io/apimachinery/pkg/runtime"
	"pgregory.net/rapid"
)

// TestDefaultingSchemaDefaultsAsFullSchema is the property behind
// defaulting by a trimmed schema (customresource_defaulting.go): for any
// structural schema (objects with properties, additional properties or
// both, arrays, defaults at any node, nullable or not) and any value
// (shaped by the schema or not, nulls included), structuraldefaulting.Default
// by defaultingSchema(s) leaves the value exactly as Default by s does,
// and defaultingSchema(s) is nil only when s has no default.
func TestDefaultingSchemaDefaultsAsFullSchema(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		s := drawStructural(rt, 4)
		x := drawValue(rt, s, 4)
		want := runtime.DeepCopyJSONValue(x)
		got := runtime.DeepCopyJSONValue(x)
		structuraldefaulting.Default(want, s)
		trimmed := defaultingSchema(s)
		structuraldefaulting.Default(got, trimmed)
		if diff := cmp.Diff(want, got); diff != "" {
			rt.Fatalf("Default by the defaulting schema differs from Default by the full schema (-full +trimmed):\n%s", diff)
		}
		if trimmed == nil && hasDefault(s) {
			rt.Fatalf("defaulting schema nil for a schema with a default")
		}
	})
}

// drawStructural draws a structural schema at most depth levels deep.
func drawStructural(rt *rapid.T, depth int) *structuralschema.Structural {
	s := &structuralschema.Structural{}
	s.Nullable = rapid.Bool().Draw(rt, "nullable")
	kind := "string"
	if depth > 0 {
		kind = rapid.SampledFrom([]string{"string", "object", "array"}).Draw(rt, "type")
	}
	s.Type = kind
	switch kind {
	case "object":
		for i := range rapid.IntRange(0, 4).Draw(rt, "properties") {
			if s.Properties == nil {
				s.Properties = map[string]structuralschema.Structural{}
			}
			s.Properties[fmt.Sprintf("p%d", i)] = *drawStructural(rt, depth-1)
		}
		if rapid.IntRange(0, 2).Draw(rt, "additional") == 0 {
			s.AdditionalProperties = &structuralschema.StructuralOrBool{Structural: drawStructural(rt, depth-1)}
		}
	case "array":
		s.Items = drawStructural(rt, depth-1)
	}
	if rapid.IntRange(0, 3).Draw(rt, "hasDefault") == 0 {
		s.Default.Object = drawValue(rt, s, 1)
	}
	return s
}

// drawValue draws a JSON value for s (nil s: any), now and then of
// another shape or null.
func drawValue(rt *rapid.T, s *structuralschema.Structural, depth int) any {
	switch rapid.IntRange(0, 9).Draw(rt, "shape") {
	case 0:
		return nil
	case 1:
		return "s"
	}
	if s == nil || depth <= 0 {
		return rapid.SampledFrom([]any{"v", int64(1), true, nil}).Draw(rt, "scalar")
	}
	switch s.Type {
	case "object":
		m := map[string]any{}
		for name, prop := range s.Properties {
			if rapid.Bool().Draw(rt, "set") {
				m[name] = drawValue(rt, &prop, depth-1)
			}
		}
		for i := range rapid.IntRange(0, 2).Draw(rt, "extra") {
			var ap *structuralschema.Structural
			if s.AdditionalProperties != nil {
				ap = s.AdditionalProperties.Structural
			}
			m[fmt.Sprintf("x%d", i)] = drawValue(rt, ap, depth-1)
		}
		return m
	case "array":
		var a []any
		for range rapid.IntRange(0, 3).Draw(rt, "items") {
			a = append(a, drawValue(rt, s.Items, depth-1))
		}
		return a
	}
	return "v"
}

// hasDefault reports whether any node of s has a default.
func hasDefault(s *structuralschema.Structural) bool {
	if s == nil {
		return false
	}
	if s.Default.Object != nil || hasDefault(s.Items) {
		return true
	}
	if s.AdditionalProperties != nil && hasDefault(s.AdditionalProperties.Structural) {
		return true
	}
	for _, p := range s.Properties {
		if hasDefault(&p) {
			return true
		}
	}
	return false
}
