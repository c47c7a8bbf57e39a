package fakeapiserver

import (
	"k8s.io/apimachinery/pkg/runtime"
)

// applyDefaults runs the resource's defaulter, if any, on a decoded body,
// as kube-apiserver's decoder does for every create, update and patch.
// The built-in kinds' defaulters are in internal/defaults; this is the
// server's glue, since a [Resource] may override them.
func (r *resourceInfo) applyDefaults(obj runtime.Object) {
	if r.Default != nil {
		r.Default(obj)
	}
}
