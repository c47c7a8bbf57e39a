// Package crfake replaces controller-runtime's fake client
// (sigs.k8s.io/controller-runtime/pkg/client/fake) in tests with
// controller-runtime's real client on lw-sim's fake API server: switching
// is one line, the builder chain unchanged,
//
//	c := fake.NewClientBuilder().WithScheme(s).WithObjects(objs...).Build()     // before
//	c := crfake.NewClientBuilder(t).WithScheme(s).WithObjects(objs...).Build()  // after
//
// (or the import path alone, where no t is at hand: package
// [github.com/lw-sim/lw-sim/fakeclientset/crfake/fake]).
//
// # How it works
//
// Build returns controller-runtime's own client.WithWatch
// (client.NewWithWatch) on a [fakeclientset.Server]: an lw-sim server on an
// in-process pipe, closed by t.Cleanup. Every Get, List, Create, Update,
// Patch (merge, JSON, strategic merge, apply), Apply, Delete, DeleteAllOf,
// Watch and subresource call is the real request, answered as
// kube-apiserver v1.37.2 answers it: validation and defaults,
// resourceVersions with 409 Conflicts, generation, server-side apply with
// managed fields, status subresources, finalizers and graceful deletion,
// watches from a resourceVersion. Seeded objects are created through the
// server as fakeclientset seeds them (namespaces first, status kept).
// Inside a testing/synctest bubble the server runs on the bubble's clock.
//
// # What each builder option means here
//
//   - WithObjects, WithLists, WithRuntimeObjects: seeded through the
//     server, in that order.
//   - WithScheme: the client's scheme; kinds of it in groups the server
//     does not serve get a generated CRD (any schema; see Build).
//   - WithStatusSubresource: built-in kinds always have their real status
//     subresource; for a generated CRD it adds one.
//   - WithInterceptorFuncs: controller-runtime's interceptor.NewClient.
//   - WithIndex, AddIndex: evaluated in the client, as a manager's cache
//     evaluates them; other field selectors are the server's.
//   - WithObjectTracker: only a fakeclientset client's tracker, which
//     shares its server; WithServer shares a server directly.
//   - WithReturnManagedFields: kept; without it they are cleared from
//     returned objects, as controller-runtime's fake clears them.
//   - WithTypeConverters, WithGlobalResourceVersionCounter: no effect (the
//     server's schemas; the server's one counter).
//   - WithRESTMapper: scopes of generated CRDs; the client's mapper is the
//     server's discovery.
//   - WithCRDs, WithServer: lw-sim's additions.
//
// # What still differs from controller-runtime's fake
//
// What differs is what a cluster does; a test that relied on the fake's
// leniency fails as it would against a cluster:
//
//   - Objects are validated and defaulted (a Pod needs containers: 422; a
//     Deployment gets its strategy, a Pod its restartPolicy).
//   - A namespaced object can only be created in a namespace that exists
//     (404); seeded objects get theirs.
//   - The server owns uid, creationTimestamp, resourceVersion (one global
//     counter, not "999" then "1000" per object), generation and
//     managedFields; an Update or a Patch with a stale resourceVersion is
//     409; an Update of a missing object is 404 (no create on update
//     except where the server allows it).
//   - Status subresources are always on for built-in kinds: an Update
//     never writes status, Status().Update never writes the rest.
//   - Field selectors are the server's (metadata.name, metadata.namespace
//     and each kind's few) unless indexed in the client; any other field
//     is the server's 400.
//   - Kinds the server does not serve (client-go's scheme has betas and
//     alphas kube-apiserver serves only when asked; groups without a dot
//     cannot have a CRD) are the server's 404 / no-match errors.
//   - Watch events are the server's (a delete of a pod is MODIFIED with a
//     deletionTimestamp, then DELETED) and keep managedFields.
package crfake
