package fakeapiserver

import (
	"context"
	"net/http"
	"slices"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/lw-sim/lw-sim/fakeapiserver/store"
)

// The garbage collector (Config.Controllers: ControllerGarbageCollector),
// kube-controller-manager's pkg/controller/garbagecollector reduced to a
// level-triggered pass over one snapshot of every stored object, run after
// any write. Each pass does what the real collector's workers do for each
// object of its dependency graph (garbagecollector.go):
//
//   - an owner being deleted with the "orphan" finalizer: its dependents
//     lose their references to it, then the finalizer goes
//     (orphanDependents, removeFinalizer);
//   - an owner being deleted with "foregroundDeletion": once none of its
//     dependents blocks it (blockOwnerDeletion), the finalizer goes
//     (processDeletingDependentsItem);
//   - any other object with owner references, not itself being deleted
//     (attemptToDeleteItem): references are solid (the owner exists with
//     that uid), dangling (not found, another uid) or waiting (the owner
//     is deleted in the foreground). With a solid owner, the dangling and
//     waiting references are removed; with none, the object is deleted:
//     in the foreground when an owner waits and it has dependents itself,
//     else with the propagation its own finalizers ask (background by
//     default).
//
// An owner reference whose kind no served resource has, or a cluster-scoped
// object's reference to a namespaced kind (which kube rejects as
// "cluster-scoped objects cannot refer to namespaced owners"), leaves the
// object alone, as the real collector does. A namespaced owner is looked up
// in the dependent's namespace only, so a reference across namespaces is
// dangling. Its writes go through the loopback client under the
// kube-controller-manager User-Agent, as the real collector's metadata
// client's, with uid (and resourceVersion) preconditions; one that
// conflicts with a concurrent write is retried by the pass that write
// wakes.

// gcUserAgent is the real collector's User-Agent (its field manager is
// "kube-controller-manager").
const gcUserAgent = "kube-controller-manager/" + kubeGitVersion + " (linux/amd64) kubernetes/lwsim/system:serviceaccount:kube-system:generic-garbage-collector"

// gcNode is one stored object as the collector sees it.
type gcNode struct {
	res  *resourceInfo
	meta metav1.Object
	key  gcKey
}

// gcKey locates an object: its store partition, namespace and name.
type gcKey struct{ storageKey, namespace, name string }

// gcGraph is one pass's snapshot: every object, in key order, and each
// owner uid's dependents.
type gcGraph struct {
	nodes      []*gcNode
	byKey      map[gcKey]*gcNode
	dependents map[types.UID][]*gcNode
}

// reconcileGarbage runs one pass of the collector.
func (s *Server) reconcileGarbage(ctx context.Context, _ time.Time) time.Time {
	g, err := s.gcSnapshot()
	if err != nil {
		s.cfg.Logger.Warn("garbage collector: snapshot", "err", err)
		return time.Time{}
	}
	for _, n := range g.nodes {
		if err := s.gcItem(ctx, g, n); err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
			s.cfg.Logger.Warn("garbage collector", "object", n.key, "err", err)
		}
	}
	return time.Time{}
}

// gcSnapshot reads every stored object at one resourceVersion.
func (s *Server) gcSnapshot() (*gcGraph, error) {
	g := &gcGraph{byKey: map[gcKey]*gcNode{}, dependents: map[types.UID][]*gcNode{}}
	rv := s.store.CurrentRV()
	for _, res := range s.resources.stored() {
		page, err := s.store.List(res.storageKey, store.ListOptions{RV: rv})
		if err != nil {
			return nil, err
		}
		for _, obj := range page.Items {
			m := mustAccessor(obj)
			n := &gcNode{res: res, meta: m, key: gcKey{res.storageKey, m.GetNamespace(), m.GetName()}}
			g.nodes = append(g.nodes, n)
			g.byKey[n.key] = n
			for _, ref := range m.GetOwnerReferences() {
				g.dependents[ref.UID] = append(g.dependents[ref.UID], n)
			}
		}
	}
	return g, nil
}

// gcItem does what the collector's workers do for n.
func (s *Server) gcItem(ctx context.Context, g *gcGraph, n *gcNode) error {
	m := n.meta
	if m.GetDeletionTimestamp() != nil {
		switch {
		case slices.Contains(m.GetFinalizers(), metav1.FinalizerOrphanDependents):
			return s.gcOrphan(ctx, g, n)
		case slices.Contains(m.GetFinalizers(), metav1.FinalizerDeleteDependents):
			if len(g.blocking(n)) == 0 {
				return s.gcRemoveFinalizer(ctx, n, metav1.FinalizerDeleteDependents)
			}
		}
		return nil // being deleted: attemptToDeleteItem returns at once
	}
	refs := m.GetOwnerReferences()
	if len(refs) == 0 {
		return nil
	}
	var solid, dangling, waiting []metav1.OwnerReference
	for _, ref := range refs {
		owner, resolved := s.gcOwner(g, n, ref)
		switch {
		case !resolved:
			return nil // isDangling's error: the item waits, untouched
		case owner == nil:
			dangling = append(dangling, ref)
		case owner.meta.GetDeletionTimestamp() != nil && slices.Contains(owner.meta.GetFinalizers(), metav1.FinalizerDeleteDependents):
			waiting = append(waiting, ref)
		default:
			solid = append(solid, ref)
		}
	}
	switch {
	case len(solid) > 0:
		if len(dangling) == 0 && len(waiting) == 0 {
			return nil
		}
		return s.gcRemoveRefs(ctx, n, append(dangling, waiting...))
	case len(waiting) > 0 && len(g.dependents[m.GetUID()]) > 0:
		return s.gcDelete(ctx, n, metav1.DeletePropagationForeground)
	default:
		policy := metav1.DeletePropagationBackground
		switch {
		case slices.Contains(m.GetFinalizers(), metav1.FinalizerOrphanDependents):
			policy = metav1.DeletePropagationOrphan
		case slices.Contains(m.GetFinalizers(), metav1.FinalizerDeleteDependents):
			policy = metav1.DeletePropagationForeground
		}
		return s.gcDelete(ctx, n, policy)
	}
}

// gcOwner resolves ref of n, as isDangling does: the owner node, nil when
// it is absent (not found, or another object of that name: another uid), and
// resolved false when the reference cannot be resolved (a kind no served
// resource has; a cluster-scoped object referring to a namespaced kind).
func (s *Server) gcOwner(g *gcGraph, n *gcNode, ref metav1.OwnerReference) (owner *gcNode, resolved bool) {
	gv, err := schema.ParseGroupVersion(ref.APIVersion)
	if err != nil {
		return nil, false
	}
	res, ok := s.resources.lookupKind(gv.WithKind(ref.Kind))
	if !ok {
		return nil, false
	}
	ns := ""
	if !res.ClusterScoped {
		if n.meta.GetNamespace() == "" {
			return nil, false // namespacedOwnerOfClusterScopedObjectErr
		}
		ns = n.meta.GetNamespace()
	}
	o, ok := g.byKey[gcKey{res.storageKey, ns, ref.Name}]
	if !ok || o.meta.GetUID() != ref.UID {
		return nil, true
	}
	return o, true
}

// blocking are n's dependents whose reference to n has
// blockOwnerDeletion set (node.blockingDependents).
func (g *gcGraph) blocking(n *gcNode) []*gcNode {
	var out []*gcNode
	for _, d := range g.dependents[n.meta.GetUID()] {
		for _, ref := range d.meta.GetOwnerReferences() {
			if ref.UID == n.meta.GetUID() && ref.BlockOwnerDeletion != nil && *ref.BlockOwnerDeletion {
				out = append(out, d)
				break
			}
		}
	}
	return out
}

// gcOrphan removes n's uid from its dependents' owner references, then the
// orphan finalizer from n (GarbageCollector.orphanDependents).
func (s *Server) gcOrphan(ctx context.Context, g *gcGraph, n *gcNode) error {
	owner := metav1.OwnerReference{UID: n.meta.GetUID()}
	for _, d := range g.dependents[n.meta.GetUID()] {
		if err := s.gcRemoveRefs(ctx, d, []metav1.OwnerReference{owner}); err != nil && !apierrors.IsNotFound(err) {
			return err
		}
	}
	return s.gcRemoveFinalizer(ctx, n, metav1.FinalizerOrphanDependents)
}

// gcRemoveRefs removes the references to the uids of refs from n, with a
// JSON merge patch of its ownerReferences and uid (the collector's
// deleteOwnerRefJSONMergePatch; the uid makes it a precondition).
func (s *Server) gcRemoveRefs(ctx context.Context, n *gcNode, refs []metav1.OwnerReference) error {
	var keep []metav1.OwnerReference
	for _, ref := range n.meta.GetOwnerReferences() {
		if !slices.ContainsFunc(refs, func(r metav1.OwnerReference) bool { return r.UID == ref.UID }) {
			keep = append(keep, ref)
		}
	}
	if keep == nil {
		keep = []metav1.OwnerReference{}
	}
	return s.gcPatch(ctx, n, map[string]any{"metadata": map[string]any{"ownerReferences": keep, "uid": n.meta.GetUID()}})
}

// gcRemoveFinalizer removes finalizer from n, with a JSON merge patch of
// its finalizers at its resourceVersion (GarbageCollector.removeFinalizer).
func (s *Server) gcRemoveFinalizer(ctx context.Context, n *gcNode, finalizer string) error {
	keep := slices.DeleteFunc(slices.Clone(n.meta.GetFinalizers()), func(f string) bool { return f == finalizer })
	if keep == nil {
		keep = []string{}
	}
	return s.gcPatch(ctx, n, map[string]any{"metadata": map[string]any{"finalizers": keep, "resourceVersion": n.meta.GetResourceVersion()}})
}

// gcPatch sends a JSON merge patch of n.
func (s *Server) gcPatch(ctx context.Context, n *gcNode, patch map[string]any) error {
	_, err := s.loopback(ctx, loopbackRequest{method: http.MethodPatch, path: gcItemPath(n), body: patch,
		contentType: "application/merge-patch+json", userAgent: gcUserAgent})
	return err
}

// gcDelete deletes n with policy, preconditioned on its uid and
// resourceVersion (GarbageCollector.deleteObject).
func (s *Server) gcDelete(ctx context.Context, n *gcNode, policy metav1.DeletionPropagation) error {
	uid, rv := n.meta.GetUID(), n.meta.GetResourceVersion()
	opts := metav1.DeleteOptions{
		TypeMeta:          metav1.TypeMeta{Kind: "DeleteOptions", APIVersion: "v1"},
		Preconditions:     &metav1.Preconditions{UID: &uid, ResourceVersion: &rv},
		PropagationPolicy: &policy,
	}
	_, err := s.loopback(ctx, loopbackRequest{method: http.MethodDelete, path: gcItemPath(n), body: &opts, userAgent: gcUserAgent})
	return err
}

// gcItemPath is n's URL path at the version of its resource.
func gcItemPath(n *gcNode) string {
	return bootstrapObject{gvr: n.res.gvr, namespace: n.meta.GetNamespace()}.path() + "/" + n.meta.GetName()
}
