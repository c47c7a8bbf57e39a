package fakeclientset

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	clienttesting "k8s.io/client-go/testing"
)

// tracker is the ObjectTracker of this package's clients: every method is
// a request to the server, decoded as the client decodes (typed or
// unstructured). Like client-go's tracker it records no action and passes
// no reactor, so a reactor may call it.
type tracker struct {
	srv   *Server
	codec codec
}

var _ clienttesting.ObjectTracker = (*tracker)(nil)

// Server is the server this tracker's requests go to: code handed the
// tracker (controller-runtime fake's WithObjectTracker, crfake) reaches
// the same server through it.
func (t *tracker) Server() *Server { return t.srv }

// Add seeds obj (a list adds its items), as the constructors seed: see
// [Server.NewClientset].
func (t *tracker) Add(obj runtime.Object) error { return t.seed([]runtime.Object{obj}) }

// Get reads an object: GET.
func (t *tracker) Get(gvr schema.GroupVersionResource, ns, name string, opts ...metav1.GetOptions) (runtime.Object, error) {
	o, err := single(opts)
	if err != nil {
		return nil, err
	}
	return t.forwarder().do(call{method: "GET", gvr: gvr, namespace: ns, name: name, params: &o})
}

// Create creates obj in ns: POST.
func (t *tracker) Create(gvr schema.GroupVersionResource, obj runtime.Object, ns string, opts ...metav1.CreateOptions) error {
	o, err := single(opts)
	if err != nil {
		return err
	}
	_, err = t.forwarder().do(call{method: "POST", gvr: gvr, namespace: ns, body: obj, params: &o})
	return err
}

// Update replaces obj: PUT, with obj's resourceVersion as its
// precondition when it has one (a real update; client-go's tracker ignores
// it).
func (t *tracker) Update(gvr schema.GroupVersionResource, obj runtime.Object, ns string, opts ...metav1.UpdateOptions) error {
	o, err := single(opts)
	if err != nil {
		return err
	}
	return t.put(gvr, obj, ns, o)
}

// Patch stores obj, which the caller already patched (as
// testing.ObjectReaction does before it calls the tracker): PUT.
func (t *tracker) Patch(gvr schema.GroupVersionResource, obj runtime.Object, ns string, opts ...metav1.PatchOptions) error {
	o, err := single(opts)
	if err != nil {
		return err
	}
	return t.put(gvr, obj, ns, metav1.UpdateOptions{DryRun: o.DryRun, FieldManager: o.FieldManager})
}

// put sends obj as an update.
func (t *tracker) put(gvr schema.GroupVersionResource, obj runtime.Object, ns string, o metav1.UpdateOptions) error {
	name, err := objectName(obj)
	if err != nil {
		return err
	}
	_, err = t.forwarder().do(call{method: "PUT", gvr: gvr, namespace: ns, name: name, body: obj, params: &o})
	return err
}

// Apply applies applyConfiguration with server-side apply: PATCH with
// application/apply-patch+yaml. The server requires opts' FieldManager.
func (t *tracker) Apply(gvr schema.GroupVersionResource, applyConfiguration runtime.Object, ns string, opts ...metav1.PatchOptions) error {
	o, err := single(opts)
	if err != nil {
		return err
	}
	name, err := objectName(applyConfiguration)
	if err != nil {
		return err
	}
	data, err := encodeBody(applyConfiguration, gvr.GroupVersion())
	if err != nil {
		return err
	}
	_, err = t.forwarder().do(call{method: "PATCH", gvr: gvr, namespace: ns, name: name,
		patchType: types.ApplyPatchType, patch: data, params: &o})
	return err
}

// List lists gvr in ns (all namespaces for ""): GET. gvk is not needed:
// the server names the list's kind.
func (t *tracker) List(gvr schema.GroupVersionResource, _ schema.GroupVersionKind, ns string, opts ...metav1.ListOptions) (runtime.Object, error) {
	o, err := single(opts)
	if err != nil {
		return nil, err
	}
	return t.forwarder().do(call{method: "GET", gvr: gvr, namespace: ns, params: &o})
}

// Delete deletes an object: DELETE. Unlike client-go's tracker, deleting
// a missing object is the server's 404.
func (t *tracker) Delete(gvr schema.GroupVersionResource, ns, name string, opts ...metav1.DeleteOptions) error {
	o, err := single(opts)
	if err != nil {
		return err
	}
	_, err = t.forwarder().do(call{method: "DELETE", gvr: gvr, namespace: ns, name: name, body: &o, noResult: true})
	return err
}

// Watch opens a watch on the server. Without options it starts at the
// current state, sending an ADDED event per existing object, as the
// server does for a watch without a resourceVersion.
func (t *tracker) Watch(gvr schema.GroupVersionResource, ns string, opts ...metav1.ListOptions) (watch.Interface, error) {
	o, err := single(opts)
	if err != nil {
		return nil, err
	}
	return t.forwarder().watch(gvr, ns, o)
}

// forwarder sends the tracker's requests.
func (t *tracker) forwarder() *forwarder { return &forwarder{srv: t.srv, codec: t.codec} }

// single is the optional single options argument of the tracker's
// methods (testing/fixture.go assertOptionalSingleArgument).
func single[T any](opts []T) (T, error) {
	var zero T
	switch len(opts) {
	case 0:
		return zero, nil
	case 1:
		return opts[0], nil
	default:
		return zero, fmt.Errorf("at most one option argument is supported, got %d", len(opts))
	}
}
