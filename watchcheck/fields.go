package watchcheck

import (
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/lw-sim/lw-sim/internal/fieldlabels"
)

// A field selector matches an object's field set: metadata.name and
// metadata.namespace, which a [Change] carries in its Key, plus the
// kind's own selectable fields, which it carries in Fields. A key the set
// lacks reads as "" (fields.Set.Get), so k=v never matches it and k!=v
// always does, as in kube-apiserver.

// fieldSet is c's field set for matching.
func fieldSet(c Change) fields.Set {
	set := fields.Set{}
	for k, v := range c.Fields {
		set[k] = v
	}
	name := c.Key
	if ns := namespaceOf(c.Key); ns != "" {
		set["metadata.namespace"] = ns
		name = c.Key[len(ns)+1:]
	}
	set["metadata.name"] = name
	return set
}

// fieldAliases are the deprecated or per-version keys kube-apiserver
// rewrites before matching (the kinds' field-label conversion funcs):
// pods' spec.host, and events.k8s.io/v1's names for the core Event's
// fields, which the shared registry matches against. They are the
// server's own table (internal/fieldlabels), so the two cannot drift.
var fieldAliases = fieldlabels.AllAliases()

// canonicalFields rewrites a selector's aliased keys; nil stays nil.
func canonicalFields(sel fields.Selector) fields.Selector {
	if sel == nil {
		return nil
	}
	out, err := sel.Transform(func(k, v string) (string, string, error) {
		if to, ok := fieldAliases[k]; ok {
			return to, v, nil
		}
		return k, v, nil
	})
	if err != nil {
		return sel
	}
	return out
}

// FieldsOf returns the selectable fields of an object in its JSON form (a
// decoded watch frame's object), beyond metadata.name and
// metadata.namespace: the field labels kube-apiserver matches field
// selectors against for the object's kind, computed by the fake's own
// functions (kubernetes pkg/registry/<group>/<kind>/strategy.go
// ToSelectableFields), plus extra, labels read as plain paths (a custom
// resource's selectableFields, ".spec.color" as "spec.color"). The kind
// is read from the object's apiVersion and kind: without them only extra
// is read (use [FieldsOfObject] for a typed object). A label whose value
// is empty is left out, which matches alike (fields.Set.Get reads a
// missing key as ""). It returns nil when there is no label.
func FieldsOf(obj map[string]any, extra ...string) map[string]string {
	out := map[string]string{}
	addFields(out, fieldlabels.ObjectFields(&unstructured.Unstructured{Object: obj}))
	for _, label := range extra {
		if v, ok := scalarAt(obj, strings.TrimPrefix(label, ".")); ok && v != "" {
			out[strings.TrimPrefix(label, ".")] = v
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// FieldsOfObject returns the selectable fields of a built-in object, typed
// (its TypeMeta may be empty, as client-go leaves it) or unstructured, as
// [FieldsOf] does without extra labels.
func FieldsOfObject(obj runtime.Object) map[string]string {
	out := map[string]string{}
	addFields(out, fieldlabels.ObjectFields(obj))
	if len(out) == 0 {
		return nil
	}
	return out
}

// addFields copies the non-empty labels of set into out.
func addFields(out map[string]string, set fields.Set) {
	for k, v := range set {
		if v != "" {
			out[k] = v
		}
	}
}

// scalarAt reads a dotted path (a numeric part indexes a list) and
// renders the scalar there as kube-apiserver's field sets do: strings as
// they are, booleans as "true"/"false", numbers in decimal.
func scalarAt(obj map[string]any, path string) (string, bool) {
	var cur any = obj
	for part := range strings.SplitSeq(path, ".") {
		switch c := cur.(type) {
		case map[string]any:
			cur = c[part]
		case []any:
			i, err := strconv.Atoi(part)
			if err != nil || i < 0 || i >= len(c) {
				return "", false
			}
			cur = c[i]
		default:
			return "", false
		}
	}
	switch v := cur.(type) {
	case string:
		return v, true
	case bool:
		return strconv.FormatBool(v), true
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64), true
	case int64:
		return strconv.FormatInt(v, 10), true
	}
	return "", false
}
