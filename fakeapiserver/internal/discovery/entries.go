package discovery

import (
	"crypto/sha256"
	"encoding/base64"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

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

// Categories are the categories of a built-in resource kube-apiserver's
// captured discovery does not describe (one of a version it does not
// serve by default); nil for others. Read only.
func Categories(gr schema.GroupResource) []string { return categories[gr] }

// StoredVerbs are the verbs of a stored resource that kube-apiserver does
// not describe, sorted as the installer sorts them.
func StoredVerbs() metav1.Verbs {
	return metav1.Verbs{"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"}
}

// StatusVerbs are the verbs of a status (or scale) subresource.
func StatusVerbs() metav1.Verbs { return metav1.Verbs{"get", "patch", "update"} }

// StatusEntry is the entry of the status subresource of plural.
func StatusEntry(plural string, namespaced bool, kind string) metav1.APIResource {
	return metav1.APIResource{Name: plural + "/status", Namespaced: namespaced, Kind: kind, Verbs: StatusVerbs()}
}

// StorageVersionHash is the opaque hash kube-apiserver advertises so that
// storage migrators notice a change of storage version
// (apiserver pkg/endpoints/discovery/storageversionhash.go) of a resource
// stored as gvk.
func StorageVersionHash(gvk schema.GroupVersionKind) string {
	sum := sha256.Sum256([]byte(gvk.Group + "/" + gvk.Version + "/" + gvk.Kind))
	return base64.StdEncoding.EncodeToString(sum[:8])
}
