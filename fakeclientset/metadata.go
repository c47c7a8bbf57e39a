package fakeclientset

import (
	"sync"
	"sync/atomic"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/metadata"
	metadatafake "k8s.io/client-go/metadata/fake"
	"k8s.io/client-go/rest"
	clienttesting "k8s.io/client-go/testing"

	"github.com/lw-sim/lw-sim/fakeapiserver"
)

// MetadataClient is client-go's fake metadata client
// (k8s.io/client-go/metadata/fake) with the server in the place of its
// object tracker: actions are recorded and pass the reactors as there, and
// what no reactor handles goes to the server. Answers are the objects'
// metadata (PartialObjectMetadata; a list is the metav1.List of them
// client-go's fake List expects), projected by the client from the
// server's full objects.
type MetadataClient struct {
	*metadatafake.FakeMetadataClient

	srv         *Server
	tracker     *tracker
	noWatchList atomic.Bool
}

var (
	_ metadata.Interface       = (*MetadataClient)(nil)
	_ clienttesting.FakeClient = (*MetadataClient)(nil)
)

// NewSimpleMetadataClient returns a MetadataClient on a new [Server]
// holding objs, in place of metadatafake.NewSimpleMetadataClient(scheme,
// objs...). objs may be PartialObjectMetadata (with apiVersion and kind),
// unstructured or typed objects of client-go's scheme; each is created on
// the server as a full object, so a kind whose validation needs more than
// metadata (a Pod needs containers) must be given whole.
func NewSimpleMetadataClient(tb testing.TB, scheme *runtime.Scheme, objs ...runtime.Object) *MetadataClient {
	tb.Helper()
	return NewServer(tb, fakeapiserver.Config{}).NewSimpleMetadataClient(tb, scheme, objs...)
}

// NewSimpleMetadataClient is the package's [NewSimpleMetadataClient] on s.
func (s *Server) NewSimpleMetadataClient(tb testing.TB, scheme *runtime.Scheme, objs ...runtime.Object) *MetadataClient {
	tb.Helper()
	mc, err := s.newMetadataClient(scheme, objs)
	if err != nil {
		tb.Fatalf("fakeclientset: %v", err)
	}
	return mc
}

func (s *Server) newMetadataClient(scheme *runtime.Scheme, objs []runtime.Object) (*MetadataClient, error) {
	uc, err := newUnstructuredCodec(s)
	if err != nil {
		return nil, err
	}
	codec := &metadataCodec{unstructuredCodec: uc, stop: s.ctx.Done()}
	mc := &MetadataClient{FakeMetadataClient: metadatafake.NewSimpleMetadataClient(scheme), srv: s}
	(&forwarder{srv: s, codec: codec}).install(&mc.Fake)
	// The tracker seeds whole objects and answers unstructured, as the
	// dynamic client's does: a seed's body must be a full object.
	mc.tracker = &tracker{srv: s, codec: uc}
	if err := mc.tracker.seed(objs); err != nil {
		return nil, err
	}
	return mc, nil
}

// Tracker returns the server-backed ObjectTracker; it answers with
// unstructured objects.
func (c *MetadataClient) Tracker() clienttesting.ObjectTracker { return c.tracker }

// Server is the server this client talks to.
func (c *MetadataClient) Server() *Server { return c.srv }

// IsWatchListSemanticsUnSupported is false unless DisableWatchList was
// called (see [Clientset.IsWatchListSemanticsUnSupported]).
func (c *MetadataClient) IsWatchListSemanticsUnSupported() bool { return c.noWatchList.Load() }

// DisableWatchList makes informers built from now on list, then watch.
func (c *MetadataClient) DisableWatchList() { c.noWatchList.Store(true) }

// metadataCodec answers as the metadata client: what the unstructured
// codec decodes, projected to PartialObjectMetadata.
type metadataCodec struct {
	*unstructuredCodec
	stop <-chan struct{} // the server's close
}

func (c *metadataCodec) decode(res rest.Result) (runtime.Object, error) {
	obj, err := c.unstructuredCodec.decode(res)
	if err != nil {
		return nil, err
	}
	return projectMetadata(obj), nil
}

func (c *metadataCodec) wrapWatch(w watch.Interface) watch.Interface {
	return newProjectingWatch(w, c.stop)
}

// projectMetadata turns an unstructured object into PartialObjectMetadata
// and a list into the metav1.List of them that client-go's fake metadata
// List reads; anything else (a Status) is returned as it is.
func projectMetadata(obj runtime.Object) runtime.Object {
	switch o := obj.(type) {
	case *unstructured.Unstructured:
		return partial(o)
	case *unstructured.UnstructuredList:
		list := &metav1.List{ListMeta: metav1.ListMeta{ResourceVersion: o.GetResourceVersion(), Continue: o.GetContinue(),
			RemainingItemCount: o.GetRemainingItemCount()}}
		for i := range o.Items {
			list.Items = append(list.Items, runtime.RawExtension{Object: partial(&o.Items[i])})
		}
		return list
	}
	return obj
}

// partial is u's kind and metadata.
func partial(u *unstructured.Unstructured) *metav1.PartialObjectMetadata {
	p := &metav1.PartialObjectMetadata{TypeMeta: metav1.TypeMeta{APIVersion: u.GetAPIVersion(), Kind: u.GetKind()}}
	if m, ok := u.Object["metadata"].(map[string]any); ok {
		// The map came from JSON, so it converts.
		_ = runtime.DefaultUnstructuredConverter.FromUnstructured(m, &p.ObjectMeta)
	}
	return p
}

// projectingWatch relays a watch's events with their objects projected to
// metadata. One goroutine per watch relays; it ends when the source's
// channel closes (Stop stops the source), or when Stop is called or the
// server closes while it waits to send to a reader that stopped reading.
type projectingWatch struct {
	src    watch.Interface
	out    chan watch.Event
	done   chan struct{}
	stop   <-chan struct{}
	closed sync.Once
}

// newProjectingWatch starts the relay of w.
func newProjectingWatch(w watch.Interface, stop <-chan struct{}) *projectingWatch {
	pw := &projectingWatch{src: w, out: make(chan watch.Event), done: make(chan struct{}), stop: stop}
	go pw.relay()
	return pw
}

func (pw *projectingWatch) relay() {
	defer close(pw.out)
	for ev := range pw.src.ResultChan() {
		ev.Object = projectMetadata(ev.Object)
		select {
		case pw.out <- ev:
		case <-pw.done:
			pw.src.Stop()
			return
		case <-pw.stop:
			pw.src.Stop()
			return
		}
	}
}

// ResultChan is the projected events; it closes when the watch ends.
func (pw *projectingWatch) ResultChan() <-chan watch.Event { return pw.out }

// Stop ends the watch; safe to call more than once.
func (pw *projectingWatch) Stop() {
	pw.closed.Do(func() { close(pw.done) })
	pw.src.Stop()
}
