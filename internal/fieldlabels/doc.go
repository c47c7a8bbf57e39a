// Package fieldlabels is what fakeapiserver knows about field selectors:
// which keys each resource accepts in ?fieldSelector=, with kube-apiserver's
// error for the others, and the values an object has for them.
//
// Field selectors work in two steps in kube-apiserver, and here:
//
//  1. The list/watch handler rewrites every term of ?fieldSelector= with the
//     kind's field-label conversion func (apiserver
//     pkg/endpoints/handlers/get.go listOpts → Scheme.ConvertFieldLabel). The
//     func either accepts the key (possibly renaming a deprecated alias) or
//     fails, and the failure becomes a 400 BadRequest carrying its text.
//     Kinds without a registered func get
//     runtime.DefaultMetaV1FieldSelectorConversion, which accepts only
//     metadata.name and metadata.namespace, whatever the scope.
//  2. Storage matches the rewritten selector against the field set the
//     registry strategy computes for each object (GetAttrs →
//     ToSelectableFields). A key that step 1 accepts but the set lacks reads
//     as "" (fields.Set.Get), so k=v never matches and k!=v always does;
//     pods' status.podIPs and metadata.namespace on cluster-scoped kinds
//     without a conversion func behave that way upstream, and here too.
//
// A resource's [Labels] is step 1 (Keys, Aliases) plus the kind-specific
// part of step 2 (Fields): [Convert] is step 1, [Set] the field set of
// step 2 with the metadata fields added. [Builtin] has kube-apiserver's
// labels of the built-in kinds, [ForCustomResource] a CRD version's.
package fieldlabels
