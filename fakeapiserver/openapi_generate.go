package fakeapiserver

import (
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/kube-openapi/pkg/spec3"
)

// metaSchemaPrefix names the apimachinery meta types as kube-apiserver's
// documents do.
const metaSchemaPrefix = "io.k8s.apimachinery.pkg.apis.meta.v1."

// openAPISpec is the subset of an OpenAPI 3.0 document that generated
// documents use; encoding/json sorts its maps, so a document and its hash
// are stable.
type openAPISpec struct {
	OpenAPI    string                  `json:"openapi"`
	Info       openAPIInfo             `json:"info"`
	Paths      map[string]*openAPIPath `json:"paths"`
	Components openAPIComponents       `json:"components"`
}

// openAPIInfo is the document's info object.
type openAPIInfo struct {
	Title   string `json:"title"`
	Version string `json:"version"`
}

// openAPIComponents holds the named schemas.
type openAPIComponents struct {
	Schemas map[string]*openAPISchema `json:"schemas"`
}

// openAPIPath is one path item.
type openAPIPath struct {
	Get        *openAPIOperation  `json:"get,omitempty"`
	Put        *openAPIOperation  `json:"put,omitempty"`
	Post       *openAPIOperation  `json:"post,omitempty"`
	Delete     *openAPIOperation  `json:"delete,omitempty"`
	Patch      *openAPIOperation  `json:"patch,omitempty"`
	Parameters []openAPIParameter `json:"parameters,omitempty"`
}

// openAPIOperation is one operation with the Kubernetes extensions that
// kubectl reads: cli-runtime's queryParamVerifierV3 finds the PATCH
// operation of a kind by x-kubernetes-group-version-kind and looks for
// fieldValidation among its parameters.
type openAPIOperation struct {
	Description string                     `json:"description"`
	OperationID string                     `json:"operationId"`
	Parameters  []openAPIParameter         `json:"parameters,omitempty"`
	RequestBody *openAPIRequestBody        `json:"requestBody,omitempty"`
	Responses   map[string]openAPIResponse `json:"responses"`
	Tags        []string                   `json:"tags"`
	Action      string                     `json:"x-kubernetes-action,omitempty"`
	GVK         *openAPIGVK                `json:"x-kubernetes-group-version-kind,omitempty"`
}

// openAPIParameter is a path or query parameter.
type openAPIParameter struct {
	Name     string        `json:"name"`
	In       string        `json:"in"`
	Required bool          `json:"required,omitempty"`
	Schema   openAPISchema `json:"schema"`
}

// openAPIRequestBody is an operation's body by media type.
type openAPIRequestBody struct {
	Content  map[string]openAPIMedia `json:"content"`
	Required bool                    `json:"required"`
}

// openAPIResponse is one response by status code.
type openAPIResponse struct {
	Description string                  `json:"description"`
	Content     map[string]openAPIMedia `json:"content,omitempty"`
}

// openAPIMedia is the schema of one media type.
type openAPIMedia struct {
	Schema openAPISchema `json:"schema"`
}

// openAPISchema is a schema or a $ref to one.
type openAPISchema struct {
	Ref                   string                    `json:"$ref,omitempty"`
	Description           string                    `json:"description,omitempty"`
	Type                  string                    `json:"type,omitempty"`
	UniqueItems           bool                      `json:"uniqueItems,omitempty"`
	Properties            map[string]*openAPISchema `json:"properties,omitempty"`
	Items                 *openAPISchema            `json:"items,omitempty"`
	Required              []string                  `json:"required,omitempty"`
	PreserveUnknownFields bool                      `json:"x-kubernetes-preserve-unknown-fields,omitempty"`
	GVK                   []openAPIGVK              `json:"x-kubernetes-group-version-kind,omitempty"`
}

// openAPIGVK is the x-kubernetes-group-version-kind extension.
type openAPIGVK struct {
	Group   string `json:"group"`
	Kind    string `json:"kind"`
	Version string `json:"version"`
}

// openAPIResource builds the paths of one resource in a generated document.
type openAPIResource struct {
	res      *resourceInfo
	spec     *openAPISpec
	id       string // operation-id infix, e.g. "ExampleComV1"
	tag      string // operation tag, e.g. "exampleCom_v1"
	object   string // schema ref of the kind
	list     string // schema ref of the list kind
	basePath string // "/apis/<g>/<v>" or "/api/<v>"
}

// newOpenAPISpec starts a document with the meta schemas every generated
// document refers to.
func newOpenAPISpec() *openAPISpec {
	spec := &openAPISpec{
		OpenAPI:    "3.0.0",
		Info:       openAPIInfo{Title: "Kubernetes", Version: "unversioned"},
		Paths:      map[string]*openAPIPath{},
		Components: openAPIComponents{Schemas: map[string]*openAPISchema{}},
	}
	for _, name := range []string{"APIGroup", "APIResourceList", "DeleteOptions", "ListMeta", "ObjectMeta", "Patch", "Status"} {
		spec.Components.Schemas[metaSchemaPrefix+name] = &openAPISchema{Type: "object", PreserveUnknownFields: true}
	}
	spec.Components.Schemas[metaSchemaPrefix+"Status"].GVK = []openAPIGVK{{Kind: "Status", Version: "v1"}}
	return spec
}

// generatedOpenAPI is the generated v3 document of a served group-version
// kube-apiserver has none for (it is not served there by default, or its
// kinds are the user's own).
func (s *Server) generatedOpenAPI(gv schema.GroupVersion) *spec3.OpenAPI {
	doc, err := toSpec3(s.openAPIGroupVersionSpec(gv))
	if err != nil {
		// The generated types always round-trip; a failure is a bug here.
		panic(err)
	}
	return doc
}

// openAPIGroupSpec is the generated document of /apis/<group>/, which
// kube-apiserver serves for every group.
func openAPIGroupSpec(group string) *openAPISpec {
	spec := newOpenAPISpec()
	id := openAPIGroupID(group)
	spec.Paths["/apis/"+group+"/"] = &openAPIPath{Get: &openAPIOperation{
		Description: "get information of a group",
		OperationID: "get" + id + "APIGroup",
		Responses:   openAPIResponses(metaSchemaPrefix+"APIGroup", http.StatusOK),
		Tags:        []string{lowerFirst(id)},
	}}
	return spec
}

// openAPIGroupVersionSpec is a minimal but valid document for a served
// group-version kube-apiserver has no document for: for each resource, its
// paths and operations (with fieldValidation on writes) and object schemas
// that accept any field. kubectl's client-side checks need nothing more.
func (s *Server) openAPIGroupVersionSpec(gv schema.GroupVersion) *openAPISpec {
	spec := newOpenAPISpec()
	id := openAPIGroupID(gv.Group) + titleFirst(gv.Version)
	base := "/api/" + gv.Version
	if gv.Group != "" {
		base = "/apis/" + gv.Group + "/" + gv.Version
	}
	tag := lowerFirst(openAPIGroupID(gv.Group)) + "_" + gv.Version
	spec.Paths[base+"/"] = &openAPIPath{Get: &openAPIOperation{
		Description: "get available resources",
		OperationID: "get" + id + "APIResources",
		Responses:   openAPIResponses(metaSchemaPrefix+"APIResourceList", http.StatusOK),
		Tags:        []string{tag},
	}}
	for _, res := range s.resources.resourcesOf(gv) {
		b := &openAPIResource{res: res, spec: spec, id: id, tag: tag, basePath: base}
		b.addSchemas()
		b.addPaths()
	}
	return spec
}

// addSchemas adds the kind's and the list kind's schemas.
func (b *openAPIResource) addSchemas() {
	objName := openAPISchemaName(b.res.Kind, b.res.newObject())
	listName := openAPISchemaName(b.res.listKind, b.res.newList())
	b.object, b.list = "#/components/schemas/"+objName, "#/components/schemas/"+listName
	str := func() *openAPISchema { return &openAPISchema{Type: "string"} }
	b.spec.Components.Schemas[objName] = &openAPISchema{
		Description: b.res.Kind.Kind + " (served by lw-sim; its fields are not described, and any are accepted).",
		Type:        "object",
		Properties: map[string]*openAPISchema{
			"apiVersion": str(), "kind": str(), "metadata": {Ref: "#/components/schemas/" + metaSchemaPrefix + "ObjectMeta"},
		},
		PreserveUnknownFields: true,
		GVK:                   []openAPIGVK{newOpenAPIGVK(b.res.Kind)},
	}
	b.spec.Components.Schemas[listName] = &openAPISchema{
		Description: b.res.listKind.Kind + " is a list of " + b.res.Kind.Kind + ".",
		Type:        "object",
		Properties: map[string]*openAPISchema{
			"apiVersion": str(), "kind": str(), "metadata": {Ref: "#/components/schemas/" + metaSchemaPrefix + "ListMeta"},
			"items": {Type: "array", Items: &openAPISchema{Ref: b.object}},
		},
		Required:              []string{"items"},
		PreserveUnknownFields: true,
		GVK:                   []openAPIGVK{newOpenAPIGVK(b.res.listKind)},
	}
}

// addPaths adds the collection, object and status paths of the resource,
// named and shaped as kube-apiserver's installer names them.
func (b *openAPIResource) addPaths() {
	kind, ns, scope := b.res.Kind.Kind, "", b.basePath
	if !b.res.ClusterScoped {
		ns, scope = "Namespaced", b.basePath+"/namespaces/{namespace}"
	}
	pathParams := func(names ...string) []openAPIParameter {
		var ps []openAPIParameter
		for _, n := range names {
			ps = append(ps, openAPIParameter{Name: n, In: "path", Required: true, Schema: openAPIQueryString()})
		}
		return append(ps, openAPIParameter{Name: "pretty", In: "query", Schema: openAPIQueryString()})
	}
	scopeParams := pathParams()
	if ns != "" {
		scopeParams = pathParams("namespace")
		b.spec.Paths[b.basePath+"/"+b.res.gvr.Resource] = &openAPIPath{
			Get:        b.op("list", "list "+kind, "list"+b.id+kind+"ForAllNamespaces", openAPIListParams(), nil, openAPIResponses(b.list, http.StatusOK)),
			Parameters: pathParams(),
		}
	}
	collection := scope + "/" + b.res.gvr.Resource
	b.spec.Paths[collection] = &openAPIPath{
		Get:        b.op("list", "list "+kind, "list"+b.id+ns+kind, openAPIListParams(), nil, openAPIResponses(b.list, http.StatusOK)),
		Post:       b.op("post", "create a "+kind, "create"+b.id+ns+kind, openAPIWriteParams(), b.body(), openAPIResponses(b.object, http.StatusOK, http.StatusCreated, http.StatusAccepted)),
		Delete:     b.op("deletecollection", "delete collection of "+kind, "delete"+b.id+"Collection"+ns+kind, openAPIDeleteCollectionParams(), openAPIDeleteBody(), openAPIResponses("#/components/schemas/"+metaSchemaPrefix+"Status", http.StatusOK)),
		Parameters: scopeParams,
	}
	itemParams := pathParams("name")
	if ns != "" {
		itemParams = pathParams("name", "namespace")
	}
	deleted := "#/components/schemas/" + metaSchemaPrefix + "Status"
	if b.res.ReturnsDeletedObject {
		deleted = b.object
	}
	b.spec.Paths[collection+"/{name}"] = &openAPIPath{
		Get:        b.op("get", "read the specified "+kind, "read"+b.id+ns+kind, nil, nil, openAPIResponses(b.object, http.StatusOK)),
		Put:        b.op("put", "replace the specified "+kind, "replace"+b.id+ns+kind, openAPIWriteParams(), b.body(), openAPIResponses(b.object, http.StatusOK, http.StatusCreated)),
		Patch:      b.op("patch", "partially update the specified "+kind, "patch"+b.id+ns+kind, openAPIPatchParams(), openAPIPatchBody(), openAPIResponses(b.object, http.StatusOK, http.StatusCreated)),
		Delete:     b.op("delete", "delete a "+kind, "delete"+b.id+ns+kind, openAPIDeleteParams(), openAPIDeleteBody(), openAPIResponses(deleted, http.StatusOK, http.StatusAccepted)),
		Parameters: itemParams,
	}
	if b.res.hasStatus {
		b.spec.Paths[collection+"/{name}/status"] = &openAPIPath{
			Get:        b.op("get", "read status of the specified "+kind, "read"+b.id+ns+kind+"Status", nil, nil, openAPIResponses(b.object, http.StatusOK)),
			Put:        b.op("put", "replace status of the specified "+kind, "replace"+b.id+ns+kind+"Status", openAPIWriteParams(), b.body(), openAPIResponses(b.object, http.StatusOK, http.StatusCreated)),
			Patch:      b.op("patch", "partially update status of the specified "+kind, "patch"+b.id+ns+kind+"Status", openAPIPatchParams(), openAPIPatchBody(), openAPIResponses(b.object, http.StatusOK, http.StatusCreated)),
			Parameters: itemParams,
		}
	}
}

// op is one operation on the resource's kind.
func (b *openAPIResource) op(action, desc, id string, params []openAPIParameter, body *openAPIRequestBody, resp map[string]openAPIResponse) *openAPIOperation {
	gvk := newOpenAPIGVK(b.res.Kind)
	return &openAPIOperation{
		Description: desc, OperationID: id, Parameters: params, RequestBody: body, Responses: resp,
		Tags: []string{b.tag}, Action: action, GVK: &gvk,
	}
}

// body is the request body of a create or replace: the kind itself.
func (b *openAPIResource) body() *openAPIRequestBody {
	return &openAPIRequestBody{Content: map[string]openAPIMedia{"*/*": {Schema: openAPISchema{Ref: b.object}}}, Required: true}
}

// openAPIPatchBody is the request body of a patch, by patch type.
func openAPIPatchBody() *openAPIRequestBody {
	body := &openAPIRequestBody{Content: map[string]openAPIMedia{}, Required: true}
	for _, t := range []string{"application/apply-patch+yaml", "application/json-patch+json", "application/merge-patch+json", "application/strategic-merge-patch+json"} {
		body.Content[t] = openAPIMedia{Schema: openAPISchema{Ref: "#/components/schemas/" + metaSchemaPrefix + "Patch"}}
	}
	return body
}

// openAPIDeleteBody is the optional DeleteOptions body of a delete.
func openAPIDeleteBody() *openAPIRequestBody {
	return &openAPIRequestBody{Content: map[string]openAPIMedia{"*/*": {Schema: openAPISchema{Ref: "#/components/schemas/" + metaSchemaPrefix + "DeleteOptions"}}}}
}

// openAPIResponses maps each status code to the schema ref in every served
// media type, plus the 401 kube-apiserver documents on every operation.
func openAPIResponses(ref string, codes ...int) map[string]openAPIResponse {
	out := map[string]openAPIResponse{"401": {Description: "Unauthorized"}}
	for _, code := range codes {
		content := map[string]openAPIMedia{}
		for _, t := range []string{"application/json", "application/vnd.kubernetes.protobuf", "application/yaml"} {
			content[t] = openAPIMedia{Schema: openAPISchema{Ref: ref}}
		}
		out[strconv.Itoa(code)] = openAPIResponse{Description: http.StatusText(code), Content: content}
	}
	return out
}

// openAPIQuery builds query parameters of one schema type.
func openAPIQuery(typ string, names ...string) []openAPIParameter {
	ps := make([]openAPIParameter, 0, len(names))
	for _, n := range names {
		ps = append(ps, openAPIParameter{Name: n, In: "query", Schema: openAPISchema{Type: typ, UniqueItems: true}})
	}
	return ps
}

// openAPIQueryString is the schema kube-apiserver gives string parameters.
func openAPIQueryString() openAPISchema { return openAPISchema{Type: "string", UniqueItems: true} }

// openAPIListParams are the query parameters of list and watch.
func openAPIListParams() []openAPIParameter {
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
func openAPIWriteParams() []openAPIParameter {
	return openAPIQuery("string", "dryRun", "fieldManager", "fieldValidation")
}

// openAPIPatchParams are the query parameters of a patch.
func openAPIPatchParams() []openAPIParameter {
	return append(openAPIWriteParams(), openAPIQuery("boolean", "force")...)
}

// openAPIDeleteParams are the query parameters of a delete.
func openAPIDeleteParams() []openAPIParameter {
	return slices.Concat(
		openAPIQuery("string", "dryRun"),
		openAPIQuery("integer", "gracePeriodSeconds"),
		openAPIQuery("boolean", "orphanDependents"),
		openAPIQuery("string", "propagationPolicy"))
}

// openAPIDeleteCollectionParams are the query parameters of a
// deletecollection: a delete's and a list's, without watch.
func openAPIDeleteCollectionParams() []openAPIParameter {
	list := slices.DeleteFunc(openAPIListParams(), func(p openAPIParameter) bool {
		return p.Name == "watch" || p.Name == "allowWatchBookmarks"
	})
	return append(openAPIDeleteParams(), list...)
}

// newOpenAPIGVK is the x-kubernetes-group-version-kind of gvk.
func newOpenAPIGVK(gvk schema.GroupVersionKind) openAPIGVK {
	return openAPIGVK{Group: gvk.Group, Kind: gvk.Kind, Version: gvk.Version}
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
