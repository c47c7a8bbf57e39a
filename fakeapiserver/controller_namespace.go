package fakeapiserver

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/lw-sim/lw-sim/fakeapiserver/store"
)

// The namespace controller (Config.Controllers: ControllerNamespace),
// kube-controller-manager's pkg/controller/namespace with its deleter
// (deletion/namespaced_resources_deleter.go Delete), as a level-triggered
// pass after any write. For each namespace being deleted that still has
// the "kubernetes" finalizer in spec.finalizers:
//
//  1. delete its pods (a deletecollection, background propagation); while
//     any remain (a graceful pod on a node waits for a kubelet), record the
//     conditions and stop there;
//  2. delete the content of every other namespaced resource the same way;
//  3. record the five deletion conditions in the namespace's status
//     (status_condition_utils.go: what remains, and which finalizers hold
//     it, or the success reasons);
//  4. once nothing remains, finalize: PUT namespaces/NAME/finalize without
//     "kubernetes", after which the namespace goes when no metadata
//     finalizer holds it.
//
// Resources are taken one per store partition (events and events.k8s.io
// Events are one), where the real deleter takes every preferred
// group-version: a message naming remaining events would name them once
// here, twice there.

// namespaceUserAgent is the real controller's User-Agent.
const namespaceUserAgent = "kube-controller-manager/" + kubeGitVersion + " (linux/amd64) kubernetes/lwsim/system:serviceaccount:kube-system:namespace-controller"

// namespaceContent is what a pass found left in a namespace: items per
// resource ("configmaps." as the deleter names it: resource.group) and per
// finalizer.
type namespaceContent struct {
	remaining  map[string]int
	finalizers map[string]int
	// errs are the resources whose content failed to go.
	errs []error
}

// reconcileNamespaceDeletion runs one pass over the namespaces being
// deleted.
func (s *Server) reconcileNamespaceDeletion(ctx context.Context, now time.Time) time.Time {
	for _, ns := range s.storedNamespaces() {
		if ns.DeletionTimestamp == nil || !slices.Contains(ns.Spec.Finalizers, corev1.FinalizerKubernetes) {
			continue
		}
		if err := s.deleteNamespaceContent(ctx, ns, now); err != nil {
			s.cfg.Logger.Warn("fakeapiserver: namespace controller", "namespace", ns.Name, "err", err)
		}
	}
	return time.Time{}
}

// deleteNamespaceContent is one pass of the deleter over ns. A resource
// whose content fails to go does not stop the others: the failure is the
// NamespaceDeletionContentFailure condition (deleteAllContent's errs),
// and the namespace is not finalized while any failed or remains.
func (s *Server) deleteNamespaceContent(ctx context.Context, ns *corev1.Namespace, now time.Time) error {
	content := namespaceContent{remaining: map[string]int{}, finalizers: map[string]int{}}
	resources := s.namespacedStored()
	isPods := func(res *resourceInfo) bool { return res.gvr.Group == "" && res.gvr.Resource == "pods" }
	// Pods first: their deletion may free what holds other content.
	for _, res := range resources {
		if isPods(res) {
			content.collect(s.deleteNamespaced(ctx, res, ns.Name, &content))
		}
	}
	if len(content.remaining) == 0 {
		for _, res := range resources {
			if !isPods(res) {
				content.collect(s.deleteNamespaced(ctx, res, ns.Name, &content))
			}
		}
	}
	if err := s.updateNamespaceConditions(ctx, ns.Name, content, now); err != nil {
		return err
	}
	if len(content.remaining) > 0 || len(content.errs) > 0 {
		return nil
	}
	return s.finalizeNamespace(ctx, ns.Name)
}

// collect keeps a resource's deletion error.
func (c *namespaceContent) collect(err error) {
	if err != nil {
		c.errs = append(c.errs, err)
	}
}

// namespacedStored are the namespaced resources with stored objects, one
// per store partition.
func (s *Server) namespacedStored() []*resourceInfo {
	var out []*resourceInfo
	for _, res := range s.resources.stored() {
		if !res.ClusterScoped && slices.Contains(res.verbs, "delete") {
			out = append(out, res)
		}
	}
	return out
}

// deleteNamespaced deletes res's objects in ns (a deletecollection, or
// each item where the resource serves no deletecollection) and counts what
// is left into content.
func (s *Server) deleteNamespaced(ctx context.Context, res *resourceInfo, ns string, content *namespaceContent) error {
	items, err := s.store.List(res.storageKey, store.ListOptions{Prefix: ns + "/"})
	if err != nil {
		return err
	}
	if len(items.Items) == 0 {
		return nil
	}
	background := metav1.DeletePropagationBackground
	opts := &metav1.DeleteOptions{TypeMeta: metav1.TypeMeta{Kind: "DeleteOptions", APIVersion: "v1"}, PropagationPolicy: &background}
	path := bootstrapObject{gvr: res.gvr, namespace: ns}.path()
	if slices.Contains(res.verbs, "deletecollection") {
		if _, err := s.loopback(ctx, loopbackRequest{method: http.MethodDelete, path: path, body: opts, userAgent: namespaceUserAgent}); err != nil {
			return fmt.Errorf("delete %s in %s: %w", res.gvr.Resource, ns, err)
		}
	} else {
		for _, it := range items.Items {
			_, _ = s.loopback(ctx, loopbackRequest{method: http.MethodDelete, path: path + "/" + mustAccessor(it).GetName(), body: opts, userAgent: namespaceUserAgent})
		}
	}
	left, err := s.store.List(res.storageKey, store.ListOptions{Prefix: ns + "/"})
	if err != nil {
		return err
	}
	if n := len(left.Items); n > 0 {
		content.remaining[res.gvr.Resource+"."+res.gvr.Group] += n
		for _, it := range left.Items {
			for _, f := range mustAccessor(it).GetFinalizers() {
				content.finalizers[f]++
			}
		}
	}
	return nil
}

// namespaceConditionTypes are the deletion conditions, in the order the
// deleter writes them (status_condition_utils.go conditionTypes), with
// the reason and message each has when nothing is wrong.
var namespaceConditionTypes = []struct {
	typ             corev1.NamespaceConditionType
	reason, message string
}{
	{corev1.NamespaceDeletionDiscoveryFailure, "ResourcesDiscovered", "All resources successfully discovered"},
	{corev1.NamespaceDeletionGVParsingFailure, "ParsedGroupVersions", "All legacy kube types successfully parsed"},
	{corev1.NamespaceDeletionContentFailure, "ContentDeleted", "All content successfully deleted, may be waiting on finalization"},
	{corev1.NamespaceContentRemaining, "ContentRemoved", "All content successfully removed"},
	{corev1.NamespaceFinalizersRemaining, "ContentHasNoFinalizers", "All content-preserving finalizers finished"},
}

// updateNamespaceConditions writes the deletion conditions content calls
// for into the namespace's status (UpdateStatus), when they changed; a
// condition's lastTransitionTime moves only when its status does
// (updateConditions). A conflict is retried on the namespace as it is now
// (the deleter's retryOnConflictError).
func (s *Server) updateNamespaceConditions(ctx context.Context, name string, content namespaceContent, now time.Time) error {
	return s.retryNamespace(name, func(ns *corev1.Namespace) error {
		next, changed := withNamespaceConditions(ns, content, now)
		if !changed {
			return nil
		}
		_, err := s.loopback(ctx, loopbackRequest{method: http.MethodPut, path: bootstrapObject{gvr: namespacesGVR}.path() + "/" + name + "/status",
			body: next, userAgent: namespaceUserAgent})
		return err
	})
}

// retryNamespace runs write on the namespace name as stored, again while it
// conflicts with a concurrent write; a namespace that is gone ends it.
func (s *Server) retryNamespace(name string, write func(*corev1.Namespace) error) error {
	nsRes := s.namespaces()
	for {
		obj, err := s.store.Get(nsRes.storageKey, objectKey(nsRes, "", name), 0)
		if err != nil {
			return nil // gone
		}
		ns, ok := obj.(*corev1.Namespace)
		if !ok {
			return nil
		}
		if err := write(ns); !apierrors.IsConflict(err) {
			return err
		}
	}
}

// withNamespaceConditions is ns with the deletion conditions content calls
// for, and whether they changed.
func withNamespaceConditions(ns *corev1.Namespace, content namespaceContent, now time.Time) (*corev1.Namespace, bool) {
	next := ns.DeepCopy()
	changed := false
	for _, ct := range namespaceConditionTypes {
		want := corev1.NamespaceCondition{Type: ct.typ, Status: corev1.ConditionFalse, Reason: ct.reason, Message: ct.message,
			LastTransitionTime: metav1.NewTime(now.UTC().Truncate(time.Second))}
		switch {
		case ct.typ == corev1.NamespaceDeletionContentFailure && len(content.errs) > 0:
			msgs := make([]string, len(content.errs))
			for i, err := range content.errs {
				msgs[i] = err.Error()
			}
			sort.Strings(msgs)
			want.Status, want.Reason = corev1.ConditionTrue, "ContentDeletionFailed"
			want.Message = fmt.Sprintf("Failed to delete all resource types, %d remaining: %v", len(msgs), strings.Join(msgs, ", "))
		case ct.typ == corev1.NamespaceContentRemaining && len(content.remaining) > 0:
			want.Status, want.Reason = corev1.ConditionTrue, "SomeResourcesRemain"
			want.Message = "Some resources are remaining: " + countList(content.remaining, "%s has %d resource instances")
		case ct.typ == corev1.NamespaceFinalizersRemaining && len(content.finalizers) > 0:
			want.Status, want.Reason = corev1.ConditionTrue, "SomeFinalizersRemain"
			want.Message = "Some content in the namespace has finalizers remaining: " + countList(content.finalizers, "%s in %d resource instances")
		}
		i := slices.IndexFunc(next.Status.Conditions, func(c corev1.NamespaceCondition) bool { return c.Type == ct.typ })
		if i < 0 {
			next.Status.Conditions = append(next.Status.Conditions, want)
			changed = true
			continue
		}
		old := &next.Status.Conditions[i]
		if old.Status == want.Status && old.Reason == want.Reason && old.Message == want.Message {
			continue
		}
		if old.Status != want.Status {
			old.LastTransitionTime = want.LastTransitionTime
		}
		old.Status, old.Reason, old.Message = want.Status, want.Reason, want.Message
		changed = true
	}
	return next, changed
}

// countList is counts as the deleter lists them: each "name count" in
// format, sorted, joined with ", ".
func countList(counts map[string]int, format string) string {
	var parts []string
	for k, n := range counts {
		parts = append(parts, fmt.Sprintf(format, k, n))
	}
	sort.Strings(parts)
	return strings.Join(parts, ", ")
}

// finalizeNamespace removes "kubernetes" from the namespace's
// spec.finalizers through the finalize subresource (the deleter's
// finalizeNamespace: the others kept, sorted), again on a conflict.
func (s *Server) finalizeNamespace(ctx context.Context, name string) error {
	return s.retryNamespace(name, func(ns *corev1.Namespace) error {
		next := ns.DeepCopy()
		var keep []corev1.FinalizerName
		for _, f := range ns.Spec.Finalizers {
			if f != corev1.FinalizerKubernetes && !slices.Contains(keep, f) {
				keep = append(keep, f)
			}
		}
		slices.Sort(keep)
		next.Spec.Finalizers = keep
		if next.Spec.Finalizers == nil {
			next.Spec.Finalizers = []corev1.FinalizerName{}
		}
		_, err := s.loopback(ctx, loopbackRequest{method: http.MethodPut, path: bootstrapObject{gvr: namespacesGVR}.path() + "/" + name + "/finalize",
			body: next, userAgent: namespaceUserAgent})
		return err
	})
}
