// Package fakeclientset replaces client-go's fake clientset
// (k8s.io/client-go/kubernetes/fake), fake dynamic client
// (k8s.io/client-go/dynamic/fake) and fake metadata client
// (k8s.io/client-go/metadata/fake) in tests with clients that behave like
// a cluster: switching is one line,
//
//	cs := fake.NewSimpleClientset(objs...)             // before
//	cs := fakeclientset.NewClientset(t, objs...)       // after
//
// (or, where no testing.TB is at hand or code stores a *fake.Clientset, the
// import path alone: see package [github.com/lw-sim/lw-sim/fakeclientset/fake]).
//
// # How it works
//
// A [Clientset] is client-go's own fake clientset, so every typed getter,
// the generated fake clients, Actions, ClearActions and the reactor chains
// (PrependReactor, AddReactor, PrependWatchReactor, AddWatchReactor,
// PrependProxyReactor, AddProxyReactor) are client-go's, with its
// semantics: each call is recorded exactly as client-go records it, then
// the reactors see it in order and the first that handles it answers. Only
// the object tracker at the end of the chains is replaced: an action no
// reactor handles becomes the request the real clientset sends for that
// call (Get, List, Create, Update, Patch and Apply, Delete,
// DeleteCollection, Watch; subresources such as status, scale, eviction,
// binding, token, ephemeralcontainers, a namespace's finalize; ProxyGet),
// sent to lw-sim's fake API server ([github.com/lw-sim/lw-sim/fakeapiserver])
// over an in-process pipe, and the server's answer comes back decoded as
// the fake's callers expect it. The server is kube-apiserver v1.37.2 as far
// as lw-sim goes: validation and defaults, resourceVersions, paging,
// WATCH from a resourceVersion with history, 410 Gone, bookmarks,
// WatchList, server-side apply with managed fields, finalizers and graceful
// pod deletion.
//
// Reactor errors reach the caller unchanged, as with client-go's fake; a
// server error is the *apierrors.StatusError the real clientset returns. A
// failed watch is the server's error too (client-go's fake turns a
// tracker's watch error into "unhandled watch").
//
// Seeded objects go through the server's create path after their
// namespaces (see [Server.Clientset]); [Clientset.Tracker] is backed by the
// server; Discovery is client-go's fake discovery filled with the server's
// resources and version. [Server.RESTConfig] serves generated clientsets
// of CRDs and controller-runtime clients on the same server ([Server.Seed]
// seeds for them), and one [Server] can back a typed, a dynamic and a
// metadata client at once. Package
// [github.com/lw-sim/lw-sim/fakeclientset/crfake] replaces
// controller-runtime's fake client the same way.
//
// A [Server] blocks durably on its pipe, so it runs inside testing/synctest
// bubbles: watch timeouts, bookmarks, informer resyncs and backoffs run on
// the bubble's clock. tb.Cleanup closes it, and no goroutine of the server
// or of its clients' transport outlives the test.
//
// # What still differs from client-go's fake
//
// Everything that differs is what a cluster does; tests that relied on the
// fake's leniency fail as they would against a cluster:
//
//   - Objects are validated: a Pod needs containers, names must be DNS
//     labels, and so on (422 Invalid).
//   - A namespaced object can only be created in a namespace that exists
//     (404 NotFound); seeded objects get theirs created, later creates do
//     not.
//   - The server owns uid, creationTimestamp, resourceVersion, generation
//     and managedFields: seeded values of these are replaced, updates with a
//     stale resourceVersion are 409 Conflict, deleting a missing object is
//     404.
//   - A seeded deletionTimestamp is kept only where the server would keep
//     the object marked (finalizers, a scheduled running pod).
//   - Only what kube-apiserver serves by default is served (no beta or
//     alpha group-versions unless the server's Config asks for them).
//   - Discovery lists the server's resources as they were when first read
//     (for the zero Config: the built-in ones; a CRD is not in it).
//   - Pods' logs are client-go's fake answer ("fake logs"): there is no
//     kubelet. ProxyGet gets the server's answer for a pod it cannot reach.
//   - The embedded *fake.Clientset (cs.Clientset), for code that stores
//     one, shares the chains and getters but keeps client-go's Tracker (not
//     connected to the server) and reports WatchList unsupported.
//   - A reactor that changes the action's object and passes it on
//     (handled false) changes what the server receives: one that stamps a
//     resourceVersion on a create, as tests emulating versions do, gets the
//     server's 500 "resourceVersion should not be set on objects to be
//     created".
//   - Nodes get the not-ready taint on create (the TaintNodesByCondition
//     admission plugin); services get a cluster IP.
//   - Reactors run under the fake's lock (as in client-go), and the server
//     answers within it, so requests of one clientset are serialised.
package fakeclientset
