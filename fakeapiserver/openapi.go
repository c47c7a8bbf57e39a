package fakeapiserver

import (
	"bytes"
	"encoding/json"
	"maps"
	"net/http"
	"net/url"
	"path"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/munnerz/goautoneg"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/kube-openapi/pkg/cached"
	"k8s.io/kube-openapi/pkg/handler"
	"k8s.io/kube-openapi/pkg/handler3"
	"k8s.io/kube-openapi/pkg/spec3"
	"k8s.io/kube-openapi/pkg/validation/spec"
	"k8s.io/utils/clock"
)

const (
	// openAPIV2Path and openAPIV3Prefix are where kube-apiserver serves
	// OpenAPI (kube-openapi pkg/handler and pkg/handler3).
	openAPIV2Path   = "/openapi/v2"
	openAPIV3Prefix = "/openapi/v3"
)

// openAPIService serves /openapi/v2 with kube-openapi's handler (ETag, 304,
// JSON and protobuf, as kube-apiserver), and /openapi/v3 as kube-openapi's
// handler3 does, but from document bytes: kube-apiserver's own documents
// are served byte for byte, so their hashes agree with it and no server
// re-encodes megabytes of JSON. Group-versions are published and withdrawn
// at runtime (CRDs do), and both versions follow.
//
// The internal API, safe for concurrent use:
//
//	addGroupVersion(gv, v3, v2)  publish gv: v3 is its /openapi/v3/<api|apis/g>/<v>
//	                             document, v2 builds its /openapi/v2 paths and
//	                             definitions (nil part: none) when /openapi/v2 is
//	                             first served after this, at most once; replaces
//	                             what gv had. The first version of a group also
//	                             publishes /openapi/v3/apis/<g>.
//	removeGroupVersion(gv)       withdraw gv from both (and the group document with
//	                             the group's last version).
//
// Several CRDs of one group-version share its documents: the caller merges
// their specs (apiextensions-apiserver's builder.MergeSpecsV3 does) and
// publishes the result.
type openAPIService struct {
	v2    *handler.OpenAPIService
	mux   *http.ServeMux
	clock clock.PassiveClock // for the Expires of hashed v3 URLs

	// mu guards the fields below and serialises publishing.
	mu sync.Mutex
	// v3 are the published v3 documents by root path ("api/v1").
	v3 map[string]*openAPIV3Doc
	// v2Parts are the published group-versions' v2 contributions, loaded
	// on demand (nil func: none).
	v2Parts map[schema.GroupVersion]func() (*openAPIV2Part, error)
	// generation makes each composed v2 document's ETag input unique.
	generation int
}

// openAPIV3Doc is one v3 document, encoded on first use.
type openAPIV3Doc struct {
	json  func() ([]byte, error)
	proto func() ([]byte, error)
}

// newOpenAPIV3Doc wraps a document's JSON source; its protobuf form is
// derived from the JSON as handler3 derives it.
func newOpenAPIV3Doc(source func() ([]byte, error)) *openAPIV3Doc {
	d := &openAPIV3Doc{json: sync.OnceValues(source)}
	d.proto = sync.OnceValues(func() ([]byte, error) {
		j, err := d.json()
		if err != nil {
			return nil, err
		}
		return handler3.ToV3ProtoBinary(j)
	})
	return d
}

// specDoc is a v3 document of a spec3.OpenAPI, marshalled as handler3 does.
func specDoc(spec *spec3.OpenAPI) *openAPIV3Doc {
	return newOpenAPIV3Doc(func() ([]byte, error) { return json.Marshal(spec) })
}

// newOpenAPIService publishes the server-wide documents and, for each
// served group-version, kube-apiserver's own documents where captured
// (captured/README.md), else generated ones (openapi_generate.go). Nothing
// is decoded or encoded until a client asks.
func newOpenAPIService(clk clock.PassiveClock, gvs []schema.GroupVersion, generate func(schema.GroupVersion) *spec3.OpenAPI) (*openAPIService, error) {
	o := &openAPIService{
		clock:   clk,
		mux:     http.NewServeMux(),
		v3:      map[string]*openAPIV3Doc{},
		v2Parts: map[schema.GroupVersion]func() (*openAPIV2Part, error){},
	}
	o.v2 = handler.NewOpenAPIServiceLazy(o.composeV2Locked())
	o.v2.RegisterOpenAPIVersionedService(openAPIV2Path, o.mux)
	captured, err := capturedOpenAPIV3()
	if err != nil {
		return nil, err
	}
	for _, p := range []string{"api", "apis", "version"} {
		o.v3[p] = captured[p]
	}
	for _, gv := range gvs {
		if doc, ok := captured[openAPIGroupVersionPath(gv)]; ok {
			o.publish(gv, doc, capturedV2Part(gv))
			continue
		}
		o.publish(gv, specDoc(generate(gv)), nil)
	}
	return o, nil
}

// capturedV2Part loads gv's part of the captured v2 document.
func capturedV2Part(gv schema.GroupVersion) func() (*openAPIV2Part, error) {
	return func() (*openAPIV2Part, error) {
		c, err := capturedOpenAPIV2()
		if err != nil {
			return nil, err
		}
		return c.parts[gv], nil
	}
}

// addGroupVersion publishes gv's documents; see [openAPIService]. v2 runs
// without o.mu held, from the goroutine serving /openapi/v2; it is
// memoised, as later v2 generations reuse the part of a group-version that
// has not changed.
func (o *openAPIService) addGroupVersion(gv schema.GroupVersion, v3 *spec3.OpenAPI, v2 func() (*openAPIV2Part, error)) {
	o.publish(gv, specDoc(v3), sync.OnceValues(v2))
}

// removeGroupVersion withdraws gv's documents; see [openAPIService].
func (o *openAPIService) removeGroupVersion(gv schema.GroupVersion) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if _, ok := o.v2Parts[gv]; !ok {
		return
	}
	delete(o.v2Parts, gv)
	delete(o.v3, openAPIGroupVersionPath(gv))
	if gv.Group != "" && !o.servesGroupLocked(gv.Group) {
		delete(o.v3, "apis/"+gv.Group)
	}
	o.v2.UpdateSpecLazy(o.composeV2Locked())
}

// publish publishes gv with lazily encoded documents.
func (o *openAPIService) publish(gv schema.GroupVersion, v3 *openAPIV3Doc, v2 func() (*openAPIV2Part, error)) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if gv.Group != "" && !o.servesGroupLocked(gv.Group) {
		o.v3["apis/"+gv.Group] = groupDocument(gv.Group)
	}
	o.v2Parts[gv] = v2
	o.v3[openAPIGroupVersionPath(gv)] = v3
	o.v2.UpdateSpecLazy(o.composeV2Locked())
}

// servesGroupLocked reports whether any version of group is published.
func (o *openAPIService) servesGroupLocked(group string) bool {
	for gv := range o.v2Parts {
		if gv.Group == group {
			return true
		}
	}
	return false
}

// groupDocument is the /openapi/v3/apis/<group> document: kube-apiserver's
// where captured, else a generated one of the same shape.
func groupDocument(group string) *openAPIV3Doc {
	if captured, err := capturedOpenAPIV3(); err == nil {
		if doc, ok := captured["apis/"+group]; ok {
			return doc
		}
	}
	return specDoc(openAPIGroupSpec(group))
}

// composeV2Locked returns the /openapi/v2 document of what is published
// now, computed when first asked for: the captured server-wide part, plus
// each published group-version's paths and definitions and the group paths
// of their groups.
func (o *openAPIService) composeV2Locked() cached.Value[*spec.Swagger] {
	parts := maps.Clone(o.v2Parts)
	o.generation++
	etag := "v2-" + strconv.Itoa(o.generation)
	return cached.Once(cached.Func(func() (*spec.Swagger, string, error) {
		c, err := capturedOpenAPIV2()
		if err != nil {
			return nil, "", err
		}
		doc := *c.base
		doc.Paths = &spec.Paths{Paths: maps.Clone(c.base.Paths.Paths)}
		doc.Definitions = maps.Clone(c.base.Definitions)
		for gv, load := range parts {
			maps.Copy(doc.Paths.Paths, c.groupPaths[gv.Group])
			if load == nil {
				continue
			}
			part, err := load()
			if err != nil {
				return nil, "", err
			}
			if part != nil {
				maps.Copy(doc.Paths.Paths, part.Paths)
				maps.Copy(doc.Definitions, part.Definitions)
			}
		}
		return &doc, etag, nil
	}))
}

// serveOpenAPI answers /openapi/v2 (kube-openapi's handler) and
// /openapi/v3[/<path>]. ok is false for other paths under /openapi/.
func (s *Server) serveOpenAPI(w http.ResponseWriter, r *http.Request) bool {
	switch p := r.URL.Path; {
	case p == openAPIV2Path:
		s.openapi.mux.ServeHTTP(w, r)
	case p == openAPIV3Prefix:
		s.openapi.serveV3Root(w, r)
	case strings.HasPrefix(p, openAPIV3Prefix+"/"):
		s.openapi.serveV3Doc(w, r, strings.TrimPrefix(p, openAPIV3Prefix+"/"))
	default:
		return false
	}
	return true
}

// v3Discovery is handler3.OpenAPIV3Discovery of the published documents
// (the JSON of each is computed for its hash).
func (o *openAPIService) v3Discovery() ([]byte, error) {
	o.mu.Lock()
	docs := maps.Clone(o.v3)
	o.mu.Unlock()
	root := handler3.OpenAPIV3Discovery{Paths: make(map[string]handler3.OpenAPIV3DiscoveryGroupVersion, len(docs))}
	for p, doc := range docs {
		j, err := doc.json()
		if err != nil {
			return nil, err
		}
		root.Paths[p] = handler3.OpenAPIV3DiscoveryGroupVersion{ServerRelativeURL: openAPIDocURL(p, contentHash(j))}
	}
	return json.Marshal(root)
}

// serveV3Root answers /openapi/v3 as handler3's HandleDiscovery: the path
// and hashed URL of every document, with an ETag and conditional GET.
func (o *openAPIService) serveV3Root(w http.ResponseWriter, r *http.Request) {
	body, err := o.v3Discovery()
	if err != nil {
		w.WriteHeader(http.StatusInternalServerError)
		return
	}
	w.Header().Set("Etag", strconv.Quote(contentHash(body)))
	w.Header().Set("Content-Type", "application/json")
	http.ServeContent(w, r, openAPIV3Prefix, time.Time{}, bytes.NewReader(body))
}

// openAPIV3Formats are the media types handler3 serves documents in, in
// its order of preference.
var openAPIV3Formats = []struct{ subType, contentType string }{
	{"json", "application/json"},
	{"com.github.proto-openapi.spec.v3.v1.0+protobuf", "application/com.github.proto-openapi.spec.v3.v1.0+protobuf"},
	{"com.github.proto-openapi.spec.v3@v1.0+protobuf", "application/com.github.proto-openapi.spec.v3.v1.0+protobuf"},
}

// serveV3Doc answers /openapi/v3/<p> as handler3's HandleGroupVersion:
// the first Accept clause it can serve (406 if none), a 301 to the current
// URL when ?hash= is stale, immutable caching when it is current, and
// http.ServeContent's conditional GET. An unknown document is
// kube-apiserver's empty 404.
func (o *openAPIService) serveV3Doc(w http.ResponseWriter, r *http.Request, p string) {
	o.mu.Lock()
	doc, ok := o.v3[p]
	o.mu.Unlock()
	if !ok {
		w.WriteHeader(http.StatusNotFound)
		return
	}
	accept := r.Header.Get("Accept")
	if accept == "" {
		accept = "*/*"
	}
	w.Header().Add("Vary", "Accept")
	for _, clause := range goautoneg.ParseAccept(accept) {
		for _, f := range openAPIV3Formats {
			if (clause.Type != "application" && clause.Type != "*") || (clause.SubType != f.subType && clause.SubType != "*") {
				continue
			}
			j, err := doc.json()
			body := j
			if err == nil && f.subType != "json" {
				body, err = doc.proto()
			}
			if err != nil {
				w.WriteHeader(http.StatusInternalServerError)
				return
			}
			hash := contentHash(j)
			w.Header().Set("Content-Type", f.contentType)
			w.Header().Set("Etag", strconv.Quote(hash))
			if q := r.URL.Query().Get("hash"); q != "" {
				if q != hash {
					http.Redirect(w, r, openAPIDocURL(p, hash), http.StatusMovedPermanently)
					return
				}
				w.Header().Set("Cache-Control", "public, immutable")
				w.Header().Set("Expires", o.clock.Now().AddDate(1, 0, 0).Format(time.RFC1123))
			}
			http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(body))
			return
		}
	}
	w.WriteHeader(http.StatusNotAcceptable)
}

// openAPIDocURL is handler3's constructServerRelativeURL.
func openAPIDocURL(p, hash string) string {
	u := url.URL{Path: path.Join(openAPIV3Prefix, p), RawQuery: url.Values{"hash": {hash}}.Encode()}
	return u.String()
}

// openAPIGroupVersionPath is client-go openapi3's gvToAPIPath.
func openAPIGroupVersionPath(gv schema.GroupVersion) string {
	if gv.Group == "" {
		return "api/" + gv.Version
	}
	return "apis/" + gv.Group + "/" + gv.Version
}
