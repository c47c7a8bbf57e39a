// Package fakeapiserver is an in-memory fake of the Kubernetes API server's
// HTTP surface, faithful where List & Watch are concerned.
//
// A [Server] serves the group-versions kube-apiserver v1.37.2 serves by
// default ([Config.GroupVersions]; [AllGroupVersions] adds the others of
// client-go's scheme) over real HTTP, so unmodified client-go clientsets,
// the dynamic client, informers and kubectl talk to it. Underneath is an MVCC
// store (package store) with one global resourceVersion, history and
// compaction, so LIST at a past resourceVersion, paging with continue tokens,
// and WATCH from a resourceVersion behave as kube-apiserver v1.37 does.
//
// Status codes, reasons and messages are those of the real kube-apiserver;
// where a behaviour is emulated the comment names the upstream file it copies.
//
// In a test:
//
//	srv := fakeapiserver.Start(t)
//	cs := srv.Clientset()
//
// Writes are validated as kube-apiserver validates them, per kind
// ([Resource].Validate, [ValidateFunc]; the checks tests hit most, with the
// real 422 Status), and honour dryRun=All on every verb, subresources
// included. Besides status, the scale subresource is served for the
// resources with a [ScaleSubresource] (Deployments, ReplicaSets,
// StatefulSets, ReplicationControllers), and pods have eviction
// (PodDisruptionBudgets are not consulted) and binding.
//
// CustomResourceDefinitions work as on kube-apiserver, through
// apiextensions-apiserver's own validation and strategies: a created CRD is
// NamesAccepted and Established when the create returns, its versions are
// served (discovery included) with structural pruning, defaulting, schema
// validation, the status and scale subresources, printer columns and
// selectable fields, in the same store with every LIST and WATCH semantic;
// deleting it deletes its objects (watchers see each DELETED, then their
// watch ends).
//
// As a program, see cmd/lw-sim (lw-sim serve).
package fakeapiserver
