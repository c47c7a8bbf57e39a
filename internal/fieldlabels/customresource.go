package fieldlabels

import (
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
)

// ForCustomResource returns the field labels of a CRD version: metadata.name,
// metadata.namespace for a namespaced one, and the version's
// selectableFields (their JSON paths without the leading dot), read by
// fieldsOf (the registry strategy's GetAttrs).
func ForCustomResource(namespaced bool, selectable []apiextensionsv1.SelectableField, fieldsOf func(runtime.Object) fields.Set) *Labels {
	keys := []string{"metadata.name"}
	if namespaced {
		keys = append(keys, "metadata.namespace")
	}
	for _, f := range selectable {
		keys = append(keys, strings.TrimPrefix(f.JSONPath, "."))
	}
	return &Labels{Keys: keys, Fields: fieldsOf}
}
