package openapi

import (
	"bytes"
	"compress/gzip"
	"embed"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// The /openapi/v2 document of the default composition, prebuilt: what the
// lazy path (composeV2, encodeV2) serves for a server whose published
// group-versions are exactly the prebuilt set, each with kube-apiserver's
// captured part (no CRD, no generated group-version). fakeapiserver's
// TestOpenAPIV2Prebuilt builds it again from fakeapiserver.DefaultGroupVersions
// and fails on any difference, so it cannot go stale; `go generate
// ./fakeapiserver` rewrites it.
//
// Converting the 2 MB of JSON to protobuf (handler.ToProtoBinary: gnostic
// parses it as YAML) takes 0.4 s on a quiet machine and 20 s under -race
// on a busy one, and kubectl asks for the protobuf form first (apply,
// create and explain validate against it): every fresh server would pay
// it again. Served prebuilt, the first answer costs a decompression per
// process and a copy per server.

// prebuiltDir holds the prebuilt document: manifest.json (its
// group-versions and ETag), v2.json.gz and v2.pb.gz.
const prebuiltDir = "prebuilt"

//go:embed prebuilt
var prebuiltFiles embed.FS

// PrebuiltV2 is the /openapi/v2 document of one composition in the forms
// it is served in.
type PrebuiltV2 struct {
	// GroupVersions are the published group-versions, sorted by their
	// string form ("apps/v1", "v1").
	GroupVersions []string `json:"groupVersions"`
	// ETag is kube-openapi's ETag of JSON (upper-case hex SHA-512).
	ETag     string `json:"etag"`
	JSON     []byte `json:"-"`
	Protobuf []byte `json:"-"`
}

// prebuiltManifest is the prebuilt document's manifest.json: the
// composition it is for and its ETag, read without decompressing the
// document.
var prebuiltManifest = sync.OnceValues(func() (*PrebuiltV2, error) {
	raw, err := prebuiltFiles.ReadFile(prebuiltDir + "/manifest.json")
	if err != nil {
		return nil, fmt.Errorf("openapi: prebuilt /openapi/v2: %w", err)
	}
	m := &PrebuiltV2{}
	if err := json.Unmarshal(raw, m); err != nil {
		return nil, fmt.Errorf("openapi: prebuilt /openapi/v2 manifest: %w", err)
	}
	return m, nil
})

// prebuiltJSON and prebuiltProto are the prebuilt document's two forms.
// Their files are compressed as kube-openapi's gzip handler compresses
// (gzipV2), so a client that accepts gzip is sent them as they are; the
// raw bytes are decompressed when first asked for. Each is made once per
// process: immutable data from the binary, like the captured documents,
// which servers only read.
var (
	prebuiltJSON  = prebuiltBody("v2.json.gz")
	prebuiltProto = prebuiltBody("v2.pb.gz")
)

// prebuiltBody is the body in the prebuilt file name.
func prebuiltBody(name string) v2Body {
	z := sync.OnceValues(func() ([]byte, error) {
		b, err := prebuiltFiles.ReadFile(prebuiltDir + "/" + name)
		if err != nil {
			return nil, fmt.Errorf("openapi: prebuilt /openapi/v2: %w", err)
		}
		return b, nil
	})
	return v2Body{gzip: z, raw: sync.OnceValues(func() ([]byte, error) {
		b, err := z()
		if err != nil {
			return nil, err
		}
		return gunzip(name, b)
	})}
}

// EmbeddedPrebuiltV2 returns the prebuilt document the binary carries.
func EmbeddedPrebuiltV2() (*PrebuiltV2, error) {
	m, err := prebuiltManifest()
	if err != nil {
		return nil, err
	}
	j, err := prebuiltJSON.raw()
	if err != nil {
		return nil, err
	}
	p, err := prebuiltProto.raw()
	if err != nil {
		return nil, err
	}
	return &PrebuiltV2{GroupVersions: m.GroupVersions, ETag: m.ETag, JSON: j, Protobuf: p}, nil
}

// BuildPrebuiltV2 builds the document of gvs, each with its captured
// part, the slow way: composed, encoded and converted to protobuf as the
// lazy path does for any composition.
func BuildPrebuiltV2(gvs []schema.GroupVersion) (*PrebuiltV2, error) {
	parts := map[schema.GroupVersion]v2Part{}
	for _, gv := range gvs {
		parts[gv] = capturedV2PartOf(gv)
	}
	sw, err := composeV2(parts)
	if err != nil {
		return nil, err
	}
	doc, err := encodeV2(sw, time.Time{})
	if err != nil {
		return nil, err
	}
	j, err := doc.json.raw()
	if err != nil {
		return nil, err
	}
	p, err := doc.proto.raw()
	if err != nil {
		return nil, fmt.Errorf("openapi: /openapi/v2 to protobuf: %w", err)
	}
	return &PrebuiltV2{GroupVersions: groupVersionStrings(parts), ETag: doc.etag, JSON: j, Protobuf: p}, nil
}

// WriteTo writes p as the prebuilt document into dir (the package's
// prebuilt directory), compressed as the gzip handler compresses.
func (p *PrebuiltV2) WriteTo(dir string) error {
	m, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return err
	}
	files := map[string][]byte{"manifest.json": append(m, '\n')}
	for name, body := range map[string][]byte{"v2.json.gz": p.JSON, "v2.pb.gz": p.Protobuf} {
		z, err := gzipV2(body)
		if err != nil {
			return err
		}
		files[name] = z
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), body, 0o644); err != nil {
			return fmt.Errorf("openapi: write prebuilt /openapi/v2: %w", err)
		}
	}
	return nil
}

// prebuiltFor returns the prebuilt document when parts is its
// composition: the same group-versions, every one with its captured part.
func prebuiltFor(parts map[schema.GroupVersion]v2Part, now time.Time) (*v2Doc, bool, error) {
	m, err := prebuiltManifest()
	if err != nil {
		return nil, false, err
	}
	for _, p := range parts {
		if !p.captured {
			return nil, false, nil
		}
	}
	if !slices.Equal(groupVersionStrings(parts), m.GroupVersions) {
		return nil, false, nil
	}
	return &v2Doc{
		etag:         m.ETag,
		json:         prebuiltJSON,
		proto:        prebuiltProto,
		lastModified: now,
	}, true, nil
}

// groupVersionStrings lists the group-versions of parts, sorted.
func groupVersionStrings(parts map[schema.GroupVersion]v2Part) []string {
	out := make([]string, 0, len(parts))
	for gv := range parts {
		out = append(out, gv.String())
	}
	slices.Sort(out)
	return out
}

// gunzip decompresses the prebuilt file name, whose bytes are z.
func gunzip(name string, z []byte) ([]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(z))
	if err != nil {
		return nil, fmt.Errorf("openapi: prebuilt %s: %w", name, err)
	}
	out, err := io.ReadAll(zr)
	if err != nil {
		return nil, fmt.Errorf("openapi: prebuilt %s: %w", name, err)
	}
	return out, nil
}
