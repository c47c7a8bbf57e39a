package fakeapiserver

import (
	"fmt"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"

	"k8s.io/apimachinery/pkg/runtime"
)

// createShapeMemoMax bounds the shapes a resource's create shortcut
// remembers; past it, creates of new shapes compute their fields each time.
const createShapeMemoMax = 4096

// shapeMemo remembers, per object shape, the fields a create of an object
// of that shape records (or that the shortcut declines it).
//
// The fields a create records are a function of the object's typed value,
// Compare'd with the empty object. They depend on a scalar's value only
// through its equality with the empty object's value at the same path
// (Modified), on list contents (keys of associative lists, set members,
// atomic lists) and on map keys (field names, label keys). So two objects
// with the same shape record the same fields, where the shape is the
// object's JSON tree with every non-zero scalar outside a list, at a path
// where the empty object has no non-zero scalar, replaced by a marker of
// its JSON type. Zero scalars, everything inside lists, all map keys, and
// the values where the empty object has a non-zero scalar (apiVersion,
// kind) stay literal. A name, a label's value or a node name is a marker:
// creates of a thousand pods that differ only there compute their fields
// once. The rapid property in managedfields_create_test.go holds the
// memoized shortcut against the field manager.
type shapeMemo struct {
	// empty is the empty object's JSON tree (runtime.DefaultUnstructuredConverter).
	empty map[string]any
	m     sync.Map // shape string → shapeFields
	n     atomic.Int64
}

// shapeFields is a remembered outcome: the FieldsV1 bytes, or declined.
type shapeFields struct {
	raw []byte
	ok  bool
}

// newShapeMemo prepares the memo for a resource whose empty object, as the
// field manager sees a create's live object, is live.
func newShapeMemo(live runtime.Object) (*shapeMemo, error) {
	empty, err := runtime.DefaultUnstructuredConverter.ToUnstructured(live)
	if err != nil {
		return nil, fmt.Errorf("empty object: %w", err)
	}
	return &shapeMemo{empty: empty}, nil
}

// shapeOf is obj's shape, false if obj has no JSON tree.
func (m *shapeMemo) shapeOf(obj runtime.Object) (string, bool) {
	var tree map[string]any
	if u, ok := obj.(runtime.Unstructured); ok {
		tree = u.UnstructuredContent()
	} else {
		var err error
		if tree, err = runtime.DefaultUnstructuredConverter.ToUnstructured(obj); err != nil {
			return "", false
		}
	}
	return string(appendShape(make([]byte, 0, 512), tree, m.empty, false)), true
}

// get returns the remembered outcome for shape.
func (m *shapeMemo) get(shape string) (shapeFields, bool) {
	v, ok := m.m.Load(shape)
	if !ok {
		return shapeFields{}, false
	}
	return v.(shapeFields), true
}

// put remembers the outcome for shape, while there is room.
func (m *shapeMemo) put(shape string, f shapeFields) {
	if m.n.Load() >= createShapeMemoMax {
		return
	}
	if _, loaded := m.m.LoadOrStore(shape, f); !loaded {
		m.n.Add(1)
	}
}

// appendShape appends the shape of the JSON value v to b. empty is the
// empty object's value at the same path (nil where it has none); inList
// is set inside a list, where every value stays literal.
func appendShape(b []byte, v, empty any, inList bool) []byte {
	switch v := v.(type) {
	case map[string]any:
		emptyMap, _ := empty.(map[string]any)
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		b = append(b, '{')
		for _, k := range keys {
			b = strconv.AppendQuote(b, k)
			b = append(b, ':')
			b = appendShape(b, v[k], emptyMap[k], inList)
			b = append(b, ',')
		}
		return append(b, '}')
	case []any:
		b = append(b, '[')
		for _, e := range v {
			b = appendShape(b, e, nil, true)
			b = append(b, ',')
		}
		return append(b, ']')
	}
	literal := inList || isZeroScalar(v) || (empty != nil && !isZeroScalar(empty))
	return appendScalar(b, v, literal)
}

// isZeroScalar reports whether v is null, "", 0 or false.
func isZeroScalar(v any) bool {
	switch v := v.(type) {
	case nil:
		return true
	case string:
		return v == ""
	case bool:
		return !v
	case int64:
		return v == 0
	case float64:
		return v == 0
	}
	return false
}

// appendScalar appends a scalar, tagged with its JSON type: its value when
// literal, else the tag alone.
func appendScalar(b []byte, v any, literal bool) []byte {
	switch v := v.(type) {
	case nil:
		return append(b, 'n')
	case string:
		if !literal {
			return append(b, 'S')
		}
		return strconv.AppendQuote(append(b, 's'), v)
	case bool:
		if !literal {
			return append(b, 'B')
		}
		return strconv.AppendBool(append(b, 'b'), v)
	case int64:
		if !literal {
			return append(b, 'I')
		}
		return strconv.AppendInt(append(b, 'i'), v, 10)
	case float64:
		if !literal {
			return append(b, 'F')
		}
		return strconv.AppendFloat(append(b, 'f'), v, 'g', -1, 64)
	}
	// Not a JSON value: keep it apart from every other shape.
	return fmt.Appendf(b, "?%T%#v", v, v)
}
