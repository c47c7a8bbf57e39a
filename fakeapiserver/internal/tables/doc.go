// Package tables converts objects to the meta.k8s.io/v1 Table that
// `kubectl get` asks for (Accept: application/json;as=Table;g=meta.k8s.io;v=v1).
// kube-apiserver builds it in two steps, both copied here:
//
//  1. The resource's TableConvertor makes the columns and cells. Built-in
//     resources use the printers of kubernetes
//     pkg/printers/internalversion/printers.go through
//     pkg/printers/storage.TableConvertor, which always asks for the wide
//     form (every column, priority 1 included; kubectl hides those without
//     -o wide). Custom resources use apiextensions-apiserver's convertor of
//     their additionalPrinterColumns ([CustomResourceConvertor]). The others
//     use apiserver pkg/registry/rest/table.go (defaultTableConvertor: Name
//     and Created At).
//  2. asTable (apiserver pkg/endpoints/handlers/response.go) replaces each
//     row's object according to ?includeObject=: the object's metadata as a
//     meta.k8s.io/v1 PartialObjectMetadata by default, the whole object, or
//     nothing.
//
// The printers read internal types; here they are ported to the v1 types
// the store holds. Where v1 defaulting or conversion would have filled a
// field before the printer ran (replicas, service type, port protocol,
// clusterIPs, podIPs, secret type and stringData), the port reads the value
// kube-apiserver would have stored, so a fake that skips defaulting still
// prints what a real server does for the same request.
//
// [Convert] is the whole conversion of one resource's objects; the
// resource is described by the small [Resource] interface.
package tables
