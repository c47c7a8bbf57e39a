package fakeapiserver

import (
	"fmt"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/validate/content"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// The store has no keys to get wrong, but kube-apiserver builds an etcd key
// from the path's namespace and name before it reads or writes, and the
// rules it applies there are answers a client sees: an empty namespace, a
// name that is not a path segment, a "." or ".." namespace. They are
// applied here at the points the real server builds its keys.

// specialResourcePrefixes are the etcd key prefixes of the built-in
// resources stored under another name (kubernetes
// pkg/kubeapiserver/default_storage_factory_builder.go
// SpecialDefaultResourcePrefixes); every other built-in resource is stored
// under its own name, a custom resource under "<group>/<plural>".
var specialResourcePrefixes = map[schema.GroupResource]string{
	{Resource: "replicationcontrollers"}:                "controllers",
	{Resource: "endpoints"}:                             "services/endpoints",
	{Resource: "nodes"}:                                 "minions",
	{Resource: "services"}:                              "services/specs",
	{Group: "networking.k8s.io", Resource: "ingresses"}: "ingress",
}

// errNameRequired is the handlers' errEmptyName (handlers/namer.go): a
// route with a name segment whose name is empty ("/deployments//scale").
var errNameRequired = apierrors.NewBadRequest("name must be provided")

// resourceKeyPrefix is res's etcd key prefix, as its storage's messages
// quote it: "/configmaps", "/services/specs", "/example.com/widgets".
func resourceKeyPrefix(res *resourceInfo) string {
	if p, ok := specialResourcePrefixes[res.gvr.GroupResource()]; ok {
		return "/" + p
	}
	return res.readStrategy().keyPrefix(res)
}

// itemKeyError is what building the key of the object namespace/name
// fails with, in the real order: the generic registry's key function
// (registry/generic/registry/store.go NamespaceKeyFunc, NoNamespaceKeyFunc:
// 400 for a missing namespace or name, or a name that is not a path
// segment), then the storage's check of the key (apiserver
// pkg/storage/interfaces.go PrepareKey: a 500 with no reason for "." and
// ".." segments, which only a namespace can still carry).
func itemKeyError(res *resourceInfo, namespace, name string) error {
	if !res.ClusterScoped && namespace == "" {
		return apierrors.NewBadRequest("Namespace parameter required.")
	}
	if name == "" {
		return apierrors.NewBadRequest("Name parameter required.")
	}
	if msgs := content.IsPathSegmentName(name); len(msgs) != 0 {
		return apierrors.NewBadRequest(fmt.Sprintf("Name parameter invalid: %q: %s", name, strings.Join(msgs, ";")))
	}
	key := resourceKeyPrefix(res) + "/" + name
	if !res.ClusterScoped {
		key = resourceKeyPrefix(res) + "/" + namespace + "/" + name
	}
	return prepareKeyError(key)
}

// collectionKeyError is what building the key of a LIST, WATCH or
// deletecollection in namespace fails with: the key root
// (NamespaceKeyRootFunc: the prefix, plus "/<namespace>" unless it is
// empty) checked by PrepareKey.
func collectionKeyError(res *resourceInfo, namespace string) error {
	// Only a namespace can carry a "." or ".." segment (itemKeyError), so
	// one without a dot needs no key built.
	if res.ClusterScoped || namespace == "" || !strings.Contains(namespace, ".") {
		return nil
	}
	return prepareKeyError(resourceKeyPrefix(res) + "/" + namespace)
}

// prepareKeyError is storage.PrepareKey's refusal of a key with "." or
// ".." segments: a plain error, which the handlers answer as a 500 with
// no reason and the error as the message.
func prepareKeyError(key string) error {
	for _, dots := range []string{"..", "."} {
		if key == dots || strings.HasPrefix(key, dots+"/") || strings.HasSuffix(key, "/"+dots) || strings.Contains(key, "/"+dots+"/") {
			return fmt.Errorf("invalid key: %q", key)
		}
	}
	return nil
}
