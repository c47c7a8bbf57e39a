package fakeapiserver

import (
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/lw-sim/lw-sim/fakeapiserver/internal/discovery"
)

// discoveryTable is the server's resource table as internal/discovery
// reads it. A resource's entry depends on what described it: a built-in
// one takes kube-apiserver's own entry (captured discovery), a CRD's is
// built as apiextensions-apiserver's discovery controller builds it, any
// other (a kind of a group-version kube-apiserver does not serve) gets
// every verb and the hash of its kind. Which subresources are served, and
// whether a CRD is terminating, only the server knows.
type discoveryTable struct{ s *Server }

var _ discovery.Table = discoveryTable{}

// GroupVersions lists every served group-version.
func (t discoveryTable) GroupVersions() []schema.GroupVersion {
	return t.s.resources.servedGroupVersions()
}

// Resources lists gv's resources by plural; custom is set for a CRD's
// group-version.
func (t discoveryTable) Resources(gv schema.GroupVersion) (resources []discovery.Resource, custom bool) {
	infos := t.s.resources.resourcesOf(gv)
	for _, res := range infos {
		resources = append(resources, res.readStrategy().discovery(t, res))
	}
	return resources, len(infos) > 0 && infos[0].readStrategy().definedByCRD()
}

// customResource describes a served version of a CRD's resource.
func (t discoveryTable) customResource(res *resourceInfo) discovery.Resource {
	return discovery.CustomResource{
		Kind:           res.Kind,
		Plural:         res.gvr.Resource,
		Singular:       res.singular,
		Namespaced:     !res.ClusterScoped,
		ShortNames:     res.ShortNames,
		Categories:     res.custom.categories,
		StorageVersion: res.custom.storageVersion,
		Terminating:    t.s.crdTerminating(res.custom.crdName),
		Status:         res.hasStatus,
		Scale:          res.custom.scale != nil,
	}.Resource()
}

// discoveryEntry is the entry of a built-in or scheme-derived resource:
// categories and storage version hash are kube-apiserver's for a built-in
// resource (none for those it does not store: reviews,
// componentstatuses), else the categories table's and one computed from
// the served kind.
func (r *resourceInfo) discoveryEntry() metav1.APIResource {
	e := metav1.APIResource{
		Name:         r.gvr.Resource,
		SingularName: r.singular,
		Namespaced:   !r.ClusterScoped,
		Kind:         r.Kind.Kind,
		Verbs:        r.verbs,
		ShortNames:   r.ShortNames,
	}
	if r.builtin {
		e.Categories, e.StorageVersionHash = r.categories, r.storageVersionHash
	} else {
		e.Categories, e.StorageVersionHash = discovery.Categories(r.gvr.GroupResource()), discovery.StorageVersionHash(r.Kind)
	}
	return e
}

// subresourceEntries lists the served subresources of res: for a built-in
// resource, kube-apiserver's own entries of those served here (status, and
// scale, eviction and binding where subresource.go serves them); for any
// other, a status entry if it has a status and subresource.go's entries.
func (t discoveryTable) subresourceEntries(res *resourceInfo) []metav1.APIResource {
	if !res.builtin {
		var out []metav1.APIResource
		if res.hasStatus {
			out = append(out, discovery.StatusEntry(res.gvr.Resource, !res.ClusterScoped, res.Kind.Kind))
		}
		return append(out, t.s.subresourceDiscovery(res)...)
	}
	var out []metav1.APIResource
	for _, sub := range res.builtinSubresources {
		_, name, _ := strings.Cut(sub.Name, "/")
		if (name == "status" && res.hasStatus) || t.s.subresourceServed(res, name) {
			out = append(out, sub)
		}
	}
	return out
}
