package fakeapiserver

import (
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// ValidateFunc checks an object a write is about to store, as a kind's
// registry strategy does (Validate on create, ValidateUpdate on update).
// old is nil for a create; for an update it is the stored object, and obj
// already carries the server-owned metadata (uid, creationTimestamp,
// resourceVersion) the update keeps. obj is fully decoded and defaulted.
// The function must not modify either object. A non-empty list becomes the
// 422 Invalid Status naming the Kind and the object's name.
type ValidateFunc func(obj, old runtime.Object) field.ErrorList
