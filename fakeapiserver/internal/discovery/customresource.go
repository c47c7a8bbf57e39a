package discovery

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// CustomResource describes one served version of a CRD's resource.
type CustomResource struct {
	// Kind is the served kind.
	Kind schema.GroupVersionKind
	// Plural and Singular are the CRD's accepted names.
	Plural, Singular string
	// Namespaced is the CRD's scope.
	Namespaced bool
	// ShortNames and Categories are the CRD's accepted names.
	ShortNames, Categories []string
	// StorageVersion is the CRD's storage version, whose kind's hash
	// discovery advertises.
	StorageVersion string
	// Terminating is set while the CRD is being deleted.
	Terminating bool
	// Status and Scale report the version's subresources.
	Status, Scale bool
}

// Resource is the discovery of c as apiextensions-apiserver's discovery
// controller builds it (pkg/apiserver/customresource_discovery_controller.go):
// the resource, its verbs in the controller's order (a terminating CRD
// loses create, patch and update), then status and scale.
func (c CustomResource) Resource() Resource {
	verbs := metav1.Verbs{"delete", "deletecollection", "get", "list", "patch", "create", "update", "watch"}
	if c.Terminating {
		verbs = metav1.Verbs{"delete", "deletecollection", "get", "list", "watch"}
	}
	storageKind := schema.GroupVersionKind{Group: c.Kind.Group, Version: c.StorageVersion, Kind: c.Kind.Kind}
	r := Resource{Entry: metav1.APIResource{
		Name:               c.Plural,
		SingularName:       c.Singular,
		Namespaced:         c.Namespaced,
		Kind:               c.Kind.Kind,
		Verbs:              verbs,
		ShortNames:         c.ShortNames,
		Categories:         c.Categories,
		StorageVersionHash: StorageVersionHash(storageKind),
	}}
	if c.Status {
		r.Subresources = append(r.Subresources, StatusEntry(c.Plural, c.Namespaced, c.Kind.Kind))
	}
	if c.Scale {
		r.Subresources = append(r.Subresources, metav1.APIResource{
			Name: c.Plural + "/scale", Namespaced: c.Namespaced,
			Group: "autoscaling", Version: "v1", Kind: "Scale", Verbs: StatusVerbs(),
		})
	}
	return r
}
