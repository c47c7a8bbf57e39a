package openapi

import (
	"encoding/json"
	"errors"
	"maps"
	"net/http"
	"sync"

	"github.com/NYTimes/gziphandler"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/kube-openapi/pkg/cached"
	"k8s.io/kube-openapi/pkg/handler3"
	"k8s.io/kube-openapi/pkg/spec3"
	"k8s.io/kube-openapi/pkg/validation/spec"
	"k8s.io/utils/clock"
)

const (
	// v2Path and v3Prefix are where kube-apiserver serves
	// OpenAPI (kube-openapi pkg/handler and pkg/handler3).
	v2Path   = "/openapi/v2"
	v3Prefix = "/openapi/v3"
)

// Service serves /openapi/v2 as kube-openapi's handler does (ETag, 304,
// JSON and protobuf, gzip, as kube-apiserver; see serveV2), and
// /openapi/v3 as kube-openapi's handler3 does, but from document bytes:
// kube-apiserver's own v3 documents are served byte for byte, so their
// hashes agree with it and no server re-encodes megabytes of JSON; the v2
// document of the default composition is served prebuilt (prebuilt.go),
// any other is composed and encoded when first asked for. Group-versions
// are published and withdrawn at runtime (CRDs do), and both versions
// follow.
//
// Its methods are safe for concurrent use: [Service.Serve] answers
// requests, [Service.AddGroupVersion] and [Service.RemoveGroupVersion]
// publish and withdraw a group-version ([Service.SyncCustomResources] does
// both for CRDs).
//
// Several CRDs of one group-version share its documents: the caller merges
// their specs (apiextensions-apiserver's builder.MergeSpecsV3 does) and
// publishes the result.
type Service struct {
	// v2 is the current /openapi/v2 generation, built on first use; the
	// last one built is served if a later one cannot be.
	v2        cached.LastSuccess[*v2Doc]
	v2Handler http.Handler       // serveV2 behind kube-openapi's gzip handler
	clock     clock.PassiveClock // for the Expires of hashed v3 URLs and v2's Last-Modified

	// mu guards the fields below and serialises publishing.
	mu sync.Mutex
	// v3 are the published v3 documents by root path ("api/v1").
	v3 map[string]*v3Doc
	// v2Parts are the published group-versions' v2 contributions.
	v2Parts map[schema.GroupVersion]v2Part
}

// v2Part is a published group-version's contribution to /openapi/v2,
// loaded on demand (nil load: none); captured marks kube-apiserver's own
// (capturedV2PartOf), which the prebuilt document is made of.
type v2Part struct {
	load     func() (*V2Part, error)
	captured bool
}

// v3Doc is one v3 document, encoded on first use.
type v3Doc struct {
	json  func() ([]byte, error)
	proto func() ([]byte, error)
}

// errUnbuilt is the error of a v3 document that could not be built: the
// document is treated as not published (not listed, 404).
var errUnbuilt = errors.New("openapi: document not built")

// newV3Doc wraps a document's JSON source; its protobuf form is
// derived from the JSON as handler3 derives it.
func newV3Doc(source func() ([]byte, error)) *v3Doc {
	d := &v3Doc{json: sync.OnceValues(source)}
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
func specDoc(spec *spec3.OpenAPI) *v3Doc {
	return newV3Doc(func() ([]byte, error) { return json.Marshal(spec) })
}

// NewService publishes the server-wide documents and, for each
// served group-version, kube-apiserver's own documents where captured
// (internal/captured), else the v3 document generate returns (see
// [Generate]) and its part of /openapi/v2 derived from it.
// Nothing is decoded or encoded until a client asks.
func NewService(clk clock.PassiveClock, gvs []schema.GroupVersion, generate func(schema.GroupVersion) *spec3.OpenAPI) (*Service, error) {
	o := &Service{
		clock:   clk,
		v3:      map[string]*v3Doc{},
		v2Parts: map[schema.GroupVersion]v2Part{},
	}
	// kube-openapi's handler wraps itself in this gzip handler: it
	// compresses /openapi/v2 for any client that accepts gzip, at its own
	// level and threshold, not kube-apiserver's.
	o.v2Handler = gziphandler.GzipHandler(http.HandlerFunc(o.serveV2))
	o.v2.Store(o.composeV2Locked())
	captured, err := capturedOpenAPIV3()
	if err != nil {
		return nil, err
	}
	for _, p := range []string{"api", "apis", "version"} {
		o.v3[p] = captured[p]
	}
	for _, gv := range gvs {
		if doc, ok := captured[GroupVersionPath(gv)]; ok {
			o.publish(gv, doc, capturedV2PartOf(gv))
			continue
		}
		doc := generate(gv)
		o.publish(gv, specDoc(doc), v2Part{load: sync.OnceValues(generatedV2Part(doc))})
	}
	return o, nil
}

// capturedV2PartOf is gv's part of the captured v2 document.
func capturedV2PartOf(gv schema.GroupVersion) v2Part {
	return v2Part{captured: true, load: func() (*V2Part, error) {
		c, err := capturedOpenAPIV2()
		if err != nil {
			return nil, err
		}
		return c.parts[gv], nil
	}}
}

// AddGroupVersion publishes gv's documents; see [Service]. v2 runs
// without o.mu held, from the goroutine serving /openapi/v2; it is
// memoised, as later v2 generations reuse the part of a group-version that
// has not changed.
func (o *Service) AddGroupVersion(gv schema.GroupVersion, v3 *spec3.OpenAPI, v2 func() (*V2Part, error)) {
	o.publish(gv, specDoc(v3), v2Part{load: sync.OnceValues(v2)})
}

// RemoveGroupVersion withdraws gv's documents; see [Service].
func (o *Service) RemoveGroupVersion(gv schema.GroupVersion) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if _, ok := o.v2Parts[gv]; !ok {
		return
	}
	delete(o.v2Parts, gv)
	delete(o.v3, GroupVersionPath(gv))
	if gv.Group != "" && !o.servesGroupLocked(gv.Group) {
		delete(o.v3, "apis/"+gv.Group)
	}
	o.v2.Store(o.composeV2Locked())
}

// publish publishes gv with lazily encoded documents.
func (o *Service) publish(gv schema.GroupVersion, v3 *v3Doc, v2 v2Part) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if gv.Group != "" && !o.servesGroupLocked(gv.Group) {
		o.v3["apis/"+gv.Group] = groupDocument(gv.Group)
	}
	o.v2Parts[gv] = v2
	o.v3[GroupVersionPath(gv)] = v3
	o.v2.Store(o.composeV2Locked())
}

// servesGroupLocked reports whether any version of group is published.
func (o *Service) servesGroupLocked(group string) bool {
	for gv := range o.v2Parts {
		if gv.Group == group {
			return true
		}
	}
	return false
}

// groupDocument is the /openapi/v3/apis/<group> document: kube-apiserver's
// where captured, else a generated one of the same shape.
func groupDocument(group string) *v3Doc {
	if captured, err := capturedOpenAPIV3(); err == nil {
		if doc, ok := captured["apis/"+group]; ok {
			return doc
		}
	}
	return specDoc(openAPIGroupSpec(group))
}

// composeV2Locked returns the /openapi/v2 document of what is published
// now, built when first asked for: the prebuilt one when it is of this
// composition, else the captured server-wide part plus each published
// group-version's paths and definitions and the group paths of their
// groups (composeV2), encoded as kube-openapi's handler encodes it.
func (o *Service) composeV2Locked() cached.Value[*v2Doc] {
	parts := maps.Clone(o.v2Parts)
	return cached.Once(cached.Func(func() (*v2Doc, string, error) {
		now := o.clock.Now()
		if doc, ok, err := prebuiltFor(parts, now); ok || err != nil {
			return doc, "", err
		}
		sw, err := composeV2(parts)
		if err != nil {
			return nil, "", err
		}
		doc, err := encodeV2(sw, now)
		return doc, "", err
	}))
}

// composeV2 is the document of parts: the captured server-wide part plus
// each part's paths and definitions and the group paths of its group.
func composeV2(parts map[schema.GroupVersion]v2Part) (*spec.Swagger, error) {
	c, err := capturedOpenAPIV2()
	if err != nil {
		return nil, err
	}
	doc := *c.base
	doc.Paths = &spec.Paths{Paths: maps.Clone(c.base.Paths.Paths)}
	doc.Definitions = maps.Clone(c.base.Definitions)
	for gv, p := range parts {
		maps.Copy(doc.Paths.Paths, c.groupPaths[gv.Group])
		if p.load == nil {
			continue
		}
		part, err := p.load()
		if err != nil {
			return nil, err
		}
		if part != nil {
			maps.Copy(doc.Paths.Paths, part.Paths)
			maps.Copy(doc.Definitions, part.Definitions)
		}
	}
	return &doc, nil
}
