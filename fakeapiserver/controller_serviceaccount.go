package fakeapiserver

import (
	"context"
	"net/http"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/lw-sim/lw-sim/fakeapiserver/store"
)

// The service account controller (Config.Controllers:
// ControllerServiceAccount), kube-controller-manager's
// pkg/controller/serviceaccount ServiceAccountsController.syncNamespace
// with its default options: every Active namespace has a ServiceAccount
// named "default", created (with nothing but its name) when missing. A
// Terminating namespace gets none. It runs after writes of namespaces and
// service accounts.

// serviceAccountUserAgent is the real controller's User-Agent (its field
// manager is "kube-controller-manager").
const serviceAccountUserAgent = "kube-controller-manager/" + kubeGitVersion + " (linux/amd64) kubernetes/lwsim/system:serviceaccount:kube-system:service-account-controller"

// defaultServiceAccount is the name of the account every namespace gets.
const defaultServiceAccount = "default"

// reconcileServiceAccounts creates the missing default ServiceAccounts.
func (s *Server) reconcileServiceAccounts(ctx context.Context, _ time.Time) time.Time {
	saRes := s.serviceAccounts()
	if saRes == nil {
		return time.Time{}
	}
	for _, ns := range s.storedNamespaces() {
		if ns.Status.Phase != corev1.NamespaceActive {
			continue
		}
		if _, err := s.store.Get(saRes.storageKey, objectKey(saRes, ns.Name, defaultServiceAccount), 0); err == nil {
			continue
		}
		sa := &corev1.ServiceAccount{TypeMeta: metav1.TypeMeta{Kind: "ServiceAccount", APIVersion: "v1"},
			ObjectMeta: metav1.ObjectMeta{Name: defaultServiceAccount, Namespace: ns.Name}}
		_, err := s.loopback(ctx, loopbackRequest{method: http.MethodPost, path: bootstrapObject{gvr: serviceAccountsGVR, namespace: ns.Name}.path(),
			body: sa, userAgent: serviceAccountUserAgent})
		// A namespace that began terminating meanwhile refuses the create
		// (NamespaceTerminatingCause): the real controller ignores that too.
		if err != nil && !apierrors.IsAlreadyExists(err) && !apierrors.HasStatusCause(err, corev1.NamespaceTerminatingCause) {
			s.cfg.Logger.Warn("fakeapiserver: service account controller", "namespace", ns.Name, "err", err)
		}
	}
	return time.Time{}
}

// storedNamespaces are the namespaces as stored now (none when core/v1
// namespaces are not served), for the controllers that go over them.
func (s *Server) storedNamespaces() []*corev1.Namespace {
	nsRes := s.namespaces()
	if nsRes == nil {
		return nil
	}
	page, err := s.store.List(nsRes.storageKey, store.ListOptions{})
	if err != nil {
		return nil
	}
	out := make([]*corev1.Namespace, 0, len(page.Items))
	for _, obj := range page.Items {
		if ns, ok := obj.(*corev1.Namespace); ok {
			out = append(out, ns)
		}
	}
	return out
}

// serviceAccounts is the core/v1 serviceaccounts resource, or nil when it
// is not served.
func (s *Server) serviceAccounts() *resourceInfo {
	r, _ := s.resources.lookup(serviceAccountsGVR)
	return r
}
