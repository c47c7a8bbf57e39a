package fakeapiserver

import (
	"cmp"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/munnerz/goautoneg"
	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/version"
)

const (
	// defaultGroupPriority ranks a group kube-apiserver has no built-in
	// priority for. It is the GroupPriorityMinimum the CRD registration
	// controller gives CRD groups (kubernetes
	// pkg/controlplane/controller/crdregistration/crdregistration_controller.go),
	// so user-registered groups sort after the built-in ones, by name.
	defaultGroupPriority = 1000
)

// aggregatedDiscoveryGVK is what a client's Accept asks for to get the
// aggregated discovery document (client-go discovery.AcceptV2). v2beta1 is
// not served: the AggregatedDiscoveryRemoveBetaType gate is locked on since
// 1.35 (apiserver pkg/features/kube_features.go).
var aggregatedDiscoveryGVK = apidiscoveryv2.SchemeGroupVersion.WithKind("APIGroupDiscoveryList")

// groupPriorities are kube-apiserver's APIService group priorities, which
// order /apis in both forms (kubernetes cmd/kube-apiserver/app/aggregator.go
// apiVersionPriorities and pkg/controlplane/apiserver/aggregator.go
// DefaultGenericAPIServicePriorities). Versions within a group are ordered
// by their version priority there, which for every built-in group agrees
// with the kube-aware version order used here.
var groupPriorities = map[string]int{
	"apps": 17800, "events.k8s.io": 17750, "authentication.k8s.io": 17700,
	"authorization.k8s.io": 17600, "autoscaling": 17500, "batch": 17400,
	"certificates.k8s.io": 17300, "networking.k8s.io": 17200, "policy": 17100,
	"rbac.authorization.k8s.io": 17000, "storage.k8s.io": 16800,
	"apiextensions.k8s.io": 16700, "admissionregistration.k8s.io": 16700,
	"scheduling.k8s.io": 16600, "coordination.k8s.io": 16500, "node.k8s.io": 16300,
	"discovery.k8s.io": 16200, "resource.k8s.io": 16200,
	"flowcontrol.apiserver.k8s.io": 16100, "internal.apiserver.k8s.io": 16000,
	"storagemigration.k8s.io": 15800, "lifecycle.k8s.io": 15700,
}

// categories are the discovery categories of the built-in resources
// (kubernetes pkg/registry/*/storage: Categories()); kubectl expands
// `kubectl get all` from them.
var categories = map[schema.GroupResource][]string{
	{Resource: "pods"}: {"all"}, {Resource: "services"}: {"all"},
	{Resource: "replicationcontrollers"}:     {"all"},
	{Group: "apps", Resource: "deployments"}: {"all"}, {Group: "apps", Resource: "replicasets"}: {"all"},
	{Group: "apps", Resource: "statefulsets"}: {"all"}, {Group: "apps", Resource: "daemonsets"}: {"all"},
	{Group: "batch", Resource: "jobs"}: {"all"}, {Group: "batch", Resource: "cronjobs"}: {"all"},
	{Group: "autoscaling", Resource: "horizontalpodautoscalers"}:           {"all"},
	{Group: "apiextensions.k8s.io", Resource: "customresourcedefinitions"}: {"api-extensions"},
}

// discoveryOutput is the negotiated form of a discovery response.
type discoveryOutput struct {
	info runtime.SerializerInfo
	// aggregated selects the apidiscovery.k8s.io/v2 APIGroupDiscoveryList.
	aggregated bool
}

// serveDiscovery answers the discovery endpoints kube-apiserver serves:
// /api, /api/<version>, /apis, /apis/<group> and /apis/<group>/<version>,
// for served group-versions only. /api and /apis answer in the aggregated
// form when the Accept header asks for it. It returns false, writing
// nothing, for any other path (including unserved groups and versions, which
// the caller answers with its 404).
func (s *Server) serveDiscovery(w http.ResponseWriter, r *http.Request) bool {
	parts := splitPath(r.URL.Path)
	if len(parts) == 0 || len(parts) > 3 || (parts[0] != "api" && parts[0] != "apis") {
		return false
	}
	var obj runtime.Object
	switch {
	case len(parts) == 1:
		// /api or /apis: the only endpoints with an aggregated form.
		s.serveDiscoveryRoot(w, r, parts[0] == "api")
		return true
	case parts[0] == "api" && len(parts) == 2:
		gv := schema.GroupVersion{Version: parts[1]}
		if !s.servesGroupVersion(gv) {
			return false
		}
		obj = s.apiResourceList(gv)
	case parts[0] == "apis" && len(parts) == 2:
		g, ok := s.apiGroup(parts[1])
		if !ok {
			return false
		}
		obj = g
	case parts[0] == "apis" && len(parts) == 3:
		gv := schema.GroupVersion{Group: parts[1], Version: parts[2]}
		if !s.servesGroupVersion(gv) {
			return false
		}
		obj = s.apiResourceList(gv)
	default:
		return false
	}
	if !s.checkDiscoveryMethod(w, r) {
		return true
	}
	out, err := s.negotiateDiscovery(r, false)
	if err != nil {
		s.writeError(w, r, err)
		return true
	}
	s.respond(w, outputType{info: out.info}, http.StatusOK, obj)
	return true
}

// serveDiscoveryRoot answers /api (core) or /apis (every other group), in
// the aggregated or the legacy form.
func (s *Server) serveDiscoveryRoot(w http.ResponseWriter, r *http.Request, core bool) {
	if !s.checkDiscoveryMethod(w, r) {
		return
	}
	out, err := s.negotiateDiscovery(r, true)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if out.aggregated {
		s.writeAggregated(w, r, out.info, s.aggregatedDiscovery(core))
		return
	}
	if core {
		s.respond(w, outputType{info: out.info}, http.StatusOK, s.apiVersions(r))
		return
	}
	s.respond(w, outputType{info: out.info}, http.StatusOK, s.apiGroupList())
}

// checkDiscoveryMethod answers anything but GET with the 405 kube-apiserver's
// go-restful routes give; ok is false when it did.
func (s *Server) checkDiscoveryMethod(w http.ResponseWriter, r *http.Request) bool {
	if r.Method == http.MethodGet {
		return true
	}
	s.writeError(w, r, nonResourceMethodNotAllowed())
	return false
}

// negotiateDiscovery picks the output form as kube-apiserver's discovery
// wrapper does (apiserver pkg/endpoints/discovery/aggregated/wrapper.go and
// negotiation.go): the first Accept clause that a serializer can produce,
// where a clause asking for apidiscovery.k8s.io/v2 APIGroupDiscoveryList
// selects the aggregated form (only where allowAggregated) and any other
// conversion or a stream is not acceptable. With no acceptable clause it
// is a 406: go-restful's where kube-apiserver routes the path through
// go-restful and no clause names a produced type, else the handler's.
// Unknown parameters, such as client-go's profile=nopeer, are ignored: this
// server has no peers.
func (s *Server) negotiateDiscovery(r *http.Request, allowAggregated bool) (discoveryOutput, error) {
	header := r.Header.Get("Accept")
	if header == "" {
		return discoveryOutput{info: s.codecs.SupportedMediaTypes()[0]}, nil
	}
	for _, clause := range goautoneg.ParseAccept(header) {
		for _, info := range s.codecs.SupportedMediaTypes() {
			if !mediaRangeMatches(clause, info) || clause.Params["stream"] != "" {
				continue
			}
			if isAggregatedDiscoveryClause(clause.Params) {
				if allowAggregated {
					return discoveryOutput{info: info, aggregated: true}, nil
				}
				continue
			}
			if _, ok := acceptParams(clause.Params, info, false); ok {
				return discoveryOutput{info: info}, nil
			}
		}
	}
	if viaGoRestful(r.URL.Path) {
		if err := s.restfulNotAcceptable(r, false); err != nil {
			return discoveryOutput{}, err
		}
	}
	return discoveryOutput{}, s.handlerNotAcceptable()
}

// viaGoRestful reports whether kube-apiserver serves a discovery path on a
// go-restful route, whose own Accept check answers first when no clause
// names a type it produces: /api, /api/<v> and /apis/<g>/<v> are such
// routes, while kube-aggregator serves /apis and /apis/<g> on its
// non-restful mux (kube-aggregator pkg/apiserver/handler_apis.go).
func viaGoRestful(path string) bool {
	parts := splitPath(path)
	return len(parts) > 0 && (parts[0] == "api" || len(parts) == 3)
}

// isAggregatedDiscoveryClause reports whether Accept parameters ask for the
// aggregated discovery document.
func isAggregatedDiscoveryClause(params map[string]string) bool {
	return params["g"] == aggregatedDiscoveryGVK.Group && params["v"] == aggregatedDiscoveryGVK.Version &&
		params["as"] == aggregatedDiscoveryGVK.Kind
}

// servedGroupVersions lists every served group-version (see
// resourceTable.servedGroupVersions).
func (s *Server) servedGroupVersions() []schema.GroupVersion {
	return s.resources.servedGroupVersions()
}

// servesGroupVersion reports whether gv is served.
func (s *Server) servesGroupVersion(gv schema.GroupVersion) bool {
	return slices.Contains(s.servedGroupVersions(), gv)
}

// apiVersions is the legacy /api document. Like kube-apiserver it carries no
// apiVersion (discovery/legacy.go strips it for 1.1 compatibility) and one
// address rule mapping every client to the address it dialled.
func (s *Server) apiVersions(r *http.Request) *metav1.APIVersions {
	v := &metav1.APIVersions{
		TypeMeta:                   metav1.TypeMeta{Kind: "APIVersions"},
		ServerAddressByClientCIDRs: []metav1.ServerAddressByClientCIDR{{ClientCIDR: "0.0.0.0/0", ServerAddress: r.Host}},
	}
	for _, g := range s.discoveryGroups(true) {
		for _, gv := range g.Versions {
			v.Versions = append(v.Versions, gv.Version)
		}
	}
	return v
}

// apiGroupList is the legacy /apis document: every served group but core,
// in kube-apiserver's order.
func (s *Server) apiGroupList() *metav1.APIGroupList {
	return &metav1.APIGroupList{
		TypeMeta: metav1.TypeMeta{Kind: "APIGroupList", APIVersion: "v1"},
		Groups:   s.discoveryGroups(false),
	}
}

// apiGroup is the legacy /apis/<group> document, if the group is served.
func (s *Server) apiGroup(name string) (*metav1.APIGroup, bool) {
	for _, g := range s.discoveryGroups(false) {
		if g.Name == name {
			g.TypeMeta = metav1.TypeMeta{Kind: "APIGroup", APIVersion: "v1"}
			return &g, true
		}
	}
	return nil, false
}

// discoveryGroups returns the served groups (only core when core is set,
// else all others) with their versions, preferred first. Groups are sorted
// as kube-aggregator's SortedByGroupAndVersion sorts APIServices: by group
// priority, high first, then by name; versions newest first in kube-aware
// order (v2 > v1 > v1beta1 > v1alpha1).
func (s *Server) discoveryGroups(core bool) []metav1.APIGroup {
	versions := map[string][]string{}
	for _, gv := range s.servedGroupVersions() {
		if (gv.Group == "") == core {
			versions[gv.Group] = append(versions[gv.Group], gv.Version)
		}
	}
	groups := make([]metav1.APIGroup, 0, len(versions))
	for name, vs := range versions {
		slices.SortFunc(vs, func(a, b string) int { return version.CompareKubeAwareVersionStrings(b, a) })
		g := metav1.APIGroup{Name: name}
		for _, v := range vs {
			gv := schema.GroupVersion{Group: name, Version: v}
			g.Versions = append(g.Versions, metav1.GroupVersionForDiscovery{GroupVersion: gv.String(), Version: v})
		}
		g.PreferredVersion = g.Versions[0]
		groups = append(groups, g)
	}
	slices.SortFunc(groups, func(a, b metav1.APIGroup) int {
		return cmp.Or(cmp.Compare(groupPriority(b.Name), groupPriority(a.Name)), strings.Compare(a.Name, b.Name))
	})
	return groups
}

// groupPriority is a group's discovery priority; higher sorts first.
func groupPriority(group string) int {
	if p, ok := groupPriorities[group]; ok {
		return p
	}
	return defaultGroupPriority
}

// apiResourceList is the legacy /api/<v> or /apis/<g>/<v> document. As
// kube-apiserver's installer does, it lists each resource and its status
// subresource by name order, with the core group's apiVersion stripped
// (discovery/version.go keepUnversioned).
func (s *Server) apiResourceList(gv schema.GroupVersion) *metav1.APIResourceList {
	list := &metav1.APIResourceList{
		TypeMeta:     metav1.TypeMeta{Kind: "APIResourceList"},
		GroupVersion: gv.String(),
		APIResources: []metav1.APIResource{}, // "resources":[], never null
	}
	if gv.Group != "" {
		list.APIVersion = "v1"
	}
	resources := s.resources.resourcesOf(gv)
	if len(resources) > 0 && resources[0].custom != nil {
		return s.customAPIResourceList(list, resources) // customresource_discovery.go
	}
	for _, res := range resources {
		list.APIResources = append(list.APIResources, metav1.APIResource{
			Name:               res.gvr.Resource,
			SingularName:       res.singular,
			Namespaced:         !res.ClusterScoped,
			Kind:               res.Kind.Kind,
			Verbs:              res.verbs,
			ShortNames:         res.ShortNames,
			Categories:         res.discoveryCategories(),
			StorageVersionHash: res.discoveryStorageVersionHash(),
		})
		list.APIResources = append(list.APIResources, s.subresourceEntries(res)...)
	}
	slices.SortStableFunc(list.APIResources, func(a, b metav1.APIResource) int { return strings.Compare(a.Name, b.Name) })
	return list
}

// discoveryCategories are the resource's categories: kube-apiserver's for a
// built-in resource, else from the categories table.
func (r *resourceInfo) discoveryCategories() []string {
	if r.builtin {
		return r.categories
	}
	return categories[r.gvr.GroupResource()]
}

// discoveryStorageVersionHash is kube-apiserver's hash for a built-in
// resource (none for those it does not store: reviews, componentstatuses),
// else one computed from the served kind.
func (r *resourceInfo) discoveryStorageVersionHash() string {
	if r.builtin {
		return r.storageVersionHash
	}
	return storageVersionHash(r.Kind)
}

// subresourceEntries lists the served subresources of res: for a built-in
// resource, kube-apiserver's own entries of those served here (status, and
// scale, eviction and binding where subresource.go serves them); for any
// other, a status entry if it has a status and subresource.go's entries.
func (s *Server) subresourceEntries(res *resourceInfo) []metav1.APIResource {
	if !res.builtin {
		var out []metav1.APIResource
		if res.hasStatus {
			out = append(out, metav1.APIResource{
				Name:       res.gvr.Resource + "/status",
				Namespaced: !res.ClusterScoped,
				Kind:       res.Kind.Kind,
				Verbs:      statusVerbs(),
			})
		}
		return append(out, s.subresourceDiscovery(res)...)
	}
	var out []metav1.APIResource
	for _, sub := range res.builtinSubresources {
		_, name, _ := strings.Cut(sub.Name, "/")
		if (name == "status" && res.hasStatus) || s.subresourceServed(res, name) {
			out = append(out, sub)
		}
	}
	return out
}

// storedVerbs are the verbs of a stored resource that kube-apiserver does
// not describe, sorted as the installer sorts them.
func storedVerbs() metav1.Verbs {
	return metav1.Verbs{"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"}
}

// statusVerbs are the verbs of a status subresource.
func statusVerbs() metav1.Verbs { return metav1.Verbs{"get", "patch", "update"} }

// storageVersionHash is the opaque hash kube-apiserver advertises so that
// storage migrators notice a change of storage version
// (apiserver pkg/endpoints/discovery/storageversionhash.go). A resource here
// is stored in the version it is served in.
func storageVersionHash(gvk schema.GroupVersionKind) string {
	sum := sha256.Sum256([]byte(gvk.Group + "/" + gvk.Version + "/" + gvk.Kind))
	return base64.StdEncoding.EncodeToString(sum[:8])
}

// aggregatedDiscovery is the apidiscovery.k8s.io/v2 document of /api (core
// only) or /apis (all other groups), as apiserver's
// pkg/endpoints/discovery/aggregated/handler.go builds it: groups and
// versions in legacy order, every version fresh.
func (s *Server) aggregatedDiscovery(core bool) *apidiscoveryv2.APIGroupDiscoveryList {
	list := &apidiscoveryv2.APIGroupDiscoveryList{
		TypeMeta: metav1.TypeMeta{Kind: aggregatedDiscoveryGVK.Kind, APIVersion: aggregatedDiscoveryGVK.GroupVersion().String()},
		Items:    []apidiscoveryv2.APIGroupDiscovery{},
	}
	for _, g := range s.discoveryGroups(core) {
		item := apidiscoveryv2.APIGroupDiscovery{ObjectMeta: metav1.ObjectMeta{Name: g.Name}}
		for _, v := range g.Versions {
			item.Versions = append(item.Versions, apidiscoveryv2.APIVersionDiscovery{
				Version:   v.Version,
				Resources: s.resourceDiscovery(schema.GroupVersion{Group: g.Name, Version: v.Version}),
				Freshness: apidiscoveryv2.DiscoveryFreshnessCurrent,
			})
		}
		list.Items = append(list.Items, item)
	}
	return list
}

// resourceDiscovery converts a group-version's legacy resource list to the
// aggregated form as apiserver's ConvertGroupVersionIntoToDiscovery
// (pkg/endpoints/installer.go) does: subresources fold into their parent,
// and responseKind carries only the kind, as the installer leaves group and
// version empty for resources that serve their own kind.
func (s *Server) resourceDiscovery(gv schema.GroupVersion) []apidiscoveryv2.APIResourceDiscovery {
	var out []apidiscoveryv2.APIResourceDiscovery
	parents := map[string]int{}
	list := s.apiResourceList(gv)
	for _, r := range list.APIResources {
		if r.Group == "" && r.Version == "" && isCustomResourceList(list) {
			// The CRD discovery controller names the group and version of
			// a custom resource's kind (and of its status).
			r.Group, r.Version = gv.Group, gv.Version
		}
		scope := apidiscoveryv2.ScopeCluster
		if r.Namespaced {
			scope = apidiscoveryv2.ScopeNamespace
		}
		kind := &metav1.GroupVersionKind{Group: r.Group, Version: r.Version, Kind: r.Kind}
		parent, sub, isSub := strings.Cut(r.Name, "/")
		if !isSub {
			parents[r.Name] = len(out)
			out = append(out, apidiscoveryv2.APIResourceDiscovery{
				Resource: r.Name, ResponseKind: kind, Scope: scope, SingularResource: r.SingularName,
				Verbs: r.Verbs, ShortNames: r.ShortNames, Categories: r.Categories,
			})
			continue
		}
		// The legacy list is sorted by name, so a parent precedes its
		// subresources.
		i := parents[parent]
		out[i].Subresources = append(out[i].Subresources, apidiscoveryv2.APISubresourceDiscovery{
			Subresource: sub, ResponseKind: kind, Verbs: r.Verbs,
		})
	}
	return out
}

// writeAggregated writes an aggregated discovery document with the
// Content-Type parameters client-go's discovery.ContentTypeIsGVK checks and
// the ETag caching of apiserver's discovery/aggregated/etag.go: a quoted
// SHA-512 of the JSON document, Vary: Accept, and 304 Not Modified when
// If-None-Match carries the current ETag.
func (s *Server) writeAggregated(w http.ResponseWriter, r *http.Request, info runtime.SerializerInfo, list *apidiscoveryv2.APIGroupDiscoveryList) {
	body, err := encode(info, list)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	jsonDoc, err := json.Marshal(list)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	etag := strconv.Quote(contentHash(jsonDoc))
	h := w.Header()
	h.Set("ETag", etag)
	h.Set("Vary", "Accept")
	h.Set("Cache-Control", "public")
	if r.Header.Get("If-None-Match") == etag {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	h.Set("Content-Type", info.MediaType+";g="+aggregatedDiscoveryGVK.Group+";v="+aggregatedDiscoveryGVK.Version+";as="+aggregatedDiscoveryGVK.Kind)
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(body)
}

// contentHash is the uppercase hex SHA-512 that aggregated discovery
// (apiserver discovery/aggregated/etag.go calculateETag) uses as ETag.
func contentHash(b []byte) string {
	return fmt.Sprintf("%X", sha512.Sum512(b))
}
