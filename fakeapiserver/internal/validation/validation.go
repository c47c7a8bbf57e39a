package validation

import (
	"fmt"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Func checks an object a write is about to store, as a kind's registry
// strategy does. old is nil for a create; for an update it is the stored
// object, and obj already carries the server-owned metadata the update
// keeps. obj is fully decoded and defaulted. A Func never modifies either
// object.
type Func func(obj, old runtime.Object) field.ErrorList

// TypedCreate adapts the create and update validation of one Go type to a
// [Func]: an object of another type (an older group-version's struct,
// which has no rule here) gets [Generic]. old stays untyped: nil on
// create.
func TypedCreate[T runtime.Object](f func(obj T, old runtime.Object) field.ErrorList) Func {
	return func(obj, old runtime.Object) field.ErrorList {
		o, ok := obj.(T)
		if !ok {
			return Generic(obj, old)
		}
		return f(o, old)
	}
}

// TypedStatus adapts a status validation that reads the stored object
// itself (old is never nil); an object of another type gets [MetaUpdate].
func TypedStatus[T runtime.Object](f func(obj T, old runtime.Object) field.ErrorList) Func {
	return func(obj, old runtime.Object) field.ErrorList {
		o, ok := obj.(T)
		if !ok {
			return MetaUpdate(obj, old)
		}
		return f(o, old)
	}
}

// TypedPair adapts an update validation of two objects of one Go type;
// any other pair gets [MetaUpdate].
func TypedPair[T runtime.Object](f func(obj, old T) field.ErrorList) Func {
	return func(obj, old runtime.Object) field.ErrorList {
		o, ok := obj.(T)
		p, okOld := old.(T)
		if !ok || !okOld {
			return MetaUpdate(obj, old)
		}
		return f(o, p)
	}
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
