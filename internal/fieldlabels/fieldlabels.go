package fieldlabels

import (
	"fmt"
	"maps"
	"reflect"
	"slices"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Labels is a resource's field-selector support: the keys it accepts
// (with the kube-apiserver error for others) and how to read them.
type Labels struct {
	// Keys are the supported keys, metadata.* included.
	Keys []string
	// Aliases maps deprecated keys onto supported ones (pods: spec.host).
	Aliases map[string]string
	// Fields returns the field set of an object for matching.
	Fields func(obj runtime.Object) fields.Set
}

// Convert validates and rewrites a parsed field selector for a resource of
// kind gk with labels l as kube-apiserver's ConvertFieldLabel does: unknown
// keys give the exact upstream error text — for kinds with a registered
// conversion func (l not nil) `field label not supported: <key>` (or the
// kind's own text), for all others
// `"<key>" is not a known field selector: only "metadata.name", "metadata.namespace"`
// (runtime.DefaultMetaV1FieldSelectorConversion); the caller wraps it in a
// 400 BadRequest. Terms are checked in the selector's order and the first
// unknown key is reported, as fields.Selector.Transform does. A nil
// selector is returned as is.
func Convert(gk schema.GroupKind, l *Labels, sel fields.Selector) (fields.Selector, error) {
	if sel == nil {
		return nil, nil
	}
	if l == nil {
		return sel.Transform(runtime.DefaultMetaV1FieldSelectorConversion)
	}
	format := errorFormats[gk]
	if format == "" {
		format = "field label not supported: %s"
	}
	return sel.Transform(func(label, value string) (string, string, error) {
		if to, ok := l.Aliases[label]; ok {
			return to, value, nil
		}
		if slices.Contains(l.Keys, label) {
			return label, value, nil
		}
		return "", "", fmt.Errorf(format, label)
	})
}

// errorFormats are the conversion funcs whose rejection text differs from
// the common "field label not supported: %s".
var errorFormats = map[schema.GroupKind]string{
	{Group: "batch", Kind: "Job"}: "field label %q not supported for Job",
	// resource/v1/conversion.go names the group-version and kind it was
	// registered for; the server serves resource.k8s.io/v1.
	{Group: "resource.k8s.io", Kind: "ResourceSlice"}: "field label not supported for resource.k8s.io/v1, Kind=ResourceSlice: %s",
}

// Set returns the field set of obj for matching: metadata.name and, for a
// namespaced resource, metadata.namespace, plus l.Fields (l may be nil).
// The metadata fields are always present, as generic.ObjectMetaFieldsSet
// adds them in every strategy; Fields adds the kind's own.
func Set(l *Labels, namespaced bool, obj runtime.Object) fields.Set {
	set := fields.Set{}
	if m, err := meta.Accessor(obj); err == nil {
		set["metadata.name"] = m.GetName()
		if namespaced {
			set["metadata.namespace"] = m.GetNamespace()
		}
	}
	if l != nil && l.Fields != nil {
		maps.Copy(set, l.Fields(obj))
	}
	return set
}

// typedFields adapts a typed field function to Labels.Fields. It also
// reads the kind's unstructured form (a decoded watch frame, with
// apiVersion and kind), converted to T first, so a checker of recorded
// streams matches with the server's own functions; an object of another
// type (which the server never stores for the kind) has no kind-specific
// fields.
func typedFields[T runtime.Object](fn func(T) fields.Set) func(runtime.Object) fields.Set {
	return func(obj runtime.Object) fields.Set {
		switch o := obj.(type) {
		case T:
			return fn(o)
		case *unstructured.Unstructured:
			t := reflect.New(reflect.TypeFor[T]().Elem()).Interface().(T)
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object, t); err != nil {
				return nil
			}
			return fn(t)
		}
		return nil
	}
}

// ObjectFields returns the kind-specific field set of a built-in object
// (without metadata.*): typed, with or without its TypeMeta, or
// unstructured with apiVersion and kind. It is nil for a kind without
// field labels, and for an unstructured object that does not convert to
// its kind's type.
func ObjectFields(obj runtime.Object) fields.Set {
	if u, ok := obj.(*unstructured.Unstructured); ok {
		if l := builtin[u.GroupVersionKind().GroupKind()]; l != nil {
			return l.Fields(u)
		}
		return nil
	}
	// A typed object need not carry its kind (client-go's decoders clear
	// it), but its Go type names it: only its own entry's Fields reads it.
	for _, l := range builtin {
		if set := l.Fields(obj); set != nil {
			return set
		}
	}
	return nil
}

// AllAliases returns every built-in kind's deprecated selector keys with
// the keys they stand for, for a reader that does not know the kind (the
// keys do not collide across kinds). The map is the caller's.
func AllAliases() map[string]string {
	out := map[string]string{}
	for _, l := range builtin {
		maps.Copy(out, l.Aliases)
	}
	return out
}
