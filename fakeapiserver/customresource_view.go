package fakeapiserver

import (
	"fmt"
	"reflect"

	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	structuralpruning "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/lw-sim/lw-sim/fakeapiserver/store"
)

// A custom resource is stored as it was written, and read as its CRD is
// now: apiextensions-apiserver decodes every object it reads from etcd
// (GET, LIST, the watch cache's events, the current object an update or
// patch starts from) with a storage codec that applies the CRD's current
// structural schemas (customresource_handler.go
// crdConversionRESTOptionsGetter): schemaCoercingDecoder prunes unknown
// fields and non-nullable nulls by the stored version's schema,
// unstructuredDefaulter applies its defaults, and the conversion to the
// served version prunes by that version's schema. So a default added to a
// CRD after an object was stored shows on every read at once, while the
// stored object stays as written until its next write stores the defaulted
// form. The watch cache decodes once per CRD state (a CRD update replaces
// the storage and its cache); lw-sim memoises the view per stored version
// under the served version's customResource, which every CRD update
// replaces, so a view is never stale. A view the schemas leave as stored
// is memoised as that (storedIsView) and costs no copy; any other is one
// copy per version and CRD state, held weakly once the version is no
// longer among the latest writes (store.Encodings.View), like the stored
// object, which the store keeps as its JSON (customresource_store.go).

// readView is obj as a read of res returns it: a custom resource under its
// CRD's current schemas, a built-in object unchanged. enc is the stored
// version's encoding cache (nil for an object that is not one, such as a
// restamped DELETED state: the view is then built each time). The view is
// shared and immutable, like obj.
func (s *Server) readView(res *resourceInfo, obj runtime.Object, enc *store.Encodings) (runtime.Object, error) {
	return res.readStrategy().view(s, res, obj, enc)
}

// customView is the view of a custom resource (customReads.view).
func (s *Server) customView(res *resourceInfo, obj runtime.Object, enc *store.Encodings) (runtime.Object, error) {
	cr := res.custom
	if _, ok := obj.(*unstructured.Unstructured); !ok {
		return obj, nil // a bookmark or Status: nothing stored
	}
	u := obj.(*unstructured.Unstructured)
	v, err := enc.View(cr, func() (any, error) {
		view, err := cr.readView(u)
		if err == nil && !s.cfg.customResourcesDecoded && reflect.DeepEqual(view.Object, u.Object) {
			return storedIsView{asServed: u.GetAPIVersion() == res.Kind.GroupVersion().String()}, nil
		}
		return view, err
	})
	if err != nil {
		rv, _ := parseResourceVersion(u.GetResourceVersion())
		return nil, &notDecodableError{revision: rv, err: err} // customresource_conversion.go
	}
	if _, same := v.(storedIsView); same {
		return u, nil
	}
	view, ok := v.(runtime.Object)
	if !ok {
		return nil, fmt.Errorf("fakeapiserver: view of %s is a %T", res.qualified(), v)
	}
	return view, nil
}

// viewWritten builds the read view of a custom resource the store has
// just written at key (stored, as the write returned it), while its
// object is at hand: kube-apiserver's watch cache decodes each write as
// it arrives, so a LIST right after a burst of writes finds its objects
// decoded, where here the first read of each would decode its stored JSON
// again to build the view's memo (for most objects storedIsView, which
// keeps no copy). A resource whose views a conversion webhook makes is
// left alone: its write already asked the webhook for the view.
func (s *Server) viewWritten(res *resourceInfo, key string, stored runtime.Object) {
	if res.custom == nil || res.custom.convertsByWebhook() {
		return
	}
	rv, err := parseResourceVersion(mustAccessor(stored).GetResourceVersion())
	if err != nil {
		return
	}
	if obj, enc, err := s.store.GetVersion(res.storageKey, key, rv); err == nil {
		_, _ = s.readView(res, obj, enc) // only its memo is wanted: a failure is the reader's to report
	}
}

// storedIsView is the view memo of a stored custom resource that its
// CRD's schemas leave as it is (the usual case: nothing to prune, no
// default it lacks, stored in the served version or converted by "None"):
// the view is then the stored object itself, which costs no copy, and
// the store may hold it weakly with its encoding (customresource_store.go).
// Config.customResourcesDecoded (the tests' reference) copies every view.
type storedIsView struct {
	// asServed says the stored apiVersion is the served one, so the
	// stored encoding (slotJSON) is the view's.
	asServed bool
}

// viewIsStored reports whether enc's memo says the view of its stored
// object under res's CRD state is that object itself.
func viewIsStored(res *resourceInfo, enc *store.Encodings) (same, asServed bool) {
	if res.custom == nil {
		return false, false
	}
	v, ok := enc.Memo(res.custom)
	sv, same := v.(storedIsView)
	return ok && same, sv.asServed
}

// readViews is readView for a page's items, in place of them. An item
// the store left out (store.ListOptions.Undecoded) stays out when its
// view is known to be the stored object (storedIsView), for the page to
// splice its stored encoding (list_encode.go); else it is decoded and
// viewed.
func (s *Server) readViews(res *resourceInfo, items []runtime.Object, encs []*store.Encodings) ([]runtime.Object, error) {
	if res.readStrategy().reusesEncodings() {
		return items, nil // stored objects are their own view
	}
	out := make([]runtime.Object, len(items))
	for i, obj := range items {
		var enc *store.Encodings
		if i < len(encs) {
			enc = encs[i]
		}
		if obj == nil {
			if same, _ := viewIsStored(res, enc); same {
				continue
			}
			obj = enc.Object()
		}
		view, err := s.readView(res, obj, enc)
		if err != nil {
			return nil, err
		}
		out[i] = view
	}
	return out, nil
}

// readView is the storage codec's decode of a stored object u for this
// served version: a copy of u pruned and defaulted by the schema of the
// version it is stored in, converted to this version by the CRD's
// conversion webhook if it has one (customresource_conversion.go), then
// pruned by this version's schema. Under conversion "None" objects keep
// their stored apiVersion; the serializers write the served one. The
// error is the webhook converter's.
func (cr *customResource) readView(u *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	out := u.DeepCopy()
	stored := out.GroupVersionKind().Version
	srv := cr.serving()
	cr.pruneForRead(out, srv.structural[stored])
	structuraldefaulting.Default(out.Object, srv.defaulting[stored]) // customresource_defaulting.go
	if out.GroupVersionKind().Version == cr.version {
		return out, nil
	}
	if cr.convertsByWebhook() {
		converted, err := cr.convert(out, schema.GroupVersion{Group: cr.gk.Group, Version: cr.version})
		if err != nil {
			return nil, err
		}
		out = converted
	}
	cr.pruneForRead(out, srv.structural[cr.version])
	return out, nil
}

// pruneForRead is unstructuredSchemaCoercer.apply's pruning of the
// object's own kind: unknown fields, then non-nullable nulls without a
// default, unless the CRD preserves unknown fields.
func (cr *customResource) pruneForRead(u *unstructured.Unstructured, s *structuralschema.Structural) {
	if cr.preserveUnknownFields || s == nil {
		return
	}
	structuralpruning.PruneWithOptions(u.Object, s, true, structuralschema.UnknownFieldPathOptions{})
	structuraldefaulting.PruneNonNullableNullsWithoutDefaults(u.Object, s)
}
