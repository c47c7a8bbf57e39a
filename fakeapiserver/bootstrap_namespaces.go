package fakeapiserver

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// systemNamespaces are the namespaces kube-apiserver creates at start and
// recreates when missing (kubernetes pkg/controlplane/controller/
// systemnamespaces: default, kube-system, kube-public, kube-node-lease).
// Deleting default, kube-system or kube-public is forbidden
// (write_delete.go); kube-node-lease stays Terminating until finalized.
var systemNamespaces = []string{"default", "kube-node-lease", "kube-public", "kube-system"}

// namespacesGVR is the core namespaces resource.
var namespacesGVR = schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}

// systemNamespaceObjects are the system namespaces as the controller
// creates them: a name only (the strategy and the decoder add the rest).
func (s *Server) systemNamespaceObjects() []bootstrapObject {
	out := make([]bootstrapObject, len(systemNamespaces))
	for i, name := range systemNamespaces {
		out[i] = bootstrapObject{gvr: namespacesGVR, name: name, body: &corev1.Namespace{
			TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Namespace"},
			ObjectMeta: metav1.ObjectMeta{Name: name},
		}}
	}
	return out
}
