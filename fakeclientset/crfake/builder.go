package crfake

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	apiruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	clienttesting "k8s.io/client-go/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/lw-sim/lw-sim/fakeapiserver"
	"github.com/lw-sim/lw-sim/fakeclientset"
)

// TB is what the builder needs of a test: *testing.T, *testing.B,
// testing.TB and Ginkgo's GinkgoT() have it. Cleanup closes the server;
// Fatalf reports a client that cannot be built.
type TB interface {
	Helper()
	Cleanup(func())
	Errorf(format string, args ...any)
	Fatalf(format string, args ...any)
}

// ClientBuilder builds a controller-runtime client on an lw-sim server,
// with the method set of controller-runtime's fake.ClientBuilder
// (sigs.k8s.io/controller-runtime/pkg/client/fake/client.go), so a chain
// written for that builder compiles unchanged. Each option's meaning on a
// real server is in its doc comment. A builder builds once.
type ClientBuilder struct {
	tb          TB
	srv         *fakeclientset.Server
	scheme      *apiruntime.Scheme
	restMapper  meta.RESTMapper
	objects     []client.Object
	lists       []client.ObjectList
	runtimeObjs []apiruntime.Object
	statusOf    []client.Object
	crds        []*apiextensionsv1.CustomResourceDefinition
	interceptor *interceptor.Funcs
	indexes     indexes
	// tracker and converters are only checked, as controller-runtime
	// checks them (WithObjectTracker).
	tracker             clienttesting.ObjectTracker
	converters          int
	returnManagedFields bool
	built               bool
}

// NewClientBuilder returns a builder of a client on a new lw-sim server,
// in place of controller-runtime's fake.NewClientBuilder(). tb.Cleanup
// closes the server: every watch ends and no goroutine of the server or of
// the client's transport is left. With a nil tb (what package
// [github.com/lw-sim/lw-sim/fakeclientset/crfake/fake] does) Build panics
// where it would fail the test, and the server is closed when the client
// is garbage collected.
func NewClientBuilder(tb TB) *ClientBuilder {
	if tb != nil {
		tb.Helper()
	}
	return &ClientBuilder{tb: tb, indexes: indexes{mu: &sync.RWMutex{}}}
}

// NewFakeClient is controller-runtime's fake.NewFakeClient(objs...): a
// client on a new server holding objs.
func NewFakeClient(tb TB, objs ...apiruntime.Object) client.WithWatch {
	if tb != nil {
		tb.Helper()
	}
	return NewClientBuilder(tb).WithRuntimeObjects(objs...).Build()
}

// WithScheme sets the client's scheme (default: client-go's). Its kinds in
// groups the server does not serve get CRDs (see [ClientBuilder.Build]).
func (b *ClientBuilder) WithScheme(s *apiruntime.Scheme) *ClientBuilder {
	b.scheme = s
	return b
}

// WithRESTMapper gives the scope (namespaced or cluster) of kinds that get
// a generated CRD. The client's own mapper is always the server's
// discovery, as a real client's is: a static mapper could not know what
// the server serves.
func (b *ClientBuilder) WithRESTMapper(m meta.RESTMapper) *ClientBuilder {
	b.restMapper = m
	return b
}

// WithObjects seeds objs through the server (see [ClientBuilder.Build]).
func (b *ClientBuilder) WithObjects(objs ...client.Object) *ClientBuilder {
	b.objects = append(b.objects, objs...)
	return b
}

// WithLists seeds the items of lists, after the objects of WithObjects.
func (b *ClientBuilder) WithLists(lists ...client.ObjectList) *ClientBuilder {
	b.lists = append(b.lists, lists...)
	return b
}

// WithRuntimeObjects seeds objs (lists seed their items), after the lists.
func (b *ClientBuilder) WithRuntimeObjects(objs ...apiruntime.Object) *ClientBuilder {
	b.runtimeObjs = append(b.runtimeObjs, objs...)
	return b
}

// WithObjectTracker shares a server: a tracker of a fakeclientset client
// (cs.Tracker() of [fakeclientset.Clientset], DynamicClient,
// MetadataClient) puts this client on that client's server, so the two see
// each other's writes, which is what sharing a tracker does in
// controller-runtime's fake. Any other tracker fails Build: the server is
// the store.
func (b *ClientBuilder) WithObjectTracker(ot clienttesting.ObjectTracker) *ClientBuilder {
	b.tracker = ot
	return b
}

// WithGlobalResourceVersionCounter does nothing: resourceVersions are the
// server's, one global counter, as on every cluster.
func (b *ClientBuilder) WithGlobalResourceVersionCounter() *ClientBuilder { return b }

// WithIndex registers a field index as the informer cache of a manager's
// client has one: List with a field selector on field (an exact match)
// lists from the server and keeps the objects whose extractValue has the
// value. Fields the index does not name go to the server, which serves
// only its own field selectors (metadata.name, metadata.namespace and each
// kind's few; any other is its 400 BadRequest). It panics, as
// controller-runtime's does, if field is indexed twice for obj's kind.
func (b *ClientBuilder) WithIndex(obj apiruntime.Object, field string, extractValue client.IndexerFunc) *ClientBuilder {
	gvk, err := apiutil.GVKForObject(obj, b.kinds())
	if err != nil {
		panic(err)
	}
	if err := b.indexes.add(gvk, field, extractValue); err != nil {
		panic(err)
	}
	return b
}

// WithStatusSubresource gives the generated CRD of each obj's kind a
// status subresource. Built-in kinds need it not: the server has the real
// status subresources (a Pod, Deployment or Node update ignores status, a
// status update ignores the rest), named here or not; a CRD given with
// WithCRDs has the subresources it declares.
func (b *ClientBuilder) WithStatusSubresource(objs ...client.Object) *ClientBuilder {
	b.statusOf = append(b.statusOf, objs...)
	return b
}

// WithInterceptorFuncs wraps the client with controller-runtime's
// interceptor.NewClient(c, funcs), as controller-runtime's builder does:
// a func set there runs instead of the request, and the client it is given
// sends the request to the server.
func (b *ClientBuilder) WithInterceptorFuncs(funcs interceptor.Funcs) *ClientBuilder {
	b.interceptor = &funcs
	return b
}

// WithTypeConverters is accepted and has no effect: the server merges
// server-side apply with its own schemas (the built-in kinds' OpenAPI, a
// CRD's schema), as a cluster does. As with controller-runtime's builder,
// Build panics if WithObjectTracker is set too.
func (b *ClientBuilder) WithTypeConverters(tc ...managedfields.TypeConverter) *ClientBuilder {
	b.converters += len(tc)
	return b
}

// WithReturnManagedFields keeps metadata.managedFields in the objects the
// client returns. Without it they are cleared from what Get, List, Create,
// Update, Patch and the subresource calls write back, as controller-runtime's
// fake clears them (the server keeps and returns them either way; watch
// events carry them).
func (b *ClientBuilder) WithReturnManagedFields() *ClientBuilder {
	b.returnManagedFields = true
	return b
}

// WithServer builds the client on srv instead of a new server (lw-sim's
// addition): a fakeclientset Clientset, dynamic and metadata clients and
// this client then share one store; srv's owner closes it.
func (b *ClientBuilder) WithServer(srv *fakeclientset.Server) *ClientBuilder {
	b.srv = srv
	return b
}

// WithCRDs creates crds on the server before anything is seeded (lw-sim's
// addition): a kind of the scheme that one of them serves gets it, with
// its schema, scope and subresources, instead of a generated CRD.
func (b *ClientBuilder) WithCRDs(crds ...*apiextensionsv1.CustomResourceDefinition) *ClientBuilder {
	b.crds = append(b.crds, crds...)
	return b
}

// Build starts the server (or takes the shared one) and returns
// controller-runtime's own client (client.NewWithWatch) on it, every call a
// real request:
//
//  1. The CRDs of WithCRDs are created, then a generated CRD for each kind
//     of the scheme in a group the server does not serve (see crds.go):
//     any schema, namespaced unless WithRESTMapper or the seeded objects
//     say otherwise, a status subresource if WithStatusSubresource names
//     it.
//  2. The objects of WithObjects, WithLists and WithRuntimeObjects are
//     created through the server in that order, as fakeclientset seeds
//     ([fakeclientset.Server.Seed]): their namespaces first, their status
//     through the status subresource; what the server owns (uid,
//     resourceVersion, creationTimestamp, generation, managedFields) is
//     the server's.
//  3. The client is wrapped for WithIndex and WithReturnManagedFields,
//     then with the interceptor of WithInterceptorFuncs.
//
// Build fails the test (panics, with a nil TB) if a step fails: an object
// the server refuses is the server's error, as on a cluster. It panics if
// called twice, as controller-runtime's does.
func (b *ClientBuilder) Build() client.WithWatch {
	if b.tb != nil {
		b.tb.Helper()
	}
	if b.built {
		panic("Build() must not be called multiple times when creating a ClientBuilder")
	}
	b.built = true
	if b.tracker != nil && b.converters > 0 {
		panic(errors.New("WithObjectTracker and WithTypeConverters are incompatible"))
	}
	c, err := b.build()
	if err != nil {
		if b.tb != nil {
			b.tb.Fatalf("crfake: %v", err)
			return nil
		}
		panic(fmt.Errorf("crfake: %w", err))
	}
	return c
}

// build does Build's steps and hands the server it started to its owner:
// the test's Cleanup, or the client's garbage collection.
func (b *ClientBuilder) build() (client.WithWatch, error) {
	srv, owned, err := b.server()
	if err != nil {
		return nil, err
	}
	c, err := b.buildOn(srv)
	switch {
	case !owned:
	case b.tb != nil:
		tb := b.tb
		tb.Cleanup(func() {
			if err := srv.Close(); err != nil {
				tb.Errorf("crfake: %v", err)
			}
		})
	case err != nil:
		_ = srv.Close()
	default:
		// The server holds nothing of the client, so once the test drops
		// the client it is collected and the server closed.
		runtime.AddCleanup(c, func(s *fakeclientset.Server) { _ = s.Close() }, srv)
	}
	if err != nil {
		return nil, err
	}
	if b.interceptor != nil {
		return interceptor.NewClient(c, *b.interceptor), nil
	}
	return c, nil
}

// server is the server to build on, and whether build started it.
func (b *ClientBuilder) server() (*fakeclientset.Server, bool, error) {
	if b.tracker != nil {
		shared, ok := b.tracker.(interface{ Server() *fakeclientset.Server })
		if !ok {
			return nil, false, fmt.Errorf("WithObjectTracker(%T): only a fakeclientset client's Tracker() can be shared (the server is the store); use WithServer to share a server", b.tracker)
		}
		return shared.Server(), false, nil
	}
	if b.srv != nil {
		return b.srv, false, nil
	}
	srv, err := fakeclientset.New(fakeapiserver.Config{})
	return srv, true, err
}

// buildOn makes the client on srv and does steps 1 and 2 of Build.
func (b *ClientBuilder) buildOn(srv *fakeclientset.Server) (*Client, error) {
	kinds := b.kinds()
	inner, err := client.NewWithWatch(srv.RESTConfig(), client.Options{Scheme: kinds, HTTPClient: srv.HTTPClient()})
	if err != nil {
		return nil, fmt.Errorf("client: %w", err)
	}
	seeds := b.seeds()
	if err := b.installCRDs(context.Background(), inner, srv, seeds); err != nil {
		return nil, err
	}
	if err := srv.Seed(kinds, seeds...); err != nil {
		return nil, err
	}
	return newClient(inner, srv, b.indexes, b.returnManagedFields), nil
}

// seeds are the objects to seed, in controller-runtime's order.
func (b *ClientBuilder) seeds() []apiruntime.Object {
	out := make([]apiruntime.Object, 0, len(b.objects)+len(b.lists)+len(b.runtimeObjs))
	for _, o := range b.objects {
		out = append(out, o)
	}
	for _, l := range b.lists {
		out = append(out, l)
	}
	return append(out, b.runtimeObjs...)
}

// kinds is the builder's scheme, client-go's by default.
func (b *ClientBuilder) kinds() *apiruntime.Scheme {
	if b.scheme != nil {
		return b.scheme
	}
	return clientgoscheme.Scheme
}

// statusKinds are the group-kinds WithStatusSubresource named.
func (b *ClientBuilder) statusKinds() (map[schema.GroupKind]bool, error) {
	out := map[schema.GroupKind]bool{}
	for _, o := range b.statusOf {
		gvk, err := apiutil.GVKForObject(o, b.kinds())
		if err != nil {
			return nil, fmt.Errorf("WithStatusSubresource(%T): %w", o, err)
		}
		out[gvk.GroupKind()] = true
	}
	return out, nil
}
