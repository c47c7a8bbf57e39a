package fakeapiserver

import (
	"encoding"
	"encoding/json"
	"reflect"
	"slices"
	"strconv"
	"strings"
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
// object's Go value with every non-zero scalar outside a list, at a place
// where the empty object has no non-zero scalar, replaced by a marker of
// its kind. Zero scalars, everything inside lists, all map keys, nil
// against empty, every type that marshals itself (as its JSON), and the
// values where the empty object has a non-zero scalar (apiVersion, kind)
// stay literal. The shape is finer than the JSON tree smd compares (every
// exported field is in it, omitted or not), so equal shapes mean equal
// typed values up to those markers. A name, a label's value or a node
// name is a marker: creates of a thousand pods that differ only there
// compute their fields once. The rapid properties in
// managedfields_create_test.go hold the memoized shortcut against the
// field manager.
type shapeMemo struct {
	// empty is the empty object, a pointer to the resource's Go type.
	empty reflect.Value
	// plans caches how each Go type is walked (typePlan).
	plans sync.Map // reflect.Type → *typePlan
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
func newShapeMemo(live runtime.Object) *shapeMemo {
	return &shapeMemo{empty: reflect.ValueOf(live)}
}

// shapeOf is obj's shape, false for an object that is not of the
// resource's Go type (an unstructured one) or that has a value the shape
// cannot read: its fields are then computed without the memo.
func (m *shapeMemo) shapeOf(obj runtime.Object) (string, bool) {
	v := reflect.ValueOf(obj)
	if v.Type() != m.empty.Type() || v.Kind() != reflect.Pointer || v.IsNil() {
		return "", false
	}
	b, ok := m.appendGo(make([]byte, 0, 512), v.Elem(), m.empty.Elem(), false)
	return string(b), ok
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

// appendGo appends the shape of the Go value v (see shapeMemo): every
// exported struct field in order, nil apart from empty, a type that
// marshals itself as its JSON. empty is the empty object's value at the same place
// (invalid where it has none). It reports false for a value it cannot
// read (an interface, a func, a channel), and the caller computes the
// fields without the memo.
func (m *shapeMemo) appendGo(b []byte, v, empty reflect.Value, inList bool) ([]byte, bool) {
	plan := m.plan(v.Type())
	if plan.marshals {
		return m.appendMarshaled(b, v)
	}
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return append(b, 'n'), true
		}
		if empty.IsValid() && !empty.IsNil() {
			empty = empty.Elem()
		} else {
			empty = reflect.Value{}
		}
		return m.appendGo(append(b, '&'), v.Elem(), empty, inList)
	case reflect.Struct:
		return m.appendStruct(b, v, empty, plan.fields, inList)
	case reflect.Map:
		return m.appendMap(b, v, empty, inList)
	case reflect.Slice, reflect.Array:
		return m.appendList(b, v)
	case reflect.String, reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
		literal := inList || v.IsZero() || (empty.IsValid() && !empty.IsZero())
		return appendGoScalar(b, v, literal), true
	}
	return b, false
}

// appendStruct appends a struct's exported fields in order.
func (m *shapeMemo) appendStruct(b []byte, v, empty reflect.Value, fields []int, inList bool) ([]byte, bool) {
	b = append(b, '{')
	for _, i := range fields {
		var e reflect.Value
		if empty.IsValid() {
			e = empty.Field(i)
		}
		var ok bool
		if b, ok = m.appendGo(b, v.Field(i), e, inList); !ok {
			return b, false
		}
		b = append(b, ',')
	}
	return append(b, '}'), true
}

// appendMap appends a map with string keys, literal and sorted.
func (m *shapeMemo) appendMap(b []byte, v, empty reflect.Value, inList bool) ([]byte, bool) {
	if v.IsNil() {
		return append(b, 'n'), true
	}
	if v.Type().Key().Kind() != reflect.String {
		return b, false
	}
	keys := v.MapKeys()
	slices.SortFunc(keys, func(x, y reflect.Value) int { return strings.Compare(x.String(), y.String()) })
	b = append(b, '{')
	for _, k := range keys {
		b = strconv.AppendQuote(b, k.String())
		b = append(b, ':')
		var e reflect.Value
		if empty.IsValid() && !empty.IsNil() {
			e = empty.MapIndex(k)
		}
		var ok bool
		if b, ok = m.appendGo(b, v.MapIndex(k), e, inList); !ok {
			return b, false
		}
		b = append(b, ',')
	}
	return append(b, '}'), true
}

// appendList appends a slice or array with every value literal; a nil
// slice is apart from an empty one, and bytes are quoted.
func (m *shapeMemo) appendList(b []byte, v reflect.Value) ([]byte, bool) {
	if v.Kind() == reflect.Slice && v.IsNil() {
		return append(b, 'n'), true
	}
	if v.Type().Elem().Kind() == reflect.Uint8 && v.Kind() == reflect.Slice {
		return strconv.AppendQuote(append(b, 'x'), string(v.Bytes())), true
	}
	b = append(b, '[')
	for i := range v.Len() {
		var ok bool
		if b, ok = m.appendGo(b, v.Index(i), reflect.Value{}, true); !ok {
			return b, false
		}
		b = append(b, ',')
	}
	return append(b, ']'), true
}

// appendGoScalar appends a Go scalar tagged with its kind: its value when
// literal, else the tag alone.
func appendGoScalar(b []byte, v reflect.Value, literal bool) []byte {
	switch v.Kind() {
	case reflect.String:
		if !literal {
			return append(b, 'S')
		}
		return strconv.AppendQuote(append(b, 's'), v.String())
	case reflect.Bool:
		if !literal {
			return append(b, 'B')
		}
		return strconv.AppendBool(append(b, 'b'), v.Bool())
	case reflect.Float32, reflect.Float64:
		if !literal {
			return append(b, 'F')
		}
		return strconv.AppendFloat(append(b, 'f'), v.Float(), 'g', -1, 64)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if !literal {
			return append(b, 'U')
		}
		return strconv.AppendUint(append(b, 'u'), v.Uint(), 10)
	}
	if !literal {
		return append(b, 'I')
	}
	return strconv.AppendInt(append(b, 'i'), v.Int(), 10)
}

var (
	jsonMarshalerType = reflect.TypeFor[json.Marshaler]()
	textMarshalerType = reflect.TypeFor[encoding.TextMarshaler]()
)

// typePlan is how appendGo walks values of one Go type.
type typePlan struct {
	// marshals is set when the type (or its pointer) marshals itself to
	// JSON or text (metav1.Time, resource.Quantity, intstr.IntOrString):
	// its values are then always literal, as their JSON.
	marshals bool
	// fields are a struct's exported fields, by index.
	fields []int
}

// plan returns t's walk, computed once per memo.
func (m *shapeMemo) plan(t reflect.Type) *typePlan {
	if v, ok := m.plans.Load(t); ok {
		return v.(*typePlan)
	}
	pt := reflect.PointerTo(t)
	p := &typePlan{marshals: t.Implements(jsonMarshalerType) || pt.Implements(jsonMarshalerType) ||
		t.Implements(textMarshalerType) || pt.Implements(textMarshalerType)}
	if t.Kind() == reflect.Struct {
		for i := range t.NumField() {
			if t.Field(i).IsExported() {
				p.fields = append(p.fields, i)
			}
		}
	}
	m.plans.Store(t, p)
	return p
}

// appendMarshaled appends v's own JSON encoding, always literal.
func (m *shapeMemo) appendMarshaled(b []byte, v reflect.Value) ([]byte, bool) {
	if !v.CanInterface() {
		return b, false
	}
	var x any
	if v.CanAddr() {
		x = v.Addr().Interface() // pointer receivers too
	} else {
		x = v.Interface()
	}
	raw, err := json.Marshal(x)
	if err != nil {
		return b, false
	}
	return strconv.AppendQuote(append(b, 'j'), string(raw)), true
}
