package fakeapiserver

import (
	"reflect"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

// keepStatusMetadata gives base, the stored object with the written
// status, the written metadata, as the built-in status strategies do: they
// reset the spec, not the metadata (a label or annotation written through
// /status is stored), except the metadata paths a kind's strategy resets
// too (the strategy's ResetFields: a Deployment's labels, a Pod's
// ownerReferences) and all of it for the kinds that call
// ResetObjectMetaForStatus (ResetFields.StatusResetsMetadata). Custom resources keep the stored metadata: their
// status strategy copies the old object whole. What the server owns
// (uid, creationTimestamp, generation, resourceVersion) prepareUpdate sets
// afterwards.
func keepStatusMetadata(res *resourceInfo, base, next, old runtime.Object) {
	reset := res.strategy.ResetFields
	if _, ok := base.(*unstructured.Unstructured); ok || reset.StatusResetsMetadata {
		return
	}
	dst, src := objectMetaField(base), objectMetaField(next)
	if !dst.IsValid() || !src.IsValid() || dst.Type() != src.Type() {
		return
	}
	om, ok := src.Addr().Interface().(*metav1.ObjectMeta)
	if !ok {
		return
	}
	dst.Set(reflect.ValueOf(*om.DeepCopy()))
	m, o := mustAccessor(base), mustAccessor(old)
	for _, p := range reset.Status {
		if len(p) != 2 || p[0].FieldName == nil || *p[0].FieldName != "metadata" || p[1].FieldName == nil {
			continue
		}
		switch *p[1].FieldName {
		case "labels":
			m.SetLabels(o.GetLabels())
		case "ownerReferences":
			m.SetOwnerReferences(o.GetOwnerReferences())
		case "deletionTimestamp":
			m.SetDeletionTimestamp(o.GetDeletionTimestamp())
		}
	}
}

// objectMetaField returns the ObjectMeta field of a typed object, or the
// zero Value.
func objectMetaField(obj runtime.Object) reflect.Value {
	v := reflect.ValueOf(obj)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return reflect.Value{}
	}
	return v.Elem().FieldByName("ObjectMeta")
}
