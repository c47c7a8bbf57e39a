package fakeapiserver

import (
	"bytes"
	"compress/gzip"
	"crypto/sha512"
	"embed"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"path"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/munnerz/goautoneg"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

const (
	// openAPIV3Prefix is where kube-apiserver serves OpenAPI v3
	// (kube-openapi pkg/handler3).
	openAPIV3Prefix = "/openapi/v3"
	// openAPIImmutableFor is how long a document fetched by its hash may be
	// cached: handler3 says one year, "effectively never expires".
	openAPIImmutableFor = 365 * 24 * time.Hour
	// embeddedOpenAPISuffix ends every embedded document's file name; the
	// rest is the document's root path with "/" written as "__", as in
	// kubernetes api/openapi-spec/v3.
	embeddedOpenAPISuffix = "_openapi.json.gz"
)

// embeddedOpenAPIFS holds kube-apiserver v1.37.2's own OpenAPI v3 documents
// for the default group-versions, copied gzip-compressed from
// k8s.io/kubernetes@v1.37.2/api/openapi-spec/v3 (see openapi/README.md).
//
//go:embed openapi/*.json.gz
var embeddedOpenAPIFS embed.FS

// embeddedOpenAPI decompresses the embedded documents once per process.
// It is package-level on purpose: the result is immutable data derived from
// the binary (not state a server could change), and decompressing ~4 MB of
// JSON for every server would slow down tests that start many.
var embeddedOpenAPI = sync.OnceValues(loadEmbeddedOpenAPI)

// openAPIDoc is one served OpenAPI v3 document.
type openAPIDoc struct {
	body []byte // compact JSON
	hash string // contentHash(body), the ?hash= of its URL and its ETag
}

// newOpenAPIDoc wraps a compact JSON document.
func newOpenAPIDoc(body []byte) openAPIDoc {
	return openAPIDoc{body: body, hash: contentHash(body)}
}

// contentHash is the uppercase hex SHA-512 that kube-openapi's handler3
// (computeETag) and aggregated discovery (calculateETag) use as ETag.
func contentHash(b []byte) string {
	return fmt.Sprintf("%X", sha512.Sum512(b))
}

// openAPIDiscovery is kube-openapi handler3.OpenAPIV3Discovery, the
// /openapi/v3 root document.
type openAPIDiscovery struct {
	Paths map[string]openAPIDiscoveryPath `json:"paths"`
}

// openAPIDiscoveryPath is handler3.OpenAPIV3DiscoveryGroupVersion.
type openAPIDiscoveryPath struct {
	ServerRelativeURL string `json:"serverRelativeURL"`
}

// loadEmbeddedOpenAPI reads every embedded document, keyed by root path
// ("api/v1", "apis/apps"), compacting it as kube-apiserver serves it.
func loadEmbeddedOpenAPI() (map[string]openAPIDoc, error) {
	names, err := fs.Glob(embeddedOpenAPIFS, "openapi/*"+embeddedOpenAPISuffix)
	if err != nil {
		return nil, err
	}
	docs := make(map[string]openAPIDoc, len(names))
	for _, name := range names {
		body, err := readGzipJSON(name)
		if err != nil {
			return nil, fmt.Errorf("fakeapiserver: embedded OpenAPI %s: %w", name, err)
		}
		key := strings.ReplaceAll(strings.TrimSuffix(path.Base(name), embeddedOpenAPISuffix), "__", "/")
		docs[key] = newOpenAPIDoc(body)
	}
	return docs, nil
}

// readGzipJSON decompresses one embedded file and compacts its JSON.
func readGzipJSON(name string) ([]byte, error) {
	f, err := embeddedOpenAPIFS.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil, err
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// serveOpenAPI answers /openapi/<rest>: v2 is a 404 (kubectl only falls
// back to it when v3 fails), v3 is the root or one document. ok is false for
// paths that name no document.
func (s *Server) serveOpenAPI(w http.ResponseWriter, r *http.Request, rest []string) bool {
	switch {
	case len(rest) == 1 && rest[0] == "v2":
		s.writeError(w, r, notFound())
		return true
	case len(rest) == 1 && rest[0] == "v3":
		s.serveOpenAPIRoot(w, r)
		return true
	case len(rest) > 1 && rest[0] == "v3":
		return s.serveOpenAPIDoc(w, r, strings.Join(rest[1:], "/"))
	}
	return false
}

// serveOpenAPIRoot answers /openapi/v3 with the path of every document and
// its hashed URL, with an ETag and conditional GET as handler3's
// HandleDiscovery.
func (s *Server) serveOpenAPIRoot(w http.ResponseWriter, r *http.Request) {
	docs, err := s.openAPIDocs()
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	root := openAPIDiscovery{Paths: make(map[string]openAPIDiscoveryPath, len(docs))}
	for p, doc := range docs {
		root.Paths[p] = openAPIDiscoveryPath{ServerRelativeURL: openAPIDocURL(p, doc.hash)}
	}
	body, err := json.Marshal(root)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	w.Header().Set("Etag", strconv.Quote(contentHash(body)))
	w.Header().Set("Content-Type", "application/json")
	http.ServeContent(w, r, openAPIV3Prefix, time.Time{}, bytes.NewReader(body))
}

// serveOpenAPIDoc answers /openapi/v3/<p> as handler3's HandleGroupVersion
// does: JSON only (the protobuf form is not served), a 301 to the current
// URL when ?hash= is stale, immutable caching when it is current, and the
// ETag and conditional GET of http.ServeContent. ok is false when p names
// no document.
func (s *Server) serveOpenAPIDoc(w http.ResponseWriter, r *http.Request, p string) bool {
	doc, ok, err := s.openAPIDoc(p)
	if err != nil {
		s.writeError(w, r, err)
		return true
	}
	if !ok {
		return false
	}
	w.Header().Add("Vary", "Accept")
	if !acceptsOpenAPIJSON(r.Header.Get("Accept")) {
		s.writeError(w, r, apierrors.NewGenericServerResponse(http.StatusNotAcceptable, "", schema.GroupResource{}, "",
			"only application/json is served for OpenAPI v3 documents", 0, false))
		return true
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Etag", strconv.Quote(doc.hash))
	if hash := r.URL.Query().Get("hash"); hash != "" {
		if hash != doc.hash {
			http.Redirect(w, r, openAPIDocURL(p, doc.hash), http.StatusMovedPermanently)
			return true
		}
		w.Header().Set("Cache-Control", "public, immutable")
		w.Header().Set("Expires", s.cfg.Clock.Now().Add(openAPIImmutableFor).UTC().Format(http.TimeFormat))
	}
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(doc.body))
	return true
}

// acceptsOpenAPIJSON reports whether an Accept header allows
// application/json (an empty header allows anything).
func acceptsOpenAPIJSON(header string) bool {
	if header == "" {
		return true
	}
	for _, c := range goautoneg.ParseAccept(header) {
		if (c.Type == "application" || c.Type == "*") && (c.SubType == "json" || c.SubType == "*") {
			return true
		}
	}
	return false
}

// openAPIDocURL is handler3's constructServerRelativeURL.
func openAPIDocURL(p, hash string) string {
	u := url.URL{Path: path.Join(openAPIV3Prefix, p), RawQuery: url.Values{"hash": {hash}}.Encode()}
	return u.String()
}

// openAPIPaths lists the root paths of the served documents: the
// server-wide ones, then each served group and group-version.
func (s *Server) openAPIPaths() []string {
	paths := []string{"api", "apis", "version"}
	for _, gv := range s.servedGroupVersions() {
		if gv.Group != "" && !slices.Contains(paths, "apis/"+gv.Group) {
			paths = append(paths, "apis/"+gv.Group)
		}
		paths = append(paths, openAPIGroupVersionPath(gv))
	}
	return paths
}

// openAPIGroupVersionPath is client-go openapi3's gvToAPIPath.
func openAPIGroupVersionPath(gv schema.GroupVersion) string {
	if gv.Group == "" {
		return "api/" + gv.Version
	}
	return "apis/" + gv.Group + "/" + gv.Version
}

// openAPIDocs returns every served document by root path.
func (s *Server) openAPIDocs() (map[string]openAPIDoc, error) {
	docs := map[string]openAPIDoc{}
	for _, p := range s.openAPIPaths() {
		doc, err := s.buildOpenAPIDoc(p)
		if err != nil {
			return nil, err
		}
		docs[p] = doc
	}
	return docs, nil
}

// openAPIDoc returns the document at root path p; ok is false when p is not
// served.
func (s *Server) openAPIDoc(p string) (doc openAPIDoc, ok bool, err error) {
	if !slices.Contains(s.openAPIPaths(), p) {
		return openAPIDoc{}, false, nil
	}
	doc, err = s.buildOpenAPIDoc(p)
	return doc, err == nil, err
}

// buildOpenAPIDoc returns the document at a served root path p:
// kube-apiserver's own when it is embedded, else one generated from the
// resource table.
func (s *Server) buildOpenAPIDoc(p string) (openAPIDoc, error) {
	embedded, err := embeddedOpenAPI()
	if err != nil {
		return openAPIDoc{}, err
	}
	if doc, ok := embedded[p]; ok {
		return doc, nil
	}
	var spec *openAPISpec
	switch parts := strings.Split(p, "/"); {
	case parts[0] == "api" && len(parts) == 2:
		spec = s.openAPIGroupVersionSpec(schema.GroupVersion{Version: parts[1]})
	case parts[0] == "apis" && len(parts) == 2:
		spec = openAPIGroupSpec(parts[1])
	case parts[0] == "apis" && len(parts) == 3:
		spec = s.openAPIGroupVersionSpec(schema.GroupVersion{Group: parts[1], Version: parts[2]})
	default:
		// Only the embedded server-wide documents have other shapes.
		return openAPIDoc{}, fmt.Errorf("fakeapiserver: no OpenAPI v3 document for %q", p)
	}
	body, err := json.Marshal(spec)
	if err != nil {
		return openAPIDoc{}, fmt.Errorf("fakeapiserver: OpenAPI v3 document %q: %w", p, err)
	}
	return newOpenAPIDoc(body), nil
}

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
