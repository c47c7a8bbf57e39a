package openapi

import (
	"net/http"
	"reflect"
	"slices"
	"strings"
	"unicode"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/kube-openapi/pkg/spec3"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

// Generated OpenAPI v3 documents, in kube-openapi's types, for served
// group-versions kube-apiserver has no captured document for (ones it does
// not serve by default, and the user's own kinds).

const (
	// metaSchemaPrefix names the apimachinery meta types as kube-apiserver's
	// documents do.
	metaSchemaPrefix = "io.k8s.apimachinery.pkg.apis.meta.v1."
	// schemaRefPrefix is where a v3 document's schemas are referred to.
	schemaRefPrefix = "#/components/schemas/"
	// Extensions kubectl reads: cli-runtime's queryParamVerifierV3 finds
	// the PATCH operation of a kind by its group-version-kind and looks for
	// fieldValidation among its parameters.
	extAction                = "x-kubernetes-action"
	extGroupVersionKind      = "x-kubernetes-group-version-kind"
	extPreserveUnknownFields = "x-kubernetes-preserve-unknown-fields"
)

// Resource is what a generated document needs to know about a served
// resource: where it is served, its kinds (and their Go types, which name
// the schemas), its scope, whether it has a status subresource and what a
// delete returns.
type Resource interface {
	GroupVersionResource() schema.GroupVersionResource
	GroupVersionKind() schema.GroupVersionKind
	ListGroupVersionKind() schema.GroupVersionKind
	// NewObject and NewList return empty objects of the kind and the list
	// kind.
	NewObject() runtime.Object
	NewList() runtime.Object
	Namespaced() bool
	HasStatus() bool
	// DeleteReturnsObject reports whether DELETE answers with the deleted
	// object rather than a Status (pods).
	DeleteReturnsObject() bool
}

// newOpenAPISpec starts a document with the meta schemas every generated
// document refers to.
func newOpenAPISpec() *spec3.OpenAPI {
	doc := &spec3.OpenAPI{
		Version:    "3.0.0",
		Info:       &spec.Info{InfoProps: spec.InfoProps{Title: "Kubernetes", Version: "unversioned"}},
		Paths:      &spec3.Paths{Paths: map[string]*spec3.Path{}},
		Components: &spec3.Components{Schemas: map[string]*spec.Schema{}},
	}
	for _, name := range []string{"APIGroup", "APIResourceList", "DeleteOptions", "ListMeta", "ObjectMeta", "Patch", "Status"} {
		doc.Components.Schemas[metaSchemaPrefix+name] = openObject("")
	}
	doc.Components.Schemas[metaSchemaPrefix+"Status"].AddExtension(extGroupVersionKind, []any{gvkExtension(schema.GroupVersionKind{Version: "v1", Kind: "Status"})})
	return doc
}

// openObject is an object schema that keeps unknown fields.
func openObject(description string) *spec.Schema {
	s := &spec.Schema{SchemaProps: spec.SchemaProps{Description: description, Type: spec.StringOrArray{"object"}}}
	s.AddExtension(extPreserveUnknownFields, true)
	return s
}

// refSchema refers to a named schema.
func refSchema(name string) *spec.Schema {
	return &spec.Schema{SchemaProps: spec.SchemaProps{Ref: spec.MustCreateRef(schemaRefPrefix + name)}}
}

// gvkExtension is the value of x-kubernetes-group-version-kind for gvk.
func gvkExtension(gvk schema.GroupVersionKind) map[string]any {
	return map[string]any{"group": gvk.Group, "version": gvk.Version, "kind": gvk.Kind}
}

// openAPIGroupSpec is the generated document of /apis/<group>/, which
// kube-apiserver serves for every group.
func openAPIGroupSpec(group string) *spec3.OpenAPI {
	doc := newOpenAPISpec()
	id := openAPIGroupID(group)
	doc.Paths.Paths["/apis/"+group+"/"] = &spec3.Path{PathProps: spec3.PathProps{Get: &spec3.Operation{OperationProps: spec3.OperationProps{
		Description: "get information of a group",
		OperationId: "get" + id + "APIGroup",
		Responses:   openAPIResponses(metaSchemaPrefix+"APIGroup", http.StatusOK),
		Tags:        []string{lowerFirst(id)},
	}}}}
	return doc
}

// openAPIResource builds the paths of one resource in a generated document.
type openAPIResource struct {
	res      Resource
	doc      *spec3.OpenAPI
	id       string // operation-id infix, e.g. "ExampleComV1"
	tag      string // operation tag, e.g. "exampleCom_v1"
	object   string // schema name of the kind
	list     string // schema name of the list kind
	basePath string // "/apis/<g>/<v>" or "/api/<v>"
}

// Generate is a minimal but valid /openapi/v3 document for a served
// group-version kube-apiserver has no document for (one it does not serve
// by default, or the user's own kinds): for each of its stored resources,
// its paths and operations (with fieldValidation on writes) and object
// schemas that accept any field. kubectl's client-side checks need nothing
// more.
func Generate(gv schema.GroupVersion, resources []Resource) *spec3.OpenAPI {
	doc := newOpenAPISpec()
	id := openAPIGroupID(gv.Group) + titleFirst(gv.Version)
	base := "/api/" + gv.Version
	if gv.Group != "" {
		base = "/apis/" + gv.Group + "/" + gv.Version
	}
	tag := lowerFirst(openAPIGroupID(gv.Group)) + "_" + gv.Version
	doc.Paths.Paths[base+"/"] = &spec3.Path{PathProps: spec3.PathProps{Get: &spec3.Operation{OperationProps: spec3.OperationProps{
		Description: "get available resources",
		OperationId: "get" + id + "APIResources",
		Responses:   openAPIResponses(metaSchemaPrefix+"APIResourceList", http.StatusOK),
		Tags:        []string{tag},
	}}}}
	for _, res := range resources {
		b := &openAPIResource{res: res, doc: doc, id: id, tag: tag, basePath: base}
		b.addSchemas()
		b.addPaths()
	}
	return doc
}

// addSchemas adds the kind's and the list kind's schemas.
func (b *openAPIResource) addSchemas() {
	b.object = openAPISchemaName(b.res.GroupVersionKind(), b.res.NewObject())
	b.list = openAPISchemaName(b.res.ListGroupVersionKind(), b.res.NewList())
	str := func() spec.Schema { return *spec.StringProperty() }
	obj := openObject(b.res.GroupVersionKind().Kind + " (served by lw-sim; its fields are not described, and any are accepted).")
	obj.Properties = map[string]spec.Schema{"apiVersion": str(), "kind": str(), "metadata": *refSchema(metaSchemaPrefix + "ObjectMeta")}
	obj.AddExtension(extGroupVersionKind, []any{gvkExtension(b.res.GroupVersionKind())})
	b.doc.Components.Schemas[b.object] = obj
	list := openObject(b.res.ListGroupVersionKind().Kind + " is a list of " + b.res.GroupVersionKind().Kind + ".")
	list.Properties = map[string]spec.Schema{
		"apiVersion": str(), "kind": str(), "metadata": *refSchema(metaSchemaPrefix + "ListMeta"),
		"items": *spec.ArrayProperty(refSchema(b.object)),
	}
	list.Required = []string{"items"}
	list.AddExtension(extGroupVersionKind, []any{gvkExtension(b.res.ListGroupVersionKind())})
	b.doc.Components.Schemas[b.list] = list
}

// addPaths adds the collection, object and status paths of the resource,
// named and shaped as kube-apiserver's installer names them.
func (b *openAPIResource) addPaths() {
	kind, ns, scope := b.res.GroupVersionKind().Kind, "", b.basePath
	if b.res.Namespaced() {
		ns, scope = "Namespaced", b.basePath+"/namespaces/{namespace}"
	}
	pathParams := func(names ...string) []*spec3.Parameter {
		var ps []*spec3.Parameter
		for _, n := range names {
			ps = append(ps, &spec3.Parameter{ParameterProps: spec3.ParameterProps{Name: n, In: "path", Required: true, Schema: openAPIQueryString()}})
		}
		return append(ps, &spec3.Parameter{ParameterProps: spec3.ParameterProps{Name: "pretty", In: "query", Schema: openAPIQueryString()}})
	}
	path := func(params []*spec3.Parameter, set func(*spec3.PathProps)) *spec3.Path {
		p := &spec3.Path{PathProps: spec3.PathProps{Parameters: params}}
		set(&p.PathProps)
		return p
	}
	status := metaSchemaPrefix + "Status"
	scopeParams := pathParams()
	if ns != "" {
		scopeParams = pathParams("namespace")
		b.doc.Paths.Paths[b.basePath+"/"+b.res.GroupVersionResource().Resource] = path(pathParams(), func(p *spec3.PathProps) {
			p.Get = b.op("list", "list "+kind, "list"+b.id+kind+"ForAllNamespaces", openAPIListParams(), nil, openAPIResponses(b.list, http.StatusOK))
		})
	}
	collection := scope + "/" + b.res.GroupVersionResource().Resource
	b.doc.Paths.Paths[collection] = path(scopeParams, func(p *spec3.PathProps) {
		p.Get = b.op("list", "list "+kind, "list"+b.id+ns+kind, openAPIListParams(), nil, openAPIResponses(b.list, http.StatusOK))
		p.Post = b.op("post", "create a "+kind, "create"+b.id+ns+kind, openAPIWriteParams(), b.body(), openAPIResponses(b.object, http.StatusOK, http.StatusCreated, http.StatusAccepted))
		p.Delete = b.op("deletecollection", "delete collection of "+kind, "delete"+b.id+"Collection"+ns+kind, openAPIDeleteCollectionParams(), openAPIDeleteBody(), openAPIResponses(status, http.StatusOK))
	})
	itemParams := pathParams("name")
	if ns != "" {
		itemParams = pathParams("name", "namespace")
	}
	deleted := status
	if b.res.DeleteReturnsObject() {
		deleted = b.object
	}
	b.doc.Paths.Paths[collection+"/{name}"] = path(itemParams, func(p *spec3.PathProps) {
		p.Get = b.op("get", "read the specified "+kind, "read"+b.id+ns+kind, nil, nil, openAPIResponses(b.object, http.StatusOK))
		p.Put = b.op("put", "replace the specified "+kind, "replace"+b.id+ns+kind, openAPIWriteParams(), b.body(), openAPIResponses(b.object, http.StatusOK, http.StatusCreated))
		p.Patch = b.op("patch", "partially update the specified "+kind, "patch"+b.id+ns+kind, openAPIPatchParams(), openAPIPatchBody(), openAPIResponses(b.object, http.StatusOK, http.StatusCreated))
		p.Delete = b.op("delete", "delete a "+kind, "delete"+b.id+ns+kind, openAPIDeleteParams(), openAPIDeleteBody(), openAPIResponses(deleted, http.StatusOK, http.StatusAccepted))
	})
	if b.res.HasStatus() {
		b.doc.Paths.Paths[collection+"/{name}/status"] = path(itemParams, func(p *spec3.PathProps) {
			p.Get = b.op("get", "read status of the specified "+kind, "read"+b.id+ns+kind+"Status", nil, nil, openAPIResponses(b.object, http.StatusOK))
			p.Put = b.op("put", "replace status of the specified "+kind, "replace"+b.id+ns+kind+"Status", openAPIWriteParams(), b.body(), openAPIResponses(b.object, http.StatusOK, http.StatusCreated))
			p.Patch = b.op("patch", "partially update status of the specified "+kind, "patch"+b.id+ns+kind+"Status", openAPIPatchParams(), openAPIPatchBody(), openAPIResponses(b.object, http.StatusOK, http.StatusCreated))
		})
	}
}

// op is one operation on the resource's kind.
func (b *openAPIResource) op(action, desc, id string, params []*spec3.Parameter, body *spec3.RequestBody, resp *spec3.Responses) *spec3.Operation {
	op := &spec3.Operation{OperationProps: spec3.OperationProps{
		Description: desc, OperationId: id, Parameters: params, RequestBody: body, Responses: resp, Tags: []string{b.tag},
	}}
	op.AddExtension(extAction, action)
	op.AddExtension(extGroupVersionKind, gvkExtension(b.res.GroupVersionKind()))
	return op
}

// body is the request body of a create or replace: the kind itself.
func (b *openAPIResource) body() *spec3.RequestBody {
	return &spec3.RequestBody{RequestBodyProps: spec3.RequestBodyProps{Content: mediaTypes(b.object, "*/*"), Required: true}}
}

// mediaTypes maps each media type to the named schema.
func mediaTypes(name string, types ...string) map[string]*spec3.MediaType {
	out := make(map[string]*spec3.MediaType, len(types))
	for _, t := range types {
		out[t] = &spec3.MediaType{MediaTypeProps: spec3.MediaTypeProps{Schema: refSchema(name)}}
	}
	return out
}

// openAPIPatchBody is the request body of a patch, by patch type.
func openAPIPatchBody() *spec3.RequestBody {
	return &spec3.RequestBody{RequestBodyProps: spec3.RequestBodyProps{Required: true, Content: mediaTypes(metaSchemaPrefix+"Patch",
		"application/apply-patch+yaml", "application/json-patch+json", "application/merge-patch+json", "application/strategic-merge-patch+json")}}
}

// openAPIDeleteBody is the optional DeleteOptions body of a delete.
func openAPIDeleteBody() *spec3.RequestBody {
	return &spec3.RequestBody{RequestBodyProps: spec3.RequestBodyProps{Content: mediaTypes(metaSchemaPrefix+"DeleteOptions", "*/*")}}
}

// openAPIResponses maps each status code to the named schema in every
// served media type, plus the 401 kube-apiserver documents on every
// operation.
func openAPIResponses(name string, codes ...int) *spec3.Responses {
	out := &spec3.Responses{ResponsesProps: spec3.ResponsesProps{StatusCodeResponses: map[int]*spec3.Response{
		http.StatusUnauthorized: {ResponseProps: spec3.ResponseProps{Description: "Unauthorized"}},
	}}}
	for _, code := range codes {
		out.StatusCodeResponses[code] = &spec3.Response{ResponseProps: spec3.ResponseProps{
			Description: http.StatusText(code),
			Content:     mediaTypes(name, "application/json", "application/vnd.kubernetes.protobuf", "application/yaml"),
		}}
	}
	return out
}

// openAPIQuery builds query parameters of one schema type.
func openAPIQuery(typ string, names ...string) []*spec3.Parameter {
	ps := make([]*spec3.Parameter, 0, len(names))
	for _, n := range names {
		ps = append(ps, &spec3.Parameter{ParameterProps: spec3.ParameterProps{Name: n, In: "query",
			Schema: &spec.Schema{SchemaProps: spec.SchemaProps{Type: spec.StringOrArray{typ}, UniqueItems: true}}}})
	}
	return ps
}

// openAPIQueryString is the schema kube-apiserver gives string parameters.
func openAPIQueryString() *spec.Schema {
	return &spec.Schema{SchemaProps: spec.SchemaProps{Type: spec.StringOrArray{"string"}, UniqueItems: true}}
}

// openAPIListParams are the query parameters of list and watch.
func openAPIListParams() []*spec3.Parameter {
	return slices.Concat(
		openAPIQuery("boolean", "allowWatchBookmarks"),
		openAPIQuery("string", "continue", "fieldSelector", "labelSelector"),
		openAPIQuery("integer", "limit"),
		openAPIQuery("string", "resourceVersion", "resourceVersionMatch"),
		openAPIQuery("boolean", "sendInitialEvents"),
		openAPIQuery("integer", "timeoutSeconds"),
		openAPIQuery("boolean", "watch"))
}

// openAPIWriteParams are the query parameters of create and replace.
func openAPIWriteParams() []*spec3.Parameter {
	return openAPIQuery("string", "dryRun", "fieldManager", "fieldValidation")
}

// openAPIPatchParams are the query parameters of a patch.
func openAPIPatchParams() []*spec3.Parameter {
	return append(openAPIWriteParams(), openAPIQuery("boolean", "force")...)
}

// openAPIDeleteParams are the query parameters of a delete.
func openAPIDeleteParams() []*spec3.Parameter {
	return slices.Concat(
		openAPIQuery("string", "dryRun"),
		openAPIQuery("integer", "gracePeriodSeconds"),
		openAPIQuery("boolean", "orphanDependents"),
		openAPIQuery("string", "propagationPolicy"))
}

// openAPIDeleteCollectionParams are the query parameters of a
// deletecollection: a delete's and a list's, without watch.
func openAPIDeleteCollectionParams() []*spec3.Parameter {
	list := slices.DeleteFunc(openAPIListParams(), func(p *spec3.Parameter) bool {
		return p.Name == "watch" || p.Name == "allowWatchBookmarks"
	})
	return append(openAPIDeleteParams(), list...)
}

// openAPISchemaName names a kind's schema as kube-openapi's definition namer
// names a Go type: its package path and type name, REST-friendly
// ("k8s.io/api/core/v1.Pod" → "io.k8s.api.core.v1.Pod"). A kind whose Go
// type is named differently (unstructured) is named from its group
// instead, as CRD schemas are ("example.com" → "com.example.v1.Widget").
func openAPISchemaName(gvk schema.GroupVersionKind, obj any) string {
	if t := reflect.TypeOf(obj); t != nil {
		if t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if t.Name() == gvk.Kind && t.PkgPath() != "" {
			return restFriendlyName(t.PkgPath() + "." + t.Name())
		}
	}
	group := gvk.Group
	if group == "" {
		group = "core"
	}
	parts := strings.Split(group, ".")
	slices.Reverse(parts)
	return strings.Join(parts, ".") + "." + gvk.Version + "." + gvk.Kind
}

// restFriendlyName is kube-openapi's util.ToRESTFriendlyName: the first
// path element's domain reversed, then "/" as ".".
func restFriendlyName(name string) string {
	parts := strings.Split(name, "/")
	if strings.Contains(parts[0], ".") {
		domain := strings.Split(parts[0], ".")
		slices.Reverse(domain)
		parts[0] = strings.Join(domain, ".")
	}
	return strings.Join(parts, ".")
}

// openAPIGroupID is a group as operation ids spell it: "" → "Core",
// "coordination.k8s.io" → "Coordination", "example.com" → "ExampleCom".
func openAPIGroupID(group string) string {
	if group == "" {
		return "Core"
	}
	words := strings.FieldsFunc(strings.TrimSuffix(group, ".k8s.io"), func(r rune) bool { return r == '.' || r == '-' })
	for i, w := range words {
		words[i] = titleFirst(w)
	}
	return strings.Join(words, "")
}

// titleFirst upper-cases the first letter of s.
func titleFirst(s string) string {
	if s == "" {
		return s
	}
	r := []rune(s)
	r[0] = unicode.ToUpper(r[0])
	return string(r)
}

// lowerFirst lower-cases the first letter of s.
func lowerFirst(s string) string {
	if s == "" {
		return s
	}
	r := []rune(s)
	r[0] = unicode.ToLower(r[0])
	return string(r)
}
