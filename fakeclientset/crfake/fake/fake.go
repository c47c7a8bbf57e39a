// Package fake is a drop-in replacement for controller-runtime's
// sigs.k8s.io/controller-runtime/pkg/client/fake backed by lw-sim's fake API
// server: change the import path and nothing else,
//
//	import "github.com/lw-sim/lw-sim/fakeclientset/crfake/fake" // was "sigs.k8s.io/controller-runtime/pkg/client/fake"
//
// and fake.NewClientBuilder()...Build() and fake.NewFakeClient(objs...)
// return controller-runtime's own client on a server of its own, as
// [crfake.NewClientBuilder] does; fake.AddIndex is [crfake.AddIndex].
//
// Prefer [crfake.NewClientBuilder](t) where a test is at hand: this
// package has none, so Build panics where that one fails the test, and the
// server is closed when the client is garbage collected, not when the test
// ends (goleak may see its goroutines until then). Inside a testing/synctest
// bubble it cannot work: nothing closes the server before the bubble ends;
// use crfake.NewClientBuilder(t) there.
package fake

import (
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/lw-sim/lw-sim/fakeclientset/crfake"
)

// ClientBuilder is [crfake.ClientBuilder], so a chain written for
// controller-runtime's fake.ClientBuilder compiles unchanged.
type ClientBuilder = crfake.ClientBuilder

// NewClientBuilder returns a builder of a client on a new server (see
// [crfake.ClientBuilder.Build]).
func NewClientBuilder() *ClientBuilder { return crfake.NewClientBuilder(nil) }

// NewFakeClient returns a client on a new server holding objs.
func NewFakeClient(objs ...runtime.Object) client.WithWatch {
	return crfake.NewFakeClient(nil, objs...)
}

// AddIndex is [crfake.AddIndex].
func AddIndex(c client.Client, obj runtime.Object, field string, extractValue client.IndexerFunc) error {
	return crfake.AddIndex(c, obj, field, extractValue)
}
