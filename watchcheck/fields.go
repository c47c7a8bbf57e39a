package watchcheck

import (
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/fields"
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
// fields, which the shared registry matches against.
var fieldAliases = map[string]string{
	"spec.host":                 "spec.nodeName",
	"regarding.kind":            "involvedObject.kind",
	"regarding.namespace":       "involvedObject.namespace",
	"regarding.name":            "involvedObject.name",
	"regarding.uid":             "involvedObject.uid",
	"regarding.apiVersion":      "involvedObject.apiVersion",
	"regarding.resourceVersion": "involvedObject.resourceVersion",
	"regarding.fieldPath":       "involvedObject.fieldPath",
	"reportingController":       "reportingComponent",
}

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

// selectableField is how to read one field label off an object's JSON
// form: the first of paths that is set and not empty, else def.
type selectableField struct {
	paths []string
	def   string
}

// selectableFields are the field labels of the built-in kinds beyond
// metadata.*, as their registry strategies compute them (kubernetes
// pkg/registry/<group>/<kind>/strategy.go ToSelectableFields), read from
// the object's JSON. A label is one path for every kind that has it
// (spec.nodeName of Pods and PodCertificateRequests), so the table is by
// label, not by kind; an object without the path gets the default, as the
// typed strategy reads a zero value. Core and events.k8s.io Events are
// both read through the core names.
var selectableFields = map[string]selectableField{
	"spec.nodeName":            {paths: []string{"spec.nodeName"}},
	"spec.restartPolicy":       {paths: []string{"spec.restartPolicy"}},
	"spec.schedulerName":       {paths: []string{"spec.schedulerName"}},
	"spec.serviceAccountName":  {paths: []string{"spec.serviceAccountName"}},
	"spec.hostNetwork":         {paths: []string{"spec.hostNetwork"}, def: "false"},
	"status.phase":             {paths: []string{"status.phase"}},
	"status.podIP":             {paths: []string{"status.podIP", "status.podIPs.0.ip"}},
	"status.nominatedNodeName": {paths: []string{"status.nominatedNodeName"}},
	"spec.unschedulable":       {paths: []string{"spec.unschedulable"}, def: "false"},
	"status.replicas":          {paths: []string{"status.replicas"}, def: "0"},
	"status.successful":        {paths: []string{"status.succeeded"}, def: "0"},
	"type":                     {paths: []string{"type"}},
	"spec.clusterIP":           {paths: []string{"spec.clusterIP"}},
	"spec.type":                {paths: []string{"spec.type"}},
	"spec.signerName":          {paths: []string{"spec.signerName"}},
	"spec.podName":             {paths: []string{"spec.podName"}},
	"reason":                   {paths: []string{"reason"}},
	"reportingComponent":       {paths: []string{"reportingComponent", "reportingController"}},
	// The core Event's source.component, else its reporting controller.
	"source":                         {paths: []string{"source.component", "deprecatedSource.component", "reportingComponent", "reportingController"}},
	"involvedObject.kind":            {paths: []string{"involvedObject.kind", "regarding.kind"}},
	"involvedObject.namespace":       {paths: []string{"involvedObject.namespace", "regarding.namespace"}},
	"involvedObject.name":            {paths: []string{"involvedObject.name", "regarding.name"}},
	"involvedObject.uid":             {paths: []string{"involvedObject.uid", "regarding.uid"}},
	"involvedObject.apiVersion":      {paths: []string{"involvedObject.apiVersion", "regarding.apiVersion"}},
	"involvedObject.resourceVersion": {paths: []string{"involvedObject.resourceVersion", "regarding.resourceVersion"}},
	"involvedObject.fieldPath":       {paths: []string{"involvedObject.fieldPath", "regarding.fieldPath"}},
}

// FieldsOf returns the selectable fields of an object in its JSON form
// (a decoded watch frame's object, or runtime's unstructured form of a
// typed one), beyond metadata.name and metadata.namespace: every label of
// the built-in kinds that the object's JSON has, plus extra, labels read
// as plain paths (a custom resource's selectableFields, ".spec.color" as
// "spec.color"). Labels of other kinds are read too, so a Secret gets a
// "type" and possibly nothing else: matching only asks for the keys of
// the selector, which kube-apiserver accepts for the watched kind only.
func FieldsOf(obj map[string]any, extra ...string) map[string]string {
	out := map[string]string{}
	for label, f := range selectableFields {
		if v, ok := firstSet(obj, f.paths); ok {
			out[label] = v
		} else if f.def != "" && hasRoot(obj, f.paths[0]) {
			out[label] = f.def
		}
	}
	for _, label := range extra {
		if v, ok := firstSet(obj, []string{strings.TrimPrefix(label, ".")}); ok {
			out[strings.TrimPrefix(label, ".")] = v
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// hasRoot reports whether obj has the top-level field of path: a
// defaulted label (a Pod's spec.hostNetwork) belongs to kinds with that
// section (spec, status), so a ConfigMap gets no "spec.hostNetwork".
func hasRoot(obj map[string]any, path string) bool {
	root, _, _ := strings.Cut(path, ".")
	_, ok := obj[root]
	return ok
}

// firstSet reads the first path that holds a non-empty scalar.
func firstSet(obj map[string]any, paths []string) (string, bool) {
	for _, p := range paths {
		if v, ok := scalarAt(obj, p); ok && v != "" {
			return v, true
		}
	}
	return "", false
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
