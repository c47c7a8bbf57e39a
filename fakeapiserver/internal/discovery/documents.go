package discovery

import (
	"cmp"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/version"
)

// Table is the set of served resources, as discovery reads it.
type Table interface {
	// GroupVersions lists every served group-version.
	GroupVersions() []schema.GroupVersion
	// Resources lists gv's resources sorted by plural; custom reports a
	// CRD group-version, whose list is laid out as
	// apiextensions-apiserver's discovery controller lays it out.
	Resources(gv schema.GroupVersion) (resources []Resource, custom bool)
}

// Resource is one served resource as discovery lists it.
type Resource struct {
	// Entry is the resource's own entry: name, singular name, scope,
	// kind, verbs, short names, categories and storage version hash.
	Entry metav1.APIResource
	// Subresources are the entries of the subresources it serves
	// ("pods/status", "deployments/scale", ...).
	Subresources []metav1.APIResource
}

// Serves reports whether gv is served.
func Serves(t Table, gv schema.GroupVersion) bool {
	return slices.Contains(t.GroupVersions(), gv)
}

// APIVersions is the legacy /api document. Like kube-apiserver it carries
// no apiVersion (discovery/legacy.go strips it for 1.1 compatibility) and
// one address rule mapping every client to the address it dialled (host,
// the request's Host).
func APIVersions(t Table, host string) *metav1.APIVersions {
	v := &metav1.APIVersions{
		TypeMeta:                   metav1.TypeMeta{Kind: "APIVersions"},
		ServerAddressByClientCIDRs: []metav1.ServerAddressByClientCIDR{{ClientCIDR: "0.0.0.0/0", ServerAddress: host}},
	}
	for _, g := range groups(t, true) {
		for _, gv := range g.Versions {
			v.Versions = append(v.Versions, gv.Version)
		}
	}
	return v
}

// APIGroupList is the legacy /apis document: every served group but core,
// in kube-apiserver's order.
func APIGroupList(t Table) *metav1.APIGroupList {
	return &metav1.APIGroupList{
		TypeMeta: metav1.TypeMeta{Kind: "APIGroupList", APIVersion: "v1"},
		Groups:   groups(t, false),
	}
}

// APIGroup is the legacy /apis/<group> document, if the group is served.
func APIGroup(t Table, name string) (*metav1.APIGroup, bool) {
	for _, g := range groups(t, false) {
		if g.Name == name {
			g.TypeMeta = metav1.TypeMeta{Kind: "APIGroup", APIVersion: "v1"}
			return &g, true
		}
	}
	return nil, false
}

// groups returns the served groups (only core when core is set, else all
// others) with their versions, preferred first. Groups are sorted as
// kube-aggregator's SortedByGroupAndVersion sorts APIServices: by group
// priority, high first (priorities.go; the aggregator's own group
// first), then by name; versions newest first in kube-aware order (v2 >
// v1 > v1beta1 > v1alpha1), which for every built-in group agrees with
// the version priorities.
func groups(t Table, core bool) []metav1.APIGroup {
	versions := map[string][]string{}
	for _, gv := range t.GroupVersions() {
		if (gv.Group == "") == core {
			versions[gv.Group] = append(versions[gv.Group], gv.Version)
		}
	}
	out := make([]metav1.APIGroup, 0, len(versions))
	for name, vs := range versions {
		slices.SortFunc(vs, func(a, b string) int { return version.CompareKubeAwareVersionStrings(b, a) })
		g := metav1.APIGroup{Name: name}
		for _, v := range vs {
			gv := schema.GroupVersion{Group: name, Version: v}
			g.Versions = append(g.Versions, metav1.GroupVersionForDiscovery{GroupVersion: gv.String(), Version: v})
		}
		g.PreferredVersion = g.Versions[0]
		out = append(out, g)
	}
	slices.SortFunc(out, func(a, b metav1.APIGroup) int {
		return cmp.Or(cmp.Compare(groupPriority(b.Name), groupPriority(a.Name)), strings.Compare(a.Name, b.Name))
	})
	return out
}

// APIResourceList is the legacy /api/<v> or /apis/<g>/<v> document. As
// kube-apiserver's installer does, it lists each resource and its
// subresources by name order, with the core group's apiVersion stripped
// (discovery/version.go keepUnversioned); a CRD group-version keeps the
// discovery controller's order (see [CustomResource]).
func APIResourceList(t Table, gv schema.GroupVersion) *metav1.APIResourceList {
	list, _ := resourceList(t, gv)
	return list
}

// resourceList is APIResourceList, and whether gv is a CRD group-version.
func resourceList(t Table, gv schema.GroupVersion) (list *metav1.APIResourceList, custom bool) {
	list = &metav1.APIResourceList{
		TypeMeta:     metav1.TypeMeta{Kind: "APIResourceList"},
		GroupVersion: gv.String(),
		APIResources: []metav1.APIResource{}, // "resources":[], never null
	}
	if gv.Group != "" {
		list.APIVersion = "v1"
	}
	resources, custom := t.Resources(gv)
	for _, res := range resources {
		list.APIResources = append(list.APIResources, res.Entry)
		list.APIResources = append(list.APIResources, res.Subresources...)
	}
	if !custom {
		slices.SortStableFunc(list.APIResources, func(a, b metav1.APIResource) int { return strings.Compare(a.Name, b.Name) })
	}
	return list, custom
}
