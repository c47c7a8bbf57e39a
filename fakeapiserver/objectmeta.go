package fakeapiserver

import (
	"fmt"
	"reflect"
	"strings"
	"time"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
)

// now is the server clock's time at the second precision a stored
// timestamp keeps (metav1.Time serialises as RFC 3339 seconds).
func (s *Server) now() metav1.Time {
	return metav1.NewTime(s.cfg.Clock.Now().UTC().Truncate(time.Second))
}

// fillCreateMeta sets what the server owns on a new object
// (registry/rest/create.go BeforeCreate, FillObjectMetaSystemFields): uid,
// creationTimestamp at second precision, generation for kinds that track
// it; clears fields clients may not set; zeroes the status (unless the
// strategy keeps it) and runs the strategy's PrepareForCreate.
func (s *Server) fillCreateMeta(res *resourceInfo, obj runtime.Object) {
	m := mustAccessor(obj)
	m.SetUID(types.UID(newUID()))
	now := s.now()
	m.SetCreationTimestamp(now)
	m.SetDeletionTimestamp(nil)
	m.SetDeletionGracePeriodSeconds(nil)
	m.SetGeneration(0)
	if res.TracksGeneration {
		m.SetGeneration(1)
	}
	if res.hasStatus && !res.strategy.KeepsStatusOnCreate {
		resetStatus(obj)
	}
	if prepare := res.strategy.PrepareForCreate; prepare != nil {
		prepare(obj, now)
	}
}

// resetStatus gives a new object the empty status most strategies'
// PrepareForCreate set; a kind's own starting status (a pod's Pending) is
// its strategy's PrepareForCreate.
func resetStatus(obj runtime.Object) {
	if st := statusField(obj); st.IsValid() {
		st.Set(reflect.Zero(st.Type()))
	}
}

// statusField returns the addressable Status field of a typed object, or
// the zero Value when the kind has none.
func statusField(obj runtime.Object) reflect.Value {
	v := reflect.ValueOf(obj)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return reflect.Value{}
	}
	return v.Elem().FieldByName("Status")
}

// specField returns the Spec field, or the zero Value.
func specField(obj runtime.Object) reflect.Value {
	v := reflect.ValueOf(obj)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return reflect.Value{}
	}
	if spec := v.Elem().FieldByName("Spec"); spec.IsValid() {
		return spec
	}
	// A PodTemplate's desired state is its template (the podtemplate
	// strategy's PrepareForUpdate compares it).
	return v.Elem().FieldByName("Template")
}

// copyStatus sets dst's status to src's (the main resource keeps the
// stored status; the status subresource keeps everything else).
func copyStatus(dst, src runtime.Object) {
	if du, ok := dst.(*unstructured.Unstructured); ok {
		if su, ok := src.(*unstructured.Unstructured); ok {
			copyUnstructuredStatus(du, su)
		}
		return
	}
	d, sv := statusField(dst), statusField(src)
	if d.IsValid() && sv.IsValid() {
		d.Set(sv)
	}
}

// prepareUpdate carries the server-owned metadata of old over to obj and
// maintains generation, as BeforeUpdate and the strategies do.
func prepareUpdate(res *resourceInfo, obj, old runtime.Object) {
	m, o := mustAccessor(obj), mustAccessor(old)
	if m.GetUID() == "" {
		// BeforeUpdate keeps a uid the object brings, and validation then
		// refuses a changed one as immutable (registry/rest/update.go).
		m.SetUID(o.GetUID())
	}
	m.SetCreationTimestamp(o.GetCreationTimestamp())
	m.SetDeletionTimestamp(o.GetDeletionTimestamp())
	m.SetDeletionGracePeriodSeconds(o.GetDeletionGracePeriodSeconds())
	m.SetGenerateName(o.GetGenerateName())
	m.SetGeneration(o.GetGeneration())
	if res.TracksGeneration && generationChanged(res, obj, old) {
		m.SetGeneration(o.GetGeneration() + 1)
	}
}

// generationChanged reports whether an update bumps metadata.generation:
// the kind's own rule (internal/kinds), else a change of its spec.
func generationChanged(res *resourceInfo, obj, old runtime.Object) bool {
	if changed := res.strategy.GenerationChanged; changed != nil {
		return changed(obj, old)
	}
	ns, os := specField(obj), specField(old)
	return ns.IsValid() && !apiequality.Semantic.DeepEqual(ns.Interface(), os.Interface())
}

// sameObject reports whether an update changes nothing (apart from the
// resourceVersion); such writes are no-ops that bump no RV and emit no event
// (etcd3/store.go GuaranteedUpdate compares the serialised bytes).
func sameObject(a, b runtime.Object) bool {
	ac, bc := a.DeepCopyObject(), b.DeepCopyObject()
	mustAccessor(ac).SetResourceVersion("")
	mustAccessor(bc).SetResourceVersion("")
	return apiequality.Semantic.DeepEqual(ac, bc)
}

// checkObjectNamespace defaults the body's namespace from the URL and
// rejects a mismatch (registry/rest/meta.go
// EnsureObjectNamespaceMatchesRequestNamespace).
func checkObjectNamespace(res *resourceInfo, namespace string, obj runtime.Object) error {
	m := mustAccessor(obj)
	switch {
	case res.ClusterScoped:
		m.SetNamespace("")
	case m.GetNamespace() == "":
		m.SetNamespace(namespace)
	case m.GetNamespace() != namespace:
		return apierrors.NewBadRequest("the namespace of the provided object does not match the namespace sent on the request")
	}
	return nil
}

// checkObjectName rejects a body whose name differs from the URL's, and
// one without a name, which ScopeNamer.ObjectName cannot determine
// (handlers/rest.go checkName, namer.go errEmptyName).
func checkObjectName(obj runtime.Object, name string) error {
	return checkName(mustAccessor(obj).GetName(), name)
}

// checkName is handlers/rest.go checkName's name rule for a body naming
// got on a URL naming name.
func checkName(got, name string) error {
	switch {
	case got == "":
		return apierrors.NewBadRequest(fmt.Sprintf("the name of the object (%s based on URL) was undeterminable: name must be provided", name))
	case got != name:
		return apierrors.NewBadRequest(fmt.Sprintf("the name of the object (%s) does not match the name on the URL (%s)", got, name))
	}
	return nil
}

// isStatusRequest reports whether the request is for the status subresource.
func (req *request) isStatus() bool { return strings.EqualFold(req.info.subresource, "status") }

// copyUnstructuredStatus sets dst's status to src's, removing it when src
// has none (custom resources).
func copyUnstructuredStatus(dst, src *unstructured.Unstructured) {
	if st, ok := src.Object["status"]; ok {
		dst.Object["status"] = runtime.DeepCopyJSONValue(st)
		return
	}
	delete(dst.Object, "status")
}
