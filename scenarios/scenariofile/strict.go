package scenariofile

import (
	"encoding"
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	yamlv3 "go.yaml.in/yaml/v3"
)

// checkFields walks the YAML node tree of b against the JSON fields of
// v's type and returns an error naming path, the line and the field of
// the first key the type does not have. sigs.k8s.io/yaml's strict decoding
// names the field but not the line (it converts to JSON first), so the
// line comes from the node tree.
func checkFields(path string, b []byte, v any) error {
	var root yamlv3.Node
	if err := yamlv3.Unmarshal(b, &root); err != nil {
		return fmt.Errorf("%w: %s: %w", ErrFile, path, err)
	}
	if len(root.Content) == 0 {
		return fmt.Errorf("%w: %s: empty file", ErrFile, path)
	}
	return walkFields(path, root.Content[0], reflect.TypeOf(v), "")
}

var (
	jsonUnmarshaler = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// walkFields checks node against t; where is the path of node ("timeline[2].fault").
func walkFields(path string, node *yamlv3.Node, t reflect.Type, where string) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if reflect.PointerTo(t).Implements(jsonUnmarshaler) || reflect.PointerTo(t).Implements(textUnmarshaler) {
		return nil // a leaf with its own syntax
	}
	if node.Kind == yamlv3.AliasNode {
		node = node.Alias
	}
	switch t.Kind() {
	case reflect.Struct:
		if node.Kind != yamlv3.MappingNode {
			return nil // the decoder reports the type mismatch
		}
		fields := jsonFields(t)
		for i := 0; i+1 < len(node.Content); i += 2 {
			k, val := node.Content[i], node.Content[i+1]
			ft, ok := fields[k.Value]
			if !ok {
				in := ""
				if where != "" {
					in = " in " + where
				}
				return fmt.Errorf("%w: %s:%d: unknown field %q%s%s", ErrFile, path, k.Line, k.Value, in, didYouMean(k.Value, sortedKeys(fields)))
			}
			if err := walkFields(path, val, ft, join(where, k.Value)); err != nil {
				return err
			}
		}
	case reflect.Slice, reflect.Array:
		if node.Kind != yamlv3.SequenceNode {
			return nil
		}
		for i, el := range node.Content {
			if err := walkFields(path, el, t.Elem(), where+"["+strconv.Itoa(i)+"]"); err != nil {
				return err
			}
		}
	case reflect.Map:
		if node.Kind != yamlv3.MappingNode {
			return nil
		}
		for i := 0; i+1 < len(node.Content); i += 2 {
			if err := walkFields(path, node.Content[i+1], t.Elem(), join(where, node.Content[i].Value)); err != nil {
				return err
			}
		}
	}
	return nil
}

func join(where, field string) string {
	if where == "" {
		return field
	}
	return where + "." + field
}

// jsonFields maps the JSON names of t's fields (embedded structs
// flattened) to their types.
func jsonFields(t reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for f := range t.Fields() {
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if f.Anonymous && name == "" {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			for k, v := range jsonFields(ft) {
				out[k] = v
			}
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[name] = f.Type
	}
	return out
}

// fieldLine is the line of the first value at the dotted field path
// (encoding/json's UnmarshalTypeError.Field, which leaves out list
// indices, so every element of a list is searched), or 0.
func fieldLine(b []byte, path []string) int {
	var root yamlv3.Node
	if yamlv3.Unmarshal(b, &root) != nil || len(root.Content) == 0 {
		return 0
	}
	return findLine(root.Content[0], path)
}

func findLine(n *yamlv3.Node, path []string) int {
	if len(path) == 0 {
		return n.Line
	}
	switch n.Kind {
	case yamlv3.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == path[0] {
				if line := findLine(n.Content[i+1], path[1:]); line > 0 {
					return line
				}
			}
		}
	case yamlv3.SequenceNode:
		for _, el := range n.Content {
			if line := findLine(el, path); line > 0 {
				return line
			}
		}
	}
	return 0
}
