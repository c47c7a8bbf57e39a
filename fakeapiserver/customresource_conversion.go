package fakeapiserver

import (
	"errors"
	"fmt"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/conversion"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/storage"
	webhookutil "k8s.io/apiserver/pkg/util/webhook"

	"github.com/lw-sim/lw-sim/fakeapiserver/store"
)

// A CRD with `spec.conversion.strategy: Webhook` has its objects converted
// between versions by its conversion webhook, where kube-apiserver's
// storage codec converts them (apiextensions-apiserver
// customresource_handler.go crdConversionRESTOptionsGetter: every served
// version has a storage whose codec encodes in the storage version and
// decodes in the served one, through the CRD's converter):
//
//   - a read through a version other than the one an object is stored in
//     (GET, LIST, the events of a WATCH, the current object an update,
//     patch or delete starts from) converts the stored object to the
//     served version (customresource_view.go readView), the storage
//     codec's decode;
//   - a write (create, update, patch, the marks of a graceful delete)
//     through another version converts the object to the storage version
//     before it is stored, then the stored object back for the answer
//     (etcd3 store Create and GuaranteedUpdate encode, then decode what
//     they wrote); a dry run too, whose answer DryRunnableStorage's
//     copyInto encodes and decodes with the same codec [observed].
//
// The converter is apiextensions-apiserver's own (conversion.
// NewCRConverterFactory): a ConversionReview v1 or v1beta1, by the CRD's
// conversionReviewVersions, POSTed through k8s.io/apiserver's webhook
// client to the CRD's url or service (resolved as admission webhooks'
// are, admission.go serviceResolver) with its caBundle, and the
// converted objects checked (kind, apiVersion, name, namespace, UID;
// metadata other than labels and annotations restored). Its errors are
// the real ones ("conversion webhook for <group/version, Kind=...>
// failed: ..."), which the store returns as they are, so a request
// answers them as the real server's handlers answer an error that is no
// API status: 500, reason empty, the error's text as the message.
//
// A read whose conversion fails is what etcd3's store makes of an object
// it cannot decode (AllowUnsafeMalformedObjectDeletion, on by default
// since 1.37, wraps the decoder): "object not decodable revision=<the
// object's>: <the converter's error>", which a GET answers as a 500
// InternalError quoting the storage error of the object's key
// (corrupt_obj_deleter.go corruptObjectDeleter.Get, storeerr
// InterpretGetError) [observed].
//
// LIST and WATCH take a stored object's conversion memoised on its
// encodings per served version state (the watch cache's one decode); a
// GET, and the object a write starts from, convert each time (etcdRead),
// as the real server reads those from etcd. An admission webhook or
// policy of another version is shown the object converted by the webhook
// (admission_objects.go); a policy's params of a custom resource kind are
// not converted yet (admission_policy_sources.go, "None").
//
// "None" conversion keeps its own path: an object written through
// another version is stored as written under the storage version's
// apiVersion, and read back with only apiVersion changed
// (customresource_codec.go).

// webhookConverterLocked returns the converter of crd when its conversion
// strategy is Webhook, nil for None. The factory is built on first use,
// with resolver for service references. The caller holds mu.
func (c *crdController) webhookConverterLocked(crd *apiextensionsv1.CustomResourceDefinition, resolver webhookutil.ServiceResolver) (runtime.ObjectConvertor, error) {
	if crd.Spec.Conversion == nil || crd.Spec.Conversion.Strategy != apiextensionsv1.WebhookConverter {
		return nil, nil
	}
	if c.converters == nil {
		f, err := conversion.NewCRConverterFactory(resolver, nil)
		if err != nil {
			return nil, fmt.Errorf("fakeapiserver: CRD converter factory: %w", err)
		}
		c.converters = f
	}
	safe, _, err := c.converters.NewConverter(crd)
	if err != nil {
		return nil, fmt.Errorf("fakeapiserver: converter of %s: %w", crd.Name, err)
	}
	return safe, nil
}

// convertsByWebhook reports whether the resource's objects are converted
// between versions by a conversion webhook.
func (cr *customResource) convertsByWebhook() bool { return cr != nil && cr.converter != nil }

// convert converts u (which the caller owns) to gv with the CRD's webhook
// converter. The webhook sees the object as etcd holds it, without a
// resourceVersion (the versioner clears it before encoding and sets it
// after decoding); the converted object gets u's back.
func (cr *customResource) convert(u *unstructured.Unstructured, gv schema.GroupVersion) (*unstructured.Unstructured, error) {
	rv := u.GetResourceVersion()
	if rv != "" {
		u.SetResourceVersion("")
	}
	out, err := cr.converter.ConvertToVersion(u, gv)
	if err != nil {
		return nil, err
	}
	cu, ok := out.(*unstructured.Unstructured)
	if !ok {
		return nil, fmt.Errorf("fakeapiserver: conversion of %s returned a %T", cr.gk, out)
	}
	if rv != "" {
		cu.SetResourceVersion(rv)
	}
	return cu, nil
}

// toStorageVersion is obj, a custom resource about to be stored, as the
// storage codec encodes it: converted to the storage version by the
// webhook, then coerced by that version's schema (schemaCoercingConverter).
// An object already in the storage version, and every object of a
// resource without a conversion webhook, is returned as it is.
func (s *Server) toStorageVersion(res *resourceInfo, obj runtime.Object) (runtime.Object, error) {
	if conv := res.conversion; conv != nil { // a built-in kind's (builtin_conversion.go)
		return conv.toStorage(obj)
	}
	cr := res.custom
	u, ok := obj.(*unstructured.Unstructured)
	if !cr.convertsByWebhook() || !ok || u.GroupVersionKind().Version == cr.storageVersion {
		return obj, nil
	}
	out, err := cr.convert(u.DeepCopy(), cr.storageGV(res))
	if err != nil {
		return nil, err
	}
	cr.pruneForRead(out, cr.serving().structural[cr.storageVersion])
	return out, nil
}

// fromStorageVersion is a just stored custom resource as the store
// returns it, decoded for the served version (readView): converted by the
// webhook. Objects of resources without a conversion webhook are returned
// as stored.
func (s *Server) fromStorageVersion(res *resourceInfo, stored runtime.Object) (runtime.Object, error) {
	if res.convertsOnRead() {
		return res.conversion.fromStorage(stored) // builtin_conversion.go
	}
	if !res.custom.convertsByWebhook() {
		return stored, nil
	}
	return s.readView(res, stored, nil)
}

// etcdRead is the encodings a read of one object (a GET, the object an
// update, patch or delete starts from) may take its view from: kube-apiserver
// reads such an object from etcd and decodes it each time, so a conversion
// webhook is asked on every one (and a webhook that broke since fails
// it), while LIST and WATCH are served from the watch cache, which
// converted the object once. So with a conversion webhook none (the view
// is built, not memoised), else enc.
func etcdRead(res *resourceInfo, enc *store.Encodings) *store.Encodings {
	if res.custom.convertsByWebhook() {
		return nil
	}
	return enc
}

// dryRunRoundTrip is DryRunnableStorage's copyInto of a dry-run write's
// object: encoded (converted to the storage version) and decoded
// (converted back) by a conversion webhook; as it is otherwise.
func (s *Server) dryRunRoundTrip(res *resourceInfo, obj runtime.Object) (runtime.Object, error) {
	if !res.custom.convertsByWebhook() && res.conversion == nil {
		return obj, nil
	}
	stored, err := s.toStorageVersion(res, obj)
	if err != nil {
		return nil, err
	}
	return s.fromStorageVersion(res, stored)
}

// notDecodableError is etcd3's corruptObjectError of an object its
// decoder (here: the conversion) failed on, at the object's revision.
type notDecodableError struct {
	revision int64
	err      error
}

func (e *notDecodableError) Error() string {
	return fmt.Sprintf("object not decodable revision=%d: %v", e.revision, e.err)
}

func (e *notDecodableError) Unwrap() error { return e.err }

// corruptObjectError is a GET's answer to an object whose conversion
// failed (err a *notDecodableError): the storage's corrupt-object error
// of its key, as an InternalError. Other errors are returned as they
// are.
func corruptObjectError(res *resourceInfo, namespace, name string, err error) error {
	var nd *notDecodableError
	if !errors.As(err, &nd) {
		return err
	}
	return apierrors.NewInternalError(storage.NewCorruptObjError(resourceKeyPrefix(res)+"/"+objectKey(res, namespace, name), nd))
}
