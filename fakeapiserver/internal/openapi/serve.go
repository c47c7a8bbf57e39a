package openapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"maps"
	"net/http"
	"net/url"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/munnerz/goautoneg"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/kube-openapi/pkg/handler3"

	"github.com/lw-sim/lw-sim/fakeapiserver/internal/etag"
)

// Serve answers /openapi/v2 (kube-openapi's handler) and
// /openapi/v3[/<path>]; it returns false, writing nothing, for any other
// path.
func (o *Service) Serve(w http.ResponseWriter, r *http.Request) bool {
	p := r.URL.Path
	if p != v2Path && p != v3Prefix && !strings.HasPrefix(p, v3Prefix+"/") {
		return false
	}
	// kube-apiserver's WithCacheControl filter marks every answer
	// no-cache, private before the handler runs; the handler of a hashed
	// v3 URL replaces it with public, immutable.
	w.Header().Set("Cache-Control", "no-cache, private")
	switch {
	case p == v2Path:
		o.v2Handler.ServeHTTP(w, r)
	case p == v3Prefix:
		o.serveV3Root(w, r)
	case strings.HasPrefix(p, v3Prefix+"/"):
		o.serveV3Doc(w, r, strings.TrimPrefix(p, v3Prefix+"/"))
	}
	return true
}

// v3Discovery is handler3.OpenAPIV3Discovery of the published documents
// (the JSON of each is computed for its hash).
func (o *Service) v3Discovery() ([]byte, error) {
	o.mu.Lock()
	docs := maps.Clone(o.v3)
	o.mu.Unlock()
	root := handler3.OpenAPIV3Discovery{Paths: make(map[string]handler3.OpenAPIV3DiscoveryGroupVersion, len(docs))}
	for p, doc := range docs {
		j, err := doc.json()
		if errors.Is(err, errUnbuilt) {
			continue
		}
		if err != nil {
			return nil, err
		}
		root.Paths[p] = handler3.OpenAPIV3DiscoveryGroupVersion{ServerRelativeURL: docURL(p, etag.Of(j))}
	}
	return json.Marshal(root)
}

// serveV3Root answers /openapi/v3 as handler3's HandleDiscovery: the path
// and hashed URL of every document, with an ETag and conditional GET.
func (o *Service) serveV3Root(w http.ResponseWriter, r *http.Request) {
	body, err := o.v3Discovery()
	if err != nil {
		w.WriteHeader(http.StatusInternalServerError)
		return
	}
	w.Header().Set("Etag", strconv.Quote(etag.Of(body)))
	w.Header().Set("Content-Type", "application/json")
	http.ServeContent(w, r, v3Prefix, time.Time{}, bytes.NewReader(body))
}

// v3Formats are the media types handler3 serves documents in, in
// its order of preference.
var v3Formats = []struct{ subType, contentType string }{
	{"json", "application/json"},
	{"com.github.proto-openapi.spec.v3.v1.0+protobuf", "application/com.github.proto-openapi.spec.v3.v1.0+protobuf"},
	{"com.github.proto-openapi.spec.v3@v1.0+protobuf", "application/com.github.proto-openapi.spec.v3.v1.0+protobuf"},
}

// serveV3Doc answers /openapi/v3/<p> as handler3's HandleGroupVersion:
// the first Accept clause it can serve (406 if none), a 301 to the current
// URL when ?hash= is stale, immutable caching when it is current, and
// http.ServeContent's conditional GET. An unknown document is
// kube-apiserver's empty 404.
func (o *Service) serveV3Doc(w http.ResponseWriter, r *http.Request, p string) {
	o.mu.Lock()
	doc, ok := o.v3[p]
	o.mu.Unlock()
	if ok {
		_, err := doc.json()
		ok = !errors.Is(err, errUnbuilt)
	}
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
		for _, f := range v3Formats {
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
			hash := etag.Of(j)
			w.Header().Set("Content-Type", f.contentType)
			w.Header().Set("Etag", strconv.Quote(hash))
			if q := r.URL.Query().Get("hash"); q != "" {
				if q != hash {
					http.Redirect(w, r, docURL(p, hash), http.StatusMovedPermanently)
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

// docURL is handler3's constructServerRelativeURL.
func docURL(p, hash string) string {
	u := url.URL{Path: path.Join(v3Prefix, p), RawQuery: url.Values{"hash": {hash}}.Encode()}
	return u.String()
}

// GroupVersionPath is client-go openapi3's gvToAPIPath.
func GroupVersionPath(gv schema.GroupVersion) string {
	if gv.Group == "" {
		return "api/" + gv.Version
	}
	return "apis/" + gv.Group + "/" + gv.Version
}
