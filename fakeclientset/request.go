package fakeclientset

import (
	"fmt"
	utilnet "k8s.io/apimachinery/pkg/util/net"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	clienttesting "k8s.io/client-go/testing"
)

// paramVersion is the version client-go encodes query options in
// (metav1.ListOptions and friends are registered in every group-version
// with the same fields; the dynamic client names v1).
var paramVersion = schema.GroupVersion{Version: "v1"}

// call is one HTTP request of the real clientset, described: the typed,
// dynamic and metadata clients' actions all map onto it.
type call struct {
	method      string
	gvr         schema.GroupVersionResource
	namespace   string
	name        string
	subresource string
	// params are the query options (ListOptions, GetOptions, ...), nil for
	// none.
	params runtime.Object
	// body is the request object, nil for none.
	body      runtime.Object
	patchType types.PatchType
	patch     []byte
	// noResult marks calls whose caller discards the response object
	// (delete, deletecollection).
	noResult bool
}

// callFor maps a recorded action onto the request client-go's real
// clientset sends for the same method call (kubernetes/typed/*, gentype,
// dynamic/simple.go): ok is false for actions that have no request, such as
// GetLogs' GenericAction, which client-go's fake answers itself. It switches
// on the implementation types, as testing.ObjectReaction does, because
// CreateAction and UpdateAction are the same interface.
func callFor(action clienttesting.Action) (c call, ok bool, err error) {
	c = call{gvr: action.GetResource(), namespace: action.GetNamespace(), subresource: action.GetSubresource()}
	switch a := action.(type) {
	case clienttesting.GetActionImpl:
		c.method, c.name, c.params = "GET", a.Name, &a.GetOptions
	case clienttesting.ListActionImpl:
		c.method, c.params = "GET", &a.ListOptions
	case clienttesting.CreateActionImpl:
		return createCall(c, a)
	case clienttesting.UpdateActionImpl:
		name, err := objectName(a.Object)
		if err != nil {
			return c, false, err
		}
		c.method, c.name, c.body, c.params = "PUT", name, a.Object, &a.UpdateOptions
	case clienttesting.PatchActionImpl:
		c.method, c.name, c.params = "PATCH", a.Name, &a.PatchOptions
		c.patchType, c.patch = a.PatchType, a.Patch
	case clienttesting.DeleteActionImpl:
		c.method, c.name, c.body, c.noResult = "DELETE", a.Name, &a.DeleteOptions, true
	case clienttesting.DeleteCollectionActionImpl:
		c.method, c.params, c.body, c.noResult = "DELETE", &a.ListOptions, &a.DeleteOptions, true
	default:
		return c, false, nil
	}
	return c, true, nil
}

// createCall maps a create. A create of a subresource goes to the parent
// object named by the action or, as the fake's Bind and Evict leave the
// name out, by the object (testing/fixture.go does the same); a namespace's
// finalize is a PUT (core/v1 namespace_expansion.go: Finalize).
func createCall(c call, a clienttesting.CreateActionImpl) (call, bool, error) {
	c.method, c.body, c.params = "POST", a.Object, &a.CreateOptions
	if c.subresource == "" {
		return c, true, nil
	}
	c.name = a.Name
	if c.name == "" {
		name, err := objectName(a.Object)
		if err != nil {
			return c, false, err
		}
		c.name = name
	}
	if c.gvr.Group == "" && c.gvr.Resource == "namespaces" && c.subresource == "finalize" {
		c.method, c.params = "PUT", &metav1.UpdateOptions{DryRun: a.CreateOptions.DryRun, FieldManager: a.CreateOptions.FieldManager}
	}
	return c, true, nil
}

// objectName is obj's metadata.name.
func objectName(obj runtime.Object) (string, error) {
	m, err := metaAccessor(obj)
	if err != nil {
		return "", err
	}
	return m.GetName(), nil
}

// request builds c on client, as the real clientset builds it: the API
// path of c's group-version, namespace, resource, name, subresource, the
// options as query parameters, the body encoded by encode.
func (c call) request(client rest.Interface, encode func(runtime.Object, schema.GroupVersion) ([]byte, error)) (*rest.Request, error) {
	req := client.Verb(c.method).AbsPath(apiPath(c.gvr.GroupVersion())...).
		NamespaceIfScoped(c.namespace, c.namespace != "").Resource(c.gvr.Resource)
	if c.name != "" {
		req = req.Name(c.name)
	}
	if c.subresource != "" {
		req = req.SubResource(strings.Split(c.subresource, "/")...)
	}
	if c.params != nil {
		req = req.SpecificallyVersionedParams(c.params, parameterCodec, paramVersion)
	}
	switch {
	case c.patchType != "":
		req = req.SetHeader("Content-Type", string(c.patchType)).Body(c.patch)
	case c.body != nil:
		data, err := encode(c.body, c.gvr.GroupVersion())
		if err != nil {
			return nil, fmt.Errorf("encode %T: %w", c.body, err)
		}
		req = req.SetHeader("Content-Type", runtime.ContentTypeJSON).Body(data)
	}
	return req, nil
}

// proxyRequest is the request of ProxyGet (core/v1 pod and service
// expansions): GET .../NAME:PORT/proxy/PATH with params as the query.
func proxyRequest(client rest.Interface, a clienttesting.ProxyGetActionImpl) *rest.Request {
	req := client.Get().AbsPath(apiPath(a.Resource.GroupVersion())...).
		NamespaceIfScoped(a.Namespace, a.Namespace != "").Resource(a.Resource.Resource).
		SubResource("proxy").Name(utilnet.JoinSchemeNamePort(a.Scheme, a.Name, a.Port)).Suffix(a.Path)
	for k, v := range a.Params {
		req = req.Param(k, v)
	}
	return req
}

// apiPath is the path of gv's API: /api/v1 for the core group, else
// /apis/GROUP/VERSION.
func apiPath(gv schema.GroupVersion) []string {
	if gv.Group == "" {
		return []string{"/api", gv.Version}
	}
	return []string{"/apis", gv.Group, gv.Version}
}
