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
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

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
