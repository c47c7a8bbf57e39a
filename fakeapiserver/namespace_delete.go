package fakeapiserver

import (
	"errors"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// namespaceGroupKind is core Namespaces, which terminate on delete.
var namespaceGroupKind = schema.GroupKind{Kind: "Namespace"}

// namespaceWrites is builtinWrites with the namespace REST's Delete.
type namespaceWrites struct{ builtinWrites }

// delete is the namespace REST's Delete
// (kubernetes pkg/registry/core/namespace/storage/storage.go): the first
// DELETE sets deletionTimestamp and phase Terminating (MODIFIED, 200 with
// the namespace). The namespace then stays Terminating, as on a
// kube-apiserver without the namespace controller, unless the server runs
// its own (Config.Controllers: controller_namespace.go), which deletes the
// content and clears spec.finalizers.
func (namespaceWrites) delete(s *Server, d deletion) (runtime.Object, bool, bool, error) {
	ns, ok := d.cur.(*corev1.Namespace)
	if !ok {
		return storeDelete{}.delete(s, d) // another version's type: the generic rule
	}
	return s.terminateNamespace(d.res, d.key, ns, d.curRV, d.dryRun())
}

// terminateNamespace marks ns Terminating (namespaceWrites.delete).
func (s *Server) terminateNamespace(res *resourceInfo, key string, ns *corev1.Namespace, curRV int64, dryRun bool) (runtime.Object, bool, bool, error) {
	switch ns.Name {
	case metav1.NamespaceDefault, metav1.NamespaceSystem, metav1.NamespacePublic:
		// The NamespaceLifecycle admission plugin's immortal namespaces.
		return nil, false, false, apierrors.NewForbidden(res.qualified(), ns.Name, errors.New("this namespace may not be deleted"))
	}
	if ns.DeletionTimestamp != nil && ns.Status.Phase == corev1.NamespaceTerminating {
		return ns, false, false, nil
	}
	marked := ns.DeepCopy()
	if marked.DeletionTimestamp == nil {
		now := metav1.NewTime(s.cfg.Clock.Now().UTC().Truncate(time.Second))
		marked.DeletionTimestamp = &now
	}
	marked.Status.Phase = corev1.NamespaceTerminating
	stored, err := s.storeUpdate(res, key, marked, curRV, dryRun)
	if isRetryable(err) {
		return nil, false, true, nil
	}
	return stored, false, false, err
}
