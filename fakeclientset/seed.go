package fakeclientset

import (
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/client-go/kubernetes/scheme"
)

// seedObject is one object to seed and where it goes.
type seedObject struct {
	obj       runtime.Object
	gvk       schema.GroupVersionKind
	gvr       schema.GroupVersionResource
	namespace string // "" for a cluster-scoped object
}

// seed creates objs on the server as a user of client-go's fake expects
// them to be there (testing/fixture.go tracker.Add keeps each object as
// given), through the server's real create path:
//
//  1. Lists are expanded into their items.
//  2. Namespace objects among objs are created first (one that exists
//     already, such as default, is replaced by the given one), then every
//     namespace another object names that does not exist yet.
//  3. Each other object is created, in the order given, with its
//     resourceVersion cleared (the server refuses a create that carries
//     one) and, for a namespaced kind given no namespace, in "default".
//     A generateName without a name gets a generated name, as on a cluster.
//  4. An object given a status gets it with a write to its status
//     subresource (a create resets the status of most kinds).
//  5. An object given a deletionTimestamp is deleted, which marks it
//     (deletionTimestamp set, kept) when it has finalizers or is a
//     scheduled pod; any other would be gone at once, so it is kept
//     unmarked.
//
// What the server owns (uid, creationTimestamp, resourceVersion,
// generation, managedFields) is the server's, not the given values.
func (t *tracker) seed(objs []runtime.Object) error {
	if len(objs) == 0 {
		return nil
	}
	plan, err := t.planSeed(objs)
	if err != nil {
		return err
	}
	var namespaces, others []seedObject
	wanted := map[string]bool{}
	for _, so := range plan {
		if so.gvr.Group == "" && so.gvr.Resource == "namespaces" {
			namespaces = append(namespaces, so)
			continue
		}
		others = append(others, so)
		if so.namespace != "" {
			wanted[so.namespace] = true
		}
	}
	for _, so := range namespaces {
		delete(wanted, mustName(so.obj))
		if err := t.seedNamespace(so); err != nil {
			return err
		}
	}
	for _, so := range others {
		if wanted[so.namespace] {
			delete(wanted, so.namespace)
			if err := t.ensureNamespace(so.namespace); err != nil {
				return err
			}
		}
		if err := t.seedOne(so); err != nil {
			return err
		}
	}
	return nil
}

// Seed creates objs on s as the constructors of this package seed theirs
// (namespaces first, then each object in the order given, its status
// written through the status subresource, a given deletionTimestamp kept
// where the server keeps the object marked; see [Server.NewClientset]),
// for clients built from [Server.RESTConfig]: controller-runtime's client,
// a generated clientset of a CRD. kinds names the kinds of typed objects
// that do not name their own (nil: client-go's scheme), so objects of a
// CRD's Go type seed too once the CRD exists. Lists seed their items. It
// returns the first error, after the objects before it were created.
func (s *Server) Seed(kinds *runtime.Scheme, objs ...runtime.Object) error {
	if kinds == nil {
		kinds = scheme.Scheme
	}
	codec, err := newUnstructuredCodec(s)
	if err != nil {
		return err
	}
	items := make([]runtime.Object, 0, len(objs))
	for _, obj := range objs {
		expanded, err := expandWith(kinds, obj)
		if err != nil {
			return err
		}
		for _, item := range expanded {
			u, err := toUnstructured(kinds, item)
			if err != nil {
				return fmt.Errorf("fakeclientset: seed: %w", err)
			}
			items = append(items, u)
		}
	}
	return (&tracker{srv: s, codec: codec}).seed(items)
}

// expandWith is [expand] for a list of any kind of scheme: a typed list's
// items are typed, an unstructured list's unstructured.
func expandWith(kinds *runtime.Scheme, obj runtime.Object) ([]runtime.Object, error) {
	if !meta.IsListType(obj) {
		return []runtime.Object{obj}, nil
	}
	items, err := meta.ExtractList(obj)
	if err != nil {
		return nil, fmt.Errorf("fakeclientset: seed list %T: %w", obj, err)
	}
	codecs := serializer.NewCodecFactory(kinds)
	if errs := runtime.DecodeList(items, unstructured.UnstructuredJSONScheme, codecs.UniversalDecoder()); len(errs) > 0 {
		return nil, fmt.Errorf("fakeclientset: seed list %T: %w", obj, errors.Join(errs...))
	}
	return items, nil
}

// planSeed expands lists and maps each object to its resource.
func (t *tracker) planSeed(objs []runtime.Object) ([]seedObject, error) {
	res, err := t.srv.resources()
	if err != nil {
		return nil, err
	}
	var plan []seedObject
	for _, obj := range objs {
		items, err := expand(obj)
		if err != nil {
			return nil, err
		}
		for _, item := range items {
			so, mapped, err := res.place(item)
			if err == nil && !mapped {
				// A kind the kept discovery does not know may be a
				// CRD's created since: read it again once.
				if res, err = t.srv.rereadResources(); err == nil {
					so, _, err = res.place(item)
				}
			}
			if err != nil {
				return nil, err
			}
			plan = append(plan, so)
		}
	}
	return plan, nil
}

// expand returns a list's items (decoding raw ones, as tracker.addList
// does), or obj.
func expand(obj runtime.Object) ([]runtime.Object, error) {
	if !meta.IsListType(obj) {
		return []runtime.Object{obj}, nil
	}
	items, err := meta.ExtractList(obj)
	if err != nil {
		return nil, fmt.Errorf("fakeclientset: seed list %T: %w", obj, err)
	}
	if errs := runtime.DecodeList(items, unstructured.UnstructuredJSONScheme, scheme.Codecs.UniversalDecoder()); len(errs) > 0 {
		return nil, fmt.Errorf("fakeclientset: seed list %T: %w", obj, errors.Join(errs...))
	}
	return items, nil
}

// place finds obj's kind (its own apiVersion and kind when set, else
// client-go's scheme's) and, through the server's discovery, its resource
// and scope; mapped says whether discovery knew the kind. A kind it does
// not know gets client-go's guess of the resource, namespaced when obj has
// a namespace (the server then answers a create of a kind it does not
// serve with its 404).
func (r *apiResources) place(obj runtime.Object) (so seedObject, mapped bool, err error) {
	m, err := metaAccessor(obj)
	if err != nil {
		return seedObject{}, false, err
	}
	gvk := obj.GetObjectKind().GroupVersionKind()
	if gvk.Kind == "" {
		gvks, _, err := scheme.Scheme.ObjectKinds(obj)
		if err != nil {
			return seedObject{}, false, fmt.Errorf("fakeclientset: seed %T: %w", obj, err)
		}
		gvk = gvks[0]
	}
	so = seedObject{obj: obj, gvk: gvk, namespace: m.GetNamespace()}
	mapping, err := r.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		so.gvr, _ = meta.UnsafeGuessKindToResource(gvk)
		return so, false, nil
	}
	so.gvr = mapping.Resource
	switch {
	case mapping.Scope.Name() == meta.RESTScopeNameRoot:
		so.namespace = ""
	case so.namespace == "":
		so.namespace = metav1.NamespaceDefault
	}
	return so, true, nil
}

// seedNamespace creates a given Namespace, or replaces the existing one
// of that name with it.
func (t *tracker) seedNamespace(so seedObject) error {
	err := t.seedOne(so)
	if !apierrors.IsAlreadyExists(err) {
		return err
	}
	cur, err := t.Get(so.gvr, "", mustName(so.obj))
	if err != nil {
		return fmt.Errorf("fakeclientset: seed namespace: %w", err)
	}
	obj := so.obj.DeepCopyObject()
	mustAccessor(obj).SetResourceVersion(mustAccessor(cur).GetResourceVersion())
	if err := t.put(so.gvr, obj, "", metav1.UpdateOptions{}); err != nil {
		return fmt.Errorf("fakeclientset: seed namespace %s: %w", mustName(obj), err)
	}
	return nil
}

// ensureNamespace creates namespace ns unless it exists.
func (t *tracker) ensureNamespace(ns string) error {
	obj := &corev1.Namespace{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Namespace"}, ObjectMeta: metav1.ObjectMeta{Name: ns}}
	err := t.Create(corev1.SchemeGroupVersion.WithResource("namespaces"), obj, "")
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("fakeclientset: seed namespace %s: %w", ns, err)
	}
	return nil
}

// seedOne creates one object, then writes its status and marks it
// deleted as it was given (steps 3 to 5 of seed).
func (t *tracker) seedOne(so seedObject) error {
	obj := so.obj.DeepCopyObject()
	m := mustAccessor(obj)
	m.SetResourceVersion("")
	m.SetNamespace(so.namespace)
	created, err := t.forwarder().do(call{method: "POST", gvr: so.gvr, namespace: so.namespace, body: obj, params: &metav1.CreateOptions{}})
	if err != nil {
		return fmt.Errorf("fakeclientset: seed %s %s: %w", so.gvk.Kind, seedName(m), err)
	}
	if created, err = t.seedStatus(so, created); err != nil {
		return fmt.Errorf("fakeclientset: seed status of %s %s: %w", so.gvk.Kind, seedName(m), err)
	}
	if err := t.seedDeletion(so, created); err != nil {
		return fmt.Errorf("fakeclientset: seed deletion of %s %s: %w", so.gvk.Kind, seedName(m), err)
	}
	return nil
}

// seedStatus writes the given status over the created object's when they
// differ and the resource has a status subresource.
func (t *tracker) seedStatus(so seedObject, created runtime.Object) (runtime.Object, error) {
	want, err := statusOf(so.obj)
	if err != nil || len(want) == 0 {
		return created, err
	}
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(created)
	if err != nil {
		return nil, err
	}
	if equalJSON(u["status"], want) || !t.hasSubresource(so.gvr, "status") {
		return created, nil
	}
	u["status"] = want
	body := &unstructured.Unstructured{Object: u}
	body.SetGroupVersionKind(so.gvk)
	return t.forwarder().do(call{method: "PUT", gvr: so.gvr, namespace: so.namespace, name: body.GetName(),
		subresource: "status", body: body, params: &metav1.UpdateOptions{}})
}

// seedDeletion deletes an object given a deletionTimestamp when the server
// will keep it marked rather than remove it.
func (t *tracker) seedDeletion(so seedObject, created runtime.Object) error {
	given := mustAccessor(so.obj)
	if given.GetDeletionTimestamp() == nil || !staysMarked(created) {
		return nil
	}
	name := mustName(created)
	_, err := t.forwarder().do(call{method: "DELETE", gvr: so.gvr, namespace: so.namespace, name: name,
		body: &metav1.DeleteOptions{}, noResult: true})
	return err
}

// staysMarked says whether a delete of obj marks it rather than removes
// it: it has finalizers, or is a scheduled, running pod (pod strategy
// CheckGracefulDelete, which the server follows).
func staysMarked(obj runtime.Object) bool {
	if len(mustAccessor(obj).GetFinalizers()) > 0 {
		return true
	}
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return false
	}
	node, _, _ := unstructured.NestedString(u, "spec", "nodeName")
	phase, _, _ := unstructured.NestedString(u, "status", "phase")
	kind := obj.GetObjectKind().GroupVersionKind().Kind
	_, isPod := obj.(*corev1.Pod)
	return (isPod || kind == "Pod") && node != "" && phase != string(corev1.PodSucceeded) && phase != string(corev1.PodFailed)
}

// hasSubresource says whether discovery lists gvr's subresource sub.
func (t *tracker) hasSubresource(gvr schema.GroupVersionResource, sub string) bool {
	res, err := t.srv.resources()
	if err != nil {
		return false
	}
	for _, l := range res.lists {
		if l.GroupVersion != gvr.GroupVersion().String() {
			continue
		}
		for _, r := range l.APIResources {
			if r.Name == gvr.Resource+"/"+sub {
				return true
			}
		}
	}
	return false
}

// statusOf is obj's status as JSON values, nil when it has none.
func statusOf(obj runtime.Object) (map[string]any, error) {
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return nil, err
	}
	status, _ := u["status"].(map[string]any)
	return status, nil
}

// equalJSON compares two JSON values (maps, slices, strings, numbers).
func equalJSON(a, b any) bool { return equality.Semantic.DeepEqual(a, b) }

// mustAccessor is meta.Accessor of an object already known to have
// metadata (seeds passed place; the server's answers always do).
func mustAccessor(obj runtime.Object) metav1.Object {
	m, err := meta.Accessor(obj)
	if err != nil {
		panic(fmt.Sprintf("fakeclientset: %T has no metadata: %v", obj, err))
	}
	return m
}

// mustName is the name of an object with metadata.
func mustName(obj runtime.Object) string { return mustAccessor(obj).GetName() }

// seedName names a seed in errors: namespace/name, or its generateName.
func seedName(m metav1.Object) string {
	name := m.GetName()
	if name == "" {
		name = m.GetGenerateName() + "*"
	}
	if m.GetNamespace() != "" {
		return m.GetNamespace() + "/" + name
	}
	return name
}
