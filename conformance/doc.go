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
// The reference is kube-apiserver v1.37.2 with its default feature gates;
// the behaviour pinned here is written down in
// ../../shared/spec/apiserver-listwatch.md (section numbers in comments refer
// to it) and known differences in DIVERGENCES.md.
package conformance
