package fakeapiserver

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// systemNamespaces are the namespaces kube-apiserver creates at start.
var systemNamespaces = []string{"default", "kube-node-lease", "kube-public", "kube-system"}

// seedManager is the field manager of the objects kube-apiserver creates
// itself (its loopback client's User-Agent prefix).
const seedManager = "kube-apiserver"

// seedNamespaces creates the system namespaces, Active, through the same
// create path as API requests, owned by kube-apiserver as there.
func (s *Server) seedNamespaces() error {
	nsRes := s.namespaces()
	if nsRes == nil {
		return fmt.Errorf("fakeapiserver: core/v1 namespaces must be served")
	}
	for _, name := range systemNamespaces {
		ns := &corev1.Namespace{
			TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Namespace"},
			ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{corev1.LabelMetadataName: name}},
		}
		fm, err := nsRes.managers()
		if err != nil {
			return fmt.Errorf("fakeapiserver: field manager of namespaces: %w", err)
		}
		obj := s.track(fm.main, seedManager, nsRes.newObject(), ns)
		if _, err := s.createObject(nsRes, "", obj); err != nil {
			return fmt.Errorf("fakeapiserver: seed namespace %s: %w", name, err)
		}
	}
	return nil
}
