package fakeclientset

import (
	"sync/atomic"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"

	"github.com/lw-sim/lw-sim/fakeapiserver"
)

// Clientset is client-go's fake clientset (k8s.io/client-go/kubernetes/fake)
// with lw-sim's fake API server in the place of its object tracker. It has
// every typed getter of kubernetes.Interface, and Actions, ClearActions and
// the reactor chains of k8s.io/client-go/testing.Fake, with client-go's
// semantics: each call is recorded as client-go's fake records it, then
// passes the reactors in order; the first that handles it answers. Where
// client-go's fake has its tracker at the end of the chain, Clientset sends
// the request to the server, which answers as kube-apiserver v1.37.2 does:
// validation, defaults, resourceVersions, paging, watch from a
// resourceVersion, 410 Gone, bookmarks, server-side apply.
//
// Code that stores a *fake.Clientset takes the embedded one
// (cs.Clientset): its typed getters, Actions and reactors are the same
// (they share one chain), but two of its methods are client-go's own and
// differ: its Tracker is client-go's tracker, not connected to the server,
// and its IsWatchListSemanticsUnSupported reports true, so informers built
// from it list then watch.
type Clientset struct {
	*fake.Clientset

	srv     *Server
	tracker *tracker
	// noWatchList is what IsWatchListSemanticsUnSupported reports.
	noWatchList atomic.Bool
}

var (
	_ kubernetes.Interface     = (*Clientset)(nil)
	_ clienttesting.FakeClient = (*Clientset)(nil)
)

// NewClientset returns a Clientset on a new [Server] (zero
// fakeapiserver.Config) holding objs, in place of client-go's
// fake.NewClientset(objs...) and fake.NewSimpleClientset(objs...). Objects
// are seeded as [Server.Seed] describes: namespaces first, each object as
// it was given, status included. tb.Cleanup stops the server and every
// watch and connection of the clientset; NewClientset fails the test if an
// object cannot be seeded.
func NewClientset(tb testing.TB, objs ...runtime.Object) *Clientset {
	tb.Helper()
	return NewServer(tb, fakeapiserver.Config{}).NewClientset(tb, objs...)
}

// NewClientset returns a Clientset on s holding objs (see the package
// function [NewClientset]); several clientsets, dynamic and metadata
// clients may share one server.
func (s *Server) NewClientset(tb testing.TB, objs ...runtime.Object) *Clientset {
	tb.Helper()
	cs, err := s.Clientset(objs...)
	if err != nil {
		tb.Fatalf("fakeclientset: %v", err)
	}
	return cs
}

// Clientset is [Server.NewClientset] for code without a testing.TB: it
// returns the error of a seed that failed.
func (s *Server) Clientset(objs ...runtime.Object) (*Clientset, error) {
	codec := &typedCodec{srv: s}
	cs := &Clientset{Clientset: fake.NewClientset(), srv: s}
	(&forwarder{srv: s, codec: codec}).install(&cs.Fake)
	cs.tracker = &tracker{srv: s, codec: codec}
	if err := s.fillDiscovery(&cs.Fake, cs.Discovery()); err != nil {
		return nil, err
	}
	if err := cs.tracker.seed(objs); err != nil {
		return nil, err
	}
	return cs, nil
}

// Tracker returns an ObjectTracker backed by the server: Add seeds as
// [NewClientset] does, Get, List, Create, Update, Patch, Apply, Delete and
// Watch are requests to the server. Like client-go's tracker it records no
// action and passes no reactor.
func (c *Clientset) Tracker() clienttesting.ObjectTracker { return c.tracker }

// Server is the server this clientset talks to.
func (c *Clientset) Server() *Server { return c.srv }

// IsWatchListSemanticsUnSupported tells client-go's reflector whether
// informers built from this clientset may use WatchList (a watch with
// sendInitialEvents=true, when the WatchListClient feature gate is on, as it
// is by default since client-go v0.35): false, since the server supports it,
// unless [Clientset.DisableWatchList] was called. client-go's fake returns
// true.
func (c *Clientset) IsWatchListSemanticsUnSupported() bool { return c.noWatchList.Load() }

// DisableWatchList makes informers built from now on list, then watch, as
// with client-go's fake clientset, whatever the WatchListClient gate says.
func (c *Clientset) DisableWatchList() { c.noWatchList.Store(true) }
