package validation

import (
	"fmt"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Func checks an object a write is about to store, as a kind's registry
// strategy does. old is nil for a create; for an update it is the stored
// object, and obj already carries the server-owned metadata the update
// keeps. obj is fully decoded and defaulted. A Func never modifies either
// object.
type Func func(obj, old runtime.Object) field.ErrorList

// builtin are the validations of the built-in kinds, per GroupKind.
var builtin = map[schema.GroupKind]Func{
	{Kind: "Namespace"}:                                              validateNamespace,
	{Kind: "ConfigMap"}:                                              validateConfigMap,
	{Kind: "Secret"}:                                                 validateSecret,
	{Kind: "Service"}:                                                validateService,
	{Kind: "Node"}:                                                   validateNode,
	{Kind: "Pod"}:                                                    validatePod,
	{Kind: "ReplicationController"}:                                  validateReplicationController,
	{Group: "apps", Kind: "Deployment"}:                              validateDeployment,
	{Group: "apps", Kind: "ReplicaSet"}:                              validateReplicaSet,
	{Group: "apps", Kind: "StatefulSet"}:                             validateStatefulSet,
	{Group: "apps", Kind: "DaemonSet"}:                               validateDaemonSet,
	{Group: "batch", Kind: "Job"}:                                    validateJob,
	{Group: "rbac.authorization.k8s.io", Kind: "Role"}:               validateRBACObject,
	{Group: "rbac.authorization.k8s.io", Kind: "ClusterRole"}:        validateRBACObject,
	{Group: "rbac.authorization.k8s.io", Kind: "RoleBinding"}:        validateRBACObject,
	{Group: "rbac.authorization.k8s.io", Kind: "ClusterRoleBinding"}: validateRBACObject,
	{Group: "apiregistration.k8s.io", Kind: "APIService"}:            validateAPIService,
}

// For returns the validation of the built-in kind gk, or [Generic] (object
// metadata with a DNS-subdomain name) for a kind without its own.
func For(gk schema.GroupKind) Func {
	if v, ok := builtin[gk]; ok {
		return v
	}
	return Generic
}

// objectMeta returns the metadata of a served kind. Every kind the server
// stores has ObjectMeta, so a failure is a programming error.
func objectMeta(obj runtime.Object) metav1.Object {
	m, err := meta.Accessor(obj)
	if err != nil {
		panic(fmt.Sprintf("validation: %T has no object metadata: %v", obj, err))
	}
	return m
}
