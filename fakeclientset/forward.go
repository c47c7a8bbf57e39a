package fakeclientset

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	clienttesting "k8s.io/client-go/testing"
)

// parameterCodec encodes query options as client-go's typed clients do.
var parameterCodec = scheme.ParameterCodec

// codec is how a fake client's objects travel: how bodies are encoded, how
// answers are decoded into what the fake's methods type-assert them to.
type codec interface {
	// client is the REST client of gv's requests.
	client(gv schema.GroupVersion) (rest.Interface, error)
	// encode is obj as a JSON request body for gv.
	encode(obj runtime.Object, gv schema.GroupVersion) ([]byte, error)
	// decode is the object of a successful answer.
	decode(res rest.Result) (runtime.Object, error)
	// wrapWatch adapts a watch's events (the metadata client projects
	// them), or returns w.
	wrapWatch(w watch.Interface) watch.Interface
}

// forwarder is the reactor that takes the place of client-go's object
// tracker in a fake client's chains: each action that no earlier reactor
// handled becomes the real clientset's request to the server.
type forwarder struct {
	srv   *Server
	codec codec
}

// install replaces fake's tracker reactors with the forwarder, in the
// tracker's place: reactors prepended later run first, reactors added
// later run only for actions the forwarder does not handle (as behind the
// tracker: GetLogs' generic action and get-field-selector). It runs before
// the fake is shared, so it needs no lock.
func (f *forwarder) install(fake *clienttesting.Fake) {
	fake.ReactionChain = []clienttesting.Reactor{&clienttesting.SimpleReactor{Verb: "*", Resource: "*", Reaction: f.react}}
	fake.WatchReactionChain = []clienttesting.WatchReactor{&clienttesting.SimpleWatchReactor{Resource: "*", Reaction: f.reactWatch}}
	fake.ProxyReactionChain = []clienttesting.ProxyReactor{&clienttesting.SimpleProxyReactor{Resource: "*", Reaction: f.reactProxy}}
}

// react sends action to the server and returns its answer: the decoded
// object, or the server's error as an *apierrors.StatusError. A reactor
// always handles what it forwards, so the caller sees the server's error,
// never client-go's "no reaction implemented".
func (f *forwarder) react(action clienttesting.Action) (bool, runtime.Object, error) {
	c, ok, err := callFor(action)
	if !ok || err != nil {
		return ok || err != nil, nil, err
	}
	obj, err := f.do(c)
	return true, obj, err
}

// do sends c and decodes the answer.
func (f *forwarder) do(c call) (runtime.Object, error) {
	client, err := f.codec.client(c.gvr.GroupVersion())
	if err != nil {
		return nil, err
	}
	req, err := c.request(client, f.codec.encode)
	if err != nil {
		return nil, err
	}
	res := req.Do(f.srv.ctx)
	if c.noResult {
		return nil, res.Error()
	}
	return f.codec.decode(res)
}

// reactWatch opens the watch of action on the server. Unlike the tracker's
// reactor it reports the server's error as handled, so the caller gets it
// rather than client-go's "unhandled watch".
func (f *forwarder) reactWatch(action clienttesting.Action) (bool, watch.Interface, error) {
	a, ok := action.(clienttesting.WatchActionImpl)
	if !ok {
		return false, nil, nil
	}
	w, err := f.watch(a.Resource, a.Namespace, a.ListOptions)
	return true, w, err
}

// watch opens a watch on the server. It lives until its Stop or the
// server's close: the fake's Watch passes no context to its reactors.
func (f *forwarder) watch(gvr schema.GroupVersionResource, ns string, opts metav1.ListOptions) (watch.Interface, error) {
	client, err := f.codec.client(gvr.GroupVersion())
	if err != nil {
		return nil, err
	}
	opts.Watch = true
	c := call{method: "GET", gvr: gvr, namespace: ns, params: &opts}
	req, err := c.request(client, f.codec.encode)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(f.srv.ctx)
	w, err := req.Watch(ctx)
	if err != nil {
		cancel()
		return nil, err
	}
	return f.codec.wrapWatch(&cancelWatch{Interface: w, cancel: cancel}), nil
}

// reactProxy answers a ProxyGet with the real request to the server (whose
// answer is the real server's for a pod or service it cannot reach).
func (f *forwarder) reactProxy(action clienttesting.Action) (bool, rest.ResponseWrapper, error) {
	a, ok := action.(clienttesting.ProxyGetActionImpl)
	if !ok {
		return false, nil, nil
	}
	client, err := f.codec.client(a.Resource.GroupVersion())
	if err != nil {
		return false, nil, err
	}
	return true, proxyRequest(client, a), nil
}

// cancelWatch is a watch whose Stop also cancels its request's context.
type cancelWatch struct {
	watch.Interface
	cancel context.CancelFunc
}

func (w *cancelWatch) Stop() {
	w.Interface.Stop()
	w.cancel()
}

// typedCodec decodes into client-go's typed objects, as the typed
// clientset does: one REST client per group-version, with client-go's
// scheme, the kind cleared from decoded objects.
type typedCodec struct {
	srv *Server

	// mu guards the field below.
	mu      sync.Mutex
	clients map[schema.GroupVersion]rest.Interface
}

func (c *typedCodec) client(gv schema.GroupVersion) (rest.Interface, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if rc, ok := c.clients[gv]; ok {
		return rc, nil
	}
	cfg := c.srv.RESTConfig()
	cfg.GroupVersion = &gv
	cfg.APIPath = apiPath(gv)[0]
	cfg.ContentType = runtime.ContentTypeJSON
	cfg.NegotiatedSerializer = scheme.Codecs.WithoutConversion()
	rc, err := rest.RESTClientForConfigAndClient(cfg, c.srv.hc)
	if err != nil {
		return nil, fmt.Errorf("fakeclientset: REST client for %s: %w", gv, err)
	}
	if c.clients == nil {
		c.clients = map[schema.GroupVersion]rest.Interface{}
	}
	c.clients[gv] = rc
	return rc, nil
}

func (c *typedCodec) encode(obj runtime.Object, gv schema.GroupVersion) ([]byte, error) {
	return encodeBody(obj, gv)
}

func (c *typedCodec) decode(res rest.Result) (runtime.Object, error) { return res.Get() }

func (c *typedCodec) wrapWatch(w watch.Interface) watch.Interface { return w }

// encodeBody encodes a request object as JSON: unstructured objects as
// they are, PartialObjectMetadata with the kind it names, typed objects
// with their kind in gv when the scheme has one there (DeleteOptions),
// else their own (an Eviction sent to core/v1 pods).
func encodeBody(obj runtime.Object, gv schema.GroupVersion) ([]byte, error) {
	switch o := obj.(type) {
	case runtime.Unstructured:
		return runtime.Encode(unstructured.UnstructuredJSONScheme, obj)
	case *metav1.PartialObjectMetadata:
		return json.Marshal(o)
	}
	return runtime.Encode(scheme.Codecs.WithoutConversion().EncoderForVersion(jsonSerializer, gv), obj)
}

// jsonSerializer is client-go's JSON serializer (immutable).
var jsonSerializer = func() runtime.Serializer {
	info, _ := runtime.SerializerInfoForMediaType(scheme.Codecs.SupportedMediaTypes(), runtime.ContentTypeJSON)
	return info.Serializer
}()

// unstructuredCodec decodes into unstructured objects, as the dynamic
// client does (dynamic/simple.go).
type unstructuredCodec struct {
	rc rest.Interface
}

// newUnstructuredCodec builds the one unversioned REST client of the
// dynamic client's configuration (dynamic.ConfigFor).
func newUnstructuredCodec(srv *Server) (*unstructuredCodec, error) {
	rc, err := rest.UnversionedRESTClientForConfigAndClient(dynamic.ConfigFor(srv.RESTConfig()), srv.hc)
	if err != nil {
		return nil, fmt.Errorf("fakeclientset: dynamic REST client: %w", err)
	}
	return &unstructuredCodec{rc: rc}, nil
}

func (c *unstructuredCodec) client(schema.GroupVersion) (rest.Interface, error) { return c.rc, nil }

func (c *unstructuredCodec) encode(obj runtime.Object, gv schema.GroupVersion) ([]byte, error) {
	return encodeBody(obj, gv)
}

// decode checks the answer's error first, as the dynamic client does
// (dynamic/simple.go): Error decodes a failure's Status into the server's
// *apierrors.StatusError, where Raw has only client-go's generic error for
// the status code.
func (c *unstructuredCodec) decode(res rest.Result) (runtime.Object, error) {
	if err := res.Error(); err != nil {
		return nil, err
	}
	raw, err := res.Raw()
	if err != nil {
		return nil, err
	}
	return runtime.Decode(unstructured.UnstructuredJSONScheme, raw)
}

func (c *unstructuredCodec) wrapWatch(w watch.Interface) watch.Interface { return w }

// metaAccessor is meta.Accessor with the object's type in its error.
func metaAccessor(obj runtime.Object) (metav1.Object, error) {
	m, err := meta.Accessor(obj)
	if err != nil {
		return nil, fmt.Errorf("fakeclientset: %T has no metadata: %w", obj, err)
	}
	return m, nil
}
