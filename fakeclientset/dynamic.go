package fakeclientset

import (
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	clienttesting "k8s.io/client-go/testing"

	"github.com/lw-sim/lw-sim/fakeapiserver"
)

// DynamicClient is client-go's fake dynamic client
// (k8s.io/client-go/dynamic/fake) with the server in the place of its
// object tracker, as [Clientset] is for the typed clientset: actions are
// recorded and pass the reactors as there, and what no reactor handles is
// the dynamic client's request to the server. Objects come back
// unstructured. Code that stores a *dynamicfake.FakeDynamicClient takes the
// embedded one, whose Tracker is client-go's own (not connected).
type DynamicClient struct {
	*dynamicfake.FakeDynamicClient

	srv         *Server
	tracker     *tracker
	noWatchList atomic.Bool
}

var (
	_ dynamic.Interface        = (*DynamicClient)(nil)
	_ clienttesting.FakeClient = (*DynamicClient)(nil)
)

// NewSimpleDynamicClient returns a DynamicClient on a new [Server] holding
// objs, in place of dynamicfake.NewSimpleDynamicClient(scheme, objs...).
// scheme gives the kinds of typed objs (they are converted to unstructured
// first, as there). Unlike client-go's fake, List works for every resource
// the server serves, not only those whose list kind is in scheme.
func NewSimpleDynamicClient(tb testing.TB, scheme *runtime.Scheme, objs ...runtime.Object) *DynamicClient {
	tb.Helper()
	return NewServer(tb, fakeapiserver.Config{}).NewSimpleDynamicClient(tb, scheme, objs...)
}

// NewSimpleDynamicClientWithCustomListKinds is
// dynamicfake.NewSimpleDynamicClientWithCustomListKinds on a new [Server]:
// gvrToListKind names the list kinds of resources scheme does not have
// (and, as there, registers them in scheme).
func NewSimpleDynamicClientWithCustomListKinds(tb testing.TB, scheme *runtime.Scheme, gvrToListKind map[schema.GroupVersionResource]string, objs ...runtime.Object) *DynamicClient {
	tb.Helper()
	return NewServer(tb, fakeapiserver.Config{}).NewSimpleDynamicClientWithCustomListKinds(tb, scheme, gvrToListKind, objs...)
}

// NewSimpleDynamicClient is the package's [NewSimpleDynamicClient] on s.
func (s *Server) NewSimpleDynamicClient(tb testing.TB, scheme *runtime.Scheme, objs ...runtime.Object) *DynamicClient {
	tb.Helper()
	// As dynamicfake.NewSimpleDynamicClient: an unstructured scheme with
	// every kind of scheme, so scheme itself is left as it was.
	us := runtime.NewScheme()
	for gvk := range scheme.AllKnownTypes() {
		if strings.HasSuffix(gvk.Kind, "List") {
			us.AddKnownTypeWithName(gvk, &unstructured.UnstructuredList{})
			continue
		}
		us.AddKnownTypeWithName(gvk, &unstructured.Unstructured{})
	}
	return s.NewSimpleDynamicClientWithCustomListKinds(tb, us, nil, s.mustUnstructured(tb, scheme, objs)...)
}

// NewSimpleDynamicClientWithCustomListKinds is the package's
// [NewSimpleDynamicClientWithCustomListKinds] on s.
func (s *Server) NewSimpleDynamicClientWithCustomListKinds(tb testing.TB, scheme *runtime.Scheme, gvrToListKind map[schema.GroupVersionResource]string, objs ...runtime.Object) *DynamicClient {
	tb.Helper()
	dc, err := s.newDynamicClient(scheme, gvrToListKind, s.mustUnstructured(tb, scheme, objs))
	if err != nil {
		tb.Fatalf("fakeclientset: %v", err)
	}
	return dc
}

// newDynamicClient builds client-go's fake dynamic client with the
// server's list kinds, swaps its tracker reactors for the forwarder and
// seeds objs.
func (s *Server) newDynamicClient(scheme *runtime.Scheme, gvrToListKind map[schema.GroupVersionResource]string, objs []runtime.Object) (*DynamicClient, error) {
	codec, err := newUnstructuredCodec(s)
	if err != nil {
		return nil, err
	}
	listKinds, err := s.listKinds(gvrToListKind)
	if err != nil {
		return nil, err
	}
	dc := &DynamicClient{FakeDynamicClient: dynamicfake.NewSimpleDynamicClientWithCustomListKinds(scheme, listKinds), srv: s}
	(&forwarder{srv: s, codec: codec}).install(&dc.Fake)
	dc.tracker = &tracker{srv: s, codec: codec}
	if err := dc.tracker.seed(objs); err != nil {
		return nil, err
	}
	return dc, nil
}

// listKinds is every served resource's list kind (KIND + "List"), then
// custom's entries over them.
func (s *Server) listKinds(custom map[schema.GroupVersionResource]string) (map[schema.GroupVersionResource]string, error) {
	res, err := s.resources()
	if err != nil {
		return nil, err
	}
	out := map[schema.GroupVersionResource]string{}
	for _, l := range res.lists {
		gv, err := schema.ParseGroupVersion(l.GroupVersion)
		if err != nil {
			return nil, fmt.Errorf("discovery: %w", err)
		}
		for _, r := range l.APIResources {
			if !strings.Contains(r.Name, "/") {
				out[gv.WithResource(r.Name)] = r.Kind + "List"
			}
		}
	}
	for gvr, k := range custom {
		out[gvr] = k
	}
	return out, nil
}

// mustUnstructured converts typed objs to unstructured with scheme's kinds,
// as dynamicfake does before its tracker sees them.
func (s *Server) mustUnstructured(tb testing.TB, scheme *runtime.Scheme, objs []runtime.Object) []runtime.Object {
	tb.Helper()
	out := make([]runtime.Object, 0, len(objs))
	for _, obj := range objs {
		u, err := toUnstructured(scheme, obj)
		if err != nil {
			tb.Fatalf("fakeclientset: %v", err)
		}
		out = append(out, u)
	}
	return out
}

// toUnstructured converts obj, naming its kind from scheme when it does
// not name one itself (dynamic/fake/simple.go convertToUnstructured).
func toUnstructured(scheme *runtime.Scheme, obj runtime.Object) (runtime.Object, error) {
	if u, ok := obj.(*unstructured.Unstructured); ok {
		return u, nil
	}
	content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return nil, fmt.Errorf("convert %T to unstructured: %w", obj, err)
	}
	u := &unstructured.Unstructured{Object: content}
	if gvk := u.GroupVersionKind(); gvk.Kind == "" || gvk.Version == "" {
		gvks, _, err := scheme.ObjectKinds(obj)
		if err != nil {
			return nil, fmt.Errorf("kind of %T: %w", obj, err)
		}
		u.SetGroupVersionKind(gvks[0])
	}
	return u, nil
}

// Tracker returns the server-backed ObjectTracker (see
// [Clientset.Tracker]); it answers with unstructured objects.
func (c *DynamicClient) Tracker() clienttesting.ObjectTracker { return c.tracker }

// Server is the server this client talks to.
func (c *DynamicClient) Server() *Server { return c.srv }

// IsWatchListSemanticsUnSupported is false unless DisableWatchList was
// called (see [Clientset.IsWatchListSemanticsUnSupported]).
func (c *DynamicClient) IsWatchListSemanticsUnSupported() bool { return c.noWatchList.Load() }

// DisableWatchList makes informers built from now on list, then watch.
func (c *DynamicClient) DisableWatchList() { c.noWatchList.Store(true) }
