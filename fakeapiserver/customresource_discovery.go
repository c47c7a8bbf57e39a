package fakeapiserver

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// customAPIResourceList is the /apis/<group>/<version> document of a
// CRD's group-version as apiextensions-apiserver's discovery controller
// builds it (pkg/apiserver/customresource_discovery_controller.go): per
// CRD the resource (its verbs in the controller's order; a terminating
// CRD loses create, patch and update), then status and scale.
func (s *Server) customAPIResourceList(list *metav1.APIResourceList, resources []*resourceInfo) *metav1.APIResourceList {
	for _, res := range resources {
		verbs := metav1.Verbs{"delete", "deletecollection", "get", "list", "patch", "create", "update", "watch"}
		if s.crdTerminating(res.custom.crdName) {
			verbs = metav1.Verbs{"delete", "deletecollection", "get", "list", "watch"}
		}
		list.APIResources = append(list.APIResources, metav1.APIResource{
			Name:               res.gvr.Resource,
			SingularName:       res.singular,
			Namespaced:         !res.ClusterScoped,
			Kind:               res.Kind.Kind,
			Verbs:              verbs,
			ShortNames:         res.ShortNames,
			Categories:         res.custom.categories,
			StorageVersionHash: storageVersionHash(res.storageKind()),
		})
		if res.hasStatus {
			list.APIResources = append(list.APIResources, metav1.APIResource{
				Name: res.gvr.Resource + "/status", Namespaced: !res.ClusterScoped, Kind: res.Kind.Kind, Verbs: statusVerbs(),
			})
		}
		if res.custom.scale != nil {
			list.APIResources = append(list.APIResources, metav1.APIResource{
				Name: res.gvr.Resource + "/scale", Namespaced: !res.ClusterScoped,
				Group: "autoscaling", Version: "v1", Kind: "Scale", Verbs: statusVerbs(),
			})
		}
	}
	return list
}

// isCustomResourceList reports whether a legacy resource list is a CRD
// group-version's: its first resource's verbs are in the CRD controller's
// order (delete first), which no built-in list has.
func isCustomResourceList(list *metav1.APIResourceList) bool {
	return len(list.APIResources) > 0 && len(list.APIResources[0].Verbs) > 0 && list.APIResources[0].Verbs[0] == "delete"
}
