package listwatch

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/tools/cache"
)

// ListerWatcher is the subset of a client-go resource client that [Client]
// uses: one LIST request and one WATCH request, each bounded by ctx. It is
// declared here, by its consumer, so tests can plug in anything that lists
// and watches (client-go's ReflectorStore follows the same rule).
//
// List returns a list object (ConfigMapList, UnstructuredList, ...) whose
// items [meta.ExtractList] can read. Watch returns a stream that the caller
// stops; it must close its result channel when ctx ends.
type ListerWatcher interface {
	List(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error)
	Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error)
}

// Funcs adapts two functions to a [ListerWatcher], like client-go's
// cache.ListWatch.
type Funcs struct {
	ListFunc  func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error)
	WatchFunc func(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error)
}

var _ ListerWatcher = Funcs{}

// List calls f.ListFunc.
func (f Funcs) List(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
	return f.ListFunc(ctx, opts)
}

// Watch calls f.WatchFunc.
func (f Funcs) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	return f.WatchFunc(ctx, opts)
}

// TypedClient is the part of a typed clientset resource client (for example
// clientset.CoreV1().ConfigMaps(ns), of type ConfigMapInterface) that
// [FromTyped] needs. L is the list type, such as *corev1.ConfigMapList.
type TypedClient[L runtime.Object] interface {
	List(ctx context.Context, opts metav1.ListOptions) (L, error)
	Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error)
}

// FromTyped adapts a typed clientset resource client to a [ListerWatcher]:
//
//	lw := listwatch.FromTyped(clientset.CoreV1().ConfigMaps("default"))
//
// The list type is inferred from the client's List method.
func FromTyped[L runtime.Object](c TypedClient[L]) ListerWatcher {
	return Funcs{
		ListFunc: func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
			l, err := c.List(ctx, opts)
			if err != nil {
				// A nil *XList in a runtime.Object is not a nil interface.
				return nil, err
			}
			return l, nil
		},
		WatchFunc: c.Watch,
	}
}

// FromDynamic adapts a dynamic client resource (for example
// dynamicClient.Resource(gvr).Namespace(ns)) to a [ListerWatcher]; objects
// are *unstructured.Unstructured.
func FromDynamic(c dynamic.ResourceInterface) ListerWatcher {
	return Funcs{
		ListFunc: func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
			l, err := c.List(ctx, opts)
			if err != nil {
				return nil, err
			}
			return l, nil
		},
		WatchFunc: c.Watch,
	}
}

// ToCache adapts lw to client-go's cache.ListerWatcher, so the same source
// can feed a cache.SharedIndexInformer (the comparison tests do exactly that).
func ToCache(lw ListerWatcher) *cache.ListWatch {
	return &cache.ListWatch{ListWithContextFunc: lw.List, WatchFuncWithContext: lw.Watch}
}
