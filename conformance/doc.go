// Package conformance holds the LIST/WATCH/write behaviours lw-sim's fake
// apiserver claims, as named cases that run against any [Target]: the
// embedded fake (the default of this package's tests) or a real
// kube-apiserver reached through a kubeconfig (LWSIM_KUBECONFIG).
//
// Each case is a function of (ctx, t, target) holding the assertions (the
// k8s.io/apiserver storage/testing pattern), registered by name in its
// file's table; [Cases] lists them all.
// A case speaks raw HTTP with JSON, works in a fresh namespace of its own,
// and compares only what two correct servers agree on: status codes,
// reasons, messages with resourceVersions masked, details, event types, and
// the relative order of resourceVersions. UIDs, timestamps and absolute RVs
// are never compared.
//
// Abilities a real apiserver cannot offer through its API are optional
// interfaces found by type assertion on the target: [Compactor] (etcd
// compaction) and [Clock] (virtual time, the fake only). A case that needs
// an ability the target lacks is skipped with the reason, never faked.
//
// The reference is kube-apiserver v1.37.2 with its default feature gates.
// A case's comment cites the upstream source of the rule it pins: a path
// such as storage/cacher/cacher.go is below k8s.io/apiserver@v0.37.2/pkg/;
// "apimachinery", "client-go" and "kubernetes" name those modules' pkg/
// (k8s.io/kubernetes@v1.37.2 for the last); "[observed on v1.37.2]" marks
// what only the real server's answers show. Known differences are in
// DIVERGENCES.md.
package conformance
