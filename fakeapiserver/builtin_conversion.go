package fakeapiserver

import (
	"fmt"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/lw-sim/lw-sim/fakeapiserver/internal/conversion"
	"github.com/lw-sim/lw-sim/fakeapiserver/internal/defaults"
	"github.com/lw-sim/lw-sim/fakeapiserver/store"
)

// kube-apiserver keeps a built-in resource served in several versions once,
// in its storage version, and converts through the internal type on every
// path (the storage codec on writes and reads, the request scope's
// convertor for admission): an autoscaling/v1 HorizontalPodAutoscaler is
// stored as autoscaling/v2 and read back through either version. lw-sim
// does the same for the kinds internal/conversion converts, in the shape
// custom resources with a conversion webhook take
// (customresource_conversion.go): the served versions share one store
// partition holding storage-version objects; a write through another
// version converts the object to the storage version before it is stored
// (toStorageVersion) and the stored object back for the answer
// (fromStorageVersion); a read (GET, LIST, WATCH events, the object a
// write starts from) converts the stored object (readView, memoised on
// its encodings for LIST and WATCH); a dry run converts both ways. A
// write through the storage version goes through the internal type too,
// which drops what only another version writes (v1's round-trip
// annotations).
//
// Group-resources served in several versions without a conversion here
// keep a partition per version (resources.go shareVersionStorage).

// builtinConversion converts a served version of a built-in kind to and
// from its storage version.
type builtinConversion struct {
	// storage is the storage version's kind.
	storage schema.GroupVersionKind
	// toStorage converts an object of the served version (or of the
	// storage version itself) to a new storage-version object.
	toStorage func(runtime.Object) (runtime.Object, error)
	// fromStorage converts a storage-version object to a new object of
	// the served version (for the storage version itself: decodes it, as
	// its defaults may not have been stored); nil when reads are the
	// stored objects.
	fromStorage func(runtime.Object) (runtime.Object, error)
}

// builtinConversions are the conversions of the served kinds, by served
// kind.
//
// HorizontalPodAutoscalers: a v1 write is stored as its conversion, with
// no v2 defaults (kube-apiserver encodes the internal object, which only
// a v2 request's decoding defaulted), and every read through either
// version decodes with the v2 defaults first (a behavior's missing rules),
// so a v1 PUT of what a v1 GET answered can change the stored object.
var builtinConversions = map[schema.GroupVersionKind]*builtinConversion{
	autoscalingv1.SchemeGroupVersion.WithKind("HorizontalPodAutoscaler"): {
		storage: autoscalingv2.SchemeGroupVersion.WithKind("HorizontalPodAutoscaler"),
		toStorage: func(obj runtime.Object) (runtime.Object, error) {
			switch h := obj.(type) {
			case *autoscalingv1.HorizontalPodAutoscaler:
				return conversion.HPAV1ToV2(h)
			case *autoscalingv2.HorizontalPodAutoscaler:
				return conversion.HPAV2ToV2(h), nil
			}
			return obj, nil
		},
		fromStorage: func(obj runtime.Object) (runtime.Object, error) {
			if h, ok := obj.(*autoscalingv2.HorizontalPodAutoscaler); ok {
				return conversion.HPAV2ToV1(decodedHPA(h))
			}
			return obj, nil
		},
	},
	autoscalingv2.SchemeGroupVersion.WithKind("HorizontalPodAutoscaler"): {
		storage: autoscalingv2.SchemeGroupVersion.WithKind("HorizontalPodAutoscaler"),
		toStorage: func(obj runtime.Object) (runtime.Object, error) {
			if h, ok := obj.(*autoscalingv2.HorizontalPodAutoscaler); ok {
				return conversion.HPAV2ToV2(h), nil
			}
			return obj, nil
		},
		fromStorage: func(obj runtime.Object) (runtime.Object, error) {
			if h, ok := obj.(*autoscalingv2.HorizontalPodAutoscaler); ok {
				return decodedHPA(h), nil
			}
			return obj, nil
		},
	},
	// events.k8s.io/v1 Events are stored as core/v1 Events (kube-apiserver's
	// cohabitating resources share the /events prefix), converted
	// losslessly.
	corev1.SchemeGroupVersion.WithKind("Event"): {
		storage:   corev1.SchemeGroupVersion.WithKind("Event"),
		toStorage: eventToStorage,
	},
	eventsv1.SchemeGroupVersion.WithKind("Event"): {
		storage:   corev1.SchemeGroupVersion.WithKind("Event"),
		toStorage: eventToStorage,
		fromStorage: func(obj runtime.Object) (runtime.Object, error) {
			if e, ok := obj.(*corev1.Event); ok {
				return conversion.EventFromCore(e), nil
			}
			return obj, nil
		},
	},
}

// eventToStorage is an Event of either version as stored: core/v1.
func eventToStorage(obj runtime.Object) (runtime.Object, error) {
	switch e := obj.(type) {
	case *corev1.Event:
		return conversion.CoreEvent(e), nil
	case *eventsv1.Event:
		return conversion.EventToCore(e), nil
	}
	return obj, nil
}

// decodedHPA is a stored HPA as the storage codec decodes it: a copy with
// the v2 defaults.
func decodedHPA(h *autoscalingv2.HorizontalPodAutoscaler) *autoscalingv2.HorizontalPodAutoscaler {
	out := h.DeepCopy()
	defaults.HorizontalPodAutoscaler(out)
	return out
}

// convertsOnRead reports whether reads of res convert the stored objects
// (a built-in version other than its storage version), so their cached
// encodings are not its answers.
func (r *resourceInfo) convertsOnRead() bool {
	return r.conversion != nil && r.conversion.fromStorage != nil
}

// isStorageVersion reports whether r serves the kind its objects are
// stored as (every resource but a converted built-in version does).
func (r *resourceInfo) isStorageVersion() bool {
	return r.conversion == nil || r.conversion.storage == r.Kind
}

// convertedReads serves a built-in version whose objects are stored in
// another version: as builtinReads, but every stored object is read
// through its conversion.
type convertedReads struct{ builtinReads }

var _ readStrategy = convertedReads{}

func (convertedReads) view(_ *Server, res *resourceInfo, obj runtime.Object, enc *store.Encodings) (runtime.Object, error) {
	conv := res.conversion // fromStorage passes a bookmark or Status through
	v, err := enc.View(conv, func() (any, error) { return conv.fromStorage(obj) })
	if err != nil {
		return nil, fmt.Errorf("fakeapiserver: conversion of %s to %s: %w", conv.storage, res.Kind, err)
	}
	view, ok := v.(runtime.Object)
	if !ok {
		return nil, fmt.Errorf("fakeapiserver: view of %s is a %T", res.qualified(), v)
	}
	return view, nil
}

func (convertedReads) reusesEncodings() bool { return false }

// convertBuiltin converts a built-in object to gv when it is of a kind
// internal/conversion converts and gv serves it in another version: ok is
// false otherwise. typer names the kind of an object without apiVersion.
// It is the request scope's convertor for admission (admission_objects.go)
// and the field managers' (builtinConvertor).
func convertBuiltin(typer runtime.ObjectTyper, obj runtime.Object, gv schema.GroupVersion) (runtime.Object, bool, error) {
	from := obj.GetObjectKind().GroupVersionKind()
	if from.Empty() {
		if kinds, _, err := typer.ObjectKinds(obj); err == nil && len(kinds) > 0 {
			from = kinds[0]
		}
	}
	if from.GroupVersion() == gv {
		return nil, false, nil
	}
	src, ok := builtinConversions[from]
	if !ok {
		return nil, false, nil
	}
	dst, ok := builtinConversions[gv.WithKind(from.Kind)]
	if !ok || dst.storage != src.storage {
		return nil, false, nil
	}
	stored, err := src.toStorage(obj)
	if err != nil {
		return nil, true, err
	}
	if dst.fromStorage == nil {
		return stored, true, nil
	}
	out, err := dst.fromStorage(stored)
	return out, true, err
}

// builtinConvertor is the scheme's object convertor with the conversions
// of builtinConversions, for the field managers: structured-merge-diff
// converts an object to the version of each manager's entry (an HPA
// applied through autoscaling/v1 over fields an autoscaling/v2 update
// owns) through the hub version, as kube-apiserver's field managers
// convert through the internal type. An unstructured object (the field
// manager's typed value) is converted as its Go type.
type builtinConvertor struct {
	runtime.ObjectConvertor
	scheme *runtime.Scheme
}

// ConvertToVersion converts in to gv through builtinConversions, else as
// the scheme does.
func (c builtinConvertor) ConvertToVersion(in runtime.Object, gv runtime.GroupVersioner) (runtime.Object, error) {
	obj := in
	if u, ok := in.(*unstructured.Unstructured); ok {
		if _, known := builtinConversions[u.GroupVersionKind()]; !known {
			return c.ObjectConvertor.ConvertToVersion(in, gv)
		}
		typed, err := c.scheme.New(u.GroupVersionKind())
		if err != nil {
			return nil, err
		}
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, typed); err != nil {
			return nil, fmt.Errorf("fakeapiserver: %s to its Go type: %w", u.GroupVersionKind(), err)
		}
		typed.GetObjectKind().SetGroupVersionKind(u.GroupVersionKind())
		obj = typed
	}
	kinds, _, err := c.scheme.ObjectKinds(obj)
	if err == nil {
		if gvk, ok := gv.KindForGroupVersionKinds(kinds); ok {
			if converted, ok, err := convertBuiltin(c.scheme, obj, gvk.GroupVersion()); ok {
				return converted, err
			}
		}
	}
	return c.ObjectConvertor.ConvertToVersion(in, gv)
}
