package discovery

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/lw-sim/lw-sim/fakeapiserver/internal/etag"
)

// AggregatedGVK is what a client's Accept asks for to get the aggregated
// discovery document (client-go discovery.AcceptV2). v2beta1 is not
// served: the AggregatedDiscoveryRemoveBetaType gate is locked on since
// 1.35 (apiserver pkg/features/kube_features.go).
var AggregatedGVK = apidiscoveryv2.SchemeGroupVersion.WithKind("APIGroupDiscoveryList")

// IsAggregatedClause reports whether the parameters of an Accept clause
// ask for the aggregated discovery document.
func IsAggregatedClause(params map[string]string) bool {
	return params["g"] == AggregatedGVK.Group && params["v"] == AggregatedGVK.Version &&
		params["as"] == AggregatedGVK.Kind
}

// Aggregated is the apidiscovery.k8s.io/v2 document of /api (core only)
// or /apis (all other groups), as apiserver's
// pkg/endpoints/discovery/aggregated/handler.go builds it: groups and
// versions in legacy order, every version fresh.
func Aggregated(t Table, core bool) *apidiscoveryv2.APIGroupDiscoveryList {
	list := &apidiscoveryv2.APIGroupDiscoveryList{
		TypeMeta: metav1.TypeMeta{Kind: AggregatedGVK.Kind, APIVersion: AggregatedGVK.GroupVersion().String()},
		Items:    []apidiscoveryv2.APIGroupDiscovery{},
	}
	for _, g := range groups(t, core) {
		item := apidiscoveryv2.APIGroupDiscovery{ObjectMeta: metav1.ObjectMeta{Name: g.Name}}
		for _, v := range g.Versions {
			item.Versions = append(item.Versions, apidiscoveryv2.APIVersionDiscovery{
				Version:   v.Version,
				Resources: resourceDiscovery(t, schema.GroupVersion{Group: g.Name, Version: v.Version}),
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
func resourceDiscovery(t Table, gv schema.GroupVersion) []apidiscoveryv2.APIResourceDiscovery {
	var out []apidiscoveryv2.APIResourceDiscovery
	parents := map[string]int{}
	list, custom := resourceList(t, gv)
	for _, r := range list.APIResources {
		if r.Group == "" && r.Version == "" && custom {
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

// WriteAggregated writes an aggregated discovery document in the
// negotiated serialization info with the Content-Type parameters client-go's
// discovery.ContentTypeIsGVK checks and the ETag caching of apiserver's
// discovery/aggregated/etag.go: a quoted SHA-512 of the JSON document,
// Vary: Accept, and 304 Not Modified when If-None-Match carries the
// current ETag. It returns an encoding error before writing anything.
func WriteAggregated(w http.ResponseWriter, r *http.Request, info runtime.SerializerInfo, list *apidiscoveryv2.APIGroupDiscoveryList) error {
	var body bytes.Buffer
	if err := info.Serializer.Encode(list, &body); err != nil {
		return fmt.Errorf("encode %T as %s: %w", list, info.MediaType, err)
	}
	jsonDoc, err := json.Marshal(list)
	if err != nil {
		return err
	}
	tag := strconv.Quote(etag.Of(jsonDoc))
	h := w.Header()
	h.Set("ETag", tag)
	h.Set("Vary", "Accept")
	h.Set("Cache-Control", "public")
	if r.Header.Get("If-None-Match") == tag {
		w.WriteHeader(http.StatusNotModified)
		return nil
	}
	h.Set("Content-Type", info.MediaType+";g="+AggregatedGVK.Group+";v="+AggregatedGVK.Version+";as="+AggregatedGVK.Kind)
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(body.Bytes())
	return nil
}
