// Package fake is a drop-in replacement for k8s.io/client-go/kubernetes/fake
// backed by lw-sim's fake API server: change the import path and nothing
// else,
//
//	import "github.com/lw-sim/lw-sim/fakeclientset/fake" // was "k8s.io/client-go/kubernetes/fake"
//
// and fake.NewSimpleClientset(objs...) and fake.NewClientset(objs...)
// return a *fake.Clientset (the same type as client-go's: [Clientset] is an
// alias) whose requests no reactor handles go to a server of its own, as
// with [fakeclientset.NewClientset].
//
// Prefer [fakeclientset.NewClientset] where a testing.TB is at hand: this
// package has none, so what differs from it is lifetime and two methods.
// The server is closed when the clientset is garbage collected (after the
// test drops it and stops its informers), not when the test ends, so
// goleak may see its goroutines; Tracker is client-go's tracker, which the
// server never sees (use fakeclientset's Clientset.Tracker); and informers
// list, then watch, since IsWatchListSemanticsUnSupported is client-go's.
// Inside a testing/synctest bubble it cannot work: the bubble ends only when
// every goroutine started in it has, and nothing closes this server before
// then; use fakeclientset.NewClientset(t) (its .Clientset is a
// *fake.Clientset) there.
package fake

import (
	"runtime"

	apiruntime "k8s.io/apimachinery/pkg/runtime"
	clientfake "k8s.io/client-go/kubernetes/fake"

	"github.com/lw-sim/lw-sim/fakeapiserver"
	"github.com/lw-sim/lw-sim/fakeclientset"
)

// Clientset is client-go's fake clientset type, so fields and parameters
// of type *fake.Clientset keep compiling.
type Clientset = clientfake.Clientset

// AddToScheme is client-go's fake package's AddToScheme.
var AddToScheme = clientfake.AddToScheme

// NewSimpleClientset returns a clientset on a new server holding objs (see
// [fakeclientset.Server.Seed] for how they are seeded). It panics if the
// server cannot start or an object cannot be seeded, as client-go's panics
// when its tracker refuses one.
func NewSimpleClientset(objects ...apiruntime.Object) *Clientset {
	srv, err := fakeclientset.New(fakeapiserver.Config{})
	if err != nil {
		panic(err)
	}
	cs, err := srv.Clientset(objects...)
	if err != nil {
		_ = srv.Close()
		panic(err)
	}
	// The server holds nothing of the clientset, so once the test drops
	// the clientset (and the informers built on it), it is collected and
	// the server closed.
	runtime.AddCleanup(cs.Clientset, func(s *fakeclientset.Server) { _ = s.Close() }, srv)
	return cs.Clientset
}

// NewClientset is [NewSimpleClientset]: the server applies server-side
// apply with managed fields either way.
func NewClientset(objects ...apiruntime.Object) *Clientset { return NewSimpleClientset(objects...) }
