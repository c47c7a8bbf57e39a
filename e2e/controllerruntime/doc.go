// Package controllerruntime holds end-to-end tests that run a
// sigs.k8s.io/controller-runtime manager against fakeapiserver: a reconciler
// applies (client.Apply) a child object and a label of the custom resource
// itself and updates the custom resource's status through the status
// subresource, with the informer cache on the CRD; and controllers built
// with builder.OnlyMetadata, whose metadata cache lists and watches the
// PartialObjectMetadata of ConfigMaps and of the custom resource. The
// package has no non-test code, so controller-runtime is linked only into
// this test binary.
package controllerruntime
