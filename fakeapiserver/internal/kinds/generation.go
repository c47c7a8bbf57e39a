package kinds

import (
	"reflect"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
)

// The generation rules of the strategies whose PrepareForUpdate compares
// something other than the spec ([Strategy.GenerationChanged]).

// neverChanged keeps the generation PrepareForCreate set: the strategy's
// PrepareForUpdate leaves it alone (kubernetes pkg/registry/scheduling/
// priorityclass/strategy.go).
func neverChanged(obj, old runtime.Object) bool { return false }

// fieldChanged bumps the generation when the named top-level field
// changes (admissionregistration mutating- and
// validatingwebhookconfiguration strategy.go compare Webhooks).
func fieldChanged(name string) func(obj, old runtime.Object) bool {
	return func(obj, old runtime.Object) bool {
		n, o := structField(obj, name), structField(old, name)
		return n.IsValid() && o.IsValid() && !reflect.DeepEqual(n.Interface(), o.Interface())
	}
}

// contentOrLabelsChanged bumps the generation when anything but metadata
// changes, or the labels do (kubernetes pkg/registry/discovery/
// endpointslice/strategy.go PrepareForUpdate). TypeMeta is left out too:
// the real server compares internal objects, which carry none.
func contentOrLabelsChanged(obj, old runtime.Object) bool {
	n, o := reflect.ValueOf(obj), reflect.ValueOf(old)
	if n.Kind() != reflect.Pointer || o.Kind() != reflect.Pointer || n.Type() != o.Type() || n.Elem().Kind() != reflect.Struct {
		return false
	}
	n, o = n.Elem(), o.Elem()
	for i := range n.NumField() {
		switch n.Type().Field(i).Name {
		case "TypeMeta", "ObjectMeta":
			continue
		}
		if !apiequality.Semantic.DeepEqual(n.Field(i).Interface(), o.Field(i).Interface()) {
			return true
		}
	}
	nm, errN := meta.Accessor(obj)
	om, errO := meta.Accessor(old)
	return errN == nil && errO == nil && !apiequality.Semantic.DeepEqual(nm.GetLabels(), om.GetLabels())
}

// structField is the named field of a pointer to a struct, or the zero
// Value.
func structField(obj runtime.Object, name string) reflect.Value {
	v := reflect.ValueOf(obj)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return reflect.Value{}
	}
	return v.Elem().FieldByName(name)
}
